"""Decision trees of observation nodes (DESIGN.md section 11): where a searcher can learn
something new, and the choices between those places.

A **node** is a position where an observation happens: the root is the start with what it sees
revealed; a **child** of a node is the first cell of a path from the node (over floor) from
which something new would be observed, reached by that path; moving to it reveals its
observation, and the tree goes on from there on the updated map until no move reveals
anything. A **decision** is a node with two or more children. The planners of Kryven et al.
(2024) value each child by its steps, what it reveals and what lies beyond it
(`mazesim.agents.planners`).

This module holds the tree as data (`Node`, `DecisionTree`); `decision_tree(maze, vision)`
builds one.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from mazesim.maze import Cell, Maze

__all__ = ["Node", "DecisionTree"]


@dataclass(frozen=True, eq=False)
class Node:
    """One observation node.

    `cell` is where the observation is made; `parent` the index of the parent node (-1 at the
    root); `path` the cells walked from the parent's cell to `cell`, both included (empty at
    the root); `revealed` the dark cells first observed here (at the root: what the start
    reveals; empty in a tree read from the authors' tables, which give only their distances);
    `distances` the Manhattan distance from `cell` to each revealed cell, sorted (the authors'
    cellDistances); `remaining` the authors' `blackremains`: the root's is every dark cell of
    the map, a child's its parent's minus the child's revealed cells; `children` the indices
    of its children, in the order they were found; `name` an identifier (the authors' `NID`
    in their trees, the index as text in ours).
    """

    cell: Cell
    parent: int
    path: tuple[Cell, ...]
    revealed: tuple[Cell, ...]
    distances: tuple[int, ...]
    remaining: int
    depth: int
    steps_from_root: int
    children: tuple[int, ...]
    name: str

    @property
    def steps(self) -> int:
        """Moves from the parent's cell (the authors' S; 0 at the root)."""
        return max(len(self.path) - 1, 0)

    @property
    def cells(self) -> int:
        """How many dark cells the observation here reveals (the authors' N)."""
        return len(self.distances)


@dataclass(frozen=True, eq=False)
class DecisionTree:
    """The observation nodes of one map, breadth-first (`nodes[0]` is the root)."""

    maze: Maze
    nodes: tuple[Node, ...]
    vision: str = "sweep, map known"

    def __post_init__(self) -> None:
        index = {node.name: k for k, node in enumerate(self.nodes)}
        object.__setattr__(self, "_index", MappingProxyType(index))

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def index(self) -> Mapping[str, int]:
        """Node index by name."""
        return self._index  # type: ignore[attr-defined]

    def children(self, node: int) -> tuple[int, ...]:
        return self.nodes[node].children

    def decisions(self) -> list[int]:
        """The nodes with two or more children."""
        return [k for k, node in enumerate(self.nodes) if len(node.children) >= 2]
