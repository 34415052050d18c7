"""Distance maps, shortest and DFS routes, and the study's maze parameters (DESIGN.md section 4).

The heavy loops are numba kernels (`mazesim._kernels.bfs` for distances, `_analysis_kernels` for
the parameters, all computed in one call); the functions here validate, call and convert.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType

import numpy as np

from mazesim import _analysis_kernels, _kernels
from mazesim.errors import ConfigError, SearchError, did_you_mean
from mazesim.maze import DIRECTIONS, Cell, Maze, readonly

__all__ = [
    "PARAMETERS",
    "DESCRIPTIONS",
    "PATH_PARAMETERS",
    "TUTORIAL_DFS_ORDER",
    "distance_map",
    "shortest_path",
    "dfs_path",
    "parameters",
]

DESCRIPTIONS = MappingProxyType({
    "solution_length": "BFS distance S -> G in moves (正解ルート深さ)",
    "max_depth": "largest BFS distance from S to any reachable cell (最大深さ)",
    "branch_points": "passage cells with 3 or 4 passage neighbours, whole maze (分岐点の数)",
    "branch_points_on_path": "branch points on the canonical solution path, S and G included",
    "detour_depth": "deepest BFS distance from a path cell, other path cells removed (外れ深さ)",
    "passage_cells": "number of passage cells",
    "dead_ends": "passage cells with exactly one passage neighbour",
    "dead_end_ratio": "dead_ends / passage_cells",
    "junctions_3": "passage cells with exactly 3 passage neighbours",
    "junctions_4": "passage cells with 4 passage neighbours",
    "loops": "independent cycles: edges - cells + connected components",
    "solution_turns": "direction changes along the solution path",
    "straight_wrong_branches": "turns of the path (S, G excluded) where straight ahead is open",
    "corridor_mean": "mean cells per maximal run of corridor cells (2 passage neighbours)",
})
"""One line per parameter: its definition (README and `mazesim analyze` show these)."""

PARAMETERS: tuple[str, ...] = tuple(DESCRIPTIONS)
"""The parameter names of DESIGN.md section 4, in the order `parameters` returns them."""

PATH_PARAMETERS = frozenset({
    "solution_length", "branch_points_on_path", "detour_depth", "solution_turns",
    "straight_wrong_branches",
})
"""Parameters that need the solution path: None when the goal is unreachable."""

_FLOAT_PARAMETERS = frozenset({"dead_end_ratio", "corridor_mean"})

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
    return readonly(_kernels.bfs(maze.grid, r, c)[0])


def shortest_path(maze: Maze, source: Cell | None = None, target: Cell | None = None
                  ) -> np.ndarray:
    """The canonical shortest route: cells (n + 1, 2) from `source` (start) to `target` (goal).

    Canonical = BFS expanding neighbours in the order up, right, down, left, then parents walked
    back from the target (DESIGN.md section 4). Raises `SearchError` when there is no route.

    See Also
    --------
    dfs_path : the route a depth-first search finds instead.
    """
    sr, sc = maze.start if source is None else maze.passage_cell(source, "source")
    tr, tc = maze.goal if target is None else maze.passage_cell(target, "target")
    dist, parent = _kernels.bfs(maze.grid, sr, sc)
    if dist[tr, tc] < 0:
        raise SearchError(f"no route from {(sr, sc)} to {(tr, tc)}")
    return readonly(_kernels.path_to(parent, dist, tr, tc))


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
    route = _analysis_kernels.dfs_route(maze.grid, *maze.start, *maze.goal, codes)
    if len(route) == 0:
        raise SearchError(f"no route from {maze.start} to {maze.goal}")
    return readonly(route)


def parameters(maze: Maze, names: Iterable[str] | None = None) -> dict[str, int | float | None]:
    """The study's maze parameters (DESIGN.md section 4; definitions in `DESCRIPTIONS`).

    All are computed together in one compiled pass (one BFS from the start, one canonical path);
    `names` only selects which to return, in `PARAMETERS` order. Counts are ints, ratios floats;
    the `PATH_PARAMETERS` are None when the goal is unreachable. Details beyond DESIGN:

    - degrees count passage neighbours (4-neighbour); a dead end has 1, a corridor cell 2, a
      branch point 3 or 4; `loops` and all counts cover the whole grid, every component.
    - `branch_points_on_path` counts S and G too when they are branch points.
    - `straight_wrong_branches`: path cells strictly between S and G where the path turns while
      the neighbour straight ahead (in the arrival direction) is a passage, i.e. a wrong branch.
    - `corridor_mean`: corridor cells / maximal runs of corridor cells (connected through
      corridor cells; a closed ring is one run); 0.0 when there are no corridor cells.
    - `dead_end_ratio` = dead_ends / passage_cells.

    Examples
    --------
    >>> from mazesim.maze import parse_maze
    >>> parameters(parse_maze("#####\\n#S.G#\\n#####"), ["solution_length", "dead_ends"])
    {'solution_length': 2, 'dead_ends': 2}
    """
    wanted = PARAMETERS if names is None else _check_names(names)
    values = _analysis_kernels.measure(maze.grid, *maze.start, *maze.goal)
    return {name: _convert(name, values[i]) for i, name in enumerate(PARAMETERS)
            if name in wanted}


def _check_names(names: Iterable[str]) -> frozenset[str]:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    for name in names:
        if name not in DESCRIPTIONS:
            raise ConfigError(f"unknown parameter {name!r}{did_you_mean(name, PARAMETERS)} "
                              f"(allowed: {', '.join(PARAMETERS)})")
    return frozenset(names)


def _convert(name: str, value: float) -> int | float | None:
    if np.isnan(value):
        return None
    return float(value) if name in _FLOAT_PARAMETERS else int(value)
