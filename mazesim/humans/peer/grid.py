"""The Maze Search Task authors' fitting protocol (Kryven et al. 2024; their R code
`k_fold_cv.R`, `data_utils.R`): every person separately, a grid search over the model's
parameter grid with K-fold cross-validation over that person's decisions.

For each person the decisions are dealt into K folds at random (K - 1 folds of floor(n / K)
decisions, the last one the rest, as theirs; ours are drawn from
`SeedSequence(seed, spawn_key=(person,))`, the person's place among the sorted ids, so every
model fitted with one seed sees the same folds). For each fold the grid point with the
highest training log-likelihood plus a log prior (the authors': proportional to 1 / tau) is
chosen (the first of equal ones, as R's `which.max`) and scored on the held-out fold;
probabilities below 1e-5 count as 1e-5 (theirs replaced printed zeros by 1e-5). A person's
score is the test log-likelihood summed over the folds; pooled bits per decision are
-sum LL / ln 2 / n. The authors report as a person's parameters the means of the K folds'
choices (`fold_means`), not a fit to the whole data; the choice on the whole data (same prior)
is kept too (`full_choice`), for models that walk with the fitted parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes
from mazesim.agents.node_models import NodeModel
from mazesim.errors import DataError
from mazesim.humans.data.run import bits
from mazesim.humans.peer.population import (POPULATION_FOLDS, PRIORS, population_groups,
                                            population_log_prior)
from mazesim.experiment.statistics import BOOTSTRAP_RESAMPLES, CONFIDENCE
from mazesim.limits import INT64_MAX

__all__ = ["FOLDS", "FLOOR", "MAX_GRID_CELLS", "GridFit", "grid_fit", "fit_node_model",
           "folds_of", "deal_folds", "tau_prior", "prior_of"]

FOLDS = 5
FLOOR = 1e-5
MAX_GRID_CELLS = 50_000_000     # decisions x grid points held at once (8 bytes each, twice)
BOOTSTRAP_STREAM = 2**32 - 1    # spawn key of the interval's draws (the folds use 0, 1, ...)
_BOOTSTRAP_CHUNK = 1_000_000    # people x resamples drawn at once


@dataclass(frozen=True, eq=False)
class GridFit:
    """The protocol's result for one model: per person (sorted ids) the number of decisions,
    the test log-likelihood summed over the folds, each fold's chosen grid point (P, K), the
    choice on the whole data and its in-sample log-likelihood (no prior); per decision (the
    input's order) its fold; `grid` the grid points (one array (G,) per parameter)."""

    people: tuple[str, ...]
    decisions: np.ndarray
    test_ll: np.ndarray
    fold_choice: np.ndarray
    full_choice: np.ndarray
    full_ll: np.ndarray
    fold: np.ndarray
    grid: Mapping[str, np.ndarray]
    group: np.ndarray | None = None
    """Each person's population group (`grid_fit`'s `groups`), or None without a population."""

    @property
    def ll(self) -> float:
        """The test log-likelihood summed over every person."""
        return float(self.test_ll.sum())

    @property
    def n(self) -> int:
        """The number of decisions."""
        return int(self.decisions.sum())

    @property
    def bits(self) -> np.ndarray:
        """Cross-validated bits per decision of each person."""
        return -self.test_ll / math.log(2) / self.decisions

    @property
    def pooled_bits(self) -> float:
        """Cross-validated bits per decision over everyone: -sum LL / ln 2 / n."""
        return bits(self.ll, self.n)

    def bits_interval(self, *, seed: int, confidence: float = CONFIDENCE,
                      samples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
        """A percentile interval of `pooled_bits` by bootstrap over people (each resampled
        with all their decisions), drawn from `SeedSequence(seed, (BOOTSTRAP_STREAM,))`."""
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(BOOTSTRAP_STREAM,)))
        people, draws = len(self.people), []
        step = max(_BOOTSTRAP_CHUNK // people, 1)
        for done in range(0, samples, step):
            pick = rng.integers(0, people, size=(min(step, samples - done), people))
            draws.append(-self.test_ll[pick].sum(axis=1) / self.decisions[pick].sum(axis=1))
        tail = (1 - confidence) / 2
        low, high = np.quantile(np.concatenate(draws) / math.log(2), [tail, 1 - tail])
        return float(low), float(high)

    def fold_means(self) -> dict[str, np.ndarray]:
        """Each parameter's mean over the folds' choices, per person (what the authors
        report in `fit_models.csv`)."""
        return {k: v[self.fold_choice].mean(axis=1) for k, v in self.grid.items()}

    def full_params(self) -> dict[str, np.ndarray]:
        """Each parameter at the choice on the person's whole data."""
        return {k: v[self.full_choice] for k, v in self.grid.items()}


def tau_prior(tau: np.ndarray) -> np.ndarray:
    """The authors' log prior on the softmax temperature: proportional to 1 / tau, normalised
    over the distinct taus of the grid (the constant does not change a choice)."""
    tau = np.asarray(tau, dtype=float)
    return np.log((1.0 / tau) / np.sum(1.0 / np.unique(tau)))


def prior_of(points: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The authors' log prior for a grid: `tau_prior` where it has a tau, else none (flat)."""
    return tau_prior(points["tau"]) if "tau" in points else None


def folds_of(n: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """The fold (0 to folds - 1) of each of n >= folds decisions: a random permutation dealt
    into folds - 1 blocks of floor(n / folds) and a last block of the rest."""
    if n < folds:
        raise DataError(f"{n} decisions (allowed: at least the {folds} folds)")
    where = np.minimum(np.arange(n) // (n // folds), folds - 1)
    out = np.empty(n, dtype=np.int64)
    out[rng.permutation(n)] = where
    return out


def grid_fit(chosen: np.ndarray, people: Sequence[str],
             grid: Mapping[str, np.ndarray] | None = None, *, seed: int, folds: int = FOLDS,
             floor: float = FLOOR, log_prior: np.ndarray | None = None,
             groups: int = 0) -> GridFit:
    """Fit every person by the protocol (module docstring).

    Parameters
    ----------
    chosen : array (decisions, G)
        The model's probability of the chosen child at each decision and grid point.
    people : sequence (decisions,)
        The person of each decision; each needs at least `folds` decisions.
    grid : mapping of arrays (G,), optional
        The parameter values of the grid points (for `fold_means`, `full_params`).
    log_prior : array (G,), optional
        Added to every training log-likelihood (`tau_prior`); none: a flat prior.
    groups : int
        0: `log_prior` alone. Else the people are dealt into `groups` (`population_groups`)
        and each person's prior is also the population over the grid estimated from the
        people of the other groups (`population_log_prior`, on their whole data).
    """
    chosen = np.asarray(chosen, dtype=float)
    ids, person = _check(chosen, people, grid, seed, folds, floor, log_prior, groups)
    n_people, size = len(ids), chosen.shape[1]
    counts = np.bincount(person, minlength=n_people)
    fold = deal_folds(person, counts, folds, seed)
    group = person * folds + fold
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(np.diff(group[order], prepend=-1))
    logs = chosen[order]
    np.log(np.maximum(logs, floor, out=logs), out=logs)
    by_fold = np.add.reduceat(logs, starts, axis=0).reshape(n_people, folds, size)
    total = by_fold.sum(axis=1)
    prior = np.zeros((n_people, size))
    prior += 0 if log_prior is None else np.asarray(log_prior, dtype=float)
    group = population_groups(n_people, groups, seed) if groups else None
    if group is not None:
        prior += population_log_prior(total, group)
    others = ~np.eye(folds, dtype=bool)             # summed, not total - fold: equal training
    train = np.stack([by_fold[:, others[k]].sum(axis=1) for k in range(folds)], axis=1)
    fold_choice = np.argmax(train + prior[:, None], axis=2)  # exact ties: the first wins
    test = np.take_along_axis(by_fold, fold_choice[:, :, None], axis=2)[:, :, 0]
    full_choice = np.argmax(total + prior, axis=1)
    full_ll = total[np.arange(n_people), full_choice]
    points = {k: np.array(v, dtype=float) for k, v in (grid or {}).items()}
    for v in (*points.values(), fold):
        v.flags.writeable = False
    return GridFit(ids, counts, test.sum(axis=1), fold_choice, full_choice, full_ll, fold,
                   MappingProxyType(points), group)


def fit_node_model(model: NodeModel, decisions: DecisionNodes, rows: np.ndarray,
                   people: Sequence[str], *, seed: int, folds: int = FOLDS,
                   floor: float = FLOOR, prior: str = PRIORS[0],
                   groups: int = POPULATION_FOLDS) -> GridFit:
    """The protocol for `model` over its grid: `rows` the chosen child's row (in `decisions`)
    of each decision, `people` its person; `prior` "authors": the tau prior where the model
    has a tau; "population": instead, the population over the grid from the people of the
    other `groups` (`population`'s docstring says why instead)."""
    if prior not in PRIORS:
        raise DataError(f"prior {prior!r} (allowed: {', '.join(PRIORS)})")
    rows = np.asarray(rows)
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer) or (
            rows.size and not 0 <= rows.min() <= rows.max() < decisions.rows):
        raise DataError(f"rows: {rows.size} values of type {rows.dtype} (allowed: integers "
                        f"from 0 to {decisions.rows - 1}, the child rows of the decisions)")
    points = model.points()
    chosen = model.grid_probabilities(decisions, points)[rows]
    if prior == "population":
        return grid_fit(chosen, people, points, seed=seed, folds=folds, floor=floor,
                        groups=groups)
    return grid_fit(chosen, people, points, seed=seed, folds=folds, floor=floor,
                    log_prior=prior_of(points))


def deal_folds(person: np.ndarray, counts: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """The fold of every decision (`person`: its person's number, `counts`: the decisions of
    each): each person's own draw (`folds_of`), from the person's stream."""
    fold = np.empty(len(person), dtype=np.int64)
    mine = np.split(np.argsort(person, kind="stable"), np.cumsum(counts)[:-1])
    for p, rows in enumerate(mine):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(p,)))
        fold[rows] = folds_of(len(rows), folds, rng)
    return fold


def _check(chosen: np.ndarray, people: Sequence[str], grid: Mapping[str, np.ndarray] | None,
           seed: int, folds: int, floor: float, log_prior: np.ndarray | None, groups: int
           ) -> tuple[tuple, np.ndarray]:
    """The sorted person ids and each decision's person number; DataError for bad input."""
    if chosen.ndim != 2 or 0 in chosen.shape:
        raise DataError(f"chosen: shape {chosen.shape} (allowed: decisions x grid points, "
                        "at least one of each)")
    if chosen.size > MAX_GRID_CELLS:
        raise DataError(f"chosen: {chosen.shape[0]:,} decisions x {chosen.shape[1]:,} grid "
                        f"points (allowed: at most {MAX_GRID_CELLS:,} in all)")
    if not (chosen.min() >= 0 and chosen.max() <= 1):
        raise DataError("chosen: a value outside [0, 1] or NaN (allowed: probabilities)")
    if len(people) != len(chosen):
        raise DataError(f"people: {len(people)} entries for {len(chosen)} decisions")
    if not _integer(seed) or not 0 <= seed <= INT64_MAX:
        raise DataError(f"seed: {seed!r} (allowed: an integer from 0 to {INT64_MAX})")
    if not _integer(folds) or folds < 2:
        raise DataError(f"folds: {folds!r} (allowed: an integer >= 2)")
    if not 0 < floor < 1:
        raise DataError(f"floor: {floor!r} (allowed: between 0 and 1)")
    for name, v in {**(grid or {}), **({} if log_prior is None else {"log_prior": log_prior})
                    }.items():
        if np.shape(v) != (chosen.shape[1],):
            raise DataError(f"{name}: shape {np.shape(v)} (allowed: ({chosen.shape[1]},), one "
                            "value per grid point)")
    ids, person = np.unique(np.asarray(people, dtype=str), return_inverse=True)
    counts = np.bincount(person.ravel(), minlength=len(ids))
    if counts.min() < folds:
        p = int(np.argmin(counts))
        raise DataError(f"people: {str(ids[p])!r} has {counts[p]} decisions (allowed: at least the "
                        f"{folds} folds)")
    if not _integer(groups) or not (groups == 0 or 2 <= groups <= len(ids)):
        raise DataError(f"groups: {groups!r} for {len(ids)} people (allowed: 0 for no "
                        f"population, or 2 to the people)")
    return tuple(str(i) for i in ids), person.ravel()


def _integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
