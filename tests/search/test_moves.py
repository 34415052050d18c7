"""Grid move sets and the neighbour function (mazesim/search/moves.py)."""

import numpy as np

from mazesim.maze import DELTAS
from mazesim.search.moves import EIGHT, FOUR, KNIGHT, MOVE_SETS, grid_neighbours


def test_move_sets():
    assert [list(m) for m in FOUR] == DELTAS.tolist()        # the canonical direction order
    assert len(set(EIGHT)) == 8 and set(FOUR) < set(EIGHT) and (0, 0) not in EIGHT
    assert len(set(KNIGHT)) == 8
    assert all(sorted((abs(dr), abs(dc))) == [1, 2] for dr, dc in KNIGHT)
    assert MOVE_SETS == {"four": FOUR, "eight": EIGHT, "knight": KNIGHT}


def test_grid_neighbours_stay_inside_and_keep_the_order():
    step = grid_neighbours(3, 4, EIGHT)
    assert list(step((0, 0))) == [(0, 1), (1, 1), (1, 0)]
    assert len(list(step((1, 1)))) == 8
    assert list(grid_neighbours(8, 8, KNIGHT)((0, 0))) == [(1, 2), (2, 1)]


def test_grid_neighbours_passable():
    walls = np.array([[0, 1], [0, 0]])
    step = grid_neighbours(2, 2, FOUR, lambda cell: walls[cell] == 0)
    assert list(step((0, 0))) == [(1, 0)]
