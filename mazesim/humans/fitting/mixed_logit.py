"""A conditional logit with a weight vector per group of choices (a person, or a person's
training folds) and a Gaussian population over those weights, fitted by empirical Bayes.

Choice o offers rows `start[o]:start[o + 1]` of a feature matrix and took row `chosen[o]`;
P(row) is proportional to exp(features[row] . w). Per group g the weights are the posterior
mode (MAP) under the prior N(mean, cov) (`map_weights`: Newton steps with backtracking, all
groups at once; the log posterior is concave). The population (`population`) is the
maximum of the Laplace approximation of the marginal likelihood over the groups, found by the
Laplace-EM iteration: each group's MAP and curvature, then mean = the average MAP, cov = the
average of (MAP - mean)(MAP - mean)' + the inverse curvature. The shrinkage of every person
toward the others is so estimated from the training people alone, with no penalty chosen by
hand; with a full covariance the fit does not depend on linear rescalings of the features
(standardising them only helps the numerics).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim.humans.fitting._logit_kernels import logit_sums

__all__ = ["LogitChoices", "Population", "grouped", "map_weights", "population",
           "chosen_log_probabilities", "EM_TOLERANCE", "MAX_EM_STEPS"]

EM_TOLERANCE = 1e-3     # nats of approximate evidence per group: a smaller gain ends the EM
MAX_EM_STEPS = 500      # an EM that has not converged by then stops (about 50 are needed)
_NEWTON_STEPS = 100
_NEWTON_TOLERANCE = 1e-10     # the Newton decrement at which a MAP is done
_ARMIJO = 1e-4
_HALVINGS = 40


@dataclass(frozen=True, eq=False)
class LogitChoices:
    """Choices laid out for the kernel, consecutive by group: `features` (rows, k), `start`
    (choices + 1), `chosen` (row of each choice), `group_start` (groups + 1); `index` the
    position of each choice in the caller's order."""

    features: np.ndarray
    start: np.ndarray
    chosen: np.ndarray
    group_start: np.ndarray
    index: np.ndarray

    @property
    def groups(self) -> int:
        return len(self.group_start) - 1

    @property
    def k(self) -> int:
        return self.features.shape[1]


@dataclass(frozen=True)
class Population:
    """The population over weights: `mean` (k,), `cov` (k, k); `steps` of EM it took."""

    mean: np.ndarray
    cov: np.ndarray
    steps: int = 0

    @property
    def precision(self) -> np.ndarray:
        return np.linalg.inv(self.cov)


def grouped(features: np.ndarray, start: np.ndarray, chosen: np.ndarray, group: np.ndarray,
            groups: int, keep: np.ndarray | None = None) -> LogitChoices:
    """The choices (`start`, `chosen` rows of `features`) where `keep` is set, sorted by their
    group (0 to `groups` - 1)."""
    o = np.arange(len(group)) if keep is None else np.flatnonzero(keep)
    o = o[np.argsort(group[o], kind="stable")]
    counts = start[o + 1] - start[o]
    first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rows = np.repeat(start[o] - first[:-1], counts) + np.arange(first[-1])
    group_start = np.searchsorted(group[o], np.arange(groups + 1)).astype(np.int64)
    return LogitChoices(np.ascontiguousarray(features[rows], dtype=np.float64), first,
                        (first[:-1] + chosen[o] - start[o]).astype(np.int64), group_start, o)


def map_weights(data: LogitChoices, mean: np.ndarray, precision: np.ndarray,
                first: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's MAP weights (groups, k) under N(mean, precision^-1) (a zero precision:
    maximum likelihood; a group with no choice gets the mean), its log posterior (groups,)
    and the curvature there (groups, k, k); `first` the weights to start from."""
    g, k = data.groups, data.k
    mean = np.broadcast_to(np.asarray(mean, dtype=float), (g, k))
    precision = np.broadcast_to(np.asarray(precision, dtype=float), (g, k, k))
    w = np.array(mean if first is None else first, dtype=np.float64)

    def posterior(w: np.ndarray):
        ll, grad, info, _ = logit_sums(data.features, data.start, data.chosen,
                                       data.group_start, w, 2)
        gap = w - mean
        pull = np.einsum("gij,gj->gi", precision, gap)
        return ll - 0.5 * np.einsum("gi,gi->g", gap, pull), grad - pull, info + precision

    value, grad, curvature = posterior(w)
    for _ in range(_NEWTON_STEPS):
        step = np.linalg.solve(curvature, grad[..., None])[..., 0]
        decrement = np.einsum("gi,gi->g", grad, step)
        if decrement.max() < _NEWTON_TOLERANCE:
            break
        t = np.ones(g)
        for _ in range(_HALVINGS):
            trial = w + t[:, None] * step
            new, new_grad, new_curvature = posterior(trial)
            short = new < value + _ARMIJO * t * decrement
            if not short.any():
                break
            t = np.where(short, t / 2, t)
        w, value, grad, curvature = trial, new, new_grad, new_curvature
    return w, value, curvature


def population(data: LogitChoices, *, tolerance: float = EM_TOLERANCE,
               max_steps: int = MAX_EM_STEPS) -> Population:
    """The population over the groups' weights by Laplace-EM (module docstring), from
    mean 0 and cov I; it stops once the approximate log evidence gains less than `tolerance`
    per group in a step."""
    k = data.k
    mean, cov, w, before = np.zeros(k), np.eye(k), None, -np.inf
    for step in range(1, max_steps + 1):
        precision = np.linalg.inv(cov)
        w, value, curvature = map_weights(data, mean, precision, w)
        evidence = (value.sum() + 0.5 * data.groups * np.linalg.slogdet(precision)[1]
                    - 0.5 * np.linalg.slogdet(curvature)[1].sum())
        mean = w.mean(axis=0)
        gap = w - mean
        cov = (gap[:, :, None] * gap[:, None, :] + np.linalg.inv(curvature)).mean(axis=0)
        if evidence - before < tolerance * data.groups:
            break
        before = evidence
    return Population(mean, cov, step)


def chosen_log_probabilities(data: LogitChoices, weights: np.ndarray) -> np.ndarray:
    """log P(chosen) of every choice under its group's weights, in the caller's order (the
    choices `grouped` kept, by `index`)."""
    each = logit_sums(data.features, data.start, data.chosen, data.group_start,
                      np.ascontiguousarray(weights, dtype=np.float64), 0)[3]
    return each[np.argsort(data.index, kind="stable")]
