"""`braid`: open walls at a share of the dead ends; loops, never the border, input checks."""

import math

import numpy as np
import pytest
from generator_checks import assert_border_intact, dead_end_count, has_open_2x2, loops
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.errors import GeneratorError
from mazesim.generators import GENERATORS, braid
from mazesim.generators.braid import dead_ends

NAMES = list(GENERATORS)


def _perfect(name="digging", size=(21, 21), seed=0):
    return GENERATORS[name].function(size, np.random.default_rng(seed))


def test_zero_keeps_the_maze_and_draws_nothing():
    grid = _perfect()
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    assert np.array_equal(braid(grid, 0.0, rng), grid)
    assert rng.bit_generator.state == state


@settings(max_examples=30)
@given(name=st.sampled_from(NAMES), h=st.integers(2, 12).map(lambda n: 2 * n + 1),
       w=st.integers(2, 12).map(lambda n: 2 * n + 1), seed=st.integers(0, 2**32 - 1))
def test_one_removes_every_dead_end(name, h, w, seed):
    grid = _perfect(name, (h, w), seed)
    braided = braid(grid, 1.0, np.random.default_rng(seed))
    assert dead_end_count(braided) == 0
    assert_border_intact(braided)
    assert not has_open_2x2(braided)
    assert loops(braided) == int((grid != braided).sum())  # each opening closes one loop


@settings(max_examples=30)
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 2**32 - 1),
       fraction=st.floats(0.01, 0.99))
def test_a_share_removes_that_many_dead_ends(name, seed, fraction):
    grid = _perfect(name, (25, 31), seed)
    before = dead_end_count(grid)
    removed = before - dead_end_count(braid(grid, fraction, np.random.default_rng(seed)))
    quota = math.ceil(fraction * before)
    assert quota <= removed <= quota + 1  # the last opening may join two dead ends


def test_prefers_opening_toward_another_dead_end():
    grid = _perfect("kruskal", (41, 41), 1)
    braided = braid(grid, 0.3, np.random.default_rng(1))
    opened = np.argwhere(braided != grid)
    ends = {tuple(cell) for cell in dead_ends(grid)}
    between_ends = 0
    for r, c in opened:
        sides = [(r - 1, c), (r + 1, c)] if r % 2 == 0 else [(r, c - 1), (r, c + 1)]
        between_ends += all(side in ends for side in sides)
    # a random wall beside a dead end rarely leads to another; preferred, most openings do
    assert between_ends / len(opened) > 0.5


def test_the_input_grid_is_not_changed_and_plain_lists_work():
    grid = _perfect()
    copy = grid.copy()
    braided = braid(grid.tolist(), 0.5, np.random.default_rng(0))
    assert np.array_equal(grid, copy) and braided.dtype == np.uint8
    assert dead_end_count(braided) < dead_end_count(grid)


def test_a_grid_without_openable_walls_is_returned_as_is():
    corridor = np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]], np.uint8)
    assert np.array_equal(braid(corridor, 1.0, np.random.default_rng(0)), corridor)


@pytest.mark.parametrize("fraction", [-0.5, 1.01, "half", None])
def test_fraction_must_be_a_share(fraction):
    with pytest.raises(GeneratorError, match=r"braid: .* \(allowed: a number in \[0, 1\]\)"):
        braid(_perfect(), fraction, np.random.default_rng(0))


@pytest.mark.parametrize("grid", [np.zeros((3, 3, 3)), np.full((3, 3), 2), np.zeros((0, 4))])
def test_grid_must_be_2d_of_zeros_and_ones(grid):
    with pytest.raises(GeneratorError, match="braid: grid must be a non-empty 2-D array of 0 and"):
        braid(grid, 0.5, np.random.default_rng(0))
