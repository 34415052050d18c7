"""Minimum knight moves on an N x N board: closed form for any size, BFS paths (source 003).

Cells are 0-based ``(row, col)`` here; the CLI speaks the source's 1-based squares.

The closed form is the infinite-board distance (two exceptions near the origin: a (1, 0) offset
takes 3 moves, a (2, 2) offset 4) plus the one finite-board exception that holds for N >= 5: a
corner and its diagonal neighbour are 4 moves apart, not 2. Boards of at most `SMALL_BOARD`
squares a side have many more exceptions (and unreachable squares for N <= 3); they are answered
by the generic BFS over at most 16 squares. The test checks the closed form against BFS on every
pair of every board up to 12 x 12 and on random pairs up to 50 x 50.
"""

from __future__ import annotations

from numbers import Integral

from mazesim.errors import LevelError, SearchError, check_integer
from mazesim.maze import Cell
from mazesim.search.generic import SearchResult, bfs
from mazesim.search.moves import KNIGHT, grid_neighbours

__all__ = ["SMALL_BOARD", "MAX_PATH_BOARD", "knight_distance", "knight_path"]

SMALL_BOARD = 4
"""Boards up to this size are answered by BFS: the closed form holds from 5 x 5 on."""

MAX_PATH_BOARD = 100
"""Largest board for which `knight_path` runs its BFS (10,000 squares)."""

_CORNER_DIAGONAL_MOVES = 4
_UNREACHABLE = {2: "no knight move fits on a 2x2 board",
                3: "on a 3x3 board the centre square is cut off from the others"}


def knight_distance(n: int, a: Cell, b: Cell) -> int:
    """Fewest knight moves from `a` to `b` on an `n` x `n` board, at once for any `n`.

    Raises `LevelError` for a bad board or a square off it and `SearchError` when `b` cannot be
    reached (boards of 2 and 3 squares a side).

    Examples
    --------
    >>> knight_distance(30, (0, 0), (29, 29))      # source 003, squares (1,1) and (30,30)
    20
    >>> knight_distance(10**9, (0, 0), (10**9 - 1, 10**9 - 1))
    666666666
    """
    a, b = _check(n, a, "from"), _check(n, b, "to")
    n = int(n)
    if n <= SMALL_BOARD:
        return _bfs(n, a, b).moves
    dr, dc = abs(a[0] - b[0]), abs(a[1] - b[1])
    if dr == dc == 1 and (_is_corner(n, a) or _is_corner(n, b)):
        return _CORNER_DIAGONAL_MOVES
    return _infinite_board(dr, dc)


def knight_path(n: int, a: Cell, b: Cell) -> tuple[Cell, ...]:
    """A shortest knight path from `a` to `b` (both included), by the generic BFS.

    Boards above `MAX_PATH_BOARD` squares a side raise `SearchError` (use `knight_distance`).
    """
    a, b = _check(n, a, "from"), _check(n, b, "to")
    if n > MAX_PATH_BOARD:
        raise SearchError(f"board {n}x{n}: paths are searched on boards up to "
                          f"{MAX_PATH_BOARD}x{MAX_PATH_BOARD} (the distance has no limit)")
    return _bfs(n, a, b).path


def _infinite_board(dr: int, dc: int) -> int:
    """Knight distance for the offset (dr, dc) on an unbounded board."""
    big, small = max(dr, dc), min(dr, dc)
    if (big, small) == (1, 0):
        return 3
    if (big, small) == (2, 2):
        return 4
    delta = big - small
    if small > delta:
        return delta - 2 * ((delta - small) // 3)
    return delta - 2 * ((delta - small) // 4)


def _is_corner(n: int, cell: Cell) -> bool:
    return cell[0] in (0, n - 1) and cell[1] in (0, n - 1)


def _bfs(n: int, a: Cell, b: Cell) -> SearchResult:
    result = bfs(a, grid_neighbours(n, n, KNIGHT), lambda cell: cell == b)
    if not result.found:
        raise SearchError(f"board {n}x{n}: a knight cannot go between these squares "
                          f"({_UNREACHABLE[n]})")
    return result


def _check(n: int, cell, name: str) -> Cell:
    check_integer(n, "board size", 1, error=LevelError)
    try:
        r, c = cell
    except (TypeError, ValueError):
        r = c = None
    if any(isinstance(v, bool) or not isinstance(v, Integral) for v in (r, c)):
        raise LevelError(f"{name}: {cell!r} is not a (row, col) square of integers")
    r, c = int(r), int(c)
    if not (0 <= r < n and 0 <= c < n):
        raise LevelError(f"{name}: square {(r, c)} is off the {n}x{n} board "
                         f"(0-based rows and columns 0..{n - 1})")
    return r, c
