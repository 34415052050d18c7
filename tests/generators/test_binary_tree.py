"""Binary tree: every room but the top-left one opens exactly one of up and left."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.generators.binary_tree import binary_tree
from mazesim.maze import PASSAGE

odd_side = st.integers(1, 15).map(lambda n: 2 * n + 1)


@given(h=odd_side, w=odd_side, seed=st.integers(0, 2**32 - 1))
def test_each_room_opens_up_or_left(h, w, seed):
    grid = binary_tree((h, w), np.random.default_rng(seed))
    up = grid[0:-2:2, 1::2][:, : (w - 1) // 2] == PASSAGE  # wall above each room
    left = grid[1::2, 0:-2:2][: (h - 1) // 2] == PASSAGE  # wall left of each room
    opened = up.astype(int) + left
    assert opened[0, 0] == 0 and (opened.ravel()[1:] == 1).all()
    assert (grid[1, 1:-1] == PASSAGE).all() and (grid[1:-1, 1] == PASSAGE).all()
