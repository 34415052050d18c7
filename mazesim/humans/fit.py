"""Maximum-likelihood fits of models to people's junction decisions, cross-validated by person.

`fit_run(run, models, ...)` fits every model (`mazesim.humans.models`) to all decisions
(in-sample), to each of K training folds of participants (cross-validation: each participant's
decisions are scored by the model fitted without them), and with `by="participant"` to each
participant alone. Per model: the fitted parameters and lapse, in-sample and cross-validated
bits per decision, a 95 % percentile interval of the cross-validated bits by bootstrap over
participants, AIC and BIC; the uniform baseline beside them.

Optimisation (scipy.optimize), every start drawn from the seed: the choice model's weights and
lapse jointly by SLSQP with the analytic gradient; agents with continuous parameters on
their bounds by SLSQP (one parameter: a grid of the bounds and bounded Brent) with the lapse
profiled out (the log-likelihood is concave in the lapse: Newton steps on its derivative);
an integer parameter by trying every value. Folds, starts and bootstrap samples flow from
`numpy.random.SeedSequence(seed)`: one seed, identical output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import optimize, stats

from mazesim.errors import DataError
from mazesim.humans.data import HumanRun, bits
from mazesim.agents.base import INTEGER, LINEAR, LOG
from mazesim.humans.models import (LogitModel, ModelSpec, PlanSteps, build_model, parse_model,
                                   with_lapse)

__all__ = ["BY", "Estimate", "ParticipantFit", "ModelFit", "FitReport", "fit_run",
           "DEFAULT_FOLDS", "DEFAULT_STARTS", "MAX_FOLDS", "MAX_STARTS", "MAX_MODELS",
           "BOOTSTRAP_SAMPLES", "CONFIDENCE"]

BY = ("pooled", "participant")
DEFAULT_FOLDS = 5
DEFAULT_STARTS = 3
MAX_FOLDS = 100
MAX_STARTS = 50
MAX_MODELS = 50
BOOTSTRAP_SAMPLES = 2000
CONFIDENCE = 0.95
_GRID = 9                       # points of the first look along one continuous parameter
_SCREEN = 64                    # seeded points of the first look at several
_NEWTON_STEPS = 100             # most steps of the lapse search (it takes about ten)
_LAPSE_TOLERANCE = 1e-13
_TINY = 1e-300                  # floor of a probability inside a log
_FIRST_LAPSE = 0.01             # the lapse of the first start
_BOUND_GAP = 1e-6              # an estimate this close to a bound has no Wald interval
_HESSIAN_STEP = 1e-4            # relative step of the central differences
_METHOD = "SLSQP"               # bounded quasi-Newton; scipy's L-BFGS-B calls threaded BLAS
                                # that is a hundred times slower on a loaded machine


@dataclass(frozen=True)
class Estimate:
    """One maximum-likelihood fit: parameters (natural scale), lapse, and the natural-log
    likelihood of the decisions it was fitted to."""

    params: dict[str, float]
    lapse: float
    log_likelihood: float
    decisions: int

    @property
    def bits(self) -> float:
        return bits(self.log_likelihood, self.decisions)


@dataclass(frozen=True)
class ParticipantFit:
    """One participant under one model: decisions, cross-validated bits (scored by the model
    fitted without their fold), and with `by="participant"` their own fit."""

    participant: str
    decisions: int
    cv_bits: float | None
    own: Estimate | None = None


@dataclass(frozen=True)
class ModelFit:
    """One model's fit: pooled estimate, information criteria, cross-validated bits."""

    model: str
    agent: str
    estimate: Estimate
    k: int
    cv_bits: float | None
    cv_bits_ci: tuple[float, float] | None
    participants: tuple[ParticipantFit, ...] = field(repr=False, default=())
    log_probs: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    """The natural log of p(chosen) at each decision under the pooled estimate."""
    cv_log_probs: np.ndarray | None = field(repr=False, default=None)
    """... and under the fit without the decision's fold (None without cross-validation)."""
    errors: dict[str, float] = field(default_factory=dict)
    """Standard errors of the pooled estimate (parameters on their search scale, and `lapse`)
    from the observed information; NaN at a bound or where the information is singular."""
    scales: dict[str, str] = field(default_factory=dict)

    def interval(self, name: str, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The Wald interval of a parameter (or `lapse`) on its natural scale."""
        value = self.estimate.lapse if name == "lapse" else self.estimate.params[name]
        error = self.errors.get(name, float("nan"))
        z = stats.norm.ppf(0.5 + confidence / 2) * error
        if self.scales.get(name) == LOG:
            return value * 10.0 ** -z, value * 10.0 ** z
        return value - z, value + z

    @property
    def bits(self) -> float:
        return self.estimate.bits

    @property
    def aic(self) -> float:
        return 2 * self.k - 2 * self.estimate.log_likelihood

    @property
    def bic(self) -> float:
        return self.k * math.log(self.estimate.decisions) - 2 * self.estimate.log_likelihood

    def to_json(self) -> dict:
        return {"model": self.model, "params": self.estimate.params,
                "lapse": self.estimate.lapse, "bits": self.bits, "cv_bits": self.cv_bits,
                "cv_bits_ci": None if self.cv_bits_ci is None else list(self.cv_bits_ci),
                "aic": self.aic, "bic": self.bic,
                "params_ci": {name: _finite(self.interval(name))
                              for name in [*self.estimate.params, "lapse"]}}


@dataclass(frozen=True)
class FitReport:
    """Every model fitted to a run, best first (by cross-validated bits, else in-sample)."""

    run: str
    decisions: int
    participants: int
    baseline_bits: float
    folds: int
    seed: int
    by: str
    models: tuple[ModelFit, ...]

    def to_json(self) -> dict:
        return {"decisions": self.decisions, "participants": self.participants,
                "baseline_bits": self.baseline_bits,
                "models": [m.to_json() for m in self.models]}


def fit_run(run: HumanRun, models: Sequence[str | ModelSpec], *, by: str = "pooled",
            folds: int = DEFAULT_FOLDS, seed: int = 0, starts: int = DEFAULT_STARTS
            ) -> FitReport:
    """Fit each model of `models` (names, `mazesim.humans.models.parse_model`, or specs) to
    `run`.

    `folds` 0 skips cross-validation; otherwise 2 <= folds <= participants.
    """
    d = run.decisions
    people = len(run.participants)
    specs = _check(models, by, folds, seed, starts, people, len(d))
    root = np.random.SeedSequence(seed)
    fold_of = _folds(people, folds, np.random.default_rng(root.spawn(1)[0]))
    samples = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).integers(
        0, people, size=(BOOTSTRAP_SAMPLES, people))
    plans = PlanSteps(run) if any(s.make().goal_seeking for s in specs) else None
    out = []
    for spec in specs:
        model = build_model(spec, run, plans)
        rng = np.random.default_rng(np.random.SeedSequence([seed, *spec.label.encode()]))
        every = np.arange(len(d))
        pooled = _estimate(spec, model, run, every, rng, starts)
        cv_log = _cross_validate(spec, model, run, fold_of, rng, starts) if folds else None
        own = ([_estimate(spec, model, run, np.flatnonzero(d.participant == p), rng, starts)
                for p in range(people)] if by == "participant" else [None] * people)
        out.append(_model_fit(spec, run, pooled, cv_log, samples, own,
                              _score(spec, model, run, pooled, every),
                              _errors(spec, model, run, pooled)))
    key = (lambda m: m.cv_bits) if folds else (lambda m: m.bits)
    return FitReport(str(run.path), len(d), people, d.baseline_bits(), folds, seed, by,
                     tuple(sorted(out, key=key)))


def _finite(interval: tuple[float, float]) -> list[float] | None:
    """An interval for JSON: None where there is none (NaN)."""
    return [float(v) for v in interval] if all(map(math.isfinite, interval)) else None


def _check(models: Sequence[str | ModelSpec], by: str, folds: int, seed: int, starts: int,
           people: int, decisions: int) -> list[ModelSpec]:
    if by not in BY:
        raise DataError(f"by: {by!r} (allowed: {', '.join(BY)})")
    if not models or len(models) > MAX_MODELS:
        raise DataError(f"models: {len(models)} models (allowed: 1 to {MAX_MODELS})")
    specs = [m if isinstance(m, ModelSpec) else parse_model(m) for m in models]
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise DataError(f"models: {next(x for x in labels if labels.count(x) > 1)} twice")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DataError(f"seed: {seed!r} (allowed: an integer >= 0)")
    if not 1 <= starts <= MAX_STARTS:
        raise DataError(f"starts: {starts} (allowed: 1 to {MAX_STARTS})")
    if folds and not 2 <= folds <= min(people, MAX_FOLDS):
        raise DataError(f"folds: {folds} (allowed: 0 for none, or 2 to "
                        f"{min(people, MAX_FOLDS)}: the participants, at most {MAX_FOLDS})")
    if decisions == 0:
        raise DataError("the run has no junction decision (a departure from a cell with 3 or "
                        "4 open neighbours): nothing to fit")
    return specs


def _folds(people: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """The fold of each participant: a seeded shuffle dealt into `folds` near-equal parts."""
    out = np.zeros(people, np.int64)
    if folds:
        out[rng.permutation(people)] = np.arange(people) % folds
    return out


def _estimate(spec: ModelSpec, model, run: HumanRun, rows: np.ndarray,
              rng: np.random.Generator, starts: int) -> Estimate:
    """The maximum-likelihood fit of `model` to the decisions `rows`."""
    n_open = run.decisions.n_open[rows]
    if isinstance(model, LogitModel):
        theta, lapse, ll = _fit_logit(model, rows, n_open, rng, starts)
    elif not spec.free:
        lapse, ll = _best_lapse(model.chosen(np.zeros(0), rows), n_open)
        theta = np.zeros(0)
    elif spec.free[0].scale == INTEGER:
        theta, lapse, ll = _fit_integer(spec, model, rows, n_open)
    else:
        theta, lapse, ll = _fit_continuous(spec, model, rows, n_open, rng, starts)
    params = {p.name: p.value(x) for p, x in zip(spec.free, theta)}
    return Estimate(params, float(lapse), float(ll), len(rows))


def _best_lapse(chosen: np.ndarray, n_open: np.ndarray) -> tuple[float, float]:
    """(lapse, log-likelihood) maximising the likelihood of p(chosen) over the lapse in [0, 1]:
    the log-likelihood is concave in the lapse, so Newton steps on its slope, kept inside a
    bracket that bisection narrows when a step would leave it."""
    gap = 1.0 / n_open - chosen

    def slope(lapse: float) -> tuple[float, float]:
        ratio = gap / np.maximum(chosen + lapse * gap, _TINY)
        with np.errstate(over="ignore"):            # an impossible choice at lapse 0: -inf
            return float(np.sum(ratio)), float(-np.sum(ratio ** 2))

    if np.all(chosen > 0) and slope(0.0)[0] <= 0:
        lapse = 0.0
    elif slope(1.0)[0] >= 0:
        lapse = 1.0
    else:
        low, high, lapse = 0.0, 1.0, 0.5
        for _ in range(_NEWTON_STEPS):
            g, h = slope(lapse)
            low, high = (lapse, high) if g > 0 else (low, lapse)
            step = lapse - g / h if h < 0 else 0.5 * (low + high)
            if not low < step < high:
                step = 0.5 * (low + high)
            if abs(step - lapse) <= _LAPSE_TOLERANCE:
                lapse = step
                break
            lapse = step
    return lapse, _log_likelihood(chosen, n_open, lapse)


def _log_likelihood(chosen: np.ndarray, n_open: np.ndarray, lapse: float) -> float:
    return float(np.sum(np.log(np.maximum(with_lapse(chosen, n_open, lapse), _TINY))))


def _fit_logit(model: LogitModel, rows: np.ndarray, n_open: np.ndarray,
               rng: np.random.Generator, starts: int) -> tuple[np.ndarray, float, float]:
    """Weights and lapse jointly, SLSQP with the analytic gradient. The first start is the
    maximum without a lapse (the logit alone is concave: one maximum), the others are drawn."""
    data = model.subset(rows)
    k = data.features.shape[2]
    bounds = [(p.low, p.high) for p in model.spec.free]

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        w, lapse = x[:k], x[k]
        pc, grad = data.chosen_and_gradient(w)
        p = np.maximum(with_lapse(pc, n_open, lapse), _TINY)
        g_w = -((1.0 - lapse) * grad / p[:, None]).sum(axis=0)
        g_lapse = -np.sum((1.0 / n_open - pc) / p)
        return -float(np.sum(np.log(p))), np.r_[g_w, g_lapse]

    def without_lapse(w: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = objective(np.r_[w, 0.0])
        return value, grad[:k]                      # the weights' gradient only

    concave = optimize.minimize(without_lapse, np.zeros(k), jac=True, method=_METHOD,
                                bounds=bounds)
    best = None
    for s in range(starts):
        x0 = (np.r_[concave.x[:k], _FIRST_LAPSE] if s == 0
              else np.r_[rng.normal(0.0, 1.0, k), rng.uniform(0.0, 2 * _FIRST_LAPSE)])
        res = optimize.minimize(objective, x0, jac=True, method=_METHOD,
                                bounds=bounds + [(0.0, 1.0)])
        if best is None or res.fun < best.fun:
            best = res
    return best.x[:k], float(best.x[k]), -float(best.fun)


def _fit_integer(spec: ModelSpec, model, rows: np.ndarray, n_open: np.ndarray
                 ) -> tuple[np.ndarray, float, float]:
    """Every integer value of the one parameter, the lapse profiled; the best."""
    param = spec.free[0]
    best = None
    for value in range(int(param.low), int(param.high) + 1):
        lapse, ll = _best_lapse(model.chosen(np.array([float(value)]), rows), n_open)
        if best is None or ll > best[2]:
            best = (np.array([float(value)]), lapse, ll)
    return best


def _fit_continuous(spec: ModelSpec, model, rows: np.ndarray, n_open: np.ndarray,
                    rng: np.random.Generator, starts: int) -> tuple[np.ndarray, float, float]:
    """Continuous parameters on their search scale, the lapse profiled out: a screen of the
    bounds (a grid for one parameter, seeded points for several), then local searches from the
    best `starts` points of it (bounded Brent between the grid neighbours; SLSQP)."""
    bounds = np.array([p.bounds() for p in spec.free])

    def negative(x: np.ndarray) -> float:
        return -_best_lapse(model.chosen(np.asarray(x, np.float64), rows), n_open)[1]

    if len(bounds) == 1:
        screen = np.linspace(bounds[0, 0], bounds[0, 1], _GRID)[:, None]
    else:
        screen = bounds[:, 0] + rng.random((_SCREEN, len(bounds))) * np.ptp(bounds, axis=1)
    values = np.array([negative(x) for x in screen])
    best_x, best_f = screen[int(np.argmin(values))], float(values.min())
    for i in np.argsort(values, kind="stable")[:starts]:
        if len(bounds) == 1:
            a, b = screen[max(i - 1, 0), 0], screen[min(i + 1, _GRID - 1), 0]
            res = optimize.minimize_scalar(lambda x: negative(np.array([x])), bounds=(a, b),
                                           method="bounded")
            x, f = np.array([res.x]), float(res.fun)
        else:
            res = optimize.minimize(negative, screen[i], method=_METHOD, bounds=bounds)
            x, f = res.x, float(res.fun)
        if f < best_f:
            best_x, best_f = x, f
    lapse, ll = _best_lapse(model.chosen(best_x, rows), n_open)
    return best_x, lapse, ll


def _cross_validate(spec: ModelSpec, model, run: HumanRun, fold_of: np.ndarray,
                    rng: np.random.Generator, starts: int) -> np.ndarray:
    """The log-probability of each decision under the model fitted without its fold."""
    d = run.decisions
    out = np.empty(len(d))
    for fold in range(int(fold_of.max()) + 1):
        test = fold_of[d.participant] == fold
        fit = _estimate(spec, model, run, np.flatnonzero(~test), rng, starts)
        out[test] = _score(spec, model, run, fit, np.flatnonzero(test))
    return out


def _score(spec: ModelSpec, model, run: HumanRun, fit: Estimate, rows: np.ndarray
           ) -> np.ndarray:
    """log p(chosen) at `rows` under a fit."""
    theta = np.array([_search_value(p, fit.params[p.name]) for p in spec.free], np.float64)
    chosen = model.chosen(theta, rows)
    return np.log(np.maximum(with_lapse(chosen, run.decisions.n_open[rows], fit.lapse), _TINY))


def _search_value(param, value: float) -> float:
    return math.log10(value) if param.scale == LOG else value


def _errors(spec: ModelSpec, model, run: HumanRun, fit: Estimate) -> dict[str, float]:
    """Standard errors from the observed information: the inverse of the Hessian of the
    negative log-likelihood (central differences) over the parameters inside their bounds."""
    n_open = run.decisions.n_open
    every = np.arange(len(run.decisions))
    names = [p.name for p in spec.free] + ["lapse"]
    x = np.array([_search_value(p, fit.params[p.name]) for p in spec.free] + [fit.lapse])
    bounds = [p.bounds() for p in spec.free] + [(0.0, 1.0)]
    scales = [p.scale for p in spec.free] + [LINEAR]
    inside = [i for i, ((lo, hi), scale) in enumerate(zip(bounds, scales))
              if scale != INTEGER and lo + _BOUND_GAP < x[i] < hi - _BOUND_GAP]
    out = {name: float("nan") for name in names}
    if not inside:
        return out

    def negative(y: np.ndarray) -> float:
        theta = y[:-1]
        return -_log_likelihood(model.chosen(theta, every), n_open, float(y[-1]))

    steps = [_HESSIAN_STEP * max(1.0, abs(x[i])) for i in inside]
    hessian = np.empty((len(inside), len(inside)))
    for a, (i, hi) in enumerate(zip(inside, steps)):
        for b, (j, hj) in enumerate(zip(inside, steps)):
            if b < a:
                continue
            corners = []
            for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                y = x.copy()
                y[i] += si * hi
                y[j] += sj * hj
                corners.append(negative(y))
            hessian[a, b] = hessian[b, a] = (corners[0] - corners[1] - corners[2]
                                             + corners[3]) / (4 * hi * hj)
    try:
        cov = np.linalg.inv(hessian)
    except np.linalg.LinAlgError:
        return out
    for a, i in enumerate(inside):
        if cov[a, a] > 0:
            out[names[i]] = float(math.sqrt(cov[a, a]))
    return out


def _model_fit(spec: ModelSpec, run: HumanRun, pooled: Estimate, cv_log: np.ndarray | None,
               samples: np.ndarray, own: list[Estimate | None], log_probs: np.ndarray,
               errors: dict[str, float]) -> ModelFit:
    d = run.decisions
    people = len(run.participants)
    counts = np.bincount(d.participant, minlength=people)
    cv_bits = ci = None
    per_person: list[float | None] = [None] * people
    if cv_log is not None:
        sums = np.bincount(d.participant, weights=cv_log, minlength=people)
        cv_bits = bits(float(sums.sum()), len(d))
        boot = -sums[samples].sum(axis=1) / np.maximum(counts[samples].sum(axis=1), 1) / \
            math.log(2)
        tail = 100 * (1 - CONFIDENCE) / 2
        ci = (float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail)))
        per_person = [bits(float(s), int(c)) if c else None for s, c in zip(sums, counts)]
    parts = tuple(ParticipantFit(name, int(counts[i]), per_person[i], own[i])
                  for i, name in enumerate(run.participants))
    return ModelFit(spec.label, spec.agent, pooled, len(spec.free) + 1, cv_bits, ci, parts,
                    log_probs, cv_log, errors, {p.name: p.scale for p in spec.free})
