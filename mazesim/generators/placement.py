"""Start and goal placement on a generated grid (DESIGN.md section 3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mazesim import _grid
from mazesim.errors import GeneratorError, short
from mazesim.maze import PASSAGE, Cell

__all__ = ["PLACEMENTS", "check_placement", "place"]

PLACEMENTS = ("corners", "random", "farthest")
_HELP = f"{', '.join(PLACEMENTS)} or a pair of cells ((r, c), (r, c))"


def check_placement(placement: Any) -> str | tuple[Cell, Cell]:
    """`placement` as one of PLACEMENTS or a pair of (row, col) int pairs; else GeneratorError."""
    if isinstance(placement, str):
        if placement in PLACEMENTS:
            return placement
        raise GeneratorError(f"placement: {short(placement)} (allowed: {_HELP})")
    try:
        (r0, c0), (r1, c1) = placement
        cells = ((r0, c0), (r1, c1))
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for cell in cells for v in cell):
            raise TypeError
    except (TypeError, ValueError):
        raise GeneratorError(f"placement: {short(placement)} (allowed: {_HELP})") from None
    if cells[0] == cells[1]:
        raise GeneratorError(f"placement: start and goal are the same cell {short(cells[0])} "
                             "(allowed: two different cells)")
    return tuple((int(r), int(c)) for r, c in cells)  # type: ignore[return-value]


def place(grid: np.ndarray, placement: Any, rng: np.random.Generator) -> tuple[Cell, Cell]:
    """Start and goal cells on a generated grid (rooms at odd coordinates).

    - ``"corners"``: the top-left room (1, 1) and the bottom-right room (H-2, W-2).
    - ``"random"``: two distinct rooms drawn uniformly (a generated grid has at least two).
    - ``"farthest"``: the ends of a longest shortest path by a double BFS sweep over rooms: the
      room farthest from (1, 1), then the room farthest from it (first in row order on ties). Exact
      on perfect mazes (trees); with loops (braid > 0) a long path, not always the longest one.
    - explicit ``((r, c), (r, c))``: validated as passages of `grid`.
    """
    placement = check_placement(placement)
    h, w = grid.shape
    rooms_w = (w - 1) // 2
    if placement == "corners":
        return (1, 1), (h - 2, w - 2)
    if placement == "random":
        n = ((h - 1) // 2) * rooms_w
        a = int(rng.integers(n))
        b = int(rng.integers(n - 1))
        b += b >= a
        return _room(a, rooms_w), _room(b, rooms_w)
    if placement == "farthest":
        start = _farthest_room(grid, (1, 1))
        return start, _farthest_room(grid, start)
    check_inside(placement, h, w)
    for cell, what in zip(placement, ("start", "goal")):
        if grid[cell] != PASSAGE:
            raise GeneratorError(f"placement: {what} {cell} is a wall")
    return placement  # type: ignore[return-value]


def check_inside(placement: str | tuple[Cell, Cell], h: int, w: int) -> None:
    """GeneratorError if an explicit start or goal (a checked placement) is outside an h x w
    grid."""
    if isinstance(placement, str):
        return
    for cell, what in zip(placement, ("start", "goal")):
        r, c = cell
        if not (0 <= r < h and 0 <= c < w):
            raise GeneratorError(f"placement: {what} {cell} is outside the {h}x{w} grid")


def _room(index: int, rooms_w: int) -> Cell:
    return 2 * (index // rooms_w) + 1, 2 * (index % rooms_w) + 1


def _farthest_room(grid: np.ndarray, source: Cell) -> Cell:
    dist, _ = _grid.distances(grid, source[0], source[1])
    rooms = dist[1::2, 1::2]
    i, j = np.unravel_index(int(np.argmax(rooms)), rooms.shape)
    return 2 * int(i) + 1, 2 * int(j) + 1
