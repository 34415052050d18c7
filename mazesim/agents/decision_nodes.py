"""The decision nodes of a set of decision trees, laid out flat so that a node model can give
the probability of every child at every decision in one vectorised call.

A **decision** is a node with two or more children (`DecisionTree.decisions`); its children
are consecutive **rows** (`start[d]:start[d + 1]`), in the tree's order. Every node of every
tree is also numbered globally (`base[t] + node`), with what the models of Kryven et al.
(2024) read of it: `steps` (S), `cells` (N), `mean_distance` (d, the mean Manhattan distance
to the revealed cells) and `share` (p = N / the parent's remaining dark cells, the chance that
the exit is among them; 0 at the root and where nothing is left). A node model
(`mazesim.agents.node_models`) maps a `DecisionNodes` and parameter values to an array of
probabilities, one row per child row. In a merged graph (`decision_tree(..., merged=True)`)
the nodes of one state share their children: they are one decision, and the planners value
their children once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from mazesim.agents.trees import DecisionTree
from mazesim.errors import DataError

__all__ = ["DecisionNodes", "decision_nodes"]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class DecisionNodes:
    """The decisions of `trees` (by name) and the nodes they value, as flat arrays.

    Per decision: `decision_tree` (tree number), `decision_node` (node index in its tree),
    `start` (first row; `start[-1]` is the number of rows). Per row: `row_decision`, `row_node`
    (the child's global node number). Per global node: `steps`, `cells`, `mean_distance`,
    `share`, `parent` (global, -1 at a root; in a merged graph the first parent found),
    `state` (the first node with the same children: in a merged graph the first node of its
    state, whose decision and best child the others share; the node itself in a tree and at a
    leaf), `node_decision` (the decision at the node, -1 where it has fewer than two
    children), `levels` (global node numbers by level, root level first: a node's level is
    one more than its deepest parent's, its depth in a tree). `base[t]` is tree t's first
    global node.
    """

    names: tuple[str, ...]
    trees: tuple[DecisionTree, ...]
    decision_tree: np.ndarray
    decision_node: np.ndarray
    start: np.ndarray
    row_decision: np.ndarray
    row_node: np.ndarray
    base: np.ndarray
    steps: np.ndarray
    cells: np.ndarray
    mean_distance: np.ndarray
    share: np.ndarray
    parent: np.ndarray
    state: np.ndarray
    levels: tuple[np.ndarray, ...]
    node_decision: np.ndarray

    @property
    def size(self) -> int:
        """The number of decisions."""
        return len(self.decision_node)

    @property
    def rows(self) -> int:
        """The number of child rows (children summed over the decisions)."""
        return int(self.start[-1])

    def decision(self, tree: str, node: str) -> int:
        """The number of the decision at node `node` (its name) of tree `tree`; DataError if
        the tree is unknown or the node is not a decision there."""
        t = self._tree(tree)
        k = self.trees[t].index.get(node)
        d = int(self.node_decision[self.base[t] + k]) if k is not None else -1
        if d < 0:
            what = "no such node" if k is None else "not a decision (fewer than two children)"
            raise DataError(f"tree {tree!r}: node {node!r}: {what}")
        return d

    def row(self, tree: str, node: str, child: str) -> int:
        """The row of child `child` at the decision at `node` (names) of tree `tree`."""
        d = self.decision(tree, node)
        nodes = self.trees[self.decision_tree[d]].nodes
        children = [nodes[c].name for c in nodes[self.decision_node[d]].children]
        if child not in children:
            raise DataError(f"tree {tree!r}: node {node!r}: {child!r} is not one of its "
                            f"children ({', '.join(children)})")
        return int(self.start[d]) + children.index(child)

    def _tree(self, tree: str) -> int:
        if tree not in self.names:
            raise DataError(f"unknown tree {tree!r} ({len(self.names)} trees)")
        return self.names.index(tree)


def decision_nodes(trees: Mapping[str, DecisionTree]) -> DecisionNodes:
    """The decisions of `trees` laid out flat, trees in the mapping's order; the nodes of a
    merged graph that share their children (one state) share one decision."""
    names = tuple(trees)
    if not names:
        raise DataError("no decision trees given")
    sizes = np.array([len(trees[name]) for name in names], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(sizes)])
    steps, cells, distance, remaining, parent = (np.zeros(base[-1]) for _ in range(5))
    level = np.zeros(base[-1], dtype=np.int64)
    state = np.arange(base[-1], dtype=np.int64)
    node_decision = np.full(base[-1], -1, dtype=np.int64)
    decision_tree, decision_node, start, row_node = [], [], [0], []
    for t, name in enumerate(names):
        nodes, b = trees[name].nodes, int(base[t])
        first_with: dict[tuple[int, ...], int] = {}
        for k, node in enumerate(nodes):
            g = b + k
            steps[g], cells[g], remaining[g] = node.steps, node.cells, node.remaining
            distance[g] = np.mean(node.distances) if node.distances else 0.0
            parent[g] = b + node.parent if node.parent >= 0 else -1
            if node.children:
                state[g] = b + first_with.setdefault(node.children, k)
        level[b:b + len(nodes)] = trees[name].levels()
        for k in trees[name].decisions():
            if state[b + k] == b + k:
                decision_tree.append(t)
                decision_node.append(k)
                row_node.extend(b + c for c in nodes[k].children)
                start.append(len(row_node))
            node_decision[b + k] = (len(decision_node) - 1 if state[b + k] == b + k
                                    else node_decision[state[b + k]])
    parent = parent.astype(np.int64)
    left = np.where(parent >= 0, remaining[np.maximum(parent, 0)], 0.0)
    share = np.divide(cells, left, out=np.zeros_like(cells), where=left > 0)
    row_decision = np.repeat(np.arange(len(decision_node)), np.diff(start))
    levels = tuple(_readonly(np.flatnonzero(level == k)) for k in range(level.max() + 1))
    arrays = [np.array(a, dtype=np.int64) for a in (decision_tree, decision_node, start)]
    return DecisionNodes(names, tuple(trees[name] for name in names),
                         *(_readonly(a) for a in arrays),
                         _readonly(row_decision), _readonly(np.array(row_node, dtype=np.int64)),
                         _readonly(base), _readonly(steps), _readonly(cells),
                         _readonly(distance), _readonly(share), _readonly(parent),
                         _readonly(state), levels, _readonly(node_decision))

