"""The reference A* on the generic layer: the same push counts as the compiled search."""

import math

import numpy as np
import pytest

from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.level import parse_levels, verify_solution
from mazesim.search.sokoban.reference import push_astar
from mazesim.search.sokoban.solver import solve


def test_reference_pushes_on_a_corridor():
    board = Board.of(parse_levels("#######\n#@ $ .#\n#######\n")[0])
    pushes, states, timed_out = push_astar(board, "full", math.inf)
    assert pushes.dtype == np.int16 and pushes.tolist() == [[2, 1], [3, 1]]
    assert (states, timed_out) == (3, False)


@pytest.mark.parametrize("number", [1, 3, 10, 60])
def test_generic_engine_finds_the_same_push_counts(number, microban):
    level = microban[number - 1]
    fast, reference = solve(level), solve(level, engine="generic")
    assert reference.solved and reference.optimal and verify_solution(level, reference.solution)
    assert reference.pushes == fast.pushes
    assert (reference.stage, fast.stage) == ("astar-forward", "astar-forward")
