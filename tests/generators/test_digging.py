"""Digging (穴掘り法): the kernel reads no more pre-drawn numbers than `dig_draws` allows."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.generators import _kernels

odd_side = st.integers(1, 20).map(lambda n: 2 * n + 1)


@given(h=odd_side, w=odd_side, seed=st.integers(0, 2**32 - 1))
def test_dig_uses_at_most_dig_draws_uniforms(h, w, seed):
    n = _kernels.dig_draws(h, w)
    uniforms = np.random.default_rng(seed).random(n + 50)
    exact = uniforms[:n].copy()
    assert np.array_equal(_kernels.dig(h, w, exact), _kernels.dig(h, w, uniforms))


def test_long_corridors_few_junctions():
    grid = _kernels.dig(101, 101, np.random.default_rng(0).random(_kernels.dig_draws(101, 101)))
    o = np.pad(grid == 0, 1).astype(int)
    neighbours = o[:-2, 1:-1] + o[2:, 1:-1] + o[1:-1, :-2] + o[1:-1, 2:]
    assert ((grid == 0) & (neighbours >= 3)).sum() < 0.12 * 2500
