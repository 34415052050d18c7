"""Maximum-likelihood fits of models to people's junction decisions, cross-validated by person.

`fit_run(run, models, ...)` fits every model (`mazesim.humans.fitting.models`) to all decisions
(in-sample), to each of K training folds of participants (cross-validation: each participant's
decisions are scored by the model fitted without them), and with `by="participant"` to each
participant alone. Per model: the fitted parameters and lapse with Wald intervals (the larger
of the cluster-robust standard error by participant, `cluster_covariance`, and the observed
information's), in-sample and cross-validated bits per decision, a 95 % percentile interval of
the cross-validated bits by bootstrap over participants, AIC and BIC (n = decisions), and which
fits did not converge (an iteration limit, or an end that is no maximum: never silent); the
uniform baseline beside them. `score_run` scores fitted parameters on another run without
fitting (the lapse held or refitted).

Optimisation (scipy.optimize), every start drawn from the seed: the choice model's weights and
lapse jointly by SLSQP with the analytic gradient; agents with continuous parameters on
their bounds by SLSQP (one parameter: a grid of the bounds and bounded Brent) with the lapse
profiled out (the log-likelihood is concave in the lapse: Newton steps on its derivative);
an integer parameter by trying every value. The folds are dealt among the participants with a
junction decision (no fold trains or tests on nothing). Folds, starts and bootstrap samples flow
from `numpy.random.SeedSequence(seed)`: one seed, identical output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy import optimize, stats

from mazesim.errors import DataError
from mazesim.agents.base import INTEGER, LINEAR, LOG
from mazesim.humans.data.run import HumanRun, bits
from mazesim.humans.fitting.folds import group_name, maze_folds
from mazesim.humans.fitting.models import (LogitModel, ModelSpec, PlanSteps, build_model, parse_model,
                                   with_lapse)
from mazesim.humans.fitting.ranking import Ranking, rank_fitted

__all__ = ["BY", "WEIGH", "Estimate", "ParticipantFit", "ModelFit", "FitReport", "fit_run",
           "person_weights",
           "DEFAULT_FOLDS", "DEFAULT_STARTS", "MAX_FOLDS", "MAX_STARTS", "MAX_MODELS",
           "BOOTSTRAP_SAMPLES", "CONFIDENCE", "DEFAULT_ITERATIONS", "MAX_ITERATIONS",
           "cluster_covariance", "score_run", "decision_maze_folds", "PARTICIPANTS",
           "MAZE_GROUPS"]

BY = ("pooled", "participant")
PARTICIPANTS, MAZE_GROUPS = "participants", "maze groups"   # what cross-validation folds
WEIGH = ("decision", "person")
"""How the pooled likelihood counts people: every decision once, or every person once (each
decision weighted by the number of decisions over the people with one, divided by its
person's: the population's mean where people differ, `person_weights`)."""
DEFAULT_FOLDS = 5
DEFAULT_STARTS = 3
MAX_FOLDS = 100
MAX_STARTS = 50
MAX_MODELS = 50
DEFAULT_ITERATIONS = 500        # iterations of one optimiser run (SLSQP, bounded Brent)
MAX_ITERATIONS = 100_000
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
_ITERATION_LIMIT = 9            # SLSQP's status when it ran out of iterations
_KKT_TOLERANCE = 1e-4           # projected gradient, relative to the objective, at a maximum
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
    converged: bool = True
    """False when an optimiser stopped without reporting success (an iteration limit, a
    failed line search): the estimate is then the best point it reached, not a maximum."""

    @property
    def bits(self) -> float:
        return bits(self.log_likelihood, self.decisions)


@dataclass(frozen=True)
class ParticipantFit:
    """One participant under one model: decisions, cross-validated bits (scored by the model
    fitted without their fold), with `by="participant"` their own fit, and their bits under
    the pooled estimate (`pooled_bits`)."""

    participant: str
    decisions: int
    cv_bits: float | None
    own: Estimate | None = None
    pooled_bits: float | None = None


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
    """The standard errors of the intervals (parameters on their search scale, and `lapse`):
    the larger of `cluster_errors` and `model_errors` (Angrist and Pischke 2009, section 8.1:
    the sandwich is biased down with few clusters, and collapses where the likelihood is flat);
    NaN at a bound or where the information is singular."""
    scales: dict[str, str] = field(default_factory=dict)
    model_errors: dict[str, float] = field(default_factory=dict)
    """From the observed information alone (every decision taken as independent)."""
    cluster_errors: dict[str, float] = field(default_factory=dict)
    """Cluster-robust by participant: the sandwich (`cluster_covariance`); NaN with one
    participant (`errors` are then the observed information's)."""
    not_converged: tuple[str, ...] = ()
    """The fits whose optimiser did not converge: "pooled", "fold F", "participant ID"."""

    def interval(self, name: str, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The Wald interval of a parameter (or `lapse`) on its natural scale (`errors`)."""
        value = self.estimate.lapse if name == "lapse" else self.estimate.params[name]
        error = self.errors.get(name, float("nan"))
        z = stats.norm.ppf(0.5 + confidence / 2) * error
        if self.scales.get(name) == LOG:
            return value * 10.0 ** -z, value * 10.0 ** z
        return value - z, value + z

    @property
    def converged(self) -> bool:
        return not self.not_converged

    @property
    def bits(self) -> float:
        return self.estimate.bits

    @property
    def aic(self) -> float:
        return 2 * self.k - 2 * self.estimate.log_likelihood

    @property
    def bic(self) -> float:
        """k log(n) - 2 log L with n = the decisions (`bic_n` in the JSON)."""
        return self.k * math.log(self.estimate.decisions) - 2 * self.estimate.log_likelihood

    def to_json(self) -> dict:
        names = [*self.estimate.params, "lapse"]
        return {"model": self.model, "params": self.estimate.params,
                "lapse": self.estimate.lapse, "bits": self.bits, "cv_bits": self.cv_bits,
                "cv_bits_ci": None if self.cv_bits_ci is None else list(self.cv_bits_ci),
                "aic": self.aic, "bic": self.bic, "bic_n": self.estimate.decisions,
                "params_ci": {name: _finite(self.interval(name)) for name in names},
                "params_se": {name: _number(self.errors.get(name)) for name in names},
                "params_se_cluster": {name: _number(self.cluster_errors.get(name))
                                      for name in names},
                "params_se_model": {name: _number(self.model_errors.get(name))
                                    for name in names},
                "converged": self.converged, "not_converged": list(self.not_converged)}

    def participants_json(self) -> list[dict]:
        """Each participant: decisions, cross-validated bits, and their own fit if any."""
        return [{"participant": p.participant, "decisions": p.decisions, "cv_bits": p.cv_bits,
                 "pooled_bits": p.pooled_bits, **({} if p.own is None else {
                     "lapse": p.own.lapse, "bits": p.own.bits, "params": p.own.params,
                     "converged": p.own.converged})}
                for p in self.participants]


@dataclass(frozen=True)
class FitReport:
    """Every model fitted to a run, best first (by cross-validated bits, else in-sample).
    With `params_from`, the models were not fitted but scored with the parameters of another
    fit (`score_run`): the lapse held, or refitted with `refit_lapse`."""

    run: str
    decisions: int
    participants: int
    baseline_bits: float
    folds: int
    seed: int
    by: str
    models: tuple[ModelFit, ...]
    params_from: str | None = None
    refit_lapse: bool = False
    folds_over: str = "participants"
    """What the cross-validation's folds deal: `participants` (new people) or `maze groups`
    (new mazes, `mazesim.humans.fitting.folds`)."""
    level: str = "junction"
    """The decisions fitted (`humans.data.run.LEVELS`)."""
    ranking: Ranking | None = None
    """The models compared over people (`ranking.rank_fitted`), or None ..."""
    ranking_note: str = ""
    """... and why not."""

    @property
    def warnings(self) -> list[str]:
        """One line per model whose optimiser did not converge somewhere."""
        return [f"{m.model}: the optimiser did not converge ({', '.join(m.not_converged[:5])}"
                f"{', ...' if len(m.not_converged) > 5 else ''}; raise --max-iterations)"
                for m in self.models if m.not_converged]

    def to_json(self) -> dict:
        out = {"level": self.level, "decisions": self.decisions,
               "participants": self.participants, "baseline_bits": self.baseline_bits,
               "folds_over": self.folds_over,
               "params_ci_method": ("95 % Wald, the larger of the cluster-robust (by participant) "
                                    "and observed-information errors"),
               "converged": not self.warnings, "warnings": self.warnings,
               "models": [m.to_json() for m in self.models]}
        out["ranking"] = None if self.ranking is None else self.ranking.to_json()
        if self.ranking is None:
            out["ranking_note"] = self.ranking_note
        if self.params_from is not None:
            out.update(params_from=self.params_from, refit_lapse=self.refit_lapse)
        if self.by == "participant":
            for entry, m in zip(out["models"], self.models):
                entry["participants"] = m.participants_json()
        return out


def fit_run(run: HumanRun, models: Sequence[str | ModelSpec], *, by: str = "pooled",
            folds: int = DEFAULT_FOLDS, seed: int = 0, starts: int = DEFAULT_STARTS,
            max_iterations: int = DEFAULT_ITERATIONS, cv_mazes: int = 0,
            weigh: str = WEIGH[0],
            progress: Callable[[str, int, int], None] | None = None) -> FitReport:
    """Fit each model of `models` (names, `mazesim.humans.fitting.models.parse_model`, or specs) to
    `run`.

    `folds` 0 skips cross-validation; otherwise 2 <= folds <= the participants who made a
    junction decision (the folds are dealt among them, so that no fold trains or tests on
    nothing). `cv_mazes` K > 0 cross-validates over K folds of groups of mazes instead
    (`mazesim.humans.fitting.folds`: each decision scored by the fit without its maze's group).
    `max_iterations` caps each optimiser run; a fit that reaches it is flagged
    (`ModelFit.not_converged`), not dropped. `weigh` "person" maximises the likelihood with
    every person counted once (`person_weights`): the estimates' log-likelihoods and the
    errors are those of that weighted likelihood (the scores, `log_probs`, stay per decision).
    `progress(label, done, total)` hears of each model as it starts and when all are done.
    """
    d = run.decisions
    people = len(run.participants)
    specs = _check(models, by, 0 if cv_mazes else folds, seed, starts, max_iterations, run)
    if weigh not in WEIGH:
        raise DataError(f"weigh: {weigh!r} (allowed: {', '.join(WEIGH)})")
    weights = person_weights(d.participant) if weigh == "person" else None
    if cv_mazes:
        fold_of, folds = decision_maze_folds(run, cv_mazes, seed), cv_mazes
    else:
        root = np.random.SeedSequence(seed)
        fold_of = _folds(people, folds, np.random.default_rng(root.spawn(1)[0]),
                         np.bincount(d.participant, minlength=people) > 0)[d.participant]
    samples = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).integers(
        0, people, size=(BOOTSTRAP_SAMPLES, people))
    plans = PlanSteps(run) if any(s.make().goal_seeking for s in specs) else None
    out = []
    tell = progress or (lambda label, done, total: None)
    for i, spec in enumerate(specs):
        tell(f"models fitted (now {spec.label})", i, len(specs))
        model = build_model(spec, run, plans)
        rng = np.random.default_rng(np.random.SeedSequence([seed, *spec.label.encode()]))
        every = np.arange(len(d))
        fit = _Fitter(spec, model, run, rng, starts, max_iterations, weights)
        pooled = fit(every, "pooled")
        cv_log = _cross_validate(fit, fold_of) if folds else None
        own = ([fit(np.flatnonzero(d.participant == p), f"participant {run.participants[p]}")
                if np.any(d.participant == p) else None for p in range(people)]
               if by == "participant" else [None] * people)
        cluster, naive = _errors(spec, model, run, pooled, weights)
        out.append(_model_fit(spec, run, pooled, cv_log, samples, own,
                              _score(spec, model, run, pooled, every), cluster, naive,
                              tuple(fit.failed)))
    tell("models fitted", len(specs), len(specs))
    key = (lambda m: m.cv_bits) if folds else (lambda m: m.bits)
    fits = tuple(sorted(out, key=key))
    ranking, note = rank_fitted(fits, seed=seed)
    return FitReport(str(run.path), len(d), people, d.baseline_bits(), folds, seed, by, fits,
                     folds_over=MAZE_GROUPS if cv_mazes else PARTICIPANTS, level=run.level,
                     ranking=ranking, ranking_note=note)


def decision_maze_folds(run: HumanRun, folds: int, seed: int) -> np.ndarray:
    """The fold of each junction decision of `run`: its maze's, folds dealt over the groups of
    the mazes with a decision (`folds.maze_folds`)."""
    maze = np.array([run.trials[t].maze_id for t in run.decisions.trial], np.int64)
    ids = np.unique(maze)
    names = [group_name(run.mazes[int(m)]) for m in ids]
    fold = np.zeros(int(ids.max()) + 1 if len(ids) else 1, np.int64)
    fold[ids] = maze_folds(names, folds, seed)
    return fold[maze]


def score_run(run: HumanRun, fitted: Sequence[tuple[str, Estimate]], *,
              refit_lapse: bool = False, params_from: str = "") -> FitReport:
    """Each model of `fitted` (label, estimate: `fit_output.read_fitted`) scored on the
    decisions of `run` with its parameters held: the bits a fit made elsewhere (other people,
    other mazes) gives here. The lapse is held too, or with `refit_lapse` fitted to `run` (then
    k = 1, else 0). Best first by bits."""
    d = run.decisions
    if len(fitted) > MAX_MODELS:
        raise DataError(f"--params: {len(fitted)} models (allowed: 1 to {MAX_MODELS})")
    if len(d) == 0:
        raise DataError("the run has no junction decision (a departure from a cell with 3 or "
                        "4 open neighbours): nothing to score")
    specs = []
    for label, estimate in fitted:
        spec = parse_model(label)
        names = {p.name for p in spec.free}
        if set(estimate.params) != names:
            raise DataError(f"--params: {label} has parameters {sorted(estimate.params)} "
                            f"(the model fits {sorted(names)})")
        for param in spec.free:
            value = estimate.params[param.name]
            if param.scale == LOG and value <= 0:
                raise DataError(f"--params: {label}: {param.name} {value!r} (allowed: > 0)")
        specs.append(spec)
    plans = PlanSteps(run) if any(s.make().goal_seeking for s in specs) else None
    people = len(run.participants)
    counts = np.bincount(d.participant, minlength=people)
    every = np.arange(len(d))
    out = []
    for spec, (label, held) in zip(specs, fitted):
        model = build_model(spec, run, plans)
        theta = np.array([_search_value(p, held.params[p.name]) for p in spec.free])
        chosen = model.chosen(theta, every)
        lapse = _best_lapse(chosen, d.n_open)[0] if refit_lapse else held.lapse
        log_probs = np.log(np.maximum(with_lapse(chosen, d.n_open, lapse), _TINY))
        sums = np.bincount(d.participant, weights=log_probs, minlength=people)
        parts = tuple(ParticipantFit(name, int(counts[i]), None, None,
                                     bits(float(sums[i]), int(counts[i])) if counts[i] else None)
                      for i, name in enumerate(run.participants))
        estimate = Estimate(dict(held.params), float(lapse), float(log_probs.sum()), len(d))
        out.append(ModelFit(spec.label, spec.agent, estimate, int(refit_lapse), None, None,
                            parts, log_probs, None, {}, {p.name: p.scale for p in spec.free}))
    fits = tuple(sorted(out, key=lambda m: m.bits))
    ranking, note = rank_fitted(fits, held_out=True)
    return FitReport(str(run.path), len(d), people, d.baseline_bits(), 0, 0, "pooled", fits,
                     params_from, refit_lapse, level=run.level, ranking=ranking,
                     ranking_note=note)


def _finite(interval: tuple[float, float]) -> list[float] | None:
    """An interval for JSON: None where there is none (NaN)."""
    return [float(v) for v in interval] if all(map(math.isfinite, interval)) else None


def _number(value: float | None) -> float | None:
    """A number for JSON: None for a missing or NaN one."""
    return float(value) if value is not None and math.isfinite(value) else None


def _check(models: Sequence[str | ModelSpec], by: str, folds: int, seed: int, starts: int,
           max_iterations: int, run: HumanRun) -> list[ModelSpec]:
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
    if not 1 <= max_iterations <= MAX_ITERATIONS:
        raise DataError(f"max_iterations: {max_iterations} (allowed: 1 to {MAX_ITERATIONS})")
    if len(run.decisions) == 0:
        raise DataError("the run has no junction decision (a departure from a cell with 3 or "
                        "4 open neighbours): nothing to fit")
    people = len(run.participants)
    deciding = len(np.unique(run.decisions.participant))
    without = (f"; {people - deciding} of the {people} made none" if deciding < people
               else "")
    if folds and deciding < 2:
        raise DataError(f"folds: {folds}: cross-validation by participant needs two participants "
                        f"with a junction decision (the run has {deciding}{without}; folds 0 "
                        "fits without it)")
    if folds and not 2 <= folds <= min(deciding, MAX_FOLDS):
        raise DataError(f"folds: {folds} (allowed: 0 for none, or 2 to "
                        f"{min(deciding, MAX_FOLDS)}: the participants with a junction "
                        f"decision, at most {MAX_FOLDS}{without})")
    return specs


def _folds(people: int, folds: int, rng: np.random.Generator,
           deciding: np.ndarray | None = None) -> np.ndarray:
    """The fold of each participant: a seeded shuffle of those `deciding` (default: everyone)
    dealt into `folds` near-equal parts; the others (no decision to train or test on) go to
    fold 0."""
    out = np.zeros(people, np.int64)
    if folds:
        who = np.arange(people) if deciding is None else np.flatnonzero(deciding)
        out[who[rng.permutation(len(who))]] = np.arange(len(who)) % folds
    return out


class _Fitter:
    """Fits of one model to subsets of the run's decisions, remembering which did not
    converge (by name)."""

    def __init__(self, spec: ModelSpec, model, run: HumanRun, rng: np.random.Generator,
                 starts: int, max_iterations: int, weights: np.ndarray | None = None) -> None:
        self.spec, self.model, self.run, self.rng = spec, model, run, rng
        self.starts, self.max_iterations, self.weights = starts, max_iterations, weights
        self.failed: list[str] = []

    def __call__(self, rows: np.ndarray, name: str) -> Estimate:
        fit = _estimate(self.spec, self.model, self.run, rows, self.rng, self.starts,
                        self.max_iterations,
                        None if self.weights is None else self.weights[rows])
        if not fit.converged:
            self.failed.append(name)
        return fit


def _estimate(spec: ModelSpec, model, run: HumanRun, rows: np.ndarray,
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
        lapse, ll = _best_lapse(model.chosen(np.zeros(0), rows), n_open, weights)
        theta = np.zeros(0)
    elif spec.free[0].scale == INTEGER:
        theta, lapse, ll = _fit_integer(spec, model, rows, n_open, weights)
    else:
        theta, lapse, ll, converged = _fit_continuous(spec, model, rows, n_open, rng, starts,
                                                      max_iterations, weights)
    params = {p.name: p.value(x) for p, x in zip(spec.free, theta)}
    return Estimate(params, float(lapse), float(ll), len(rows), bool(converged))


def person_weights(participant: np.ndarray) -> np.ndarray:
    """One weight per decision that counts every person once: the decisions' mean number per
    person (over the people with one) over its person's number (the weights sum to the
    decisions)."""
    counts = np.bincount(participant)
    return (len(participant) / np.count_nonzero(counts)) / counts[participant]


def _best_lapse(chosen: np.ndarray, n_open: np.ndarray, weights: np.ndarray | None = None
                ) -> tuple[float, float]:
    """(lapse, log-likelihood) maximising the likelihood of p(chosen) over the lapse in [0, 1]:
    the log-likelihood is concave in the lapse, so Newton steps on its slope, kept inside a
    bracket that bisection narrows when a step would leave it."""
    gap = 1.0 / n_open - chosen

    def slope(lapse: float) -> tuple[float, float]:
        ratio = gap / np.maximum(chosen + lapse * gap, _TINY)
        with np.errstate(over="ignore"):            # an impossible choice at lapse 0: -inf
            if weights is None:
                return float(np.sum(ratio)), float(-np.sum(ratio ** 2))
            return float(np.sum(weights * ratio)), float(-np.sum(weights * ratio ** 2))

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
    return lapse, _log_likelihood(chosen, n_open, lapse, weights)


def _log_likelihood(chosen: np.ndarray, n_open: np.ndarray, lapse: float,
                    weights: np.ndarray | None = None) -> float:
    log_p = np.log(np.maximum(with_lapse(chosen, n_open, lapse), _TINY))
    return float(np.sum(log_p if weights is None else weights * log_p))


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
        p = np.maximum(with_lapse(pc, n_open, lapse), _TINY)
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
    g = np.where((x <= low + _BOUND_GAP) & (g > 0), 0.0, g)     # pushing against a bound
    g = np.where((x >= high - _BOUND_GAP) & (g < 0), 0.0, g)
    return bool(np.max(np.abs(g), initial=0.0) <= _KKT_TOLERANCE * max(1.0, abs(res.fun)))


def _fit_integer(spec: ModelSpec, model, rows: np.ndarray, n_open: np.ndarray,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, float, float]:
    """Every integer value of the one parameter, the lapse profiled; the best."""
    param = spec.free[0]
    best = None
    for value in range(int(param.low), int(param.high) + 1):
        lapse, ll = _best_lapse(model.chosen(np.array([float(value)]), rows), n_open, weights)
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
        return -_best_lapse(model.chosen(np.asarray(x, np.float64), rows), n_open, weights)[1]

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
    lapse, ll = _best_lapse(model.chosen(best_x, rows), n_open, weights)
    return best_x, lapse, ll, converged


def _cross_validate(fit: _Fitter, fold_of: np.ndarray) -> np.ndarray:
    """The log-probability of each decision under the model fitted without its fold
    (`fold_of`: one per decision)."""
    d = fit.run.decisions
    out = np.empty(len(d))
    for fold in range(int(fold_of.max()) + 1):
        test = fold_of == fold
        estimate = fit(np.flatnonzero(~test), f"fold {fold}")
        out[test] = _score(fit.spec, fit.model, fit.run, estimate, np.flatnonzero(test))
    return out


def _score(spec: ModelSpec, model, run: HumanRun, fit: Estimate, rows: np.ndarray
           ) -> np.ndarray:
    """log p(chosen) at `rows` under a fit."""
    theta = np.array([_search_value(p, fit.params[p.name]) for p in spec.free], np.float64)
    chosen = model.chosen(theta, rows)
    return np.log(np.maximum(with_lapse(chosen, run.decisions.n_open[rows], fit.lapse), _TINY))


def _search_value(param, value: float) -> float:
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


def _errors(spec: ModelSpec, model, run: HumanRun, fit: Estimate,
            weights: np.ndarray | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Standard errors of the parameters inside their bounds (search scale): cluster-robust
    by participant (`cluster_covariance`) and from the observed information alone. The
    Hessian of the negative log-likelihood and each decision's score by central
    differences (of the weighted likelihood, when the fit was weighted)."""
    d = run.decisions
    every = np.arange(len(d))
    names = [p.name for p in spec.free] + ["lapse"]
    x = np.array([_search_value(p, fit.params[p.name]) for p in spec.free] + [fit.lapse])
    bounds = [p.bounds() for p in spec.free] + [(0.0, 1.0)]
    scales = [p.scale for p in spec.free] + [LINEAR]
    inside = [i for i, ((lo, hi), scale) in enumerate(zip(bounds, scales))
              if scale != INTEGER and lo + _BOUND_GAP < x[i] < hi - _BOUND_GAP]
    robust = {name: float("nan") for name in names}
    naive = dict(robust)
    if not inside:
        return robust, naive

    def log_p(y: np.ndarray) -> np.ndarray:
        chosen = model.chosen(y[:-1], every)
        each = np.log(np.maximum(with_lapse(chosen, d.n_open, float(y[-1])), _TINY))
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


def _model_fit(spec: ModelSpec, run: HumanRun, pooled: Estimate, cv_log: np.ndarray | None,
               samples: np.ndarray, own: list[Estimate | None], log_probs: np.ndarray,
               cluster: dict[str, float], naive: dict[str, float],
               not_converged: tuple[str, ...]) -> ModelFit:
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
    in_sample = np.bincount(d.participant, weights=log_probs, minlength=people)
    parts = tuple(ParticipantFit(name, int(counts[i]), per_person[i], own[i],
                                 bits(float(in_sample[i]), int(counts[i])) if counts[i] else None)
                  for i, name in enumerate(run.participants))
    return ModelFit(spec.label, spec.agent, pooled, len(spec.free) + 1, cv_bits, ci, parts,
                    log_probs, cv_log, {k: _larger(cluster[k], naive[k]) for k in naive},
                    {p.name: p.scale for p in spec.free}, naive, cluster, not_converged)


def _larger(cluster: float, naive: float) -> float:
    """The larger of the two errors; the observed information's alone where there is no
    sandwich (one participant)."""
    return max(cluster, naive) if math.isfinite(cluster) else naive
