"""How much a person's walk on a maze tells node models apart (DESIGN.md section 11's node
models), exactly over their choice probabilities.

A walk on a maze's decision tree is a sequence of node decisions, ending at the first node whose
observation reveals the exit (`mazesim.walks.nodes`). For a person who walks by model A at
parameters a, the expected log-likelihood ratio of their walk against model B at b is the
Kullback-Leibler divergence of the two path distributions, which is the expected sum of the
per-decision divergences along the path: sum over decisions d of reach_A(d) KL(p_A,d || p_B,d),
reach_A(d) the chance that A's walk passes d (a product down the tree, computed level by level).
Probabilities are floored at `FLOOR` inside the logs, as the authors' fitting protocol floors
them (`mazesim.humans.peer.grid`), and a lapse is a uniform choice mixed in, as the walkers mix it.

Parameters are integrated by sampling people (`Panel`): for each model, `people` per-person fits
drawn with replacement from a fit folder. B is not held at one value: a person's walks are
fitted, so their information against B is the divergence from the best-fitting b over every maze
of a design at once (min over B's grid and B's sampled people of the summed divergences:
`Information`). So two identical models give exactly 0, and two mazes that separate the same
people the same way count less than two that separate different people.

What decides a person's model is the fit's cross-validated score (the authors' protocol), which
the divergence D (nats) of their walks from B's best setting predicts: the expected score of A
over B is D plus `CV_PENALTY` per parameter B has beyond A (what B's extra flexibility costs it
on held-out decisions), its variance 2 D (the log-likelihood ratio of many small decisions is
near normal with variance twice its mean) plus 1/2 per parameter of difference (the chi-square
of one nested parameter, halved); the chance that the fit prefers B is the normal tail of that
(`predicted_error`; Phi(-sqrt(D / 2)) between models of as many parameters). A person is
predicted to be recovered when the fit prefers none of the rivals (the product of the pairs'
chances, taken as independent); `Information.mean_error`, the quantity a design minimises, is
the share predicted not to be, averaged over the models. Sampling error: the standard error
over the sampled people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy.special import ndtr

from mazesim import _grid
from mazesim.agents.decision_nodes import DecisionNodes, decision_nodes
from mazesim.agents.node_models import NodeModel, node_model
from mazesim.agents.trees import MAX_TREE_NODES, decision_tree
from mazesim.agents.vision import SWEEP_VISION
from mazesim.errors import DataError
from mazesim.humans.peer.grid import FLOOR, FOLDS
from mazesim.maze import Maze

__all__ = ["MAX_PEOPLE", "MAX_MODELS", "NEAR_IDENTICAL", "CV_PENALTY", "near_identical",
           "predicted_error", "joint_error", "Group", "Panel", "panel", "MazeTable", "maze_table",
           "MazeScore", "score_maze", "Information", "information"]

MAX_PEOPLE = 1_000
"""Most sampled people per model."""
MAX_MODELS = 8
"""Most models compared at once (every ordered pair is scored)."""
_LOG2 = math.log(2)
NEAR_IDENTICAL = 0.005
"""Bits per decision below which a person's walks are taken as another model's (`near_identical`;
at the experiment-1 population people fall below 0.003 or above 0.009)."""
CV_PENALTY = FOLDS / (2 * (FOLDS - 1))
"""Expected loss (nats) of a person's cross-validated log-likelihood per fitted parameter: each
fold's fit, on (K - 1) / K of the decisions, loses 1/2 a nat per parameter on its own data's
scale, K / (K - 1) times that on the held-out decisions summed over the folds."""


@dataclass(frozen=True, eq=False)
class Group:
    """The parameter settings of one model, as columns: one array (C,) per fitted parameter
    and the lapse of each column."""

    model: NodeModel
    points: Mapping[str, np.ndarray]
    lapse: np.ndarray

    def __len__(self) -> int:
        return len(self.lapse)

    def probabilities(self, decisions: DecisionNodes) -> np.ndarray:
        """P of every child row at every column (rows, C), the lapse mixed in."""
        if not decisions.rows:
            return np.zeros((0, len(self)))
        p = self.model.grid_probabilities(decisions, self.points) if self.points else \
            np.broadcast_to(self.model.grid_probabilities(decisions), (decisions.rows, 1))
        children = np.diff(decisions.start)[decisions.row_decision][:, None]
        return (1.0 - self.lapse) * p + self.lapse / children


@dataclass(frozen=True, eq=False)
class Panel:
    """The models compared: per model its sampled people (`people`, the generating side) and
    the settings a fit may choose (`rivals`: the model's grid and its sampled people)."""

    names: tuple[str, ...]
    people: Mapping[str, Group]
    rivals: Mapping[str, Group]
    vision: str = str(SWEEP_VISION)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every ordered pair of different models (generator, rival)."""
        return [(a, b) for a in self.names for b in self.names if a != b]


def panel(fits: Mapping[str, Sequence[tuple[Mapping[str, float], float]]], people: int,
          seed: int, vision: str = str(SWEEP_VISION)) -> Panel:
    """A `Panel` from per-person fits, model name -> [(params, lapse), ...] (one per person,
    as `mazesim.humans.predict.run.read_fit` gives them): `people` drawn with replacement for each
    model from `SeedSequence(seed, spawn_key=(m,))`, m the model's place."""
    if not 1 <= len(fits) <= MAX_MODELS:
        raise DataError(f"models: {len(fits)} (allowed: 1 to {MAX_MODELS})")
    if isinstance(people, bool) or not 1 <= people <= MAX_PEOPLE:
        raise DataError(f"people: {people!r} (allowed: 1 to {MAX_PEOPLE:,})")
    sampled, rivals = {}, {}
    for m, (name, own) in enumerate(fits.items()):
        model = node_model(name)
        if not isinstance(model, NodeModel):
            raise DataError(f"model {name!r}: its choices depend on the walk so far; the exact "
                            "information needs a model whose choices are fixed at each node")
        if not own:
            raise DataError(f"model {name!r}: no per-person fit (fit with protocol peer, or "
                            "by participant)")
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(m,)))
        pick = rng.integers(0, len(own), size=people)
        sampled[name] = _group(model, [own[i] for i in pick])
        grid = model.points()
        rivals[name] = Group(model, {k: np.concatenate([grid[k], sampled[name].points[k]])
                                     for k in grid},
                             np.concatenate([np.zeros(model.size), sampled[name].lapse]))
    return Panel(tuple(fits), sampled, rivals, vision)


def _group(model: NodeModel, settings: Sequence[tuple[Mapping[str, float], float]]) -> Group:
    names = [p.name for p in model.params]
    for params, _ in settings:
        if sorted(params) != sorted(names):
            raise DataError(f"model {model.name}: a person's parameters {sorted(params)} "
                            f"(expected: {', '.join(names) or 'none'})")
    points = {k: np.array([float(s[0][k]) for s in settings]) for k in names}
    return Group(model, points, np.array([float(s[1]) for s in settings]))


@dataclass(frozen=True, eq=False)
class MazeTable:
    """A maze's decision tree as the walk's arithmetic needs it: the flat decisions; per node
    its parent (-1 at the root), whether the walk goes on past it (`live`: it does not reveal
    the exit), the steps from its parent and, where the walk ends, the steps on to the exit;
    `met` the decisions a walk can meet (the others lie below a node that reveals the exit)."""

    name: str
    maze: Maze
    decisions: DecisionNodes
    parent: np.ndarray
    live: np.ndarray
    steps: np.ndarray
    exit_steps: np.ndarray
    met: np.ndarray

    def reach(self, probabilities: np.ndarray) -> np.ndarray:
        """The chance (nodes, C) that a walk passes each node, from P of every child row
        (rows, C): a product down the tree, stopping below nodes that reveal the exit."""
        d = self.decisions
        edge = np.ones((len(self.parent), probabilities.shape[1]))
        edge[d.row_node] = probabilities
        reach = np.zeros_like(edge)
        reach[0] = 1.0
        for level in d.levels[1:]:
            up = self.parent[level]
            reach[level] = reach[up] * edge[level] * self.live[up][:, None]
        return reach


def maze_table(maze: Maze, vision=SWEEP_VISION, *, max_nodes: int = MAX_TREE_NODES,
               name: str = "maze") -> MazeTable:
    """The `MazeTable` of `maze` under `vision` (AgentError past `max_nodes` nodes)."""
    tree = decision_tree(maze, vision, max_nodes=max_nodes)
    decisions = decision_nodes({name: tree})
    live = ~np.array(tree.shows_exit())
    dist, _ = _grid.distances(maze.grid, *maze.goal)
    cells = np.array([node.cell for node in tree.nodes])
    exit_steps = np.where(live, 0.0, dist[cells[:, 0], cells[:, 1]])
    steps = np.array([node.steps for node in tree.nodes], dtype=float)
    table = MazeTable(name, maze, decisions, decisions.parent, live, steps, exit_steps,
                      np.zeros(0, np.int64))
    at = table.reach(np.ones((decisions.rows, 1)))[decisions.decision_node, 0]
    met = np.flatnonzero((at > 0) & live[decisions.decision_node])
    return MazeTable(name, maze, decisions, decisions.parent, live, steps, exit_steps, met)


@dataclass(frozen=True, eq=False)
class MazeScore:
    """One maze scored: `kl[(a, b)]` (people of a, rivals of b) the divergence in nats of a's
    sampled people's walks from each setting of b; per model the expected decisions and steps
    of each sampled person's walk."""

    name: str
    kl: Mapping[tuple[str, str], np.ndarray]
    decisions: Mapping[str, np.ndarray]
    steps: Mapping[str, np.ndarray]
    extra: Mapping[tuple[str, str], int]


def score_maze(panel: Panel, table: MazeTable) -> MazeScore:
    """The divergences of every ordered pair of the panel's models on one maze (module
    docstring): per pair one matrix product over the child rows."""
    d = table.decisions
    rows = np.flatnonzero(np.isin(d.row_decision, table.met))    # the rows a walk can take
    own, logs, weights, decisions, steps = {}, {}, {}, {}, {}
    for name in panel.names:
        p = panel.people[name].probabilities(d)
        reach = table.reach(p)
        at = reach[d.decision_node] * table.live[d.decision_node][:, None]
        weights[name] = at[d.row_decision[rows]] * p[rows]
        own[name] = (weights[name] * np.log(np.maximum(p[rows], FLOOR))).sum(axis=0)
        logs[name] = np.log(np.maximum(panel.rivals[name].probabilities(d)[rows], FLOOR))
        decisions[name] = at.sum(axis=0)
        steps[name] = table.steps @ reach + table.exit_steps @ reach
    kl = {(a, b): np.maximum(own[a][:, None] - weights[a].T @ logs[b], 0.0)
          for a, b in panel.pairs}
    extra = {(a, b): len(panel.rivals[b].model.params) - len(panel.rivals[a].model.params)
             for a, b in panel.pairs}
    return MazeScore(table.name, kl, decisions, steps, extra)


@dataclass(frozen=True, eq=False)
class Information:
    """What a set of mazes tells apart, per ordered pair (generator a, rival b): `divergence`
    (bits per person over the set, mean and standard error over a's sampled people),
    `per_decision` (bits per expected decision), `error` (the predicted chance that a fit
    prefers b, mean over people); `steps` per model, the mean expected steps of a walk."""

    divergence: Mapping[tuple[str, str], tuple[float, float]]
    per_decision: Mapping[tuple[str, str], float]
    error: Mapping[tuple[str, str], float]
    steps: Mapping[str, float]
    mean_error: float

    def to_json(self) -> dict:
        return {"pairs": [{"model": a, "rival": b, "bits": self.divergence[(a, b)][0],
                           "bits_se": _finite(self.divergence[(a, b)][1]),
                           "bits_per_decision": self.per_decision[(a, b)],
                           "predicted_error": self.error[(a, b)]} for a, b in self.divergence],
                "predicted_error": self.mean_error,
                "steps": dict(self.steps)}


def near_identical(panel: Panel, scores: Sequence[MazeScore],
                   bits: float = NEAR_IDENTICAL) -> np.ndarray:
    """Which of the panel's sampled people (models, people; bool) walk these mazes within `bits`
    per expected decision of another model's best setting (`scores` of this panel): people at
    parameters where their model nests another (DU at gamma near 1 is EU), whom no maze of the
    set tells apart."""
    near = []
    for a in panel.names:
        walked = sum(s.decisions[a] for s in scores)
        closest = np.min([sum(s.kl[(a, b)] for s in scores).min(axis=1)
                          for b in panel.names if b != a], axis=0)
        near.append(closest / _LOG2 < bits * walked)
    return np.array(near)


def predicted_error(divergence: np.ndarray, extra: int) -> np.ndarray:
    """The chance that a person's cross-validated fit prefers the rival (module docstring), for
    each person's divergence (nats) from the rival's best setting, the rival having `extra`
    parameters beyond the generator's."""
    d = np.asarray(divergence, dtype=float)
    mean = d + CV_PENALTY * extra
    sd = np.sqrt(2 * d + abs(extra) / 2)
    z = np.divide(mean, sd, out=np.zeros_like(d), where=sd > 0)
    return ndtr(-z)


def joint_error(best: Mapping[tuple[str, str], np.ndarray],
                extra: Mapping[tuple[str, str], int]) -> float:
    """The predicted share of people whose fit names another model than theirs (module
    docstring), from each ordered pair's divergences (nats per person, from the rival's best
    setting); 0 for a single model."""
    right: dict[str, np.ndarray] = {}
    for (a, b), d in best.items():
        right[a] = right.get(a, 1.0) * (1.0 - predicted_error(d, extra[(a, b)]))
    return float(np.mean([1.0 - r.mean() for r in right.values()])) if right else 0.0


def _finite(value: float) -> float | None:
    """JSON has no NaN: a standard error of one sampled person is null."""
    return value if math.isfinite(value) else None


def information(scores: Sequence[MazeScore]) -> Information:
    """The joint information of mazes each person walks once (module docstring): divergences
    summed over the mazes, then the best-fitting rival setting per person."""
    if not scores:
        raise DataError("no maze scored")
    divergence, per_decision, error, bests = {}, {}, {}, {}
    for pair in scores[0].kl:
        best = bests[pair] = sum(s.kl[pair] for s in scores).min(axis=1)
        n = len(best)
        se = float(best.std(ddof=1) / math.sqrt(n)) / _LOG2 if n > 1 else math.nan
        divergence[pair] = (float(best.mean()) / _LOG2, se)
        walked = sum(s.decisions[pair[0]] for s in scores).sum()
        per_decision[pair] = float(best.sum() / _LOG2 / walked) if walked > 0 else 0.0
        error[pair] = float(predicted_error(best, scores[0].extra[pair]).mean())
    steps = {m: float(np.mean(sum(s.steps[m] for s in scores)) / len(scores))
             for m in scores[0].steps}
    return Information(divergence, per_decision, error, steps,
                       joint_error(bests, scores[0].extra))
