"""The study's statistics (scipy.stats): Table 1 correlations, branch choices, agent summaries.

- Table 1 (study section 3.3): for each (agent, vision) and parameter, Pearson r and Spearman rho
  with p-values and n between the parameter and the mean movement count per maze.
- Table 2 (section 4.3): choices at a probe mark: counts, proportions with 95% intervals
  (`binomtest`, Wilson score), the counts expected for the human group size under the simulated
  proportions (66 % of 14 = 9.2), Fisher's exact test of simulated against human counts.
- Per agent and vision: mean, median and IQR of moves, reach rate, efficiency.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

from mazesim.maze import DIRECTIONS

__all__ = [
    "CONFIDENCE",
    "Correlation",
    "ChoiceCount",
    "ChoiceTest",
    "Summary",
    "correlations",
    "choice_test",
    "summary",
]

CONFIDENCE = 0.95
_CI_METHOD = "wilson"


@dataclass(frozen=True)
class Correlation:
    """One cell of Table 1."""

    agent: str
    vision: str
    parameter: str
    method: str
    r: float
    p: float
    n: int


@dataclass(frozen=True)
class ChoiceCount:
    """One direction at a probe: simulated count and proportion with its interval, human side."""

    direction: str
    count: int
    proportion: float
    ci_low: float
    ci_high: float
    expected_human: float
    human: int | None


@dataclass(frozen=True)
class ChoiceTest:
    """First departures from a probe mark for one (agent, vision), against the human counts."""

    agent: str
    vision: str
    mark: str
    n: int
    directions: tuple[ChoiceCount, ...]
    human_n: int
    fisher_p: float
    odds_ratio: float  # NaN unless the table is 2x2


@dataclass(frozen=True)
class Summary:
    """Movement counts of one (agent, vision) over all mazes and trials."""

    agent: str
    vision: str
    trials: int
    mean: float
    median: float
    q1: float
    q3: float
    iqr: float
    reach_rate: float
    capped_rate: float
    efficiency: float  # mean of solution_length / moves over reached trials


def correlations(agent: str, vision: str, parameters: Mapping[str, np.ndarray],
                 mean_moves: np.ndarray, methods: Sequence[str]) -> list[Correlation]:
    """Correlate each parameter (one value per maze) with the mean moves per maze.

    Mazes where either value is missing are left out; fewer than 3 mazes or a constant column
    give NaN (as scipy does), never an error.
    """
    y = np.asarray(mean_moves, dtype=float)
    records = []
    for name, values in parameters.items():
        x = np.asarray(values, dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        for method in methods:
            r, p = _correlate(method, x[ok], y[ok])
            records.append(Correlation(agent, vision, name, method, r, p, int(ok.sum())))
    return records


def _correlate(method: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    test = stats.pearsonr if method == "pearson" else stats.spearmanr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = test(x, y)
    return float(result.statistic), float(result.pvalue)


def choice_test(agent: str, vision: str, mark: str, counts: Mapping[str, int],
                human: Mapping[str, int]) -> ChoiceTest:
    """Table 2 of the study for one probe; directions in the canonical order.

    Directions shown are those chosen by the simulation or the humans. Fisher's exact test uses the
    2 x k table (simulated, human) over those directions; NaN without human counts.
    """
    shown = [d for d in DIRECTIONS if counts.get(d, 0) or d in human]
    n = int(sum(counts.get(d, 0) for d in DIRECTIONS))
    human_n = int(sum(human.values()))
    rows = []
    for d in shown:
        k = int(counts.get(d, 0))
        if n:
            ci = stats.binomtest(k, n).proportion_ci(CONFIDENCE, method=_CI_METHOD)
            low, high, prop = float(ci.low), float(ci.high), k / n
        else:
            low = high = prop = float("nan")
        rows.append(ChoiceCount(d, k, prop, low, high, prop * human_n,
                                int(human[d]) if d in human else None))
    p, odds = _fisher([counts.get(d, 0) for d in shown], [human.get(d, 0) for d in shown])
    return ChoiceTest(agent, vision, mark, n, tuple(rows), human_n, p, odds)


def _fisher(simulated: list[int], human: list[int]) -> tuple[float, float]:
    table = np.array([simulated, human], dtype=np.int64)
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return float("nan"), float("nan")
    if table.shape[1] == 2:
        result = stats.fisher_exact(table)
        return float(result.pvalue), float(result.statistic)
    result = stats.fisher_exact(table)
    return float(result.pvalue), float("nan")


def summary(agent: str, vision: str, moves: np.ndarray, reached: np.ndarray,
            capped: np.ndarray, solution_length: np.ndarray) -> Summary:
    """Summary of one condition; `solution_length` is per trial (that of the trial's maze)."""
    moves = np.asarray(moves, dtype=float)
    reached = np.asarray(reached, dtype=bool)
    if moves.size == 0:
        nan = float("nan")
        return Summary(agent, vision, 0, nan, nan, nan, nan, nan, nan, nan, nan)
    q1, median, q3 = np.percentile(moves, [25, 50, 75])
    ok = reached & (moves > 0)
    efficiency = (float(np.mean(np.asarray(solution_length, float)[ok] / moves[ok]))
                  if ok.any() else float("nan"))
    return Summary(agent, vision, int(moves.size), float(moves.mean()), float(median),
                   float(q1), float(q3), float(q3 - q1), float(reached.mean()),
                   float(np.asarray(capped, bool).mean()), efficiency)
