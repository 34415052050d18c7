"""Recursive division: the first wall crosses the whole chamber with one gap."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.generators.recursive_division import recursive_division
from mazesim.maze import PASSAGE


@given(rooms=st.integers(2, 15), extra=st.integers(1, 10), seed=st.integers(0, 2**32 - 1))
def test_a_tall_maze_is_first_cut_by_a_full_width_wall_with_one_gap(rooms, extra, seed):
    h, w = 2 * (rooms + extra) + 1, 2 * rooms + 1  # taller than wide: a horizontal first wall
    grid = recursive_division((h, w), np.random.default_rng(seed))
    gaps = (grid[2:-2:2, 1:-1] == PASSAGE).sum(axis=1)  # openings along each inner even row
    assert (gaps == 1).any()
    wide = recursive_division((w, h), np.random.default_rng(seed))  # wider than tall: vertical
    assert ((wide[1:-1, 2:-2:2] == PASSAGE).sum(axis=0) == 1).any()
