"""Sokoban (DESIGN.md section 10): XSB levels, deadlocks, the staged push search and its reference.

`level` reads and checks levels and verifies solutions; `board` numbers the player's region for
the solvers; `deadlocks` finds dead squares and frozen boxes; `solver` is the entry point
(`solve`), running the move BFS, the `stages` of the compiled push search, or the `reference`
A* on the generic layer (the test oracle). The kernels are private (`_kernels`, `_tables`,
`_search`, `_walks`).
"""

from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.deadlocks import PRUNES, corner_squares, dead_squares, is_frozen
from mazesim.search.sokoban.level import (LURD, MAX_BOXES, MAX_LEVEL_CELLS, TUTORIAL_MOVE_ORDER,
                                          Level, check_size, format_level, parse_levels,
                                          read_level, read_levels, verify_solution)
from mazesim.search.sokoban.solver import ENGINES, METHODS, SokobanResult, solve
from mazesim.search.sokoban.stages import STAGES, Stage

__all__ = [
    "Level",
    "Board",
    "LURD",
    "TUTORIAL_MOVE_ORDER",
    "MAX_LEVEL_CELLS",
    "MAX_BOXES",
    "parse_levels",
    "read_levels",
    "read_level",
    "format_level",
    "check_size",
    "verify_solution",
    "PRUNES",
    "corner_squares",
    "dead_squares",
    "is_frozen",
    "METHODS",
    "ENGINES",
    "Stage",
    "STAGES",
    "SokobanResult",
    "solve",
]
