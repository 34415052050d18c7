"""The study's stick-knocking (棒倒し法): one knocked wall per pillar, only the first row falls up."""

from collections import Counter

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.generators.stick_knocking import stick_knocking
from mazesim.maze import WALL

odd_side = st.integers(2, 15).map(lambda n: 2 * n + 1)


@given(h=odd_side, w=odd_side, seed=st.integers(0, 2**32 - 1))
def test_each_pillar_row_knocks_one_wall_per_pillar_and_only_the_first_falls_up(h, w, seed):
    grid = stick_knocking((h, w), np.random.default_rng(seed))
    pillars_per_row = (w - 3) // 2
    for r in range(2, h - 2, 2):
        sideways = int((grid[r, 1:w - 1:2] == WALL).sum())  # beside the pillars of this row
        down = int((grid[r + 1, 2:-2:2] == WALL).sum())
        up = int((grid[r - 1, 2:-2:2] == WALL).sum()) if r == 2 else 0
        assert sideways + down + up == pillars_per_row, r


def test_a_lone_pillar_falls_in_all_four_directions_evenly():
    falls = Counter()
    for seed in range(400):
        grid = stick_knocking((5, 5), np.random.default_rng(seed))
        ((r, c),) = _knocked(grid)
        falls[(r - 2, c - 2)] += 1
    assert set(falls) == {(-1, 0), (0, 1), (1, 0), (0, -1)}
    assert min(falls.values()) > 70  # 100 expected each


def _knocked(grid):
    """The walls of a 5x5 grid besides the border and its one pillar (2, 2)."""
    inner = grid[1:4, 1:4].copy()
    inner[1, 1] = 0  # the pillar itself
    return [tuple(int(v) + 1 for v in cell) for cell in np.argwhere(inner == WALL)]


def test_second_row_pillars_never_fall_up():
    for seed in range(50):
        grid = stick_knocking((7, 5), np.random.default_rng(seed))
        # pillar (4, 2): up would be (3, 2); pillar (2, 2) may fall down there, so (3, 2) being a
        # wall means (2, 2) did not fall left, right or up
        if grid[3, 2] == WALL:
            assert (grid[1, 2], grid[2, 1], grid[2, 3]) == (0, 0, 0)
