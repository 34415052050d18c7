"""Models of choices at decision nodes, by name: the probability of every child at every
decision of a set of trees (`DecisionNodes`), for one parameter setting or a whole grid.

A `NodeModel` declares the parameters a fit estimates (`mazesim.agents.Param`: bounds and
search scale), the grid the authors of the Maze Search Task searched (their value tables'
column headers), the values it holds fixed, and its rule: a function
`rule(decisions, **params)` taking one array (G,) per parameter and returning the
probabilities (rows, G). The planners and heuristics of Kryven et al. (2024) are registered
here (`mazesim.agents.planners`). `node-choice` is ours, a `NodeLogit`: a conditional logit
over features of each child that depend on the walk so far too
(`mazesim.agents.node_features`), its weights fitted per person by `mazesim.humans.fitting.node`.

Examples
--------
>>> model = node_model("du")
>>> [p.name for p in model.params], model.fixed
(['tau', 'gamma'], {'beta': 1.0})
>>> len(model.points()["tau"])      # 12 taus x 12 gammas, tau outermost
144
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from mazesim.agents.base import LINEAR, LOG, Param
from mazesim.agents.decision_nodes import DecisionNodes
from mazesim.agents.node_features import NODE_FEATURES, child_features, observed_rows
from mazesim.agents.planners import (heuristic_probabilities, planner_probabilities,
                                     uniform_probabilities)
from mazesim.errors import AgentError, did_you_mean

__all__ = ["NodeModel", "NodeLogit", "NODE_MODELS", "node_model", "TAUS", "GAMMAS", "BETAS", "KS",
           "MAX_VALUE_CELLS", "MAX_NODE_WEIGHT"]

MAX_VALUE_CELLS = 50_000_000    # (nodes or rows) x grid points of one call, 8 bytes each
MAX_NODE_WEIGHT = 1e3
"""Largest size of a weight of node-choice (as choice-model's `MAX_WEIGHT`)."""

# The authors' grids (`MST_models.ipynb`: geomspace and linspace rounded to 3 decimals), as
# their value tables' headers give them and in the order of their columns.
TAUS = (0.2, 0.28, 0.391, 0.547, 0.765, 1.07, 1.496, 2.092, 2.925, 4.091, 5.721, 8.0)
GAMMAS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99)
BETAS = (0.1, 0.139, 0.195, 0.271, 0.379, 0.528, 0.737, 1.028, 1.434, 2.0)
KS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

TAU = Param("tau", TAUS[0], TAUS[-1], LOG)
GAMMA = Param("gamma", 0.0, 1.0, LINEAR)
BETA = Param("beta", BETAS[0], BETAS[-1], LOG)
K = Param("k", 0.0, 1.0, LINEAR)


@dataclass(frozen=True)
class NodeModel:
    """A named node model: `rule(decisions, **values)` -> P (rows, G) for parameter arrays
    (G,); `params` the fitted parameters (in the grid's order, the first outermost), `grid`
    their grid values (one tuple per parameter), `fixed` the values the rule also gets. The
    one declaration of the model: its walking agent (`tree_walkers`) takes its parameters,
    bounds and defaults from here."""

    name: str
    rule: Callable[..., np.ndarray]
    params: tuple[Param, ...] = ()
    grid: tuple[tuple[float, ...], ...] = ()
    fixed: Mapping[str, float] = field(default_factory=dict)
    title: str = ""
    """What the model is, for the walking agent of the same name (`tree_walkers`)."""
    defaults: Mapping[str, float] = field(default_factory=dict)
    """The walking agent's default parameters: the pooled maximum-likelihood fit on experiment 1
    of the Maze Search Task (experiments/maze-search-task/README.md, our protocol), lapse left
    out."""

    def points(self) -> dict[str, np.ndarray]:
        """The grid as one array (G,) per fitted parameter: every combination, the first
        parameter outermost (the authors' column order; G = 1 without parameters)."""
        combos = np.array(list(itertools.product(*self.grid)), dtype=float)
        return {p.name: combos[:, i] for i, p in enumerate(self.params)}

    @property
    def size(self) -> int:
        """The number of grid points."""
        return int(np.prod([len(axis) for axis in self.grid], dtype=np.int64))

    def probabilities(self, decisions: DecisionNodes, **values: float) -> np.ndarray:
        """P of every child row (rows,) at one setting of every fitted parameter; AgentError
        for a missing or unknown parameter or a value outside its bounds."""
        self._check(values)
        arrays = {k: np.array([v], dtype=float) for k, v in values.items()}
        return self._call(decisions, arrays)[:, 0]

    def grid_probabilities(self, decisions: DecisionNodes,
                           points: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
        """P of every child row at every grid point (rows, G); `points` one array per fitted
        parameter (default: the model's grid, `points()`)."""
        points = self.points() if points is None else points
        arrays = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in points.items()}
        self._check(arrays)
        shapes = {a.shape for a in arrays.values()}
        if len(shapes) > 1 or any(len(shape) != 1 for shape in shapes):
            raise AgentError(f"node model {self.name}: grid points of shapes "
                             f"{sorted(shapes)} (allowed: one 1-D array of one length each)")
        size = next(iter(shapes), (1,))[0]
        if max(len(decisions.share), decisions.rows) * size > MAX_VALUE_CELLS:
            raise AgentError(f"node model {self.name}: {len(decisions.share):,} nodes x "
                             f"{size:,} grid points (allowed: at most {MAX_VALUE_CELLS:,})")
        return self._call(decisions, arrays)

    def _call(self, decisions: DecisionNodes, arrays: dict[str, np.ndarray]) -> np.ndarray:
        if not self.params:
            return self.rule(decisions)
        return self.rule(decisions, **{k: np.full(1, v) for k, v in self.fixed.items()},
                         **arrays)

    def _check(self, values: Mapping[str, np.ndarray | float]) -> None:
        names = [p.name for p in self.params]
        wrong = sorted(set(values) ^ set(names))
        if wrong:
            fault = "missing" if wrong[0] in names else "unknown parameter"
            raise AgentError(f"node model {self.name}: {fault} {wrong[0]!r} (its parameters: "
                             f"{', '.join(names) or 'none'})")
        for p in self.params:
            v = np.asarray(values[p.name], dtype=float)
            if not (np.all(v >= p.low) and np.all(v <= p.high)):
                bad = v[~((v >= p.low) & (v <= p.high))].ravel()[0]
                raise AgentError(f"node model {self.name}: {p.name} = {bad:g} (allowed: "
                                 f"{p.low:g} to {p.high:g})")


@dataclass(frozen=True)
class NodeLogit:
    """A conditional logit over `features` (names of `NODE_FEATURES`) of every child at the
    decisions a walker met: P(child) proportional to exp(features . weights). Its features
    read the walk so far, so it gives probabilities per observed decision, not per tree
    decision. Each weight lies within +-`max_weight` (choice-model's bound: a larger one
    overflows the exponential)."""

    name: str
    features: tuple[str, ...] = NODE_FEATURES
    max_weight: float = MAX_NODE_WEIGHT

    def __post_init__(self) -> None:
        unknown = [f for f in self.features if f not in NODE_FEATURES]
        if unknown or not self.features or len(set(self.features)) != len(self.features):
            raise AgentError(f"node model {self.name}: features {list(self.features)} "
                             f"(allowed: distinct names of {', '.join(NODE_FEATURES)})")

    def feature_rows(self, decisions: DecisionNodes, decision: np.ndarray,
                     walks) -> np.ndarray:
        """The features (rows, k) of every child row of the observed decisions `decision`
        (indices into `decisions`), `walks` the cells walked up to each node."""
        every = child_features(decisions, decision, walks)
        return every[:, [NODE_FEATURES.index(f) for f in self.features]]

    def probabilities(self, decisions: DecisionNodes, decision: np.ndarray, walks,
                      weights: np.ndarray) -> np.ndarray:
        """P of every child row of the observed decisions (rows,) at one weight vector (k,)
        or one per decision (decisions, k)."""
        start, _ = observed_rows(decisions, decision)
        weights = np.asarray(weights, dtype=float)
        if weights.shape[-1:] != (len(self.features),) or weights.ndim not in (1, 2) or (
                weights.ndim == 2 and len(weights) != len(start) - 1):
            raise AgentError(f"node model {self.name}: weights of shape {weights.shape} "
                             f"(allowed: ({len(self.features)},) or (decisions, "
                             f"{len(self.features)}))")
        x = self.feature_rows(decisions, decision, walks)
        counts = np.diff(start)
        w = weights if weights.ndim == 1 else np.repeat(weights, counts, axis=0)
        u = x @ w if weights.ndim == 1 else np.einsum("rk,rk->r", x, w)
        which = np.repeat(np.arange(len(counts)), counts)
        e = np.exp(u - np.maximum.reduceat(u, start[:-1])[which])
        return e / np.add.reduceat(e, start[:-1])[which]


def _registered(*models: NodeModel | NodeLogit) -> Mapping[str, NodeModel | NodeLogit]:
    """The registry; every grid lies within its parameter's bounds."""
    for model in models:
        if isinstance(model, NodeLogit):
            continue
        if len(model.params) != len(model.grid):
            raise TypeError(f"node model {model.name}: {len(model.params)} parameters, "
                            f"{len(model.grid)} grid axes")
        for p, axis in zip(model.params, model.grid):
            if not all(p.low <= v <= p.high for v in axis):
                raise TypeError(f"node model {model.name}: grid of {p.name} outside its bounds")
        if model.defaults and (set(model.defaults) != {p.name for p in model.params} or not all(
                p.low <= model.defaults[p.name] <= p.high for p in model.params)):
            raise TypeError(f"node model {model.name}: defaults {dict(model.defaults)} (allowed: "
                            "one value within its bounds per parameter)")
    return MappingProxyType({model.name: model for model in models})


NODE_MODELS: Mapping[str, NodeModel | NodeLogit] = _registered(
    NodeModel("eu", planner_probabilities, (TAU,), (TAUS,), {"gamma": 1.0, "beta": 1.0},
              "Expected Utility planner (Kryven et al. 2024)", {"tau": 2.80}),
    NodeModel("du", planner_probabilities, (TAU, GAMMA), (TAUS, GAMMAS), {"beta": 1.0},
              "Discounted Utility planner (Kryven et al. 2024)", {"tau": 1.74, "gamma": 0.76}),
    NodeModel("pw", planner_probabilities, (TAU, BETA), (TAUS, BETAS), {"gamma": 1.0},
              "Probability Weighting planner (Kryven et al. 2024)", {"tau": 1.87, "beta": 0.59}),
    NodeModel("pw-du", planner_probabilities, (TAU, GAMMA, BETA), (TAUS, GAMMAS, BETAS), {},
              "PW-DU planner (Kryven et al. 2024: weighting and discounting)",
              {"tau": 1.74, "gamma": 0.66, "beta": 1.55}),
    NodeModel("steps", heuristic_probabilities, (TAU,), (TAUS,), {"k": 1.0},
              "Steps heuristic (Kryven et al. 2024: the nearest child)", {"tau": 1.21}),
    NodeModel("cells", heuristic_probabilities, (TAU,), (TAUS,), {"k": 0.0},
              "Cells heuristic (Kryven et al. 2024: the child revealing most)", {"tau": 1.0}),
    NodeModel("steps-cells", heuristic_probabilities, (TAU, K), (TAUS, KS), {},
              "Steps-Cells heuristic (Kryven et al. 2024: steps against cells)",
              {"tau": 1.37, "k": 0.54}),
    NodeModel("random", uniform_probabilities),
    NodeLogit("node-choice"),
)
"""The Maze Search Task paper's models (their numerosity variants are not here: the table they
need, `Q_k_n.pickle`, is not part of the shared data) and ours, `node-choice`."""


def node_model(name: str) -> NodeModel | NodeLogit:
    """The registered node model `name`; AgentError naming the known ones and the closest."""
    if name in NODE_MODELS:
        return NODE_MODELS[name]
    raise AgentError(f"unknown node model {name!r} (known: {', '.join(NODE_MODELS)})"
                     f"{did_you_mean(name, NODE_MODELS)}")
