"""Big open Sokoban rooms built as XSB text, for the time-limit and ceiling tests, and a warm-up
that compiles (or loads) every kernel first."""

import math

from mazesim.search.sokoban.level import parse_levels
from mazesim.search.sokoban.solver import solve
from mazesim.search.sokoban.stages import STAGES, run_stage, zobrist_keys

ROOM_SPACING = 3
"""Boxes stand on every third row and column; each goal is one step down and right of a box."""


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
    """Run every stage, the move BFS and the reference once on a corridor, without a deadline: a
    first call compiles its kernels (seconds), which a test of a time limit must not count."""
    level = parse_levels("#######\n#@ $ .#\n#######\n")[0]
    board = level.board()
    for stage in STAGES:
        assert run_stage(board, stage, "full", zobrist_keys(board), math.inf)[0] == 1
    for method, engine in (("astar", "numba"), ("bfs", "numba"), ("astar", "generic")):
        assert solve(level, method=method, engine=engine).solved
