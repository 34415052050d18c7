"""What the participant's browser is sent of a maze: everything under full vision, the window only.

Under vision k the view holds the (2k+1) x (2k+1) cells centred on the participant and nothing
else: no grid size, no absolute position, the start and goal only when inside the window (as
offsets from the participant). This is the only place that turns a maze into page data, so the
rule "nothing outside the window reaches the browser" is kept here (DESIGN.md sections 5 and 9).
"""

from __future__ import annotations

from typing import Any

from mazesim.maze import DELTAS, DIRECTIONS, WALL, Cell, Maze

__all__ = ["WALL_CHAR", "PASSAGE_CHAR", "full_view", "window_view", "maze_view"]

WALL_CHAR, PASSAGE_CHAR = "#", "."


def full_view(maze: Maze, position: Cell) -> dict[str, Any]:
    """The whole maze: rows of `#`/`.`, the participant's cell, start and goal."""
    rows = ["".join(WALL_CHAR if v == WALL else PASSAGE_CHAR for v in row) for row in maze.grid]
    return {
        "kind": "full",
        "rows": rows,
        "position": list(position),
        "start": list(maze.start),
        "goal": list(maze.goal),
        "open": _open(maze, position),
    }


def window_view(maze: Maze, position: Cell, k: int) -> dict[str, Any]:
    """The (2k+1)-square around `position`; cells beyond the grid read as walls.

    `start` and `goal` are `[dr, dc]` offsets from the centre when inside the window, else None;
    `open` names the open neighbour directions (sensed even with k = 0, DESIGN.md section 5).
    """
    r0, c0 = position
    rows = []
    for dr in range(-k, k + 1):
        row = []
        for dc in range(-k, k + 1):
            cell = (r0 + dr, c0 + dc)
            row.append(PASSAGE_CHAR if maze.is_passage(cell) else WALL_CHAR)
        rows.append("".join(row))
    return {
        "kind": "window",
        "k": k,
        "rows": rows,
        "start": _offset(maze.start, position, k),
        "goal": _offset(maze.goal, position, k),
        "open": _open(maze, position),
    }


def maze_view(maze: Maze, position: Cell, k: int | None) -> dict[str, Any]:
    """`full_view` when k is None, else `window_view`."""
    return full_view(maze, position) if k is None else window_view(maze, position, k)


def _offset(cell: Cell, centre: Cell, k: int) -> list[int] | None:
    dr, dc = cell[0] - centre[0], cell[1] - centre[1]
    return [dr, dc] if max(abs(dr), abs(dc)) <= k else None


def _open(maze: Maze, position: Cell) -> list[str]:
    r, c = position
    return [DIRECTIONS[d] for d in range(len(DIRECTIONS))
            if maze.is_passage((r + int(DELTAS[d, 0]), c + int(DELTAS[d, 1])))]
