"""Time limits hold on big open rooms, set-up included; levels above the ceilings are refused."""

import time

import pytest

from mazesim.errors import LevelError
from mazesim.search.sokoban.level import MAX_BOXES, MAX_LEVEL_CELLS, parse_levels
from mazesim.search.sokoban.solver import solve

from sokoban_rooms import open_room, warm_up

TOLERANCE_SHARE, TOLERANCE_SECONDS = 0.1, 0.2
"""A limit holds within 10 % or 0.2 s, whichever is larger."""


def _bound(limit: float) -> float:
    return limit + max(TOLERANCE_SHARE * limit, TOLERANCE_SECONDS)


@pytest.fixture(scope="module", autouse=True)
def warm_kernels():
    """Compile or load every kernel the stages use, so no test counts compile time."""
    warm_up()


@pytest.mark.parametrize("size, boxes, limit, method, engine", [
    (150, 40, 0.5, "astar", "numba"),          # the issue: still running at 120 s
    (100, 30, 0.01, "astar", "numba"),         # the issue: 3.2 s
    (181, MAX_BOXES, 0.5, "astar", "numba"),   # at both ceilings
    (150, 40, 0.5, "bfs", "numba"),
    (150, 40, 0.5, "astar", "generic"),
])
def test_a_time_limit_holds_on_a_big_open_room(size, boxes, limit, method, engine):
    level = parse_levels(open_room(size, boxes))[0]
    start = time.perf_counter()
    result = solve(level, method=method, engine=engine, time_limit=limit)
    wall = time.perf_counter() - start
    assert result.timed_out and not result.solved and result.states > 0
    assert result.seconds <= wall < _bound(limit)


def test_a_level_above_the_size_ceiling_is_refused_before_any_work():
    assert 181 * 181 <= MAX_LEVEL_CELLS < 182 * 182
    level = parse_levels(open_room(182, 2))[0]
    start = time.perf_counter()
    with pytest.raises(LevelError, match=r"^<text>: level 1: 182x182 = 33124 cells is too large "
                                         r"to solve \(at most 32768 cells\)$"):
        solve(level, time_limit=100)
    assert time.perf_counter() - start < TOLERANCE_SECONDS


def test_a_level_above_the_box_ceiling_is_refused():
    level = parse_levels(open_room(60, MAX_BOXES + 1))[0]
    with pytest.raises(LevelError, match=r"^<text>: level 1: 65 boxes are too many to solve "
                                         r"\(at most 64\)$"):
        solve(level, method="bfs")
