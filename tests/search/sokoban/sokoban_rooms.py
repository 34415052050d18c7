"""Big open Sokoban rooms built as XSB text, for the time-limit and ceiling tests, and a warm-up
that compiles (or loads) every kernel first."""

from mazesim.search.sokoban.level import parse_levels
from mazesim.search.sokoban.solver import WARM_UP_LEVEL, solve

ROOM_SPACING = 3
"""Boxes stand on every third row and column; each goal is one step down and right of a box."""
WARM_UP_SECONDS = 10.0
"""The limit of the warm-up solves: every stage runs, none is cut short."""


def open_room(size: int, boxes: int) -> str:
    """XSB text of a `size` x `size` room (its wall included), the player in the top-left corner,
    `boxes` boxes on a lattice from the top left and as many goals on the lattice's last cells."""
    inner = size - 2
    lattice = [(r, c) for r in range(ROOM_SPACING, inner - 1, ROOM_SPACING)
               for c in range(ROOM_SPACING, inner - 1, ROOM_SPACING)]
    if boxes > len(lattice):
        raise ValueError(f"{boxes} boxes do not fit on the lattice of a {size} x {size} room")
    rows = [["#"] * size] + [["#"] + [" "] * inner + ["#"] for _ in range(inner)] + [["#"] * size]
    for r, c in lattice[:boxes]:
        rows[r][c] = "$"
    for r, c in lattice[-boxes:]:
        rows[r + 1][c + 1] = "."
    rows[1][1] = "@"
    return "\n".join("".join(row) for row in rows) + "\n"


def warm_up() -> None:
    """Solve the solver's warm-up level with a time limit by every method and engine: a first
    call compiles its kernels (seconds, outside the limit), which a test of wall time must not
    count."""
    level = parse_levels(WARM_UP_LEVEL)[0]
    for method, engine in (("astar", "numba"), ("bfs", "numba"), ("astar", "generic")):
        assert solve(level, method=method, engine=engine, time_limit=WARM_UP_SECONDS).solved
