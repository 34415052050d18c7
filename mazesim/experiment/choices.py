"""Choices at a probe mark (the study's Table 2, section 4.3): counts, shares, tests, power.

For one (agent, vision) and mark: the first departures per direction with 95 % Wilson intervals
(`binomtest`), the counts expected for the human group under the simulated shares (66 % of 14 =
9.2), an exact test of the simulated against the human counts (Fisher-Freeman-Halton: every
2 x k table with the same margins is enumerated, so the same counts give the same p), and the
power of the human sample to tell the simulated majority share from chance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import stats
from scipy.special import gammaln

from mazesim.maze import DIRECTIONS

__all__ = [
    "CONFIDENCE",
    "ALPHA",
    "TARGET_POWER",
    "MAX_PEOPLE",
    "MAX_EXACT_TABLES",
    "ChoiceCount",
    "Power",
    "ChoiceTest",
    "choice_test",
    "exact_test",
    "binomial_power",
    "people_needed",
    "wilson",
]

CONFIDENCE = 0.95
ALPHA = 0.05
"""Level of the tests whose power is reported."""
TARGET_POWER = 0.8
MAX_PEOPLE = 10_000
"""Largest group size searched by `people_needed`."""
MAX_EXACT_TABLES = 2_000_000
"""Most tables the exact test enumerates; larger samples get Pearson's chi-square."""
EXACT, CHI_SQUARE = "exact", "chi-square"
_RELATIVE_TIE = 1 + 1e-7     # tables this close to the observed probability count as equal (R)
_BOUND_SLACK = 1e-9          # rounding of the most powerful test's power, kept on the safe side


@dataclass(frozen=True)
class ChoiceCount:
    """One direction at a probe: simulated count and share with its interval, the human side."""

    direction: str
    count: int
    proportion: float
    ci_low: float
    ci_high: float
    expected_human: float
    human: int | None
    human_share: float
    human_ci_low: float
    human_ci_high: float


@dataclass(frozen=True)
class Power:
    """How well `people` could tell the simulated share of `direction` from `chance` (two-sided
    exact binomial test at level `alpha`); `people_for_target`: the fewest people reaching
    `TARGET_POWER` (None: more than `MAX_PEOPLE`)."""

    direction: str
    share: float
    chance: float
    people: int
    alpha: float
    power: float
    people_for_target: int | None


@dataclass(frozen=True)
class ChoiceTest:
    """First departures from a probe mark for one (agent, vision), against the human counts.

    `test` names the test of `fisher_p` ("exact", "chi-square", or "" with the reason in
    `note` when there is none).
    """

    agent: str
    vision: str
    mark: str
    n: int
    directions: tuple[ChoiceCount, ...]
    human_n: int
    fisher_p: float
    test: str
    note: str
    power: Power | None


def choice_test(agent: str, vision: str, mark: str, counts: Mapping[str, int],
                human: Mapping[str, int]) -> ChoiceTest:
    """Table 2 of the study for one probe; directions in the canonical order.

    Directions shown are those chosen by the simulation or the humans; the test uses the 2 x k
    table (simulated, human) over them.
    """
    shown = [d for d in DIRECTIONS if counts.get(d, 0) or d in human]
    n = int(sum(counts.get(d, 0) for d in DIRECTIONS))
    human_n = int(sum(human.values()))
    rows = []
    for d in shown:
        k = int(counts.get(d, 0))
        share, low, high = wilson(k, n)
        h = int(human[d]) if d in human else None
        h_share, h_low, h_high = wilson(h or 0, human_n)
        rows.append(ChoiceCount(d, k, share, low, high, share * human_n, h, h_share, h_low,
                                h_high))
    simulated = [int(counts.get(d, 0)) for d in shown]
    people = [int(human.get(d, 0)) for d in shown]
    p, test, note = _test(simulated, people)
    return ChoiceTest(agent, vision, mark, n, tuple(rows), human_n, p, test, note,
                      _power(shown, simulated, human_n) if test else None)


def wilson(k: int, n: int) -> tuple[float, float, float]:
    """k / n with its `CONFIDENCE` Wilson score interval (NaN for n = 0)."""
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    ci = stats.binomtest(int(k), int(n)).proportion_ci(CONFIDENCE, method="wilson")
    return k / n, float(ci.low), float(ci.high)


def exact_test(table: Sequence[Sequence[int]]) -> float:
    """Fisher-Freeman-Halton exact p of a 2 x k table of counts: the probability, given both
    margins, of every table no more likely than the observed one.

    >>> round(exact_test([[66, 34], [10, 4]]), 4)
    0.7713
    """
    table = np.asarray(table, dtype=np.int64)
    if table.ndim != 2 or table.shape[0] != 2 or (table < 0).any():
        raise ValueError(f"table of shape {table.shape}: need 2 rows of counts >= 0")
    table = table[:, table.sum(axis=0) > 0]
    small = table[int(np.argmin(table.sum(axis=1)))]
    columns = table.sum(axis=0)
    rows = _first_rows(columns, int(small.sum()))
    logp = _log_probability(rows, columns)
    observed = _log_probability(small[None, :], columns)[0]
    return min(1.0, math.fsum(np.exp(logp[logp <= observed + np.log(_RELATIVE_TIE)])))


def binomial_power(n: int, share: float, chance: float, alpha: float = ALPHA) -> float:
    """Power of the two-sided exact binomial test of `chance` (scipy's `binomtest`) at level
    `alpha` with n trials when the true probability is `share`."""
    return _exact_power(n, share, chance, alpha, _log_factorials(n))


def people_needed(share: float, chance: float, alpha: float = ALPHA,
                  target: float = TARGET_POWER) -> int | None:
    """The fewest people for which `binomial_power` reaches `target`; None beyond MAX_PEOPLE.

    The exact test's power is not monotone in n, so every n is tried in turn, except where even
    the most powerful test at level `alpha` (Neyman-Pearson's, one-sided and randomised, whose
    power is computed for every n at once) stays below `target`: the exact test cannot do
    better there."""
    if share == chance:
        return None
    log_factorials = _log_factorials(MAX_PEOPLE)
    first = 1
    while first <= MAX_PEOPLE:                # blocks of doubling length: most answers are small
        sizes = np.arange(first, min(2 * first, MAX_PEOPLE + 1))
        bound = _most_powerful(sizes, share, chance, alpha)
        for n in sizes[bound >= target - _BOUND_SLACK]:
            if _exact_power(int(n), share, chance, alpha, log_factorials) >= target:
                return int(n)
        first = 2 * first
    return None


def _exact_power(n: int, share: float, chance: float, alpha: float,
                 log_factorials: np.ndarray) -> float:
    null = _pmf(n, chance, log_factorials)
    order = np.sort(null, kind="stable")      # two ascending runs (unimodal): merged in O(n)
    # two-sided p of x: the null probability of the outcomes no more likely than x
    p = np.cumsum(order)[np.searchsorted(order, null * _RELATIVE_TIE, side="right") - 1]
    return float(_pmf(n, share, log_factorials)[p <= alpha].sum())


def _log_factorials(n: int) -> np.ndarray:
    """log k! for k = 0 .. n."""
    return gammaln(np.arange(n + 1) + 1.0)


def _pmf(n: int, p: float, log_factorials: np.ndarray) -> np.ndarray:
    """The binomial(n, p) probabilities of 0 .. n (scipy's `binom.pmf` costs 0.1 ms a call)."""
    if p <= 0 or p >= 1:
        out = np.zeros(n + 1)
        out[0 if p <= 0 else n] = 1.0
        return out
    x = np.arange(n + 1)
    return np.exp(log_factorials[n] - log_factorials[x] - log_factorials[n - x]
                  + x * np.log(p) + (n - x) * np.log1p(-p))


def _most_powerful(sizes: np.ndarray, share: float, chance: float, alpha: float) -> np.ndarray:
    """The power against `share` of the most powerful level-`alpha` test of `chance` for each n
    of `sizes`: reject above k, and at k with the probability that makes the size `alpha`."""
    if share < chance:                         # the lower tail: count the other outcomes
        share, chance = 1 - share, 1 - chance
    k = stats.binom.isf(alpha, sizes, chance)   # the smallest k with P(X > k) <= alpha
    at_k = stats.binom.pmf(k, sizes, chance)
    with np.errstate(invalid="ignore", divide="ignore"):
        fill = np.where(at_k > 0, (alpha - stats.binom.sf(k, sizes, chance)) / at_k, 0.0)
    return stats.binom.sf(k, sizes, share) + np.clip(fill, 0, 1) * stats.binom.pmf(
        k, sizes, share)


def _test(simulated: list[int], people: list[int]) -> tuple[float, str, str]:
    nan = float("nan")
    if not sum(people):
        return nan, "", "no human counts to test against"
    if not sum(simulated):
        return nan, "", "no simulated trial left the mark"
    if len(simulated) < 2:
        return nan, "", "everyone chose the same direction"
    table = np.array([simulated, people])
    small = int(table.sum(axis=1).min())
    if np.prod([min(int(c), small) + 1 for c in table.sum(axis=0)[:-1]]) <= MAX_EXACT_TABLES:
        return exact_test(table), EXACT, ""
    return float(stats.chi2_contingency(table, correction=False).pvalue), CHI_SQUARE, ""


def _power(shown: list[str], simulated: list[int], people: int) -> Power:
    top = int(np.argmax(simulated))
    share, chance = simulated[top] / sum(simulated), 1 / len(shown)
    return Power(shown[top], share, chance, people, ALPHA,
                 binomial_power(people, share, chance), people_needed(share, chance))


def _first_rows(columns: np.ndarray, total: int) -> np.ndarray:
    """Every row x with 0 <= x_j <= columns_j and sum total, as an int array (tables, k)."""
    rows = np.zeros((1, 0), np.int64)
    for j, cap in enumerate(columns):
        rest = int(columns[j + 1:].sum())
        used = rows.sum(axis=1)
        low = np.maximum(0, total - used - rest)
        high = np.minimum(int(cap), total - used)
        width = np.maximum(high - low + 1, 0)
        parent = np.repeat(np.arange(len(rows)), width)
        offset = np.arange(width.sum()) - np.repeat(np.cumsum(width) - width, width)
        rows = np.column_stack([rows[parent], low[parent] + offset])
    return rows


def _log_probability(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Log probability of each first row given the margins (multivariate hypergeometric)."""
    total = int(rows[0].sum())
    log_choose = gammaln(columns + 1) - gammaln(rows + 1) - gammaln(columns - rows + 1)
    n = float(columns.sum())
    return log_choose.sum(axis=1) - (gammaln(n + 1) - gammaln(total + 1) - gammaln(n - total + 1))
