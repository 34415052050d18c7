"""The maximum-likelihood fit of one junction model to a subset of decisions (`estimate`).

scipy.optimize, every start drawn from the caller's generator: the choice model's weights and
lapse jointly by SLSQP with the analytic gradient; agents with continuous parameters on their
bounds by SLSQP (one parameter: a grid of the bounds and bounded Brent) with the lapse profiled
out (`likelihood.best_lapse`); an integer parameter by trying every value. A fit that did not
converge says so (`Estimate.converged`), never silently."""

from __future__ import annotations

import numpy as np
from scipy import optimize

from mazesim.agents.base import INTEGER
from mazesim.errors import DataError
from mazesim.humans.data.run import HumanRun
from mazesim.humans.fitting.likelihood import TINY, best_lapse, with_lapse
from mazesim.humans.fitting.models import LogitModel, ModelSpec
from mazesim.humans.fitting.results import Estimate

__all__ = ["estimate", "DEFAULT_STARTS", "DEFAULT_ITERATIONS", "BOUND_GAP"]

DEFAULT_STARTS = 3
DEFAULT_ITERATIONS = 500        # iterations of one optimiser run (SLSQP, bounded Brent)
BOUND_GAP = 1e-6                # an estimate this close to a bound is at it (no Wald interval)
_GRID = 9                       # points of the first look along one continuous parameter
_SCREEN = 64                    # seeded points of the first look at several
_FIRST_LAPSE = 0.01             # the lapse of the first start
_ITERATION_LIMIT = 9            # SLSQP's status when it ran out of iterations
_KKT_TOLERANCE = 1e-4           # projected gradient, relative to the objective, at a maximum
_METHOD = "SLSQP"               # bounded quasi-Newton; scipy's L-BFGS-B calls threaded BLAS
                                # that is a hundred times slower on a loaded machine


def estimate(spec: ModelSpec, model, run: HumanRun, rows: np.ndarray,
              rng: np.random.Generator, starts: int,
              max_iterations: int = DEFAULT_ITERATIONS,
              weights: np.ndarray | None = None) -> Estimate:
    """The maximum-likelihood fit of `model` to the decisions `rows` (each weighted by
    `weights`, one per row, when given)."""
    if len(rows) == 0:
        raise DataError(f"{spec.label}: a fit to no decision")      # the folds prevent it
    n_open = run.decisions.n_open[rows]
    converged = True
    if isinstance(model, LogitModel):
        theta, lapse, ll, converged = _fit_logit(model, rows, n_open, rng, starts,
                                                 max_iterations, weights)
    elif not spec.free:
        lapse, ll = best_lapse(model.chosen(np.zeros(0), rows), n_open, weights)
        theta = np.zeros(0)
    elif spec.free[0].scale == INTEGER:
        theta, lapse, ll = _fit_integer(spec, model, rows, n_open, weights)
    else:
        theta, lapse, ll, converged = _fit_continuous(spec, model, rows, n_open, rng, starts,
                                                      max_iterations, weights)
    params = {p.name: p.value(x) for p, x in zip(spec.free, theta)}
    return Estimate(params, float(lapse), float(ll), len(rows), bool(converged))


def _fit_logit(model: LogitModel, rows: np.ndarray, n_open: np.ndarray,
               rng: np.random.Generator, starts: int, max_iterations: int,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, float, float, bool]:
    """Weights and lapse jointly, SLSQP with the analytic gradient. The first start is the
    maximum without a lapse (the logit alone is concave: one maximum), the others are drawn.
    Converged: the optimiser run that gave the best point reported success."""
    data = model.subset(rows)
    k = data.features.shape[2]
    bounds = [(p.low, p.high) for p in model.spec.free]
    each = np.ones(len(rows)) if weights is None else weights

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        w, lapse = x[:k], x[k]
        pc, grad = data.chosen_and_gradient(w)
        p = np.maximum(with_lapse(pc, n_open, lapse), TINY)
        g_w = -((1.0 - lapse) * grad * (each / p)[:, None]).sum(axis=0)
        g_lapse = -np.sum(each * (1.0 / n_open - pc) / p)
        return -float(np.sum(each * np.log(p))), np.r_[g_w, g_lapse]

    def without_lapse(w: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = objective(np.r_[w, 0.0])
        return value, grad[:k]                      # the weights' gradient only

    options = {"maxiter": max_iterations}
    concave = optimize.minimize(without_lapse, np.zeros(k), jac=True, method=_METHOD,
                                bounds=bounds, options=options)
    best = None
    for s in range(starts):
        x0 = (np.r_[concave.x[:k], _FIRST_LAPSE] if s == 0
              else np.r_[rng.normal(0.0, 1.0, k), rng.uniform(0.0, 2 * _FIRST_LAPSE)])
        res = optimize.minimize(objective, x0, jac=True, method=_METHOD,
                                bounds=bounds + [(0.0, 1.0)], options=options)
        if best is None or res.fun < best.fun:
            best = res
    return best.x[:k], float(best.x[k]), -float(best.fun), _converged(best, bounds + [(0, 1)])


def _converged(res: optimize.OptimizeResult, bounds) -> bool:
    """Whether an optimiser run ended at a maximum: it says so, or (SLSQP's "inequality
    constraints incompatible" or line-search ends at a bound where the likelihood is flat) its
    gradient projected on the bounds is below `_KKT_TOLERANCE` of the objective. Bounded Brent
    and an iteration limit: its own word."""
    if res.success or getattr(res, "status", None) == _ITERATION_LIMIT or \
            getattr(res, "jac", None) is None:
        return bool(res.success)
    x, g = np.asarray(res.x, np.float64), np.asarray(res.jac, np.float64)[:len(res.x)]
    low, high = np.array(bounds, np.float64).T
    g = np.where((x <= low + BOUND_GAP) & (g > 0), 0.0, g)     # pushing against a bound
    g = np.where((x >= high - BOUND_GAP) & (g < 0), 0.0, g)
    return bool(np.max(np.abs(g), initial=0.0) <= _KKT_TOLERANCE * max(1.0, abs(res.fun)))


def _fit_integer(spec: ModelSpec, model, rows: np.ndarray, n_open: np.ndarray,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, float, float]:
    """Every integer value of the one parameter, the lapse profiled; the best."""
    param = spec.free[0]
    best = None
    for value in range(int(param.low), int(param.high) + 1):
        lapse, ll = best_lapse(model.chosen(np.array([float(value)]), rows), n_open, weights)
        if best is None or ll > best[2]:
            best = (np.array([float(value)]), lapse, ll)
    return best


def _fit_continuous(spec: ModelSpec, model, rows: np.ndarray, n_open: np.ndarray,
                    rng: np.random.Generator, starts: int, max_iterations: int,
                    weights: np.ndarray | None = None
                    ) -> tuple[np.ndarray, float, float, bool]:
    """Continuous parameters on their search scale, the lapse profiled out: a screen of the
    bounds (a grid for one parameter, seeded points for several), then local searches from the
    best `starts` points of it (bounded Brent between the grid neighbours; SLSQP)."""
    bounds = np.array([p.bounds() for p in spec.free])

    def negative(x: np.ndarray) -> float:
        return -best_lapse(model.chosen(np.asarray(x, np.float64), rows), n_open, weights)[1]

    if len(bounds) == 1:
        screen = np.linspace(bounds[0, 0], bounds[0, 1], _GRID)[:, None]
    else:
        screen = bounds[:, 0] + rng.random((_SCREEN, len(bounds))) * np.ptp(bounds, axis=1)
    values = np.array([negative(x) for x in screen])
    best_x, best_f = screen[int(np.argmin(values))], float(values.min())
    converged = None        # the search from the best screen point, unless another wins
    options = {"maxiter": max_iterations}
    for i in np.argsort(values, kind="stable")[:starts]:
        if len(bounds) == 1:
            a, b = screen[max(i - 1, 0), 0], screen[min(i + 1, _GRID - 1), 0]
            res = optimize.minimize_scalar(lambda x: negative(np.array([x])), bounds=(a, b),
                                           method="bounded", options=options)
            x, f = np.array([res.x]), float(res.fun)
        else:
            res = optimize.minimize(negative, screen[i], method=_METHOD, bounds=bounds,
                                    options=options)
            x, f = res.x, float(res.fun)
        if converged is None or f < best_f:
            converged = _converged(res, bounds)
        if f < best_f:
            best_x, best_f = x, f
    lapse, ll = best_lapse(model.chosen(best_x, rows), n_open, weights)
    return best_x, lapse, ll, converged
