"""Eller's algorithm: the `join` option."""

from mazesim.generators import generate
from mazesim.maze import PASSAGE, WALL


def test_join_zero_leaves_only_vertical_runs_and_a_last_row_corridor():
    grid = generate("eller", "15x21", seed=3, join=0.0).grid
    assert (grid[1:-3:2, 2:-2:2] == WALL).all()  # no wall opened inside any row but the last
    assert (grid[-2, 1:-1] == PASSAGE).all()


def test_join_one_makes_the_first_row_a_corridor():
    grid = generate("eller", "15x21", seed=3, join=1.0).grid
    assert (grid[1, 1:-1] == PASSAGE).all()


def test_more_joining_opens_more_walls_inside_rows():
    def inside_rows(join):
        return int((generate("eller", 61, seed=1, join=join).grid[1:-3:2, 2:-2:2] == PASSAGE).sum())

    assert inside_rows(0.2) < inside_rows(0.5) < inside_rows(0.8)
