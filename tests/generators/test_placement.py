"""Start and goal placements: corners, random, farthest (double BFS sweep), explicit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim._grid import distances as bfs
from mazesim.errors import GeneratorError
from mazesim.generators import GENERATORS, generate, place

NAMES = list(GENERATORS)
odd_side = st.integers(1, 12).map(lambda n: 2 * n + 1)
sizes = st.tuples(odd_side, odd_side).filter(lambda size: size != (3, 3))  # two rooms at least


def _is_room(cell, shape):
    r, c = cell
    return r % 2 == 1 and c % 2 == 1 and 0 < r < shape[0] - 1 and 0 < c < shape[1] - 1


def _diameter(grid):
    """Longest shortest path over rooms, by BFS from every room (brute force)."""
    return max(bfs(grid, r, c)[0][1::2, 1::2].max()
               for r in range(1, grid.shape[0], 2) for c in range(1, grid.shape[1], 2))


def test_corners_are_the_top_left_and_bottom_right_rooms():
    maze = generate("prim", "9x13", seed=0)
    assert (maze.start, maze.goal) == ((1, 1), (7, 11))


@settings(max_examples=40)
@given(name=st.sampled_from(NAMES), size=sizes, seed=st.integers(0, 2**32 - 1),
       braid=st.sampled_from([0.0, 0.5]))
def test_every_placement_is_valid(name, size, seed, braid):
    for placement in ("corners", "random", "farthest"):
        maze = generate(name, size, seed=seed, braid=braid, placement=placement)
        assert _is_room(maze.start, size) and _is_room(maze.goal, size)
        assert maze.start != maze.goal


@settings(max_examples=40)
@given(name=st.sampled_from(NAMES), size=sizes, seed=st.integers(0, 2**32 - 1))
def test_farthest_is_exact_on_perfect_mazes(name, size, seed):
    maze = generate(name, size, seed=seed, placement="farthest")
    assert bfs(maze.grid, *maze.start)[0][maze.goal] == _diameter(maze.grid)


def test_farthest_with_loops_gives_a_long_path_between_rooms():
    maze = generate("digging", 31, seed=2, braid=1.0, placement="farthest")
    length = bfs(maze.grid, *maze.start)[0][maze.goal]
    assert 0.5 * _diameter(maze.grid) <= length <= _diameter(maze.grid)


def test_random_rooms_are_distinct_seeded_and_spread():
    cells = {generate("kruskal", 9, seed=s, placement="random").start for s in range(200)}
    assert len(cells) == 16  # every room of the 4x4 rooms is drawn as a start
    a = generate("kruskal", 9, seed=5, placement="random")
    b = generate("kruskal", 9, seed=5, placement="random")
    assert (a.start, a.goal) == (b.start, b.goal)


def test_one_room_cannot_hold_start_and_goal():
    """A 3x3 grid is one room: `generate` refuses it (its maze could not be written and read
    back: S and G on one cell); 3x5 is the smallest."""
    for placement in ("corners", "random", "farthest"):
        with pytest.raises(GeneratorError, match=r"size 3x3: a single room, and S and G need "
                                                 r"two different ones .*e\.g\. 3x5\)"):
            generate("digging", 3, seed=0, placement=placement)
    maze = generate("digging", (3, 5), seed=0, placement="random")
    assert {maze.start, maze.goal} == {(1, 1), (1, 3)}


def test_explicit_start_and_goal_must_differ():
    with pytest.raises(GeneratorError, match=r"placement: start and goal are the same cell "
                                             r"\(1, 1\) \(allowed: two different cells\)"):
        generate("digging", 11, seed=0, placement=[[1, 1], [1, 1]])


def test_placement_does_not_change_the_grid_and_draws_after_the_family():
    base = generate("wilson", 15, seed=8).grid
    for placement in ("random", "farthest", ((1, 1), (1, 3))):
        assert np.array_equal(generate("wilson", 15, seed=8, placement=placement).grid, base)


def test_explicit_cells_are_kept_and_may_be_any_passage():
    grid = generate("digging", 11, seed=1).grid
    r, c = map(int, np.argwhere(grid[2:-2, 2:-2] == 0)[0] + 2)  # some passage, maybe not a room
    assert place(grid, ((r, c), (9, 9)), np.random.default_rng(0)) == ((r, c), (9, 9))
    with pytest.raises(GeneratorError, match=r"placement: start \(0, 0\) is a wall"):
        place(grid, ((0, 0), (9, 9)), np.random.default_rng(0))
