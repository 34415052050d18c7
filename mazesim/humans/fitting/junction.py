"""Maximum-likelihood fits of models to people's junction decisions, cross-validated by person
or by groups of mazes.

`fit_run(run, models, ...)` fits every model (`mazesim.humans.fitting.models`) to all decisions
(in-sample; `optimise.estimate`), to each of K training folds (`crossval`: each participant's
decisions, or each maze group's, scored by the model fitted without them), and with
`by="participant"` to each participant alone. Per model (`results.ModelFit`): the fitted
parameters and lapse with Wald intervals (`wald`: the larger of the cluster-robust standard error
by participant and the observed information's), in-sample and cross-validated bits per decision,
a 95 % percentile interval of the cross-validated bits by bootstrap over participants, AIC and
BIC (n = decisions), and which fits did not converge; the uniform baseline beside them.
`score_run` scores fitted parameters on another run without fitting (the lapse held or
refitted). The folds are dealt among the participants with a junction decision (no fold trains
or tests on nothing). Folds, starts and bootstrap samples flow from
`numpy.random.SeedSequence(seed)`: one seed, identical output.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from mazesim.agents.base import LOG
from mazesim.errors import DataError, check_seed
from mazesim.humans.data.run import HumanRun, bits
from mazesim.humans.fitting.crossval import (bootstrap_samples, check_person_folds, cross_validate,
                                             person_folds, person_scores)
from mazesim.humans.fitting.folds import group_name, maze_folds
from mazesim.humans.fitting.likelihood import best_lapse, log_chosen, person_weights
from mazesim.humans.fitting.models import ModelSpec, PlanSteps, build_model, parse_model
from mazesim.humans.fitting.optimise import DEFAULT_ITERATIONS, DEFAULT_STARTS, estimate
from mazesim.humans.fitting.ranking import rank_fitted
from mazesim.humans.fitting.results import (BY, MAZE_GROUPS, PARTICIPANTS, WEIGH, Estimate,
                                            FitReport, ModelFit, ParticipantFit)
from mazesim.humans.fitting.wald import larger_error, search_value, standard_errors
from mazesim.limits import MAX_ITERATIONS, MAX_STARTS

__all__ = ["fit_run", "score_run", "decision_maze_folds", "DEFAULT_FOLDS", "MAX_MODELS"]

DEFAULT_FOLDS = 5
MAX_MODELS = 50


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
        fold_of = person_folds(people, folds, np.random.default_rng(root.spawn(1)[0]),
                               np.bincount(d.participant, minlength=people) > 0)[d.participant]
    samples = bootstrap_samples(people, seed)
    plans = PlanSteps(run) if any(s.make().goal_seeking for s in specs) else None
    out = []
    tell = progress or (lambda label, done, total: None)
    for i, spec in enumerate(specs):
        tell(f"models fitted (now {spec.label})", i, len(specs))
        rng = np.random.default_rng(np.random.SeedSequence([seed, *spec.label.encode()]))
        fit = _Fitter(spec, build_model(spec, run, plans), run, rng, starts, max_iterations,
                      weights)
        pooled = fit(np.arange(len(d)), "pooled")
        cv_log = cross_validate(fit, fold_of) if folds else None
        own = ([fit(np.flatnonzero(d.participant == p), f"participant {run.participants[p]}")
                if np.any(d.participant == p) else None for p in range(people)]
               if by == "participant" else [None] * people)
        out.append(_model_fit(fit, pooled, cv_log, samples, own, weights))
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
        raise DataError(f"params: {len(fitted)} models (allowed: 1 to {MAX_MODELS})")
    if len(d) == 0:
        raise DataError("the run has no junction decision (a departure from a cell with 3 or "
                        "4 open neighbours): nothing to score")
    specs = []
    for label, given in fitted:
        spec = parse_model(label)
        names = {p.name for p in spec.free}
        if set(given.params) != names:
            raise DataError(f"params: {label} has parameters {sorted(given.params)} "
                            f"(the model fits {sorted(names)})")
        for param in spec.free:
            value = given.params[param.name]
            if param.scale == LOG and value <= 0:
                raise DataError(f"params: {label}: {param.name} {value!r} (allowed: > 0)")
        specs.append(spec)
    plans = PlanSteps(run) if any(s.make().goal_seeking for s in specs) else None
    people = len(run.participants)
    counts = np.bincount(d.participant, minlength=people)
    every = np.arange(len(d))
    out = []
    for spec, (label, held) in zip(specs, fitted):
        model = build_model(spec, run, plans)
        theta = np.array([search_value(p, held.params[p.name]) for p in spec.free])
        chosen = model.chosen(theta, every)
        lapse = best_lapse(chosen, d.n_open)[0] if refit_lapse else held.lapse
        log_probs = log_chosen(chosen, d.n_open, lapse)
        sums = np.bincount(d.participant, weights=log_probs, minlength=people)
        parts = tuple(ParticipantFit(name, int(counts[i]), None, None,
                                     bits(float(sums[i]), int(counts[i])) if counts[i] else None)
                      for i, name in enumerate(run.participants))
        estimate = Estimate(dict(held.params), float(lapse), float(log_probs.sum()), len(d))
        out.append(ModelFit(model=spec.label, agent=spec.agent, estimate=estimate,
                            k=int(refit_lapse), cv_bits=None, cv_bits_ci=None, participants=parts,
                            log_probs=log_probs, scales={p.name: p.scale for p in spec.free}))
    fits = tuple(sorted(out, key=lambda m: m.bits))
    ranking, note = rank_fitted(fits, held_out=True)
    return FitReport(str(run.path), len(d), people, d.baseline_bits(), 0, 0, "pooled", fits,
                     params_from, refit_lapse, level=run.level, ranking=ranking,
                     ranking_note=note)


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
    check_seed(seed, DataError)
    if not 1 <= starts <= MAX_STARTS:
        raise DataError(f"starts: {starts} (allowed: 1 to {MAX_STARTS})")
    if not 1 <= max_iterations <= MAX_ITERATIONS:
        raise DataError(f"max_iterations: {max_iterations} (allowed: 1 to {MAX_ITERATIONS})")
    if len(run.decisions) == 0:
        raise DataError("the run has no junction decision (a departure from a cell with 3 or "
                        "4 open neighbours): nothing to fit")
    check_person_folds(folds, len(np.unique(run.decisions.participant)),
                       len(run.participants), "junction decision")
    return specs


class _Fitter:
    """Fits of one model to subsets of the run's decisions (a fitter of `crossval`),
    remembering which did not converge (by name)."""

    def __init__(self, spec: ModelSpec, model, run: HumanRun, rng: np.random.Generator,
                 starts: int, max_iterations: int, weights: np.ndarray | None = None) -> None:
        self.spec, self.model, self.run, self.rng = spec, model, run, rng
        self.starts, self.max_iterations, self.weights = starts, max_iterations, weights
        self.failed: list[str] = []

    def __call__(self, rows: np.ndarray, name: str) -> Estimate:
        fit = estimate(self.spec, self.model, self.run, rows, self.rng, self.starts,
                       self.max_iterations, None if self.weights is None else self.weights[rows])
        if not fit.converged:
            self.failed.append(name)
        return fit

    def score(self, fit: Estimate, rows: np.ndarray) -> np.ndarray:
        """log p(chosen) at `rows` under a fit."""
        theta = np.array([search_value(p, fit.params[p.name]) for p in self.spec.free],
                         np.float64)
        chosen = self.model.chosen(theta, rows)
        return log_chosen(chosen, self.run.decisions.n_open[rows], fit.lapse)


def _model_fit(fit: _Fitter, pooled: Estimate, cv_log: np.ndarray | None,
               samples: np.ndarray, own: list[Estimate | None], weights: np.ndarray | None
               ) -> ModelFit:
    spec, run = fit.spec, fit.run
    log_probs = fit.score(pooled, np.arange(len(run.decisions)))
    cluster, naive = standard_errors(spec, fit.model, run, pooled, weights)
    cv_bits, ci, parts = person_scores(run.participants, run.decisions.participant, log_probs,
                                       cv_log, own, samples)
    return ModelFit(model=spec.label, agent=spec.agent, estimate=pooled, k=len(spec.free) + 1,
                    cv_bits=cv_bits, cv_bits_ci=ci, participants=parts, log_probs=log_probs,
                    cv_log_probs=cv_log,
                    errors={k: larger_error(cluster[k], naive[k]) for k in naive},
                    scales={p.name: p.scale for p in spec.free}, model_errors=naive,
                    cluster_errors=cluster, not_converged=tuple(fit.failed))
