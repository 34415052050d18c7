"""The Maze Search Task paper's planners and heuristics as walking agents (DESIGN.md sections 6
and 11): `eu`, `du`, `pw`, `pw-du`, `steps`, `cells`, `steps-cells`, named and parametrised as
their node models (`mazesim.agents.node_models`), and ours, `node-choice` (its weights a key).

The rule (Kryven et al. 2024): at each observation node of the decision tree of its maze under
its vision (`mazesim.agents.trees`, merged: the tree's walks on maps of any size), draw a child with the model's softmax probabilities (mixed
with a uniform choice among the children by `lapse`), walk the tree's path to it (a shortest
path over the known floor plan on which nothing new is seen before the child), and repeat; once
the exit has been observed, walk a shortest path to it (ties as the other agents' plans break
them: each step to the first neighbour, up, right, down, left, one closer to the exit). So a
walk cut on the tree (`mazesim.walks.nodes`) gives exactly the children drawn.

The tree needs the floor plan known from the start and memory (`{sweep: true, map: known}`, the
authors' vision, or a window or an isovist with `map: known`); under full vision the exit is seen
at once and the walk is a shortest path. What the agent uses is the floor plan (known) and what
its vision has revealed at the nodes so far: the exit's cell enters only once it is revealed
(under `exit on arrival` only on that cell: the walker searches on past its sweep and the walk
ends on arriving there, `mazesim.agents.trees`).
Draws come from the trial's stream (xoshiro256**, as the compiled agents draw), one per node
with two or more children of positive probability. The agents choose children, not steps: they
give no step probabilities (score them at nodes: `mazesim fit --level node`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np

from mazesim import _grid
from mazesim._grid import pad
from mazesim.agents._tree_walk_kernel import tree_walks
from mazesim.agents.base import AgentBase, Walks, flat_cells, padded_maze
from mazesim.agents.decision_nodes import DecisionNodes, decision_nodes
from mazesim.agents.node_features import NODE_FEATURES, child_features
from mazesim.agents.node_models import node_model
from mazesim.agents.trees import DecisionTree, _tree_vision, decision_tree
from mazesim.agents.vision import Vision
from mazesim.errors import AgentError
from mazesim.maze import DELTAS, Maze

__all__ = ["TreeWalker", "EUWalker", "DUWalker", "PWWalker", "PWDUWalker", "StepsWalker",
           "CellsWalker", "StepsCellsWalker", "NodeChoiceWalker", "NODE_CHOICE_WEIGHTS",
           "TREE_WALKERS", "tree_of", "exit_path", "walker_keys"]

_CACHED_TREES = 2      # trees kept between calls (one maze's trials may come in several
                       # batches; a tree at its ceiling holds about 50 MB)
_TREES: OrderedDict = OrderedDict()


def tree_of(maze: Maze, vision: Vision) -> tuple[DecisionTree, DecisionNodes]:
    """The decision tree of `maze` under `vision`, merged (equal states one node: the same
    walks as the tree's, on maps of any size), and its decisions laid out flat, the last few
    kept (keyed by the maze's content and the vision)."""
    key = (maze.grid.tobytes(), maze.shape, maze.start, maze.goal,
           repr(maze.meta.get("seen_at_start")), str(vision))
    if key in _TREES:
        _TREES.move_to_end(key)
        return _TREES[key]
    tree = decision_tree(maze, vision, merged=True)
    built = (tree, decision_nodes({"tree": tree}))
    _TREES[key] = built
    if len(_TREES) > _CACHED_TREES:
        _TREES.popitem(last=False)
    return built


def exit_path(dist: np.ndarray, cell: tuple[int, int]) -> list[tuple[int, int]]:
    """A shortest path from `cell` to the exit over the floor, the cells after `cell`, given
    every cell's distance to the exit (`_grid.distances` from it): each step to the first
    neighbour (up, right, down, left) one closer to the exit (the plans of the compiled agents,
    `_walk_loop.plan_to`)."""
    out, (r, c) = [], cell
    while dist[r, c] > 0:
        for dr, dc in DELTAS:
            y, x = r + int(dr), c + int(dc)
            if 0 <= y < dist.shape[0] and 0 <= x < dist.shape[1] and dist[y, x] == dist[r, c] - 1:
                r, c = y, x
                break
        out.append((r, c))
    return out


@dataclass(frozen=True, kw_only=True)
class TreeWalker(AgentBase):
    """Walks from observation node to observation node of its maze's decision tree, drawing each
    child with its node model's probabilities (the module docstring); `lapse` mixes in a uniform
    choice among the children."""

    lapse: float = 0.0

    def _validate(self) -> None:
        if not self.goal_seeking:
            raise self._fail("goal_seeking", "true: the planners walk to the exit once they see "
                                             "it")
        self._check_probability("lapse")
        self._check_values()

    def _check_values(self) -> None:
        """The node model's parameters within their bounds."""
        for p in node_model(self.name).params:
            self._check_number(p.name, p.low, p.high)

    def values(self) -> dict[str, float]:
        """The node model's parameters at this agent's keys."""
        return {p.name: getattr(self, p.name) for p in node_model(self.name).params}

    def check_vision(self, vision: Vision) -> Vision:
        """The vision if the agent can walk with it (full, or one a decision tree is built
        under); AgentError naming the agent otherwise."""
        if not vision.full:
            try:
                _tree_vision(vision)
            except AgentError as err:
                raise AgentError(f"{self.name}: {err}") from None
        return vision

    def child_probabilities(self, tree: DecisionTree, decisions: DecisionNodes
                            ) -> list[np.ndarray]:
        """P of each child of every node of `tree` (one array per node, its children's order;
        empty at a leaf), the lapse mixed in."""
        out = [np.ones(len(node.children)) for node in tree.nodes]
        if decisions.size:
            probs = node_model(self.name).probabilities(decisions, **self.values())
            for k, d in enumerate(decisions.node_decision.tolist()):
                if d >= 0:
                    p = probs[decisions.start[d]:decisions.start[d + 1]]
                    out[k] = (1.0 - self.lapse) * p + self.lapse / len(p)
        return out

    def slots(self, tree: DecisionTree, decisions: DecisionNodes
              ) -> tuple[np.ndarray, np.ndarray | None]:
        """What a draw reads at each child slot of the flat tree (`_tree_walk_kernel`): here
        the fixed probabilities (`child_probabilities`), no utilities."""
        probs = self.child_probabilities(tree, decisions)
        return (np.concatenate(probs) if probs else np.zeros(0)), None

    def run_trials(self, maze: Maze, vision: Vision, streams: np.ndarray, max_steps: int, *,
                   keep: bool, record: np.ndarray) -> Walks:
        vision = self.check_vision(vision)
        cells, width, start, goal = padded_maze(maze)
        if vision.full:
            kids, paths, at = [()], [()], [maze.start]      # the root shows the exit
            shows = np.ones(1, np.bool_)
            prob, fixed = np.zeros(0), None
        else:
            tree, decisions = tree_of(maze, vision)
            nodes = tree.nodes
            kids, paths, at = ([n.children for n in nodes], [n.path[1:] for n in nodes],
                               [n.cell for n in nodes])
            shows = np.array(tree.shows_exit(), np.bool_)
            prob, fixed = self.slots(tree, decisions)
        flat = _flat_tree(maze, kids, paths, at, shows, width)
        logit = fixed is not None
        weights = np.asarray(self.values_of_walk(), np.float64)
        flags = pad(np.asarray(record).astype(np.uint8)).ravel()
        out, count, reached, rows, row_trials = tree_walks(
            np.ascontiguousarray(streams, np.uint64), flat.first_child, flat.children, prob,
            logit, fixed if logit else np.zeros(0), weights, float(self.lapse), flat.first_cell,
            flat.path, flat.shows, flat.first_exit, flat.exits, start, goal, int(max_steps),
            cells, width, flags, bool(flags.any()))
        positions = np.stack([out // width - 1, out % width - 1], axis=1) if keep \
            else np.zeros((0, 2), np.int64)
        return Walks(count - 1, reached, rows, row_trials, positions)

    def values_of_walk(self) -> tuple[float, float]:
        """The weights of the walk's own features (revisit, reverse): none here."""
        return (0.0, 0.0)

    def kernel(self) -> Any:
        """The compiled walk, one for every tree walker (`_tree_walk_kernel.tree_walks`)."""
        return tree_walks

    def step_probabilities(self, maze: Maze, vision: Vision, positions: np.ndarray
                           ) -> np.ndarray:
        raise AgentError(f"{self.name}: gives no step probabilities (it chooses children at "
                         "observation nodes: score it with mazesim fit --level node)")


def _walker(name: str, class_name: str) -> type[TreeWalker]:
    """The tree walker of the planner or heuristic `name` of the node-model registry: its
    parameters, bounds and defaults are the node model's (declared once, there)."""
    model = node_model(name)
    cls = make_dataclass(class_name, [(p.name, float, field(default=model.defaults[p.name]))
                                      for p in model.params],
                         bases=(TreeWalker,), frozen=True, kw_only=True,
                         namespace={"name": name, "__doc__": f"{model.title} walking its "
                                                             "decision tree."})
    cls.__module__ = __name__           # pickled by name, as a class written here would be
    return cls


EUWalker = _walker("eu", "EUWalker")
DUWalker = _walker("du", "DUWalker")
PWWalker = _walker("pw", "PWWalker")
PWDUWalker = _walker("pw-du", "PWDUWalker")
StepsWalker = _walker("steps", "StepsWalker")
CellsWalker = _walker("cells", "CellsWalker")
StepsCellsWalker = _walker("steps-cells", "StepsCellsWalker")


class _FlatTree(NamedTuple):
    """A tree as `_tree_walk_kernel.tree_walks` reads it, cells flat in the padded maze: node
    k's children are `children[first_child[k]:first_child[k + 1]]`, the cells walked to it from
    its parent's cell `path[first_cell[k]:first_cell[k + 1]]`, whether it `shows` the exit,
    and then the exit's path `exits[first_exit[k]:first_exit[k + 1]]`."""

    first_child: np.ndarray
    children: np.ndarray
    first_cell: np.ndarray
    path: np.ndarray
    shows: np.ndarray
    first_exit: np.ndarray
    exits: np.ndarray


def _flat_tree(maze: Maze, kids: list, paths: list, at: list, shows: np.ndarray,
               width: int) -> _FlatTree:
    """The tree (each node's children, the cells walked to it from its parent's cell, its
    cell, whether it shows the exit) laid out flat; the exit's path from every node that shows
    it."""
    first_child = np.cumsum([0] + [len(k) for k in kids]).astype(np.int64)
    children = np.array([c for k in kids for c in k], np.int64)
    first_cell = np.cumsum([0] + [len(p) for p in paths]).astype(np.int64)
    dist, _ = _grid.distances(maze.grid, *maze.goal)
    exit_paths = [exit_path(dist, cell) if show else [] for cell, show in
                  zip(at, shows.tolist())]
    first_exit = np.cumsum([0] + [len(p) for p in exit_paths]).astype(np.int64)
    return _FlatTree(first_child, children, first_cell,
                     _flat([c for p in paths for c in p], width), shows, first_exit,
                     _flat([c for p in exit_paths for c in p], width))


def _flat(cells: list, width: int) -> np.ndarray:
    return flat_cells(np.array(cells, np.int64).reshape(-1, 2), width).reshape(-1)


NODE_CHOICE_WEIGHTS = {"du-0": -0.104, "du-0.5": -0.440, "du-0.7": 1.640, "du-0.9": -0.438,
                       "du-1": -0.228, "log-steps": -0.352, "log-cells": 0.578,
                       "revisit": -1.100, "reverse": -0.112}
"""node-choice's weights pooled over experiment 1's people (maximum likelihood, 5,971 node
decisions of 116 people: `mazesim fit --level node --model node-choice --cv 0`)."""


@dataclass(frozen=True, kw_only=True)
class NodeChoiceWalker(TreeWalker):
    """node-choice (ours, a conditional logit over each child's features) walking its tree.

    The features are those of `mazesim.agents.node_features`: the child's plan values, steps
    and cells, and what the walk so far says of it (revisit, reverse).

    Parameters
    ----------
    weights : a mapping feature -> weight, or a list in the order of `NODE_FEATURES`
        Default: the pooled fit on experiment 1 (`NODE_CHOICE_WEIGHTS`); a feature left out of
        a mapping weighs 0.
    """

    name = "node-choice"
    ENTRIES = {"weights": NODE_FEATURES}
    """The names of a list-valued key's entries (`mazesim agents` shows them)."""
    weights: Any = tuple(NODE_CHOICE_WEIGHTS.values())

    def _check_values(self) -> None:
        weights = self.weights
        if isinstance(weights, Mapping):
            unknown = sorted(set(map(str, weights)) - set(NODE_FEATURES))
            if unknown:
                raise self._fail("weights", f"features of {', '.join(NODE_FEATURES)} "
                                            f"({unknown[0]!r} is not one)")
            weights = [weights.get(f, 0.0) for f in NODE_FEATURES]
        if isinstance(weights, str):
            weights = weights.split(",")
        try:
            values = tuple(float(w) for w in weights)
        except (TypeError, ValueError):
            values = ()
        bound = node_model(self.name).max_weight
        if len(values) != len(NODE_FEATURES) or not all(-bound <= v <= bound for v in values) \
                or any(isinstance(w, bool) for w in weights):
            raise self._fail("weights", f"{len(NODE_FEATURES)} numbers from {-bound:g} to "
                                        f"{bound:g} in the order {', '.join(NODE_FEATURES)}, "
                                        "or a mapping of them")
        object.__setattr__(self, "weights", values)

    def values(self) -> dict[str, float]:
        return dict(zip(NODE_FEATURES, self.weights))

    def slots(self, tree: DecisionTree, decisions: DecisionNodes
              ) -> tuple[np.ndarray, np.ndarray | None]:
        """The logit's utilities at each child slot from the tree's features (the walk's own,
        revisit and reverse, are added at every visit by `_tree_walk_kernel`)."""
        weights = np.array(self.weights)
        utilities = np.zeros(sum(len(node.children) for node in tree.nodes))
        if decisions.size:
            every = np.arange(decisions.size)
            fixed = child_features(decisions, every, [[tree.nodes[k].cell] for k in
                                                      decisions.decision_node.tolist()])[:, :-2]
            fixed = fixed @ weights[:-2]
            first = np.cumsum([0] + [len(node.children) for node in tree.nodes])
            for k, d in enumerate(decisions.node_decision.tolist()):
                if d >= 0:
                    utilities[first[k]:first[k + 1]] = fixed[decisions.start[d]:
                                                             decisions.start[d + 1]]
        return np.zeros(0), utilities

    def values_of_walk(self) -> tuple[float, float]:
        return tuple(self.weights[-2:])


TREE_WALKERS = (EUWalker, DUWalker, PWWalker, PWDUWalker, StepsWalker, CellsWalker,
                StepsCellsWalker, NodeChoiceWalker)


def walker_keys(model: str, params: Mapping[str, float], lapse: float) -> tuple[str, dict]:
    """The walking agent and its config keys for node model `model` fitted at `params` and
    `lapse` (`mazesim fit --level node`): its tree walker; node-choice's weights as its
    `weights` mapping; `random` (a uniform choice among the children) as any planner walking
    with lapse 1."""
    node_model(model)                                   # AgentError for an unknown name
    if model == "random":
        return EUWalker.name, {"lapse": 1.0}
    if model == NodeChoiceWalker.name:
        return model, {"weights": dict(params), "lapse": lapse}
    return model, {**params, "lapse": lapse}
