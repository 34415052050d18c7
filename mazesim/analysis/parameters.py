"""The study's maze parameters and more (DESIGN.md section 4), all computed in one compiled pass
(`mazesim.analysis._kernels.measure`); this module names, selects and converts them."""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

import numpy as np

from mazesim.analysis import _kernels
from mazesim.errors import ConfigError, did_you_mean
from mazesim.maze import Maze

__all__ = [
    "PARAMETERS",
    "DESCRIPTIONS",
    "PATH_PARAMETERS",
    "parameters",
    "KERNEL",
]

KERNEL = _kernels.measure
"""The compiled kernel behind `parameters` (every parameter in one pass), for callers that check
whether it is compiled (the warm-up)."""

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
    values = KERNEL(maze.grid, *maze.start, *maze.goal)
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
