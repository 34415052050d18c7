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
builds one, exactly as the authors' `tree_builder.py` does (their `tree_builder.csv` of
experiment 1, every node of the 40 maps, is a test), or its merged graph (below):

- **Dark** floor: the passages neither shown at the start (`Maze.meta["seen_at_start"]`, the
  task's code-6 cells) nor the start itself; the exit is dark. What a position *observes* is
  the dark cells its vision sees that are still dark on the map of the node: the authors'
  quadrant sweep (`vision.SWEEP_VISION`) by default, or any limited vision with the map known
  and memory (a window, an isovist).
- **Exit on arrival** (a vision with `exit on arrival`: a page that draws an observed exit as
  floor): the exit's cell is dark, and stays dark until stood on; sight passes over it (it is
  floor) but only the exit's own cell observes it. So the walker searches on past the node that
  sweeps it, and the tree ends where the walker reaches the exit's cell (a path that would
  cross it ends there: the cell is a child). The belief this gives the planners: the exit lies,
  each alike, in one of the dark cells or in the exit's cell until it is stood on; every other
  floor cell seen is ruled out, as under the authors' rule. That is an approximation in the
  walker's favour: a walker that knew the page would doubt every seen cell it has not stood on
  (the exit's one among them, a tree of every floor cell that no planner of the paper
  considers); this one doubts the one seen cell that matters, so its trees keep their size and
  the exit's cell keeps its chance.
- The **children** of a node: a breadth-first search from its cell over floor, neighbours in
  the order right, left, down, up; the first cell of a path from which something new would be
  observed is a child, reached by that path (a shortest one; the search does not go on through
  it); a cell is a child once (the authors drop a second path to a cell that sees the same new
  cells; other cells that see the same new cells are children of their own). Moving to a child
  reveals what it observes; the tree goes on breadth-first from each child on its own map,
  until no move reveals anything. The root is the start, with what it sees revealed.
- Trees grow combinatorially on open maps (a 15x15 map of the replication passes 50,000
  nodes). **Merged** (`merged=True`), the tree becomes a graph that does not: a node's
  subtree depends only on its **state**, its cell and the dark cells still dark there, and a
  child's path, revealed cells, S, N, d and p only on its parent's state and its own cell. So
  each state is searched once: a node reached in a state met before shares that state's
  children (one tuple), and the nodes are the edges between states (a child reached from a
  state) and the root. Unfolded from the root the graph is the tree, node for node; the
  planners' values and the cuts of walks are the tree's, while the states grow with the sets
  of cells left dark, not the orders in which they are revealed (the replication's largest
  map: 7,552 nodes, 1,610 states). A merged node's `parent`, `depth` and `steps_from_root`
  are those of the first way to it found (breadth-first); history belongs to the walk
  (`mazesim.walks.nodes`), not to the node.
- `max_nodes` (at most `MAX_TREE_NODES`), the cells the tree holds (`MAX_TREE_CELLS`: paths,
  revealed cells and each state's dark set) and the work (`MAX_TREE_WORK`) are checked as it
  grows, and passing one is one AgentError naming the maze and the ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from dataclasses import replace
from typing import Any, Iterable, Mapping

import numpy as np

from mazesim.agents.vision import SWEEP_VISION, Vision, parse_vision, seen_at_start
from mazesim.errors import AgentError, check_integer
from mazesim.maze import DELTAS, DOWN, LEFT, PASSAGE, RIGHT, UP, Cell, Maze

__all__ = ["Node", "DecisionTree", "MAX_TREE_NODES", "MAX_TREE_CELLS", "MAX_TREE_WORK",
           "SEARCH_ORDER", "decision_tree", "dark_floor", "maze_name", "people_tree_vision"]

MAX_TREE_NODES = 50_000
"""Most nodes of a tree (each about 1 KB of Python objects: 50 MB)."""
MAX_TREE_CELLS = 5_000_000
"""Most path and revealed cells a tree holds in all (8 bytes each in the nodes' tuples)."""
MAX_TREE_WORK = 200_000_000
"""Most cells looked at and searched while a tree is built (a second or two, compiled)."""
SEARCH_ORDER = (RIGHT, LEFT, DOWN, UP)
"""The order in which the children's search tries neighbours (the authors' `next_path`)."""


@dataclass(frozen=True, eq=False)
class Node:
    """One observation node.

    `cell` is where the observation is made; `parent` the index of the parent node (-1 at the
    root); `path` the cells walked from the parent's cell to `cell`, both included (empty at
    the root); `revealed` the dark cells first observed here (at the root: what the start
    reveals; empty in a tree read from the authors' tables, which give only their distances;
    row-major order); `distances` the Manhattan distance from `cell` to each revealed cell,
    sorted (the authors' cellDistances); `remaining` the authors' `blackremains`, the dark cells
    left once the observation here is made: a child's is its parent's minus the child's
    revealed cells, the root's every dark cell of the map minus what the start reveals (on the
    task's maps the start reveals nothing, so every dark cell, as the authors count); `depth`
    the number of moves to a child from the root (0 at the root); `children` the indices of its
    children, in the order they were found; `name` an identifier (the authors' `NID` in their
    trees, the index as text in ours).
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
    """The observation nodes of one map, breadth-first (`nodes[0]` is the root). `merged`: a
    graph, the nodes in equal states merged (the module docstring), where `state[k]` is the
    first node in node k's state (k itself in a tree; given or filled in)."""

    maze: Maze
    nodes: tuple[Node, ...]
    vision: str = str(SWEEP_VISION)
    merged: bool = False
    state: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        index = {node.name: k for k, node in enumerate(self.nodes)}
        object.__setattr__(self, "_index", MappingProxyType(index))
        if not self.state:
            object.__setattr__(self, "state", tuple(range(len(self.nodes))))

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

    def states(self) -> list[int]:
        """The first node of each state (every node in a tree)."""
        return [k for k, s in enumerate(self.state) if s == k]

    def levels(self) -> list[int]:
        """The level of each node: 0 at the root, one more than its deepest parent's elsewhere
        (its depth in a tree; every parent of a node lies on an earlier level). ValueError for
        a node not below the root."""
        waiting = [0] * len(self.nodes)
        for node in self.nodes:
            for c in node.children:
                waiting[c] += 1
        level, order = [0] * len(self.nodes), [] if waiting[0] else [0]
        for k in order:
            for c in self.nodes[k].children:
                level[c] = max(level[c], level[k] + 1)
                waiting[c] -= 1
                if not waiting[c]:
                    order.append(c)
        if len(order) != len(self.nodes):
            raise ValueError(f"tree of {len(self.nodes)} nodes: {len(self.nodes) - len(order)} "
                             "not below the root")
        return level

    def shows_exit(self) -> list[bool]:
        """Whether each node's observation shows the exit: it reveals the exit's cell (the
        root also when the exit is not dark)."""
        goal = self.maze.goal
        out = [goal in node.revealed for node in self.nodes]
        hidden = parse_vision(self.vision).exit_on_arrival
        out[0] = out[0] or not dark_floor(self.maze, hidden)[goal]
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: the maze's label, the vision, whether merged, the number of
        states and of decisions (nodes with two or more children) and every node (index,
        name, cell, parent (null at the root), depth, steps, steps from the root, path, cells
        revealed (count and cells), remaining dark cells, children; in a merged graph its
        state too)."""
        nodes = [{"index": k, "name": node.name, "cell": list(node.cell),
                  "parent": None if node.parent < 0 else node.parent, "depth": node.depth,
                  "steps": node.steps, "steps_from_root": node.steps_from_root,
                  "path": [list(c) for c in node.path], "cells": node.cells,
                  "revealed": [list(c) for c in node.revealed],
                  "remaining": node.remaining, "children": list(node.children)}
                 for k, node in enumerate(self.nodes)]
        if self.merged:
            for node, state in zip(nodes, self.state):
                node["state"] = state
        return {"maze": maze_name(self.maze), "vision": self.vision, "merged": self.merged,
                "states": len(self.states()), "decisions": len(self.decisions()),
                "nodes": nodes}


def dark_floor(maze: Maze, exit_on_arrival: bool = False) -> np.ndarray:
    """Bool (H, W): the passages neither shown at the start (`meta["seen_at_start"]`) nor the
    start itself, where the exit may be; with `exit_on_arrival` the exit's cell too (shown, it
    looks like floor until stood on: the module docstring)."""
    dark = (maze.grid == PASSAGE) & ~seen_at_start(maze)
    dark[maze.goal] |= bool(exit_on_arrival)
    dark[maze.start] = False
    return dark


def maze_name(maze: Maze) -> str:
    """How trees and messages name a maze: its `meta["name"]` if any, else its size."""
    name = maze.meta.get("name")
    return name if isinstance(name, str) and name else f"{maze.shape[0]}x{maze.shape[1]}"


def decision_tree(maze: Maze, vision: Vision | str | int | Mapping = SWEEP_VISION, *,
                  max_nodes: int = MAX_TREE_NODES, merged: bool = False) -> DecisionTree:
    """The tree of observation nodes of `maze` (the module docstring), breadth-first; with
    `merged`, its graph: nodes in equal states merged (the module docstring).

    Parameters
    ----------
    vision : any form `parse_vision` reads
        A limited vision with the map known and memory; default the authors' sweep. Full
        vision (nothing is ever dark) and an unknown map (the children's search walks the
        known floor plan) have no tree: AgentError. With `exit on arrival` the exit shows only
        on its cell (the module docstring).
    max_nodes : int
        Ceiling on the number of nodes, at most `MAX_TREE_NODES`.
    merged : bool
        The graph (a node per edge between states) instead of the tree: the same values for
        the planners, the same cuts of walks, on maps where the tree passes every ceiling.

    Examples
    --------
    S above a corridor that forks into two dead ends; the fork is the one decision:

    >>> from mazesim.maze import parse_maze
    >>> tree = decision_tree(parse_maze("#######\\n###S###\\n###.###\\n#.....#\\n#.###.#\\n"
    ...                                 "#G###.#\\n#######"))
    >>> [node.cell for node in tree.nodes]
    [(1, 3), (3, 3), (3, 5), (3, 1), (3, 1), (3, 5)]
    >>> [(node.parent, node.steps, node.cells) for node in tree.nodes]
    [(-1, 0, 2), (0, 2, 4), (1, 2, 2), (1, 2, 2), (2, 4, 2), (3, 4, 2)]
    >>> tree.decisions()
    [1]
    """
    from mazesim.agents import _tree_kernels

    vision = _tree_vision(vision)
    check_integer(max_nodes, "max_nodes", 1, MAX_TREE_NODES, AgentError)
    if not isinstance(merged, (bool, np.bool_)):
        raise AgentError(f"merged: {merged!r} (allowed: true or false)")
    floor = np.argwhere(maze.grid == PASSAGE)
    floor_id = np.full(maze.shape, -1, np.int64)
    floor_id[tuple(floor.T)] = np.arange(len(floor))
    dark_cells = np.argwhere(dark_floor(maze, vision.exit_on_arrival))
    dark_id = np.full(maze.shape, -1, np.int64)
    dark_id[tuple(dark_cells.T)] = np.arange(len(dark_cells))
    kind = "graph" if merged else "tree"
    first, seen = _sight(maze, vision, floor, floor_id, dark_id, kind)
    (cell, parent, depth, walked, path_first, path, revealed_first, revealed, state,
     status) = _tree_kernels.grow(_neighbours(maze, floor, floor_id), first, seen,
                                  int(floor_id[maze.start]), len(dark_cells), int(max_nodes),
                                  MAX_TREE_CELLS, MAX_TREE_WORK, bool(merged))
    _check_grown(maze, kind, status, int(max_nodes))
    nodes, first_in_state = _nodes(floor, dark_cells, cell, parent, depth, walked, path_first,
                                   path, revealed_first, revealed, state)
    return DecisionTree(maze, nodes, str(vision), bool(merged), first_in_state)


def people_tree_vision(visions: Iterable[Vision]) -> Vision:
    """The vision people's walks are cut on: the authors' sweep over the known map (their
    yardstick, whatever people saw), the exit shown as their page showed it, only on arrival
    where their visions say so; AgentError for visions that differ on it."""
    shown = {vision.exit_on_arrival for vision in visions}
    if len(shown) > 1:
        raise AgentError("vision: some walks show the exit on arrival, others once seen "
                         "(allowed: one rule for every walk cut on the trees)")
    return replace(SWEEP_VISION, exit_on_arrival=shown == {True})


def _tree_vision(value: Any) -> Vision:
    vision = parse_vision(value, "vision")
    if vision.full:
        why = "sees everything from the start: nothing is dark, there are no observations"
    elif not vision.known_map:
        why = "leaves the map unknown: the children's search walks the known floor plan"
    elif not vision.memory:
        why = "forgets what it saw: a tree needs observations that last"
    else:
        return vision
    raise AgentError(f"vision: {str(vision)!r} {why} (allowed: a limited vision with map: "
                     "known and memory, such as {sweep: true, map: known})")


def _sight(maze: Maze, vision: Vision, floor: np.ndarray, floor_id: np.ndarray,
           dark_id: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The sight table (`_tree_kernels`, CSR: the dark cells each floor cell observes) of
    `vision`, the exit seen from its own cell only under `exit on arrival`; AgentError naming
    the `kind` of tree past the ceiling of work."""
    from mazesim.agents import _tree_kernels

    view, radius, occlusion, _, _ = vision.kernel_args()
    if vision.sweep:
        first, seen, status = _tree_kernels.sweep_table(maze.grid, floor, dark_id, MAX_TREE_WORK)
    else:
        first, seen, status = _tree_kernels.view_table(maze.grid, floor, dark_id, view, radius,
                                                       occlusion, MAX_TREE_WORK)
    if status != _tree_kernels.OK:
        _too_big(maze, kind, "the views from its floor cells pass", MAX_TREE_WORK,
                 "cells of work")
    if vision.exit_on_arrival and dark_id[maze.goal] >= 0:
        first, seen = _seen_on_arrival(first, seen, int(dark_id[maze.goal]),
                                       int(floor_id[maze.goal]))
    return first, seen


def _seen_on_arrival(first: np.ndarray, seen: np.ndarray, exit_dark: int, exit_floor: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The sight table (`_tree_kernels`, CSR) with the exit's dark cell `exit_dark` seen from
    its own floor cell `exit_floor` only (the module docstring: exit on arrival)."""
    owner = np.repeat(np.arange(len(first) - 1), np.diff(first))
    keep = seen != exit_dark
    owner = np.append(owner[keep], exit_floor)
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=len(first) - 1)
    return (np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
            np.append(seen[keep], exit_dark).astype(seen.dtype)[order])


def _check_grown(maze: Maze, kind: str, status: int, max_nodes: int) -> None:
    """AgentError naming the ceiling a tree or graph (`kind`) grew past (`_tree_kernels`'s
    status); nothing when it grew whole."""
    from mazesim.agents import _tree_kernels

    if status == _tree_kernels.TOO_MANY_NODES:
        _too_big(maze, kind, f"the {kind} passes", max_nodes, "nodes",
                 f"max_nodes up to {MAX_TREE_NODES:,}; "
                 + ("merged graphs grow with the sets of cells left dark" if kind == "graph"
                    else "trees grow combinatorially on open maps, merged graphs do not"))
    if status == _tree_kernels.TOO_MANY_CELLS:
        _too_big(maze, kind, f"the {kind}'s paths, revealed cells and dark sets pass",
                 MAX_TREE_CELLS, "cells")
    if status == _tree_kernels.TOO_MUCH_WORK:
        _too_big(maze, kind, f"building the {kind} passes", MAX_TREE_WORK, "cells searched")


def _too_big(maze: Maze, kind: str, what: str, ceiling: int, unit: str, allowed: str = ""
             ) -> None:
    extra = f"; allowed: {allowed}" if allowed else ""
    raise AgentError(f"decision {kind} of maze {maze_name(maze)!r}: {what} {ceiling:,} {unit} "
                     f"(the ceiling{extra})")


def _neighbours(maze: Maze, floor: np.ndarray, floor_id: np.ndarray) -> np.ndarray:
    """(F, 4): each floor cell's floor neighbours in `SEARCH_ORDER` (-1: wall or edge)."""
    h, w = maze.shape
    out = np.full((len(floor), 4), -1, np.int64)
    for e, d in enumerate(SEARCH_ORDER):
        r, c = floor[:, 0] + DELTAS[d, 0], floor[:, 1] + DELTAS[d, 1]
        inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
        out[inside, e] = floor_id[r[inside], c[inside]]
    return out


def _nodes(floor, dark_cells, cell, parent, depth, walked, path_first, path, revealed_first,
           revealed, state) -> tuple[tuple[Node, ...], tuple[int, ...]]:
    """Nodes from the kernel's arrays (every cell one shared tuple, the nodes of one state one
    tuple of children: their state's first node's), and the first node of each node's
    state."""
    floor_cells = [(int(r), int(c)) for r, c in floor.tolist()]
    dark_tuples = [(int(r), int(c)) for r, c in dark_cells.tolist()]
    found: list[list[int]] = [[] for _ in range(len(cell))]
    for k, p in enumerate(parent.tolist()[1:], start=1):
        found[p].append(k)
    owner: dict[int, int] = {}
    for k, s in enumerate(state.tolist()):
        owner.setdefault(s, k)
    shared = {k: tuple(found[k]) for k in owner.values()}
    children = [shared[owner[s]] for s in state.tolist()]
    path, revealed = path.tolist(), revealed.tolist()
    path_first, revealed_first = path_first.tolist(), revealed_first.tolist()
    nodes, remaining = [], []
    for k, (f, p) in enumerate(zip(cell.tolist(), parent.tolist())):
        here = floor_cells[f]
        shown = tuple(dark_tuples[d] for d in sorted(revealed[revealed_first[k]:
                                                                revealed_first[k + 1]]))
        left = (len(dark_tuples) if p < 0 else remaining[p]) - len(shown)
        remaining.append(left)
        nodes.append(Node(
            cell=here, parent=p,
            path=tuple(floor_cells[q] for q in path[path_first[k]:path_first[k + 1]]),
            revealed=shown,
            distances=tuple(sorted(abs(r - here[0]) + abs(c - here[1]) for r, c in shown)),
            remaining=left, depth=int(depth[k]), steps_from_root=int(walked[k]),
            children=children[k], name=str(k)))
    return tuple(nodes), tuple(owner[s] for s in state.tolist())
