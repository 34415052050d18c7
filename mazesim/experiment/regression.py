"""Moves per maze on the standardised parameters, generator as a factor (statsmodels OLS).

Pooled correlations mix two things: which generator made a maze and how the maze is shaped
within its generator. The regression holds the generator fixed (one dummy per generator but the
first) and shows every parameter's share at once. Standard errors are heteroscedasticity-robust
(HC3) unless asked otherwise: the spread of mean moves grows with their size. Variance inflation
factors show which terms say the same thing: in the fit (generator dummies included, where the
parameters that tell the generators apart inflate) and within each generator (`vif_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from mazesim.experiment.config import REGRESSION_ERRORS
from mazesim.experiment.statistics import ALL, CONFIDENCE, WITHIN

__all__ = ["INTERCEPT", "RegressionTerm", "Regression", "Vif", "regression",
           "vif_table", "factor_term"]

INTERCEPT = "intercept"
_COV_TYPES = {"hc3": "HC3", "nonrobust": "nonrobust"}    # statsmodels' names of the errors


def factor_term(level: str) -> str:
    """The name of a generator's dummy term."""
    return f"generator={level}"


@dataclass(frozen=True)
class RegressionTerm:
    """One coefficient: per standard deviation of a parameter (z-scored over the mazes used),
    or a generator's difference from the first generator; `vif` is NaN for the intercept.
    `errors` names the standard errors (`config.REGRESSION_ERRORS`), `estimate` the moves per
    maze ("mean" or the restricted mean to `tau` moves: `statistics.Correlation`)."""

    agent: str
    vision: str
    term: str
    coef: float
    se: float
    ci_low: float
    ci_high: float
    p: float
    r2: float
    n: int
    vif: float
    errors: str = REGRESSION_ERRORS[0]
    estimate: str = "mean"
    tau: float = float("nan")


@dataclass(frozen=True)
class Vif:
    """The variance inflation factor of a parameter among those of `n` mazes of one stratum (a
    generator; `all`: the parameters with the generator dummies, as in the regression;
    `within`: the parameters with each generator's mean removed)."""

    stratum: str
    term: str
    vif: float
    n: int


@dataclass(frozen=True)
class Regression:
    """The fit of one (agent, vision); no terms and the reason in `note` when it cannot be fit."""

    agent: str
    vision: str
    n: int
    r2: float
    terms: tuple[RegressionTerm, ...]
    note: str = ""


def regression(agent: str, vision: str, parameters: Mapping[str, np.ndarray],
               mean_moves: np.ndarray, strata: Sequence[str] | None = None, *,
               errors: str = REGRESSION_ERRORS[0], estimate: str = "mean",
               tau: float = float("nan")) -> Regression:
    """OLS of `mean_moves` (one value per maze, an `estimate` to `tau`) on the z-scored
    `parameters` and, with two or more `strata` labels, a dummy per label but the first; mazes
    with a missing value are left out, constant parameters dropped (named in `note`). Intervals
    and p from Student's t with the `errors` standard errors."""
    from statsmodels.regression.linear_model import OLS   # not statsmodels.api: 0.2 s less

    if errors not in REGRESSION_ERRORS:
        raise ValueError(f"errors {errors!r} (allowed: {', '.join(REGRESSION_ERRORS)})")
    y = np.asarray(mean_moves, float)
    x = {k: np.asarray(v, float) for k, v in parameters.items()}
    ok = np.isfinite(y) & np.all([np.isfinite(v) for v in x.values()], axis=0)
    labels = np.asarray(["" for _ in y] if strata is None else list(strata), dtype=object)[ok]
    n, wanted = int(ok.sum()), 1 + len(x) + max(len(set(labels.tolist())) - 1, 0)
    if n <= wanted:
        return Regression(agent, vision, n, float("nan"), (),
                          f"{n} maze{'' if n == 1 else 's'} for {wanted} terms: too few to fit")
    design, names, note = _design({k: v[ok] for k, v in x.items()}, n, labels)
    if np.linalg.matrix_rank(design) < design.shape[1]:
        return Regression(agent, vision, n, float("nan"), (), _join(
            note, "the terms are collinear (a parameter is fixed by the others)"))
    fit = OLS(y[ok], design).fit(cov_type=_COV_TYPES[errors], use_t=True)
    low, high = np.asarray(fit.conf_int(1 - CONFIDENCE)).T
    vif = _vif(design)
    r2 = float(fit.rsquared)
    terms = tuple(RegressionTerm(agent, vision, name, float(fit.params[i]), float(fit.bse[i]),
                                 float(low[i]), float(high[i]), float(fit.pvalues[i]), r2, n,
                                 float(vif[i]), errors, estimate, tau)
                  for i, name in enumerate(names))
    return Regression(agent, vision, n, r2, terms, note)


def vif_table(parameters: Mapping[str, np.ndarray], strata: Sequence[str]) -> list[Vif]:
    """Variance inflation factors of the parameters over the mazes with every value: with the
    generator dummies of the regression (stratum `all`: a parameter that tells the generators
    apart is inflated by them), of the parameters with each generator's mean removed (`within`:
    the spread the regression separates them by) and among each generator's mazes; nothing for
    a stratum with no more mazes than terms or with collinear terms, a constant parameter left
    out."""
    x = {k: np.asarray(v, float) for k, v in parameters.items()}
    labels = np.asarray(list(strata), dtype=object)
    ok = np.all([np.isfinite(v) for v in x.values()], axis=0) if x else np.ones(len(labels), bool)
    levels = list(dict.fromkeys(labels[ok].tolist()))
    groups = [(ALL, ok)] + ([(WITHIN, ok)] + [(g, ok & (labels == g)) for g in levels]
                            if len(levels) >= 2 else [])
    out = []
    for stratum, keep in groups:
        n = int(keep.sum())
        if n <= 1 + len(x):
            continue
        values = {k: v[keep] for k, v in x.items()}
        if stratum == WITHIN:     # each generator's mean removed: the spread within them
            values = {k: v - _group_means(v, labels[keep]) for k, v in values.items()}
        design, names, _ = _design(values, n, labels[keep] if stratum == ALL else None)
        if n <= design.shape[1] or np.linalg.matrix_rank(design) < design.shape[1]:
            continue
        vif = _vif(design)
        out += [Vif(stratum, name, float(vif[i]), n) for i, name in enumerate(names) if name in x]
    return out


def _design(x: Mapping[str, np.ndarray], n: int, labels: np.ndarray | None = None
            ) -> tuple[np.ndarray, list[str], str]:
    """The design matrix of n mazes (intercept, z-scored non-constant parameters, with `labels`
    a dummy per label but the first), its term names and a note naming the constant parameters
    left out."""
    constant = [k for k, v in x.items() if np.ptp(v) == 0]
    columns = {k: _z(v) for k, v in x.items() if k not in constant}
    levels = [] if labels is None else list(dict.fromkeys(labels.tolist()))
    columns.update({factor_term(g): (labels == g).astype(float) for g in levels[1:]})
    note = f"constant, left out: {', '.join(constant)}" if constant else ""
    design = np.column_stack([np.ones(n)] + list(columns.values()))
    return design, [INTERCEPT, *columns], note


def _group_means(v: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The mean of each value's group, per value."""
    out = np.empty_like(v)
    for g in set(labels.tolist()):
        out[labels == g] = v[labels == g].mean()
    return out


def _z(v: np.ndarray) -> np.ndarray:
    return (v - v.mean()) / v.std(ddof=1)


def _vif(design: np.ndarray) -> np.ndarray:
    """Variance inflation factors of the columns of a design whose first column is the
    intercept (statsmodels' `variance_inflation_factor`: 1 / (1 - R^2) of each column on the
    others); NaN for the intercept."""
    from statsmodels.stats.outliers_influence import variance_inflation_factor

    return np.array([np.nan] + [variance_inflation_factor(design, i)
                                for i in range(1, design.shape[1])])


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)
