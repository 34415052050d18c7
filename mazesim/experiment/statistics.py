"""The study's statistics: Table 1 correlations in strata, Holm's correction, move summaries.

- Table 1 (study section 3.3): for one (agent, vision), Pearson r and Spearman rho between each
  parameter and the mean movement count per maze, in strata (DESIGN.md section 8): each generator
  (`file` for maze files), `all` (pooled) and `within` (partial correlation after removing the
  generator means). 95 % intervals by Fisher's z for Pearson and by a stratified bootstrap
  (seeded) for Spearman; p from Student's t with n - 2 - (generators - 1) degrees of freedom.
- `holm`: Holm's step-down adjustment over a family of p-values (statsmodels).
- Per agent and vision: mean moves with a 95 % interval (mazes as the unit), median, IQR, reach
  rate, capped share, efficiency, and with capped trials their restricted mean (`censoring`).

Choices at a probe (Table 2) are `mazesim.experiment.choices`; `choice_test` is re-exported here.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

from mazesim.experiment import _kernels
from mazesim.experiment.censoring import clipped_moves, restriction_time
from mazesim.experiment.choices import ChoiceCount, ChoiceTest, choice_test

__all__ = [
    "CONFIDENCE",
    "BOOTSTRAP_RESAMPLES",
    "MIN_MAZES",
    "FISHER_MIN_MAZES",
    "ALL",
    "WITHIN",
    "Correlation",
    "Summary",
    "ChoiceCount",
    "ChoiceTest",
    "correlations",
    "correlate",
    "fisher_interval",
    "holm",
    "choice_test",
    "summary",
]

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the Spearman intervals."""
MIN_MAZES: Mapping[str, int] = MappingProxyType({"pearson": 3, "spearman": 10})
"""Fewest mazes with a mean for a correlation: Pearson's t test needs one degree of freedom;
below 10 mazes Spearman's t approximation and its bootstrap (a handful of distinct resamples)
mislead."""
FISHER_MIN_MAZES = 4
"""Fewest mazes for Fisher's z interval of a pooled Pearson r (n - 3 > 0)."""
ALL, WITHIN = "all", "within"
"""The pooled stratum and the partial correlation within generators."""


@dataclass(frozen=True)
class Correlation:
    """One cell of Table 1: a parameter against the moves per maze in one stratum.

    `n` counts the mazes used; `capped_share` is the share of the condition's trials on those
    mazes that hit `max_steps`; `p_adjusted` is set by `holm` over a family of tests (NaN until
    then, and for rows outside it); `estimate` names the moves per maze: "mean" or
    `censoring.RESTRICTED_MEAN` to `tau` moves (NaN for means).
    """

    agent: str
    vision: str
    parameter: str
    method: str
    stratum: str
    r: float
    ci_low: float
    ci_high: float
    p: float
    p_adjusted: float
    n: int
    capped_share: float
    estimate: str = "mean"
    tau: float = float("nan")


def correlations(agent: str, vision: str, parameters: Mapping[str, np.ndarray],
                 mean_moves: np.ndarray, methods: Sequence[str], *,
                 strata: Sequence[str] | None = None,
                 capped_share: Mapping[str, float] | None = None,
                 seed: int | np.random.SeedSequence = 0, estimate: str = "mean",
                 tau: float = float("nan")) -> list[Correlation]:
    """Correlate each parameter (one value per maze) with the moves per maze (`mean_moves`, an
    `estimate` to `tau`: see `Correlation`).

    `strata` labels each maze (its generator); with two labels or more every label is a stratum
    besides `all` and `within`, else `all` is the only one. Mazes where either value is missing
    are left out; fewer than `MIN_MAZES[method]` or a constant column give NaN, never an error. The
    bootstrap of (parameter i, stratum j) draws from `SeedSequence(seed, spawn_key=(i, j))`.
    `capped_share` maps a stratum to its share of capped trials (NaN where absent).
    """
    y = np.asarray(mean_moves, dtype=float)
    labels = np.asarray(["" for _ in y] if strata is None else list(strata), dtype=object)
    names = list(dict.fromkeys(labels.tolist()))
    groups = names + [ALL, WITHIN] if len(names) >= 2 else [ALL]
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    records = []
    for i, (name, values) in enumerate(parameters.items()):
        x = np.asarray(values, dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        for j, stratum in enumerate(groups):
            keep = ok if stratum in (ALL, WITHIN) else ok & (labels == stratum)
            within = labels[keep] if stratum == WITHIN else None
            key = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i, j))
            for method in methods:
                r, low, high, p = correlate(x[keep], y[keep], method, groups=within, seed=key)
                records.append(Correlation(agent, vision, name, method, stratum, r, low, high,
                                           p, float("nan"), int(keep.sum()),
                                           float((capped_share or {}).get(stratum, float("nan"))),
                                           estimate, tau))
    return records


def correlate(x: np.ndarray, y: np.ndarray, method: str, *, groups: np.ndarray | None = None,
              seed: np.random.SeedSequence | int = 0) -> tuple[float, float, float, float]:
    """(r, ci_low, ci_high, p) of `method` ("pearson" or "spearman"); with `groups`, the partial
    correlation after removing each group's mean from x and y (from the pooled ranks for
    Spearman). NaN for fewer than `MIN_MAZES[method]` pairs, a constant column or no degree of
    freedom; a NaN interval where Fisher's z has none (n - (groups - 1) < FISHER_MIN_MAZES)."""
    if method not in MIN_MAZES:
        raise ValueError(f"method {method!r} (allowed: {', '.join(MIN_MAZES)})")
    x, y = np.asarray(x, float), np.asarray(y, float)
    codes = _codes(groups, len(x))
    controls = int(codes.max()) if len(x) else 0   # group means removed: (groups - 1) dummies
    nan = (float("nan"),) * 4
    df = len(x) - 2 - controls
    if len(x) < MIN_MAZES[method] or df < 1:
        return nan
    spearman = method == "spearman"
    r = _r(*(_ranked(v) if spearman else v for v in (x, y)), codes)
    if not np.isfinite(r):
        return nan
    if spearman:
        low, high = _bootstrap(x, y, codes, seed)
    elif not controls:
        return _pearson_test(x, y)
    else:
        low, high = fisher_interval(r, len(x), controls)
    return r, low, high, _t_p(r, df)


def _pearson_test(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """scipy's Pearson r, p and Fisher interval (none below `FISHER_MIN_MAZES`)."""
    result = stats.pearsonr(x, y)
    nan = float("nan")
    low, high = (result.confidence_interval(CONFIDENCE) if len(x) >= FISHER_MIN_MAZES
                 else (nan, nan))
    return float(result.statistic), float(low), float(high), float(result.pvalue)


def fisher_interval(r: float, n: int, controls: int = 0) -> tuple[float, float]:
    """The `CONFIDENCE` interval of a partial Pearson r by Fisher's z: tanh(atanh r +- z / sqrt(n
    - 3 - controls)) (scipy's `pearsonr` gives it for `controls` = 0, but has no partial r)."""
    if n - controls < FISHER_MIN_MAZES:
        return float("nan"), float("nan")
    if abs(r) == 1.0:
        return float(r), float(r)
    half = stats.norm.ppf(0.5 + CONFIDENCE / 2) / np.sqrt(n - 3 - controls)
    z = np.arctanh(r)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (statsmodels' `multipletests`); NaN entries stay NaN
    and do not count as tests."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        gc.freeze()         # statsmodels' Holm ends with gc.collect(): not over our whole heap
        try:
            out[finite] = multipletests(p[finite], method="holm")[1]
        finally:
            gc.unfreeze()
    return out


def _codes(groups: np.ndarray | None, n: int) -> np.ndarray:
    if groups is None:
        return np.zeros(n, np.int64)
    return np.unique(np.asarray(groups, dtype=str), return_inverse=True)[1].reshape(-1)


def _ranked(v: np.ndarray) -> np.ndarray:
    return stats.rankdata(v, axis=-1)


def _value_codes(v: np.ndarray) -> np.ndarray:
    """v as integer codes 0.. in the order of its values (equal values, equal codes)."""
    return np.unique(v, return_inverse=True)[1].reshape(-1)


def _demeaned(v: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """v (.., n) minus the mean of its group along the last axis."""
    out = np.array(v, dtype=float)
    for g in range(int(codes.max()) + 1 if codes.size else 0):
        cols = codes == g
        out[..., cols] -= out[..., cols].mean(axis=-1, keepdims=True)
    return out


def _r(x: np.ndarray, y: np.ndarray, codes: np.ndarray) -> float:
    """Pearson r of the group-demeaned x and y (NaN where constant)."""
    return float(_centred_r(_demeaned(x, codes), _demeaned(y, codes)))


def _centred_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r along the last axis of x and y whose (group) means are removed already."""
    return _pearson(*((a * b).sum(axis=-1) for a, b in ((x, y), (x, x), (y, y))))


def _pearson(sxy: np.ndarray, sxx: np.ndarray, syy: np.ndarray) -> np.ndarray:
    """r from the sums of products of centred x and y (NaN where one is constant)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)


def _t_p(r: float, df: int) -> float:
    """Two-sided p of H0: rho = 0 from t = r sqrt(df / (1 - r^2))."""
    if abs(r) == 1.0:
        return 0.0
    t = r * np.sqrt(df / (1.0 - r * r))
    return float(2 * stats.t.sf(abs(t), df))


def _bootstrap(x: np.ndarray, y: np.ndarray, codes: np.ndarray,
               seed: np.random.SeedSequence | int) -> tuple[float, float]:
    """Percentile interval of Spearman's (partial) rho over `BOOTSTRAP_RESAMPLES` resamples of
    the mazes, drawn within each group so that the group sizes stay as they are."""
    rng = np.random.default_rng(seed)
    sizes = np.bincount(codes)
    # the offsets `rng.choice(members, (BOOTSTRAP_RESAMPLES, size))` draws, group by group
    blocks = [rng.integers(0, size, (BOOTSTRAP_RESAMPLES, size)) for size in sizes]
    draws = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=1)  # no copy of one
    values = [_value_codes(v) for v in (x, y)]
    if len(sizes) == 1:                          # the same sums, in one pass
        rho = _pearson(*_kernels.rank_products(*values, draws))
    else:
        order = np.argsort(codes, kind="stable")
        rho = _centred_r(*(_kernels.resampled_ranks(v, draws, order, codes) for v in values))
    tail = 100 * (1 - CONFIDENCE) / 2
    low, high = np.nanpercentile(rho, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Summary:
    """Movement counts of one (agent, vision) over all its mazes and trials.

    `counted` trials (all, or those not capped) make the mean, median and quartiles; `mean` is
    the mean of the per-maze means (the mazes are the unit; the trials with one maze), bounded by
    `ci_low`/`ci_high` at `CONFIDENCE`. With capped trials, `restricted_mean` is the mean over
    mazes of their restricted means to `tau` moves (`censoring`), with its interval; NaN
    without.
    """

    agent: str
    vision: str
    trials: int
    counted: int
    mazes: int
    mean: float
    ci_low: float
    ci_high: float
    median: float
    q1: float
    q3: float
    iqr: float
    reach_rate: float
    capped_share: float
    efficiency: float  # mean of solution_length / moves over reached trials
    tau: float
    restricted_mean: float
    restricted_ci_low: float
    restricted_ci_high: float


def summary(agent: str, vision: str, moves: np.ndarray, reached: np.ndarray,
            capped: np.ndarray, solution_length: np.ndarray, maze_ids: np.ndarray | None = None,
            *, include_capped: bool = False) -> Summary:
    """Summary of one condition; `solution_length` and `maze_ids` are per trial."""
    moves = np.asarray(moves, dtype=float)
    reached, capped = np.asarray(reached, bool), np.asarray(capped, bool)
    mazes = np.zeros(len(moves), np.int64) if maze_ids is None else np.asarray(maze_ids)
    counted = np.ones(len(moves), bool) if include_capped else ~capped
    nan = float("nan")
    capped_share = float(capped.mean()) if moves.size else nan
    ok = reached & (moves > 0)
    efficiency = (float(np.mean(np.asarray(solution_length, float)[ok] / moves[ok]))
                  if ok.any() else nan)
    tau = restriction_time(moves, capped)
    restricted = (_mean_interval(clipped_moves(moves, capped, tau), mazes) if np.isfinite(tau)
                  else (nan, nan, nan))
    used = moves[counted]
    if not used.size:
        return Summary(agent, vision, int(moves.size), 0, len(np.unique(mazes)), nan, nan, nan,
                       nan, nan, nan, nan, float(reached.mean()) if moves.size else nan,
                       capped_share, efficiency, tau, *restricted)
    q1, median, q3 = np.percentile(used, [25, 50, 75])
    mean, low, high = _mean_interval(used, mazes[counted])
    return Summary(agent, vision, int(moves.size), int(counted.sum()),
                   len(np.unique(mazes[counted])), mean, low, high, float(median), float(q1),
                   float(q3), float(q3 - q1), float(reached.mean()), capped_share, efficiency,
                   tau, *restricted)


def _mean_interval(moves: np.ndarray, mazes: np.ndarray) -> tuple[float, float, float]:
    """The mean and its t interval, the mazes as the unit: the mean of the per-maze means and
    their spread when there are several mazes (trials of one maze are not independent draws of
    a maze), else of the trials."""
    ids, codes = np.unique(mazes, return_inverse=True)
    units = (np.bincount(codes, moves) / np.bincount(codes)) if len(ids) >= 2 else moves
    centre = float(units.mean())
    if len(units) < 2:
        return centre, float("nan"), float("nan")
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, len(units) - 1) * units.std(ddof=1) / np.sqrt(
        len(units))
    return centre, float(centre - half), float(centre + half)
