"""Node models (`mazesim.agents.node_models`) fitted to people's node decisions
(`mazesim.humans.fitting.node_choices`) under one of two protocols, scored in bits per node decision.

- `peer`: the Maze Search Task authors' protocol (`mazesim.humans.peer.grid`): every person
  separately, a grid search over the authors' grid with 5 seeded folds over the person's
  decisions, the 1/tau prior, probabilities floored at 1e-5; score = the test log-likelihood
  summed over the folds. `node-choice` gets its own per-person fit on the same folds: the
  person's weights are the MAP on the training folds under a Gaussian population over
  weights estimated by empirical Bayes (`mazesim.humans.fitting.mixed_logit`) from other people
  only: the people are dealt into `POPULATION_FOLDS` seeded groups, and a group's people get
  the population of the other groups. Nothing of a person's decisions reaches their prior, and
  the shrinkage is estimated, not chosen by hand.
- `ml` (the default): maximum likelihood as the junction fit (`mazesim.humans.fitting.junction`): one
  fit to every decision (pooled), K-fold cross-validation by participant (each participant
  scored by the fit without their fold), a bootstrap interval over participants, AIC and BIC;
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
from mazesim.errors import DataError
from mazesim.humans.data.run import bits
from mazesim.humans.fitting.junction import (BOOTSTRAP_SAMPLES, CONFIDENCE, DEFAULT_FOLDS, DEFAULT_STARTS,
                                MAX_FOLDS, MAX_STARTS, MAZE_GROUPS, PARTICIPANTS, Estimate,
                                FitReport, ModelFit, ParticipantFit, _best_lapse, _folds)
from mazesim.humans.fitting.folds import maze_folds
from mazesim.humans.peer.grid import FLOOR, FOLDS, deal_folds, fit_node_model
from mazesim.humans.fitting.models import with_lapse
from mazesim.humans.fitting.mixed_logit import (chosen_log_probabilities, grouped, map_weights,
                                        population)
from mazesim.humans.fitting.node_choices import NodeChoices
from mazesim.humans.fitting.ranking import Ranking, rank_fitted

__all__ = ["PROTOCOLS", "POPULATION_FOLDS", "NodeFitReport", "fit_nodes", "logit_peer_fit",
           "LogitPeerFit", "node_maze_folds", "score_nodes", "held_probabilities"]

PROTOCOLS = ("ml", "peer")
BY = ("pooled", "participant")
POPULATION_FOLDS = 10
"""Groups of people for `node-choice`'s population under the peer protocol: a person's prior
comes from the people of the other groups (90 % of everyone)."""
POPULATION_STREAM = 2**32 - 2   # spawn key of the groups' draw (the folds use 0, 1, ...)
LEVEL = "node"
VAGUE_PRECISION = 1e-4
"""The prior precision of node-choice's weights under `ml` (standard deviation 100 on the
standardised scale): nothing against the data, but a maximum exists where the decisions do
not identify every weight (a few decisions, a feature that never varies)."""
_TINY = 1e-300
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


@dataclass(frozen=True, eq=False)
class LogitPeerFit:
    """`node-choice` under the peer protocol, per person (sorted ids): decisions, the test
    log-likelihood summed over the folds (floored), the MAP weights on all the person's
    decisions (natural feature scale) and their in-sample log-likelihood; the population
    group of each person."""

    people: tuple[str, ...]
    decisions: np.ndarray
    test_ll: np.ndarray
    weights: np.ndarray
    full_ll: np.ndarray
    group: np.ndarray


def fit_nodes(choices: NodeChoices, models: Sequence[str] | None = None, *,
              protocol: str = PROTOCOLS[0], by: str = BY[0], folds: int = DEFAULT_FOLDS,
              seed: int = 0, starts: int = DEFAULT_STARTS, cv_mazes: int = 0,
              progress: Callable[[str, int, int], None] | None = None) -> NodeFitReport:
    """Fit `models` (names of the node-model registry; default every one) to `choices` under
    `protocol` (module docstring). `folds`: participants' folds under `ml` (0: none), each
    person's folds under `peer` (at least 2); `cv_mazes` K > 0 (`ml` only): K folds over groups
    of mazes instead of participants (`mazesim.humans.fitting.folds`). `progress(label, done, total)` as
    `fit_run`'s."""
    names = _check(choices, models, protocol, by, 0 if cv_mazes else folds, seed, starts)
    if cv_mazes and protocol == "peer":
        raise DataError("cv_mazes: folds over mazes are the ml protocol's (the peer protocol "
                        "folds each person's decisions)")
    people, n = len(choices.participants), len(choices)
    if cv_mazes:
        fold_of, folds = node_maze_folds(choices, cv_mazes, seed), cv_mazes
    elif protocol == "ml" and folds:
        fold_of = _folds(people, folds, np.random.default_rng(
            np.random.SeedSequence(seed).spawn(1)[0]))[choices.participant]
    else:
        fold_of = None
    tell = progress or (lambda label, done, total: None)
    fits = []
    for i, name in enumerate(names):
        tell(f"models fitted (now {name})", i, len(names))
        fits.append((_peer_model if protocol == "peer" else _ml_model)(
            name, choices, folds=folds, seed=seed, starts=starts, by=by, fold_of=fold_of))
    tell("models fitted", len(names), len(names))
    key = (lambda m: m.cv_bits) if (folds or protocol == "peer") else (lambda m: m.bits)
    fits.sort(key=key)
    ranking, note = rank_fitted(fits, seed=seed)
    report = FitReport(choices.source, n, people, choices.baseline_bits(), folds, seed, by,
                       tuple(fits), folds_over=MAZE_GROUPS if cv_mazes else PARTICIPANTS,
                       level=LEVEL, ranking=ranking, ranking_note=note)
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
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DataError(f"seed {seed!r} (allowed: an integer >= 0)")
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
    elif folds and people < 2:
        raise DataError(f"folds {folds}: cross-validation by participant needs two "
                        f"participants with a node decision (the run has {people}; folds 0 "
                        "fits without it)")
    elif folds and not 2 <= folds <= min(people, MAX_FOLDS):
        raise DataError(f"folds {folds} (allowed: 0 for none, or 2 to "
                        f"{min(people, MAX_FOLDS)}: the participants, at most {MAX_FOLDS})")
    return names


# --- the peer protocol --------------------------------------------------------------------

def _peer_model(name: str, choices: NodeChoices, *, folds: int, seed: int, **_) -> ModelFit:
    """One model by the authors' protocol, as a `ModelFit`: the in-sample figures are the
    per-person choices on all their decisions, k counts every person's parameters."""
    model = NODE_MODELS[name]
    if isinstance(model, NodeLogit):
        fit = logit_peer_fit(model, choices, seed=seed, folds=folds)
        own = [dict(zip(model.features, map(float, w))) for w in fit.weights]
        test_ll, full_ll, k = fit.test_ll, fit.full_ll, len(model.features)
    else:
        grid = fit_node_model(model, choices.decisions, choices.rows, choices.people,
                              seed=seed, folds=folds)
        params = grid.full_params()
        own = [{p: float(v[i]) for p, v in params.items()} for i in range(len(grid.people))]
        test_ll, full_ll, k = grid.test_ll, grid.full_ll, len(model.params)
    counts = np.bincount(choices.participant, minlength=len(choices.participants))
    parts = tuple(ParticipantFit(p, int(c), bits(float(t), int(c)),
                                 Estimate(o, 0.0, float(f), int(c)))
                  for p, c, t, f, o in zip(choices.participants, counts, test_ll, full_ll, own))
    median = {p: float(np.median([o[p] for o in own])) for p in (own[0] if own else {})}
    pooled = Estimate(median, 0.0, float(full_ll.sum()), len(choices))
    return ModelFit(name, name, pooled, k * len(counts), bits(float(test_ll.sum()), len(choices)),
                    _interval(test_ll, counts, seed), parts)


def logit_peer_fit(model: NodeLogit, choices: NodeChoices, *, seed: int, folds: int = FOLDS,
                   floor: float = FLOOR, groups: int = POPULATION_FOLDS) -> LogitPeerFit:
    """`model` fitted to every person by the peer protocol (module docstring): each person's
    folds as `grid_fit` deals them (the planners' folds at the same seed), the population of
    a person from the people of the other `groups`."""
    x, start, chosen = _logit_inputs(model, choices)
    person, people = choices.participant, len(choices.participants)
    counts = np.bincount(person, minlength=people)
    if not 2 <= groups <= people:
        raise DataError(f"{model.name} under the peer protocol draws each person's population "
                        f"from {groups} groups of the others: {people} people (allowed: at "
                        f"least {max(groups, 2)})")
    fold = deal_folds(person, counts, folds, seed)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(POPULATION_STREAM,)))
    group = np.empty(people, dtype=np.int64)
    group[rng.permutation(people)] = np.arange(people) % groups
    test_ll, full_ll = np.zeros(people), np.zeros(people)
    weights = np.zeros((people, x.shape[1]))
    for g in range(groups):
        inside = group == g
        train = ~inside[person]
        scale = _scale(x, start, train)
        z = x / scale
        local = np.cumsum(~inside) - 1
        pop = population(grouped(z, start, chosen, local[person], int((~inside).sum()), train))
        mine = np.flatnonzero(inside)
        local = np.full(people, -1)
        local[mine] = np.arange(len(mine))
        at, ask = local[person], inside[person]
        for f in range(folds):
            data = grouped(z, start, chosen, at, len(mine), ask & (fold != f))
            w = map_weights(data, pop.mean, pop.precision)[0]
            test = grouped(z, start, chosen, at, len(mine), ask & (fold == f))
            logs = np.log(np.maximum(np.exp(chosen_log_probabilities(test, w)), floor))
            test_ll[mine] += np.bincount(at[np.sort(test.index)], logs, minlength=len(mine))
        data = grouped(z, start, chosen, at, len(mine), ask)
        w = map_weights(data, pop.mean, pop.precision)[0]
        full_ll[mine] = np.bincount(at[np.sort(data.index)], chosen_log_probabilities(data, w),
                                    minlength=len(mine))
        weights[mine] = w / scale
    return LogitPeerFit(choices.participants, counts, test_ll, weights, full_ll, group)


def _logit_inputs(model: NodeLogit, choices: NodeChoices
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features of every child row of every decision, each decision's first row and the
    chosen row."""
    x = model.feature_rows(choices.decisions, choices.decision, choices.walks)
    start, _, chosen = _logit_inputs_rows(choices)
    return x, start, chosen


def _scale(x: np.ndarray, start: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each feature's standard deviation around its decision's mean over the decisions
    `keep` (1 where it does not vary): standardising for the numerics only."""
    counts = np.diff(start)
    which = np.repeat(np.arange(len(counts)), counts)
    centred = x - (np.add.reduceat(x, start[:-1]) / counts[:, None])[which]
    rows = keep[which]
    sd = np.sqrt((centred[rows] ** 2).sum(axis=0) / max(rows.sum() - keep.sum(), 1))
    return np.where(sd > 0, sd, 1.0)


def _interval(test_ll: np.ndarray, counts: np.ndarray, seed: int) -> tuple[float, float]:
    """A percentile interval of pooled bits by bootstrap over people (the junction fit's
    draws)."""
    samples = _bootstrap(len(counts), seed)
    boot = -test_ll[samples].sum(axis=1) / counts[samples].sum(axis=1) / math.log(2)
    tail = 100 * (1 - CONFIDENCE) / 2
    return float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail))


def _bootstrap(people: int, seed: int) -> np.ndarray:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).integers(
        0, people, size=(BOOTSTRAP_SAMPLES, people))


# --- the maximum-likelihood protocol ------------------------------------------------------

@dataclass(frozen=True)
class _Fit:
    params: dict[str, float]
    theta: np.ndarray
    lapse: float
    ll: float
    n: int


def _ml_model(name: str, choices: NodeChoices, *, folds: int, seed: int, starts: int,
              by: str, fold_of: np.ndarray | None) -> ModelFit:
    model = NODE_MODELS[name]
    fitter = _LogitFitter(model, choices) if isinstance(model, NodeLogit) else \
        _PlannerFitter(model, choices)
    people = len(choices.participants)
    counts = np.bincount(choices.participant, minlength=people)
    rng = np.random.default_rng(np.random.SeedSequence([seed, *name.encode()]))
    every = np.arange(len(choices))
    pooled = fitter.fit(every, rng, starts)
    cv_log = None
    if fold_of is not None:
        cv_log = np.empty(len(choices))
        for f in range(folds):
            test = np.flatnonzero(fold_of == f)
            cv_log[test] = fitter.score(fitter.fit(np.flatnonzero(fold_of != f), rng, starts),
                                        test)
    own = fitter.own(rng, starts) if by == "participant" else [None] * people
    cv_bits = ci = None
    per = [None] * people
    if cv_log is not None:
        sums = np.bincount(choices.participant, weights=cv_log, minlength=people)
        cv_bits, ci = bits(float(sums.sum()), len(choices)), _interval(sums, counts, seed)
        per = [bits(float(s), int(c)) for s, c in zip(sums, counts)]
    log_probs = fitter.score(pooled, every)
    in_sample = np.bincount(choices.participant, weights=log_probs, minlength=people)
    parts = tuple(ParticipantFit(p, int(c), b, None if o is None else
                                 Estimate(o.params, o.lapse, o.ll, o.n), bits(float(s), int(c)))
                  for p, c, b, o, s in zip(choices.participants, counts, per, own, in_sample))
    return ModelFit(name, name, Estimate(pooled.params, pooled.lapse, pooled.ll, pooled.n),
                    len(pooled.theta) + 1, cv_bits, ci, parts, log_probs, cv_log)


class _PlannerFitter:
    """Maximum likelihood of a grid model: its parameters on their search scale, the lapse
    profiled."""

    def __init__(self, model: NodeModel, choices: NodeChoices) -> None:
        self.model, self.choices = model, choices
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

    def fit(self, rows: np.ndarray, rng: np.random.Generator, starts: int) -> _Fit:
        children = self.children[rows]
        if not self.model.params:
            lapse, ll = _best_lapse(self.grid[rows, 0], children)
            return _Fit({}, np.zeros(0), lapse, ll, len(rows))
        screen = np.log(np.maximum(self.grid[rows], _TINY)).sum(axis=0)
        names = [p.name for p in self.model.params]
        search = np.array([[_search(p, self.points[p.name][g]) for p in self.model.params]
                           for g in range(len(screen))])
        best = None
        for g in np.argsort(-screen, kind="stable")[:starts]:
            res = optimize.minimize(
                lambda t: -_best_lapse(self.chosen(t, rows), children)[1], search[g],
                method=_METHOD, bounds=[tuple(b) for b in self.bounds])
            if best is None or res.fun < best.fun:
                best = res
        theta = np.clip(best.x, self.bounds[:, 0], self.bounds[:, 1])
        lapse, ll = _best_lapse(self.chosen(theta, rows), children)
        return _Fit(dict(zip(names, self._values(theta).values())), theta, lapse, ll,
                    len(rows))

    def score(self, fit: _Fit, rows: np.ndarray) -> np.ndarray:
        chosen = self.grid[rows, 0] if not self.model.params else self.chosen(fit.theta, rows)
        return np.log(np.maximum(with_lapse(chosen, self.children[rows], fit.lapse), _TINY))

    def own(self, rng: np.random.Generator, starts: int) -> list[_Fit]:
        return [self.fit(np.flatnonzero(self.choices.participant == p), rng, starts)
                for p in range(len(self.choices.participants))]


class _LogitFitter:
    """Maximum likelihood of `node-choice`: weights by Newton's method, then the lapse."""

    def __init__(self, model: NodeLogit, choices: NodeChoices) -> None:
        self.model, self.choices = model, choices
        self.x, self.start, self.chosen = _logit_inputs(model, choices)
        self.scale = _scale(self.x, self.start, np.ones(len(choices), dtype=bool))
        self.z = self.x / self.scale
        self.children = choices.children

    def _data(self, rows: np.ndarray, group: np.ndarray | None = None, groups: int = 1):
        keep = np.zeros(len(self.choices), dtype=bool)
        keep[rows] = True
        group = np.zeros(len(self.choices), dtype=np.int64) if group is None else group
        return grouped(self.z, self.start, self.chosen, group, groups, keep)

    def _fit(self, rows: np.ndarray, w: np.ndarray) -> _Fit:
        chosen = np.exp(chosen_log_probabilities(self._data(rows), w[None]))
        lapse, ll = _best_lapse(chosen, self.children[rows])
        return _Fit(dict(zip(self.model.features, map(float, w / self.scale))), w, lapse, ll,
                    len(rows))

    def fit(self, rows: np.ndarray, rng: np.random.Generator, starts: int) -> _Fit:
        k = self.z.shape[1]
        w = map_weights(self._data(rows), np.zeros(k), VAGUE_PRECISION * np.eye(k))[0][0]
        return self._fit(rows, w)

    def score(self, fit: _Fit, rows: np.ndarray) -> np.ndarray:
        chosen = np.exp(chosen_log_probabilities(self._data(rows), fit.theta[None]))
        return np.log(np.maximum(with_lapse(chosen, self.children[rows], fit.lapse), _TINY))

    def own(self, rng: np.random.Generator, starts: int) -> list[_Fit]:
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
        lapse = _best_lapse(chosen, choices.children)[0] if refit_lapse else held.lapse
        log_probs = np.log(np.maximum(with_lapse(chosen, choices.children, lapse), _TINY))
        sums = np.bincount(choices.participant, weights=log_probs, minlength=people)
        parts = tuple(ParticipantFit(p, int(c), None, None, bits(float(s), int(c)))
                      for p, c, s in zip(choices.participants, counts, sums))
        estimate = Estimate(dict(held.params), float(lapse), float(log_probs.sum()),
                            len(choices))
        out.append(ModelFit(label, label, estimate, int(refit_lapse), None, None, parts,
                            log_probs))
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
        _, _, chosen = _logit_inputs_rows(choices)
        return p[chosen]
    return model.probabilities(choices.decisions, **params)[choices.rows]


def _logit_inputs_rows(choices: NodeChoices) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each decision's first row among the observed rows, their count, and the chosen row."""
    counts = choices.children
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    chosen = start[:-1] + choices.rows - choices.decisions.start[choices.decision]
    return start, counts, chosen.astype(np.int64)
