"""The models `mazesim fit` fits: agents by name, their fitted parameters, and how each model's
probability of every human junction decision is read.

A model is named `AGENT` or `AGENT:key=value,...` (config keys fixed at those values and not
fitted, e.g. `choice-model:region=0,goal=0`); every other parameter the agent declares as
`fitted` (`mazesim.agents.Param`) is fitted, and the lapse always. Probabilities come from the
agents' own compiled rules, never from a copy:

- conditional logits (`choice-model`, `route-choice`: agents with `logit` set, whose weights
  are their `slots`): their features at every decision, read once per trial (`rule_states`),
  then the logit is vectorised over decisions in numpy (`LogitModel`);
- agents with fitted parameters (`ReadModel`): `step_probabilities` per trial and evaluation,
  read without goal seeking (the fast loop without perception), with the steps where a
  goal-seeking agent follows a plan to the seen goal put back (`PlanSteps`: those steps do not
  depend on the rule's parameters, so the two readings are the same function);
- every other agent (`FixedModel`): read once; only the lapse is fitted.

Every model returns the lapse-free probability of the chosen direction at each decision; the
lapse (`KernelAgent.lapse`: a uniform choice among the open directions, with probability
lapse) is mixed in by `likelihood.with_lapse`, the same formula as the walking loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mazesim.agents import AGENTS, make_agent
from mazesim.agents.base import INTEGER, KernelAgent, Param
from mazesim.agents.node_models import NODE_MODELS
from mazesim.errors import AgentError, DataError
from mazesim.humans.data.run import HumanRun
from mazesim.schema import parse_pairs

__all__ = ["JUNCTION", "NODE", "model_level", "ModelSpec", "fitted_params", "default_models",
           "parse_model",
           "PlanSteps", "FixedModel", "ReadModel", "LogitModel", "build_model"]

_PROBES = (0.2718281828, 0.5772156649, 0.7071067812)   # probe settings, as shares of the range
_CHECK = 0.4142135624
_AGREE = 1e-12          # relative agreement of the classes with a full reading (rounding)
JUNCTION, NODE = "junction", "node"
"""The levels of decisions a fit's models are scored at: cells (junction, and step, which reads
the same fits) or the nodes of decision trees."""


def model_level(label: str) -> str:
    """The level of a fit's model: a node model's name (the node-model registry,
    `mazesim.agents.node_models`) is the node level's, any other label a junction model's
    (`parse_model`)."""
    return NODE if label in NODE_MODELS else JUNCTION


def fitted_params(agent: str) -> tuple[Param, ...]:
    """The parameters a fit estimates for `agent` (declared beside its rule; none: only the
    lapse)."""
    return getattr(AGENTS[agent], "fitted", ())


@dataclass(frozen=True)
class ModelSpec:
    """A model to fit: its label, the agent, the keys fixed by the label, the fitted params."""

    label: str
    agent: str
    fixed: dict[str, Any]
    free: tuple[Param, ...]

    def make(self, values: dict[str, float] | None = None, **keys: Any) -> KernelAgent:
        """The agent with the fixed keys, `values` for the fitted ones and `keys`, lapse 0."""
        return make_agent(self.agent, **{**self.fixed, **(values or {}), **keys, "lapse": 0.0})


def default_models(level: str = "junction") -> list[str]:
    """Every registered agent that gives step probabilities: at the step level (people who see
    the whole maze) the planners in full view, at the junction level the others."""
    return [name for name, cls in AGENTS.items() if issubclass(cls, KernelAgent) and (
        getattr(cls, "full_view_only", False) == (level == "step"))]


def parse_model(text: str) -> ModelSpec:
    """`AGENT` or `AGENT:key=value,...` as a ModelSpec; AgentError for an unknown agent or key,
    a bad value, or an agent without step probabilities; ConfigError for pairs that
    `mazesim.schema.parse_pairs` refuses (anything but plain values)."""
    name, _, rest = str(text).strip().partition(":")
    fixed = parse_pairs(rest, f"model {name}:") if rest.strip() else {}
    if "lapse" in fixed:
        raise AgentError(f"model {text}: the lapse is always fitted (leave it out)")
    agent = make_agent(name, **fixed)            # unknown names and keys, bad values
    if not isinstance(agent, KernelAgent):
        raise AgentError(f"model {text}: {name} gives no step probabilities (it is not a "
                         "model of choices)")
    free = tuple(p for p in fitted_params(name) if p.name not in fixed)
    return ModelSpec(str(text).strip(), name, fixed, free)


class PlanSteps:
    """Which decisions a goal-seeking agent takes by following a plan to the seen goal
    (`planned`), and p(chosen) there (`on_plan`: 1 on the plan, 0 off it): where a goal-seeking
    random walk is certain although three or more directions are open (otherwise it is
    uniform). The same for every rule that neither plans nor observes."""

    def __init__(self, run: HumanRun) -> None:
        probs = _read(make_agent("random-walk", goal_seeking=True), run, None)
        self.planned = probs.max(axis=1) >= 1.0
        self.on_plan = (probs.argmax(axis=1) == run.decisions.chosen).astype(np.float64)


class FixedModel:
    """An agent without fitted parameters: its probabilities read once."""

    def __init__(self, spec: ModelSpec, run: HumanRun) -> None:
        self.spec, self.run = spec, run
        probs = _read(spec.make(), run, None)
        self._chosen = probs[np.arange(len(probs)), run.decisions.chosen]

    def chosen(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return self._chosen[rows]


class ReadModel:
    """An agent with fitted parameters, read with `step_probabilities`.

    Continuous parameters: decisions whose p(chosen) agree at three probe parameter settings
    are one class (the same function of the parameters: the same situation for the rule), so
    an evaluation reads one trial per class; a fourth setting, read in full, must agree with the
    classes (to rounding, 1e-12), or every evaluation reads every trial. An integer parameter:
    every trial is read once per value, and the readings are kept.
    """

    def __init__(self, spec: ModelSpec, run: HumanRun, plans: PlanSteps | None) -> None:
        self.spec, self.run = spec, run
        self.goal_seeking = spec.make().goal_seeking
        if self.goal_seeking and spec.make().rule.mapped:
            raise DataError(f"{spec.label}: a planning or observing rule with fitted "
                            "parameters needs its own reading")
        self.plans = plans if self.goal_seeking else None
        self._cache: dict[bytes, np.ndarray] = {}
        self.classes = None
        if all(p.scale != INTEGER for p in spec.free):
            every = np.arange(len(run.decisions))
            probes = np.stack([self._reading(self._probe(f), every) for f in _PROBES], axis=1)
            _, first, classes = np.unique(probes, axis=0, return_index=True,
                                          return_inverse=True)
            self.first, self.classes = first, classes.ravel()
            check = self._probe(_CHECK)
            if not np.allclose(self.chosen(check, every), self._reading(check, every),
                               rtol=_AGREE, atol=0.0):
                self.classes = None

    def chosen(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """p(chosen) at the decisions `rows` (sorted)."""
        if self.classes is not None:
            return self._reading(theta, self.first)[self.classes[rows]]
        key = np.asarray(theta, np.float64).tobytes()
        if key not in self._cache:
            self._cache[key] = self._reading(theta, np.arange(len(self.run.decisions)))
        return self._cache[key][rows]

    def _probe(self, fraction: float) -> np.ndarray:
        return np.array([lo + fraction * (hi - lo) for lo, hi in (p.bounds()
                                                                  for p in self.spec.free)])

    def _reading(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """p(chosen) at the decisions `rows` (sorted), reading only the trials they are in."""
        d = self.run.decisions
        values = {p.name: p.value(x) for p, x in zip(self.spec.free, theta)}
        agent = self.spec.make(values, goal_seeking=False)
        whole = len(rows) == len(d)
        trials = None if whole else np.unique(d.trial[rows])
        probs = _read(agent, self.run, trials)
        picked = rows if whole else np.flatnonzero(np.isin(d.trial, trials))
        out = probs[np.arange(len(probs)), d.chosen[picked]]
        if self.plans is not None:
            planned = self.plans.planned[picked]
            out[planned] = self.plans.on_plan[picked][planned]
        return out if whole else out[np.searchsorted(picked, rows)]


class LogitModel:
    """A conditional logit (the agent's `slots` are its weights, feature f of direction d its
    rule state `d * F + f`): its features at every decision (read once), the logit in numpy."""

    def __init__(self, spec: ModelSpec, run: HumanRun, plans: PlanSteps | None) -> None:
        self.spec, self.run = spec, run
        agent = spec.make()
        names = agent.slots
        states = _read(agent, run, None, states=True)[:, :4 * len(names)].reshape(
            -1, 4, len(names))
        free = [names.index(p.name) for p in spec.free]
        fixed = np.array([getattr(agent, f) for f in names])
        fixed[free] = 0.0
        self.features = np.ascontiguousarray(states[:, :, free])
        self.offset = states @ fixed
        self.open = run.decisions.open
        self.plans = plans if agent.goal_seeking else None

    def chosen(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return self.subset(rows).chosen_and_gradient(theta)[0]

    def subset(self, rows: np.ndarray) -> "_LogitRows":
        """The decisions `rows`, sliced once for the many evaluations of a fit."""
        d = self.run.decisions
        planned = (np.zeros(len(rows), bool) if self.plans is None
                   else self.plans.planned[rows])
        on_plan = np.zeros(len(rows)) if self.plans is None else self.plans.on_plan[rows]
        return _LogitRows(self.features[rows], self.offset[rows], self.open[rows],
                          d.chosen[rows], planned, on_plan)


@dataclass(frozen=True, eq=False)
class _LogitRows:
    """Features (n, 4, F), fixed part of the utilities, open mask, choices and plan steps of
    some decisions."""

    features: np.ndarray
    offset: np.ndarray
    open: np.ndarray
    chosen: np.ndarray
    planned: np.ndarray
    on_plan: np.ndarray

    def chosen_and_gradient(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """p(chosen) and its gradient with respect to the free weights (n, F)."""
        x = self.features       # einsum, not BLAS: BLAS threads spin between the optimiser's calls
        u = np.where(self.open, np.einsum("ndf,f->nd", x, theta) + self.offset, -np.inf)
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        n = np.arange(len(p))
        pc = p[n, self.chosen]
        grad = pc[:, None] * (x[n, self.chosen] - np.einsum("nd,ndf->nf", p, x))
        pc = np.where(self.planned, self.on_plan, pc)
        grad[self.planned] = 0.0
        return pc, grad


def build_model(spec: ModelSpec, run: HumanRun, plans: PlanSteps | None):
    """The reader of `spec` on `run` (`plans`: the run's plan steps, shared by the models)."""
    if getattr(AGENTS[spec.agent], "logit", False) and spec.free:
        return LogitModel(spec, run, plans)
    if spec.free:
        return ReadModel(spec, run, plans)
    return FixedModel(spec, run)


def _read(agent: KernelAgent, run: HumanRun, trials: np.ndarray | None, *,
          states: bool = False) -> np.ndarray:
    """The step probabilities (D, 4), or the rule states (D, RULE_STATE), of `agent` at the
    decisions of `trials` (indices into run.trials; None: all), in decision order."""
    d = run.decisions
    wanted = None if trials is None else set(trials.tolist())
    parts: dict[int, np.ndarray] = {}
    for (maze_id, _), ks in run.groups.items():
        ks = [k for k in ks if wanted is None or k in wanted]
        if not ks:
            continue
        reads = agent.read_walks(run.mazes[maze_id], run.trials[ks[0]].vision,
                                 [run.trials[k].positions for k in ks])
        for k, read in zip(ks, reads):
            parts[k] = read[1 if states else 0]
    rows = np.arange(len(d)) if trials is None else np.flatnonzero(np.isin(d.trial, trials))
    width = next(iter(parts.values())).shape[1] if parts else 4
    out = np.empty((len(rows), width))
    for start, stop, k in _runs(d.trial[rows]):
        out[start:stop] = parts[k][d.step[rows[start:stop]]]
    return out


def _runs(values: np.ndarray):
    """(start, stop, value) of each run of equal values."""
    if len(values) == 0:
        return
    edges = np.flatnonzero(np.diff(values)) + 1
    starts = np.r_[0, edges]
    stops = np.r_[edges, len(values)]
    for a, b in zip(starts, stops):
        yield int(a), int(b), int(values[a])
