"""The decision nodes of a set of decision trees, laid out flat so that a node model can give
the probability of every child at every decision in one vectorised call.

A **decision** is a node with two or more children (`DecisionTree.decisions`); its children
are consecutive **rows** (`start[d]:start[d + 1]`), in the tree's order. Every node of every
tree is also numbered globally (`base[t] + node`), with what the models of Kryven et al.
(2024) read of it: `steps` (S), `cells` (N), `mean_distance` (d, the mean Manhattan distance
to the revealed cells) and `share` (p = N / the parent's remaining dark cells, the chance that
the exit is among them; 0 at the root and where nothing is left). A node model
(`mazesim.agents.node_models`) maps a `DecisionNodes` and parameter values to an array of
probabilities, one row per child row.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
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
    `share`, `parent` (global, -1 at a root), `levels` (global node numbers by depth, root
    level first). `base[t]` is tree t's first global node.
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
    levels: tuple[np.ndarray, ...]
    _decision_of: Mapping[tuple[int, int], int]

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
        d = self._decision_of.get((t, k)) if k is not None else None
        if d is None:
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
    """The decisions of `trees` laid out flat, trees in the mapping's order."""
    names = tuple(trees)
    if not names:
        raise DataError("no decision trees given")
    sizes = np.array([len(trees[name]) for name in names], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(sizes)])
    steps, cells, distance, remaining, parent = (np.zeros(base[-1]) for _ in range(5))
    depth = np.zeros(base[-1], dtype=np.int64)
    decision_tree, decision_node, start, row_node = [], [], [0], []
    for t, name in enumerate(names):
        nodes, b = trees[name].nodes, int(base[t])
        for k, node in enumerate(nodes):
            g = b + k
            steps[g], cells[g], remaining[g] = node.steps, node.cells, node.remaining
            distance[g] = np.mean(node.distances) if node.distances else 0.0
            parent[g] = b + node.parent if node.parent >= 0 else -1
        for k in _level_order(trees[name]):
            depth[b + k] = depth[int(parent[b + k])] + 1 if parent[b + k] >= 0 else 0
        for k in trees[name].decisions():
            decision_tree.append(t)
            decision_node.append(k)
            row_node.extend(b + c for c in nodes[k].children)
            start.append(len(row_node))
    parent = parent.astype(np.int64)
    left = np.where(parent >= 0, remaining[np.maximum(parent, 0)], 0.0)
    share = np.divide(cells, left, out=np.zeros_like(cells), where=left > 0)
    row_decision = np.repeat(np.arange(len(decision_node)), np.diff(start))
    levels = tuple(_readonly(np.flatnonzero(depth == level)) for level in range(depth.max() + 1))
    decision_of = {(t, k): d for d, (t, k) in enumerate(zip(decision_tree, decision_node))}
    arrays = [np.array(a, dtype=np.int64) for a in (decision_tree, decision_node, start)]
    return DecisionNodes(names, tuple(trees[name] for name in names),
                         *(_readonly(a) for a in arrays),
                         _readonly(row_decision), _readonly(np.array(row_node, dtype=np.int64)),
                         _readonly(base), _readonly(steps), _readonly(cells),
                         _readonly(distance), _readonly(share), _readonly(parent), levels,
                         MappingProxyType(decision_of))


def _level_order(tree: DecisionTree) -> list[int]:
    """The node indices of `tree` breadth-first from the root (every parent before its
    children, whatever the order of `tree.nodes`)."""
    order, seen = [0], {0}
    for k in order:
        for c in tree.nodes[k].children:
            if c in seen:
                raise ValueError(f"tree of {len(tree)} nodes: node {c} has two parents")
            seen.add(c)
            order.append(c)
    if len(order) != len(tree):
        raise ValueError(f"tree of {len(tree)} nodes: {len(tree) - len(order)} not below the "
                         "root")
    return order
