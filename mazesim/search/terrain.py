"""Least-cost routes over terrain-cost grids: cost-to-goal table, then descent (source 002).

A cost grid is a float (H, W) array of non-negative costs per cell, ``inf`` for impassable ones;
moves go to the 4 neighbours. Two conventions (DESIGN.md section 10): ``enter`` pays for every cell
a route enters (the start excluded), ``leave`` for every cell it leaves (the goal excluded: the
source's table). The table is one Dijkstra from the goal (the source relaxes recursively; the
numbers are the same). The route descends from the start: each step goes to the neighbour with the
least step cost plus table value, the first of equal ones in the order up, down, left, right. With
``leave`` the step cost is the current cell's, so this is the neighbour with the smallest table
value, exactly the source's rule; with ``enter`` it is the neighbour's own cost.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from mazesim.errors import LevelError, SearchError, read_text
from mazesim.maze import Cell, readonly
from mazesim.search import _terrain_kernels as _kernels

__all__ = [
    "CONVENTIONS",
    "MAX_GRID_CELLS",
    "MAX_COST",
    "TerrainRoute",
    "parse_costs",
    "read_costs",
    "cost_to_goal",
    "terrain_route",
]

CONVENTIONS = ("enter", "leave")
MAX_GRID_CELLS = 16_000_000
"""Most cells of a cost grid (4000 x 4000): the Dijkstra keeps about 56 bytes per cell."""
MAX_COST = 1e300
"""Largest finite cost. A route sums at most `MAX_GRID_CELLS` costs, and 1e300 x 1.6e7 stays
below the largest float (1.8e308): a finite route cost never overflows to infinity."""
_INFINITY_WORDS = {"inf", "+inf", "infinity", "+infinity"}
_ALLOWED_COSTS = "a number >= 0, inf or #"

_FULL_TABLE = -1
_TOKEN = re.compile(r"[^,\s]+")
_EMPTY_FIELD = re.compile(r"(^|,)\s*(?=,|$)")


class TerrainRoute(NamedTuple):
    """A least-cost route: its total `cost` and its `route` of cells, start and goal included."""

    cost: float
    route: tuple[Cell, ...]


def parse_costs(text: str, source: str = "<text>") -> np.ndarray:
    """Read a cost grid from text: rows of numbers split by commas or whitespace.

    Blank lines are skipped; ``inf`` or ``#`` marks an impassable cell. A negative, NaN or
    non-numeric cost, a number that overflows to infinity (``1e400``) or is above `MAX_COST`, an
    empty CSV field, a row of another length or more than `MAX_GRID_CELLS` cells raise
    `LevelError` naming ``source:line:col`` and the cell.

    Examples
    --------
    >>> parse_costs("1 2 #\\n3,inf,0").tolist()
    [[1.0, 2.0, inf], [3.0, inf, 0.0]]
    """
    rows: list[list[float]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        empty = _EMPTY_FIELD.search(line) if "," in line else None
        if empty is not None:
            raise LevelError(f"{source}:{number}:{empty.end() + 1}: cell ({len(rows)}, "
                             f"{line[:empty.end()].count(',')}): empty field")
        try:
            row = [math.inf if t == "#" else float(t) for t in _TOKEN.findall(line)]
        except ValueError:
            row = _checked_row(line, source, number, len(rows))   # raises, naming the cell
        if not all(0 <= v <= MAX_COST for v in row):   # infinite, too large, negative or NaN
            row = _checked_row(line, source, number, len(rows))   # raises unless inf or #
        if rows and len(row) != len(rows[0]):
            raise LevelError(f"{source}:{number}: row {len(rows)} has {len(row)} cells, "
                             f"the first row has {len(rows[0])}")
        rows.append(row)
        if len(rows) * len(row) > MAX_GRID_CELLS:
            raise LevelError(f"{source}:{number}: more than {MAX_GRID_CELLS:,} cells "
                             f"(the most a cost grid may have)")
    if not rows:
        raise LevelError(f"{source}: no cost rows")
    return readonly(np.array(rows, dtype=np.float64))


def read_costs(path: str | Path) -> np.ndarray:
    """Read a cost grid file (CSV or whitespace-separated text); see `parse_costs`."""
    return parse_costs(read_text(path, LevelError), str(path))


def cost_to_goal(costs: np.ndarray, goal: Cell, *, convention: str = "enter") -> np.ndarray:
    """Least cost of a route from every cell to `goal`; ``inf`` where no route exists.

    Examples
    --------
    >>> cost_to_goal(np.array([[1.0, 5.0, 1.0]]), (0, 2), convention="leave").tolist()
    [[6.0, 5.0, 0.0]]
    """
    costs, leave = _check_costs(costs), _check_convention(convention)
    gr, gc = _check_cell(costs, goal, "goal")
    table, _ = _kernels.terrain_dijkstra(costs, gr, gc, leave, _FULL_TABLE)
    return readonly(table)


def terrain_route(costs: np.ndarray, start: Cell, goal: Cell, *,
                  convention: str = "enter") -> TerrainRoute:
    """A least-cost route from `start` to `goal` by descending the cost-to-goal table.

    The table is computed only until `start` is settled (the descent needs no more). Among equal
    neighbours the first in the order up, down, left, right is taken (source 002); among equally
    cheap routes the descent never steps to a cell whose cheapest route has more moves than the
    current cell's, so zero-cost cells cannot make it cycle. Raises `SearchError` when impassable
    cells cut the start off from the goal.

    Examples
    --------
    >>> grid = np.array([[1.0, 9.0, 1.0], [1.0, 1.0, 1.0]])
    >>> terrain_route(grid, (0, 0), (0, 2), convention="enter")
    TerrainRoute(cost=4.0, route=((0, 0), (1, 0), (1, 1), (1, 2), (0, 2)))
    """
    costs, leave = _check_costs(costs), _check_convention(convention)
    sr, sc = _check_cell(costs, start, "start")
    gr, gc = _check_cell(costs, goal, "goal")
    width = costs.shape[1]
    table, hops = _kernels.terrain_dijkstra(costs, gr, gc, leave, sr * width + sc)
    if math.isinf(table[sr, sc]):
        raise SearchError(f"no route from {(sr, sc)} to {(gr, gc)}: impassable cells cut them off")
    cells = _kernels.terrain_descent(costs, table, hops, sr, sc, leave)
    return TerrainRoute(float(table[sr, sc]), tuple((int(r), int(c)) for r, c in cells))


def _checked_row(line: str, source: str, number: int, row: int) -> list[float]:
    """The costs of one line, token by token: the slow path that names a bad cell."""
    return [_cost(match, source, number, (row, i))
            for i, match in enumerate(_TOKEN.finditer(line))]


def _cost(match: re.Match, source: str, line: int, cell: Cell) -> float:
    token = match.group()
    where = f"{source}:{line}:{match.start() + 1}: cell {cell}"
    if token == "#":
        return math.inf
    try:
        value = float(token)
    except ValueError:
        raise LevelError(f"{where}: {token!r} is not a cost (allowed: {_ALLOWED_COSTS})") from None
    if not value >= 0:
        raise LevelError(f"{where}: cost {token} (allowed: {_ALLOWED_COSTS})")
    if math.isinf(value) and token.lower() not in _INFINITY_WORDS:
        raise LevelError(f"{where}: {token} overflows to infinity (impassable cells are written "
                         f"inf or #; the largest cost is {MAX_COST:g})")
    if value > MAX_COST and not math.isinf(value):
        raise LevelError(f"{where}: cost {token} is above the largest cost {MAX_COST:g} "
                         "(route sums must stay finite)")
    return value


def _check_costs(costs) -> np.ndarray:
    grid = np.ascontiguousarray(costs, dtype=np.float64)
    if grid.ndim != 2 or grid.size == 0:
        raise LevelError(f"costs must be a non-empty 2-D grid, got shape {grid.shape}")
    if grid.size > MAX_GRID_CELLS:
        raise LevelError(f"costs: {grid.shape[0]}x{grid.shape[1]} = {grid.size:,} cells "
                         f"(at most {MAX_GRID_CELLS:,})")
    if np.isnan(grid).any() or (grid < 0).any():
        r, c = np.argwhere(np.isnan(grid) | (grid < 0))[0]
        raise LevelError(f"costs: cell {(int(r), int(c))}: cost {grid[r, c]} "
                         "(allowed: a number >= 0 or inf)")
    too_large = np.isfinite(grid) & (grid > MAX_COST)
    if too_large.any():
        r, c = np.argwhere(too_large)[0]
        raise LevelError(f"costs: cell {(int(r), int(c))}: cost {grid[r, c]:g} is above the "
                         f"largest cost {MAX_COST:g} (route sums must stay finite)")
    return grid


def _check_convention(convention: str) -> bool:
    """True for ``leave``; raises `LevelError` for an unknown convention."""
    if convention not in CONVENTIONS:
        raise LevelError(f"convention: {convention!r} (allowed: {', '.join(CONVENTIONS)})")
    return convention == "leave"


def _check_cell(costs: np.ndarray, cell, name: str) -> Cell:
    try:
        r, c = (int(v) for v in cell)
    except (TypeError, ValueError):
        raise LevelError(f"{name}: {cell!r} is not a (row, col) cell") from None
    h, w = costs.shape
    if not (0 <= r < h and 0 <= c < w):
        raise LevelError(f"{name}: cell {(r, c)} is outside the {h}x{w} grid")
    if math.isinf(costs[r, c]):
        raise SearchError(f"{name}: cell {(r, c)} is impassable")
    return r, c
