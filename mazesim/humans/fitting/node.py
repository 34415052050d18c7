"""Node models (`mazesim.agents.node_models`) fitted to people's node decisions
(`mazesim.humans.fitting.node_choices`) under one of two protocols, scored in bits per node
decision.

- `peer`: the Maze Search Task authors' protocol (`mazesim.humans.peer.protocol`): every
  person separately, a grid search with seeded folds over the person's decisions.
- `ml` (the default): maximum likelihood as the junction fit
  (`mazesim.humans.fitting.junction`): one fit to every decision (pooled), K-fold
  cross-validation by participant (each participant scored by the fit without their fold), a
  bootstrap interval over participants, AIC and BIC;
  with `by="participant"` each participant's own fit too. Every model has a lapse (a uniform
  choice among the children) profiled out; the planners' continuous parameters are found by
  bounded optimisation (SLSQP on their search scale, from the best points of the authors'
  grid); `node-choice`'s weights by Newton's method (the log-likelihood is concave; a vague
  prior, `VAGUE_PRECISION`, keeps a maximum where the data do not identify a weight), its
  lapse then profiled; its own fit of a participant is the MAP under the population of
  everyone.

Folds, groups, starts and bootstrap draws flow from `numpy.random.SeedSequence(seed)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import optimize

from mazesim.agents.base import LOG
from mazesim.agents.node_models import NODE_MODELS, NodeLogit, NodeModel, node_model
from mazesim.errors import DataError, check_seed
from mazesim.humans.data.run import bits
from mazesim.humans.fitting.crossval import (bootstrap_samples, check_person_folds, cross_validate,
                                             person_folds, person_scores)
from mazesim.humans.fitting.folds import maze_folds
from mazesim.humans.fitting.junction import DEFAULT_FOLDS
from mazesim.humans.fitting.likelihood import TINY, best_lapse, log_chosen
from mazesim.humans.fitting.mixed_logit import (chosen_log_probabilities, grouped, map_weights,
                                                population)
from mazesim.humans.fitting.node_choices import (NodeChoices, chosen_rows, feature_scale,
                                                 logit_inputs)
from mazesim.humans.fitting.optimise import DEFAULT_STARTS
from mazesim.humans.fitting.ranking import Ranking, rank_fitted
from mazesim.humans.fitting.results import (BY, MAZE_GROUPS, PARTICIPANTS, Estimate, FitReport,
                                            ModelFit, ParticipantFit)
from mazesim.humans.peer.population import PRIORS
from mazesim.humans.peer.protocol import peer_model
from mazesim.limits import MAX_FOLDS, MAX_STARTS

__all__ = ["PROTOCOLS", "NodeFitReport", "fit_nodes", "node_maze_folds", "score_nodes",
           "held_probabilities"]

PROTOCOLS = ("ml", "peer")
LEVEL = "node"
VAGUE_PRECISION = 1e-4
"""The prior precision of node-choice's weights under `ml` (standard deviation 100 on the
standardised scale): nothing against the data, but a maximum exists where the decisions do
not identify every weight (a few decisions, a feature that never varies)."""
_METHOD = "SLSQP"


@dataclass(frozen=True, eq=False)
class NodeFitReport:
    """Node models fitted under one protocol: the models as the junction fit reports them
    (`report`, best first by cross-validated bits) and their ranking over people (none for a
    single model or without cross-validation: `report.ranking_note` says why)."""

    protocol: str
    report: FitReport

    @property
    def ranking(self) -> Ranking | None:
        return self.report.ranking

    @property
    def level(self) -> str:
        return LEVEL

    def to_json(self) -> dict:
        r = self.report
        return {"level": LEVEL, "protocol": self.protocol, "run": r.run, "folds": r.folds,
                "seed": r.seed, "by": r.by, **r.to_json()}


def fit_nodes(choices: NodeChoices, models: Sequence[str] | None = None, *,
              protocol: str = PROTOCOLS[0], by: str = BY[0], folds: int = DEFAULT_FOLDS,
              seed: int = 0, starts: int = DEFAULT_STARTS, cv_mazes: int = 0,
              prior: str = PRIORS[0],
              progress: Callable[[str, int, int], None] | None = None) -> NodeFitReport:
    """Fit `models` (names of the node-model registry; default every one) to `choices` under
    `protocol` (module docstring). `folds`: participants' folds under `ml` (0: none), each
    person's folds under `peer` (at least 2); `cv_mazes` K > 0 (`ml` only): K folds over groups
    of mazes instead of participants (`mazesim.humans.fitting.folds`); `prior` (`peer` only) the
    planners': "authors" (1/tau) or "population" (`mazesim.humans.peer.population`).
    `progress(label, done, total)` as `fit_run`'s."""
    names = _check(choices, models, protocol, by, 0 if cv_mazes else folds, seed, starts)
    if prior not in PRIORS or (prior != PRIORS[0] and protocol != "peer"):
        raise DataError(f"prior {prior!r} (allowed: {', '.join(PRIORS)}; other than "
                        f"{PRIORS[0]} only under the peer protocol)")
    if cv_mazes and protocol == "peer":
        raise DataError("cv_mazes: folds over mazes are the ml protocol's (the peer protocol "
                        "folds each person's decisions)")
    people, n = len(choices.participants), len(choices)
    if cv_mazes:
        fold_of, folds = node_maze_folds(choices, cv_mazes, seed), cv_mazes
    elif protocol == "ml" and folds:
        fold_of = person_folds(people, folds, np.random.default_rng(
            np.random.SeedSequence(seed).spawn(1)[0]))[choices.participant]
    else:
        fold_of = None
    tell = progress or (lambda label, done, total: None)
    fits = []
    for i, name in enumerate(names):
        tell(f"models fitted (now {name})", i, len(names))
        fits.append((peer_model if protocol == "peer" else _ml_model)(
            name, choices, folds=folds, seed=seed, starts=starts, by=by, fold_of=fold_of,
            prior=prior))
    tell("models fitted", len(names), len(names))
    key = (lambda m: m.cv_bits) if (folds or protocol == "peer") else (lambda m: m.bits)
    fits.sort(key=key)
    ranking, note = rank_fitted(fits, seed=seed)
    report = FitReport(choices.source, n, people, choices.baseline_bits(), folds, seed, by,
                       tuple(fits), folds_over=MAZE_GROUPS if cv_mazes else PARTICIPANTS,
                       level=LEVEL, ranking=ranking, ranking_note=note,
                       prior=prior if protocol == "peer" else None)
    return NodeFitReport(protocol, report)


def node_maze_folds(choices: NodeChoices, folds: int, seed: int) -> np.ndarray:
    """The fold of each node decision: its maze's, dealt over the groups of the mazes
    (`folds.maze_folds`; a maze's name is its tree's)."""
    tree = choices.decisions.decision_tree[choices.decision]
    used, at = np.unique(tree, return_inverse=True)
    names = [choices.decisions.names[t].split(":", 1)[-1] for t in used]
    return maze_folds(names, folds, seed)[at.ravel()]


def _check(choices: NodeChoices, models: Sequence[str] | None, protocol: str, by: str,
           folds: int, seed: int, starts: int) -> list[str]:
    if protocol not in PROTOCOLS:
        raise DataError(f"protocol {protocol!r} (allowed: {', '.join(PROTOCOLS)})")
    if by not in BY:
        raise DataError(f"by {by!r} (allowed: {', '.join(BY)})")
    names = list(models or NODE_MODELS)
    for name in names:
        node_model(name)                                  # AgentError: unknown, did you mean
    if len(set(names)) != len(names):
        raise DataError(f"models: {next(m for m in names if names.count(m) > 1)} twice")
    check_seed(seed, DataError)
    if not 1 <= starts <= MAX_STARTS:
        raise DataError(f"starts {starts} (allowed: 1 to {MAX_STARTS})")
    people = len(choices.participants)
    if protocol == "peer":
        fewest = int(np.bincount(choices.participant).min())
        if fewest < 2:
            raise DataError(f"folds {folds}: the peer protocol deals each person's decisions "
                            f"into folds, and a person has {fewest} (allowed: people with 2 "
                            "or more; the ml protocol fits them)")
        if not 2 <= folds <= min(fewest, MAX_FOLDS):
            raise DataError(f"folds {folds} (allowed under the peer protocol: 2 to "
                            f"{min(fewest, MAX_FOLDS)}, the fewest decisions of a person, "
                            f"at most {MAX_FOLDS})")
    else:
        check_person_folds(folds, people, people, "node decision")
    return names



# --- the maximum-likelihood protocol ------------------------------------------------------

@dataclass(frozen=True)
class _Fit:
    params: dict[str, float]
    theta: np.ndarray
    lapse: float
    ll: float
    n: int


def _ml_model(name: str, choices: NodeChoices, *, folds: int, seed: int, starts: int,
              by: str, fold_of: np.ndarray | None, **_) -> ModelFit:
    model = NODE_MODELS[name]
    rng = np.random.default_rng(np.random.SeedSequence([seed, *name.encode()]))
    fitter = (_LogitFitter if isinstance(model, NodeLogit) else _PlannerFitter)(
        model, choices, rng, starts)
    pooled = fitter(np.arange(len(choices)), "pooled")
    cv_log = None if fold_of is None else cross_validate(fitter, fold_of)
    own = [None if o is None else Estimate(o.params, o.lapse, o.ll, o.n)
           for o in (fitter.own() if by == "participant" else [None] * len(choices.participants))]
    log_probs = fitter.score(pooled, np.arange(len(choices)))
    cv_bits, ci, parts = person_scores(choices.participants, choices.participant, log_probs,
                                       cv_log, own, bootstrap_samples(len(choices.participants),
                                                                      seed))
    return ModelFit(model=name, agent=name,
                    estimate=Estimate(pooled.params, pooled.lapse, pooled.ll, pooled.n),
                    k=len(pooled.theta) + 1, cv_bits=cv_bits, cv_bits_ci=ci, participants=parts,
                    log_probs=log_probs, cv_log_probs=cv_log)


class _PlannerFitter:
    """Maximum likelihood of a grid model: its parameters on their search scale, the lapse
    profiled."""

    def __init__(self, model: NodeModel, choices: NodeChoices, rng: np.random.Generator,
                 starts: int) -> None:
        self.model, self.choices, self.rng, self.starts = model, choices, rng, starts
        self.points = model.points()
        self.grid = model.grid_probabilities(choices.decisions, self.points)[choices.rows]
        self.children = choices.children
        self.bounds = np.array([p.bounds() for p in model.params]).reshape(-1, 2)

    def _values(self, theta: np.ndarray) -> dict[str, float]:
        x = np.clip(theta, self.bounds[:, 0], self.bounds[:, 1])
        return {p.name: float(p.value(v)) for p, v in zip(self.model.params, x)}

    def chosen(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        p = self.model.probabilities(self.choices.decisions, **self._values(theta))
        return p[self.choices.rows[rows]]

    def __call__(self, rows: np.ndarray, name: str = "") -> _Fit:
        children = self.children[rows]
        if not self.model.params:
            lapse, ll = best_lapse(self.grid[rows, 0], children)
            return _Fit({}, np.zeros(0), lapse, ll, len(rows))
        screen = np.log(np.maximum(self.grid[rows], TINY)).sum(axis=0)
        names = [p.name for p in self.model.params]
        search = np.array([[_search(p, self.points[p.name][g]) for p in self.model.params]
                           for g in range(len(screen))])
        best = None
        for g in np.argsort(-screen, kind="stable")[:self.starts]:
            res = optimize.minimize(
                lambda t: -best_lapse(self.chosen(t, rows), children)[1], search[g],
                method=_METHOD, bounds=[tuple(b) for b in self.bounds])
            if best is None or res.fun < best.fun:
                best = res
        theta = np.clip(best.x, self.bounds[:, 0], self.bounds[:, 1])
        lapse, ll = best_lapse(self.chosen(theta, rows), children)
        return _Fit(dict(zip(names, self._values(theta).values())), theta, lapse, ll,
                    len(rows))

    def score(self, fit: _Fit, rows: np.ndarray) -> np.ndarray:
        chosen = self.grid[rows, 0] if not self.model.params else self.chosen(fit.theta, rows)
        return log_chosen(chosen, self.children[rows], fit.lapse)

    def own(self) -> list[_Fit]:
        return [self(np.flatnonzero(self.choices.participant == p))
                for p in range(len(self.choices.participants))]


class _LogitFitter:
    """Maximum likelihood of `node-choice`: weights by Newton's method, then the lapse."""

    def __init__(self, model: NodeLogit, choices: NodeChoices, rng: np.random.Generator,
                 starts: int) -> None:
        self.model, self.choices = model, choices       # Newton's method: no draw, one start
        self.x, self.start, self.chosen = logit_inputs(model, choices)
        self.scale = feature_scale(self.x, self.start, np.ones(len(choices), dtype=bool))
        self.z = self.x / self.scale
        self.children = choices.children

    def _data(self, rows: np.ndarray, group: np.ndarray | None = None, groups: int = 1):
        keep = np.zeros(len(self.choices), dtype=bool)
        keep[rows] = True
        group = np.zeros(len(self.choices), dtype=np.int64) if group is None else group
        return grouped(self.z, self.start, self.chosen, group, groups, keep)

    def _fit(self, rows: np.ndarray, w: np.ndarray) -> _Fit:
        chosen = np.exp(chosen_log_probabilities(self._data(rows), w[None]))
        lapse, ll = best_lapse(chosen, self.children[rows])
        return _Fit(dict(zip(self.model.features, map(float, w / self.scale))), w, lapse, ll,
                    len(rows))

    def __call__(self, rows: np.ndarray, name: str = "") -> _Fit:
        k = self.z.shape[1]
        w = map_weights(self._data(rows), np.zeros(k), VAGUE_PRECISION * np.eye(k))[0][0]
        return self._fit(rows, w)

    def score(self, fit: _Fit, rows: np.ndarray) -> np.ndarray:
        chosen = np.exp(chosen_log_probabilities(self._data(rows), fit.theta[None]))
        return log_chosen(chosen, self.children[rows], fit.lapse)

    def own(self) -> list[_Fit]:
        people = len(self.choices.participants)
        every = np.arange(len(self.choices))
        pop = population(self._data(every, self.choices.participant, people))
        w = map_weights(self._data(every, self.choices.participant, people), pop.mean,
                        pop.precision)[0]
        return [self._fit(np.flatnonzero(self.choices.participant == p), w[p])
                for p in range(people)]


def _search(param, value: float) -> float:
    return math.log10(value) if param.scale == LOG else float(value)



# --- scoring another fit's parameters -----------------------------------------------------

def score_nodes(choices: NodeChoices, fitted: Sequence[tuple[str, Estimate]], *,
                refit_lapse: bool = False, params_from: str = "") -> NodeFitReport:
    """Each node model of `fitted` (label, estimate: `fit_output.read_fitted`) scored on
    `choices` with its parameters held (the node level's `fit.score_run`): the lapse held, or
    fitted here with `refit_lapse` (then k = 1, else 0). Best first by bits."""
    people = len(choices.participants)
    counts = np.bincount(choices.participant, minlength=people)
    out = []
    for label, held in fitted:
        model = node_model(label)
        expected = set(model.features) if isinstance(model, NodeLogit) else {
            p.name for p in model.params}
        if set(held.params) != expected:
            raise DataError(f"params: {label} has parameters {sorted(held.params)} (the node "
                            f"model fits {sorted(expected)})")
        chosen = held_probabilities(model, choices, held.params)
        lapse = best_lapse(chosen, choices.children)[0] if refit_lapse else held.lapse
        log_probs = log_chosen(chosen, choices.children, lapse)
        sums = np.bincount(choices.participant, weights=log_probs, minlength=people)
        parts = tuple(ParticipantFit(p, int(c), None, None, bits(float(s), int(c)))
                      for p, c, s in zip(choices.participants, counts, sums))
        estimate = Estimate(dict(held.params), float(lapse), float(log_probs.sum()),
                            len(choices))
        out.append(ModelFit(model=label, agent=label, estimate=estimate, k=int(refit_lapse),
                            cv_bits=None, cv_bits_ci=None, participants=parts,
                            log_probs=log_probs))
    fits = tuple(sorted(out, key=lambda m: m.bits))
    ranking, note = rank_fitted(fits, held_out=True)
    report = FitReport(choices.source, len(choices), people, choices.baseline_bits(), 0, 0,
                       BY[0], fits, params_from, refit_lapse, level=LEVEL, ranking=ranking,
                       ranking_note=note)
    return NodeFitReport(PROTOCOLS[0], report)


def held_probabilities(model: NodeModel | NodeLogit, choices: NodeChoices,
                       params: dict[str, float]) -> np.ndarray:
    """p(chosen child) at every decision of `choices` under `params` (natural scale: a
    planner's parameters, node-choice's weights), before the lapse."""
    if isinstance(model, NodeLogit):
        w = np.array([params[f] for f in model.features], dtype=float)
        p = model.probabilities(choices.decisions, choices.decision, choices.walks, w)
        _, _, chosen = chosen_rows(choices)
        return p[chosen]
    return model.probabilities(choices.decisions, **params)[choices.rows]
