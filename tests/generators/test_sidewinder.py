"""Sidewinder: a top corridor; every run of a lower row opens up exactly once."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.generators.sidewinder import sidewinder
from mazesim.maze import PASSAGE

odd_side = st.integers(1, 15).map(lambda n: 2 * n + 1)


@given(h=odd_side, w=odd_side, seed=st.integers(0, 2**32 - 1))
def test_one_upward_opening_per_run(h, w, seed):
    grid = sidewinder((h, w), np.random.default_rng(seed))
    assert (grid[1, 1:-1] == PASSAGE).all()
    for r in range(3, h - 1, 2):
        runs = 1 + int((grid[r, 2:-2:2] != PASSAGE).sum())
        assert int((grid[r - 1, 1::2] == PASSAGE).sum()) == runs
