"""Move sets on a grid (DESIGN.md section 10) and a neighbour function for the generic search."""

from __future__ import annotations

from typing import Callable, Iterator

from mazesim.maze import Cell

__all__ = ["Move", "FOUR", "EIGHT", "KNIGHT", "MOVE_SETS", "grid_neighbours"]

Move = tuple[int, int]

FOUR: tuple[Move, ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
"""Up, right, down, left: the canonical direction order of `mazesim.maze.DELTAS`."""

EIGHT: tuple[Move, ...] = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
"""The king's moves, clockwise from up."""

KNIGHT: tuple[Move, ...] = ((-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1))
"""The knight's moves, clockwise from up-right."""

MOVE_SETS = {"four": FOUR, "eight": EIGHT, "knight": KNIGHT}


def grid_neighbours(height: int, width: int, moves: tuple[Move, ...],
                    passable: Callable[[Cell], bool] | None = None
                    ) -> Callable[[Cell], Iterator[Cell]]:
    """A neighbour function for `bfs`/`dfs`: the cells one move away inside the grid.

    Parameters
    ----------
    moves : tuple of (dr, dc)
        A move set such as `FOUR` or `KNIGHT`; neighbours are yielded in its order.
    passable : callable, optional
        ``passable(cell)`` false excludes a cell; by default every cell is passable.

    Examples
    --------
    >>> list(grid_neighbours(3, 3, KNIGHT)((0, 0)))
    [(1, 2), (2, 1)]
    """

    def neighbours(cell: Cell) -> Iterator[Cell]:
        r, c = cell
        for dr, dc in moves:
            nr, nc = r + dr, c + dc
            if 0 <= nr < height and 0 <= nc < width and (passable is None or passable((nr, nc))):
                yield nr, nc

    return neighbours
