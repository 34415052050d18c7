"""Standard errors of a junction fit's parameters: from the observed information, and
cluster-robust by participant (the sandwich, `cluster_covariance`); an interval takes the larger
(`ModelFit.errors`). Both by central differences of the log-likelihood on the parameters' search
scale (`search_value`)."""

from __future__ import annotations

import math

import numpy as np

from mazesim.agents.base import INTEGER, LINEAR, LOG
from mazesim.humans.data.run import HumanRun
from mazesim.humans.fitting.likelihood import log_chosen
from mazesim.humans.fitting.models import ModelSpec
from mazesim.humans.fitting.optimise import BOUND_GAP
from mazesim.humans.fitting.results import Estimate

__all__ = ["search_value", "cluster_covariance", "standard_errors", "larger_error"]

_HESSIAN_STEP = 1e-4            # relative step of the central differences


def search_value(param, value: float) -> float:
    return math.log10(value) if param.scale == LOG else value


def cluster_covariance(hessian: np.ndarray, scores: np.ndarray, cluster: np.ndarray
                       ) -> np.ndarray:
    """The cluster-robust (sandwich) covariance of a maximum-likelihood estimate:
    H^-1 (sum over clusters of s_g s_g') H^-1 times G/(G-1) (N-1)/(N-K), where H is the
    Hessian of the negative log-likelihood (K x K), `scores` the (N, K) gradients of each
    observation's log-likelihood and s_g their sum over cluster g (`cluster`: ids 0..G-1).
    The small-sample factor is Stata's and statsmodels' (`cov_type="cluster"`). NaN with
    fewer than two clusters; LinAlgError for a singular H."""
    n, k = scores.shape
    groups = int(cluster.max()) + 1 if n else 0
    present = len(np.unique(cluster)) if n else 0
    if present < 2 or n <= k:
        return np.full((k, k), np.nan)
    sums = np.stack([np.bincount(cluster, weights=scores[:, j], minlength=groups)
                     for j in range(k)], axis=1)
    inverse = np.linalg.inv(hessian)
    factor = present / (present - 1) * (n - 1) / (n - k)
    return factor * inverse @ (sums.T @ sums) @ inverse


def standard_errors(spec: ModelSpec, model, run: HumanRun, fit: Estimate,
            weights: np.ndarray | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Standard errors of the parameters inside their bounds (search scale): cluster-robust
    by participant (`cluster_covariance`) and from the observed information alone. The
    Hessian of the negative log-likelihood and each decision's score by central
    differences (of the weighted likelihood, when the fit was weighted)."""
    d = run.decisions
    every = np.arange(len(d))
    names = [p.name for p in spec.free] + ["lapse"]
    x = np.array([search_value(p, fit.params[p.name]) for p in spec.free] + [fit.lapse])
    bounds = [p.bounds() for p in spec.free] + [(0.0, 1.0)]
    scales = [p.scale for p in spec.free] + [LINEAR]
    inside = [i for i, ((lo, hi), scale) in enumerate(zip(bounds, scales))
              if scale != INTEGER and lo + BOUND_GAP < x[i] < hi - BOUND_GAP]
    robust = {name: float("nan") for name in names}
    naive = dict(robust)
    if not inside:
        return robust, naive

    def log_p(y: np.ndarray) -> np.ndarray:
        chosen = model.chosen(y[:-1], every)
        each = log_chosen(chosen, d.n_open, float(y[-1]))
        return each if weights is None else weights * each

    def shifted(*moves: tuple[int, float]) -> np.ndarray:
        y = x.copy()
        for i, h in moves:
            y[i] += h
        return y

    steps = [_HESSIAN_STEP * max(1.0, abs(x[i])) for i in inside]
    hessian = np.empty((len(inside), len(inside)))
    for a, (i, hi) in enumerate(zip(inside, steps)):
        for b, (j, hj) in enumerate(zip(inside, steps)):
            if b < a:
                continue
            corners = [-float(np.sum(log_p(shifted((i, si * hi), (j, sj * hj)))))
                       for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
            hessian[a, b] = hessian[b, a] = (corners[0] - corners[1] - corners[2]
                                             + corners[3]) / (4 * hi * hj)
    scores = np.stack([(log_p(shifted((i, h))) - log_p(shifted((i, -h)))) / (2 * h)
                       for i, h in zip(inside, steps)], axis=1)
    try:
        cov = np.linalg.inv(hessian)
        sandwich = cluster_covariance(hessian, scores, d.participant)
    except np.linalg.LinAlgError:
        return robust, naive
    for a, i in enumerate(inside):
        if cov[a, a] > 0:
            naive[names[i]] = float(math.sqrt(cov[a, a]))
        if sandwich[a, a] > 0:
            robust[names[i]] = float(math.sqrt(sandwich[a, a]))
    return robust, naive


def larger_error(cluster: float, naive: float) -> float:
    """The larger of the two errors; the observed information's alone where there is no
    sandwich (one participant)."""
    return max(cluster, naive) if math.isfinite(cluster) else naive
