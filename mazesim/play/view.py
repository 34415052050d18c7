"""What the participant's browser is sent of a maze: only what the participant may see.

This is the only place that turns a maze into page data, so the rule "nothing the participant
may not see reaches the browser" (DESIGN.md sections 5 and 9) is kept here. Three kinds:

- `full`: the whole maze, start, goal and position.
- `window` (a window k or an isovist r, map unknown): the (2k+1)-square centred on the
  participant, rows of `#` wall, `.` passage, `~` beyond the grid and `?` out of sight (an
  isovist, or a window with occlusion); no grid size, no absolute position; start and goal as
  offsets from the participant, only while in sight.
- `known` (`map: known`): the layout (walls and passages) and the position, `seen` rows (`1`
  for a cell seen so far, `0` not yet) and the goal only once its cell has been seen.

Every view names the open neighbour directions (`open`): they are sensed even with k = 0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from mazesim.agents import Vision
from mazesim.agents.vision import isovist, seen_cells
from mazesim.maze import DELTAS, DIRECTIONS, PASSAGE_CHAR, WALL, WALL_CHAR, Cell, Maze

__all__ = ["OUTSIDE_CHAR", "UNSEEN_CHAR", "FULL_VIEW",
           "WINDOW_VIEW", "KNOWN_VIEW", "full_view", "window_view", "known_view", "in_sight",
           "maze_view"]

OUTSIDE_CHAR, UNSEEN_CHAR = "~", "?"
FULL_VIEW, WINDOW_VIEW, KNOWN_VIEW = "full", "window", "known"
_LAYOUT_CACHE = 1024


def full_view(maze: Maze, position: Cell) -> dict[str, Any]:
    """The whole maze: rows of `#`/`.`, the participant's cell, start and goal."""
    return {"kind": FULL_VIEW, "rows": _layout(maze), "position": list(position),
            "start": list(maze.start), "goal": list(maze.goal), "open": _open(maze, position)}


def window_view(maze: Maze, position: Cell, k: int, sight: np.ndarray | None = None
                ) -> dict[str, Any]:
    """The (2k+1)-square around `position`; `sight` (bool, the grid's shape) marks the cells in
    sight, None for all of the square. Start and goal are `[dr, dc]` offsets while in sight."""
    r0, c0 = position
    h, w = maze.shape
    rows = []
    for r in range(r0 - k, r0 + k + 1):
        row = []
        for c in range(c0 - k, c0 + k + 1):
            if not (0 <= r < h and 0 <= c < w):
                row.append(OUTSIDE_CHAR)
            elif sight is not None and not sight[r, c]:
                row.append(UNSEEN_CHAR)
            else:
                row.append(WALL_CHAR if maze.grid[r, c] == WALL else PASSAGE_CHAR)
        rows.append("".join(row))
    return {"kind": WINDOW_VIEW, "k": k, "rows": rows,
            "start": _offset(maze.start, position, k, sight),
            "goal": _offset(maze.goal, position, k, sight), "open": _open(maze, position)}


def known_view(maze: Maze, position: Cell, seen: np.ndarray) -> dict[str, Any]:
    """The layout, the cells seen so far (`seen`, bool of the grid's shape) and the goal once
    seen (`map: known`, the Maze Search Task's display)."""
    goal = list(maze.goal) if seen[maze.goal] else None
    return {"kind": KNOWN_VIEW, "rows": _layout(maze), "position": list(position),
            "start": list(maze.start), "goal": goal,
            "seen": ["".join("1" if v else "0" for v in row) for row in seen.tolist()],
            "open": _open(maze, position)}


def in_sight(maze: Maze, position: Cell, vision: Vision) -> np.ndarray | None:
    """Bool (H, W): the cells in sight from `position` now; None under full vision and for a
    plain window (the whole square, cheaper to cut than to mark)."""
    if vision.full:
        return None
    if vision.isovist is not None:
        return isovist(maze.grid, position, vision.isovist)
    if vision.occlusion or vision.known_map:
        return seen_cells(maze, [position], vision)
    return None


def maze_view(maze: Maze, position: Cell, vision: Vision, seen: np.ndarray | None = None
              ) -> dict[str, Any]:
    """The view of `vision` at `position`; `seen` is required under `map: known`. Under
    `exit on arrival` the goal shows only on its cell."""
    if vision.full:
        return full_view(maze, position)
    if vision.known_map:
        if seen is None:
            raise ValueError("a known-map view needs the cells seen so far")
        view = known_view(maze, position, seen)
    else:
        view = window_view(maze, position, vision.radius, in_sight(maze, position, vision))
    if vision.exit_on_arrival and tuple(position) != maze.goal:
        view["goal"] = None
    return view


@lru_cache(maxsize=_LAYOUT_CACHE)
def _layout(maze: Maze) -> tuple[str, ...]:
    """The rows of a maze's layout, made once per maze (sent with every full-vision move)."""
    return tuple("".join(WALL_CHAR if v == WALL else PASSAGE_CHAR for v in row)
                 for row in maze.grid.tolist())


def _offset(cell: Cell, centre: Cell, k: int, sight: np.ndarray | None) -> list[int] | None:
    dr, dc = cell[0] - centre[0], cell[1] - centre[1]
    if max(abs(dr), abs(dc)) > k or (sight is not None and not sight[cell]):
        return None
    return [dr, dc]


def _open(maze: Maze, position: Cell) -> list[str]:
    r, c = position
    return [DIRECTIONS[d] for d in range(len(DIRECTIONS))
            if maze.is_passage((r + int(DELTAS[d, 0]), c + int(DELTAS[d, 1])))]
