"""Distance maps and routes through a maze: BFS distances, the canonical shortest path and the
tutorial's depth-first route (DESIGN.md section 4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mazesim import _grid
from mazesim.analysis import _kernels
from mazesim.errors import SearchError
from mazesim.maze import DIRECTIONS, Cell, Maze, readonly

__all__ = ["TUTORIAL_DFS_ORDER", "distance_map", "shortest_path", "dfs_path"]

TUTORIAL_DFS_ORDER = ("down", "right", "up", "left")
"""The neighbour order of the tutorial's DFS (source 000)."""


def distance_map(maze: Maze, source: Cell | None = None) -> np.ndarray:
    """BFS distance in moves from `source` (default: the start) to every cell; -1 if unreachable.

    Returns a read-only int32 array of the grid's shape.

    Examples
    --------
    >>> from mazesim.maze import parse_maze
    >>> distance_map(parse_maze("#####\\n#S.G#\\n#####"))[1]
    array([-1,  0,  1,  2, -1], dtype=int32)
    """
    r, c = maze.start if source is None else maze.passage_cell(source, "source")
    return readonly(_grid.distances(maze.grid, r, c)[0])


def shortest_path(maze: Maze, source: Cell | None = None, target: Cell | None = None
                  ) -> np.ndarray:
    """The canonical shortest route: cells (n + 1, 2) from `source` (start) to `target` (goal).

    Canonical = BFS expanding neighbours in the order up, right, down, left, then parents walked
    back from the target (DESIGN.md section 4). Raises `SearchError` when there is no route.

    Examples
    --------
    >>> from mazesim.maze import parse_maze
    >>> shortest_path(parse_maze("#####\\n#S.G#\\n#####")).tolist()
    [[1, 1], [1, 2], [1, 3]]

    See Also
    --------
    dfs_path : the route a depth-first search finds instead.
    """
    sr, sc = maze.start if source is None else maze.passage_cell(source, "source")
    tr, tc = maze.goal if target is None else maze.passage_cell(target, "target")
    dist, parent = _grid.distances(maze.grid, sr, sc)
    if dist[tr, tc] < 0:
        raise SearchError(f"no route from {(sr, sc)} to {(tr, tc)}")
    return readonly(_grid.path_to(parent, dist, tr, tc))


def dfs_path(maze: Maze, order: Sequence[str] = TUTORIAL_DFS_ORDER) -> np.ndarray:
    """The route (n + 1, 2) from start to goal that a depth-first search returns.

    The search is the tutorial's (source 000): at each cell try the neighbours in `order` (a
    permutation of up, right, down, left), never enter a visited cell, back up when stuck; the
    route is the chain of cells from the start to where it meets the goal. Not shortest in
    general: on the tutorial maze it takes 18 moves where BFS takes 14.
    """
    if isinstance(order, str):
        order = order.split(",")
    names = [str(name).strip().lower() for name in order]
    if sorted(names) != sorted(DIRECTIONS):
        raise SearchError(
            f"dfs order: {','.join(map(str, order))!r} "
            f"(allowed: each of {', '.join(DIRECTIONS)} once)"
        )
    codes = np.array([DIRECTIONS.index(name) for name in names], np.int64)
    route = _kernels.dfs_route(maze.grid, *maze.start, *maze.goal, codes)
    if len(route) == 0:
        raise SearchError(f"no route from {maze.start} to {maze.goal}")
    return readonly(route)
