"""Pursuit (mazesim/search/pursuit.py): chasers descend one distance map (source 000)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.errors import MazeFormatError, SearchError
from mazesim.maze import PASSAGE, WALL, Maze, read_maze
from mazesim.search import FOUR, bfs, grid_neighbours
from mazesim.search.pursuit import (MAX_CHASE_RECORD, chase, chase_scene, chase_text,
                                    place_chasers)

from fixture_paths import DATA

TUTORIAL = read_maze(DATA / "tutorial_7x13.txt")


def test_tutorial_chaser_from_the_goal_reaches_the_start_in_14():
    result = chase(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal], 20)
    assert result.distances[:, 0].tolist() == list(range(14, -1, -1)) + [0] * 6
    assert result.caught.tolist() == [14]
    assert tuple(result.chasers[-1, 0]) == TUTORIAL.start
    assert result.steps == 20 and result.player.shape == (21, 2)


@st.composite
def _mazes(draw):
    h, w = draw(st.integers(3, 9)), draw(st.integers(3, 9))
    inner = draw(st.lists(st.booleans(), min_size=(h - 2) * (w - 2), max_size=(h - 2) * (w - 2)))
    grid = np.full((h, w), WALL, np.uint8)
    grid[1:-1, 1:-1] = np.where(np.array(inner).reshape(h - 2, w - 2), WALL, PASSAGE)
    free = [tuple(map(int, cell)) for cell in np.argwhere(grid == PASSAGE)]
    if len(free) < 2:
        grid[1, 1] = grid[1, 2] = PASSAGE
        free = [tuple(map(int, cell)) for cell in np.argwhere(grid == PASSAGE)]
    maze = Maze(grid, free[0], free[-1])
    player = draw(st.sampled_from(free))
    chasers = draw(st.lists(st.sampled_from(free), min_size=1, max_size=5))
    return maze, player, chasers


def _true_distance(maze, a, b):
    h, w = maze.shape
    result = bfs(tuple(a), grid_neighbours(h, w, FOUR, maze.is_passage), lambda s: s == tuple(b))
    return result.moves


def _check_moves(maze, cells):
    steps = np.abs(np.diff(cells, axis=0)).sum(axis=-1)
    assert steps.max(initial=0) <= 1                       # one step or none, never a jump
    assert all(maze.is_passage(tuple(cell)) for cell in cells.reshape(-1, 2))


@given(_mazes())
def test_standing_player_distances_fall_by_one_until_caught(case):
    maze, player, chasers = case
    steps = 2 * maze.grid.size
    result = chase(maze, player, chasers, steps)
    assert (result.player == player).all()
    _check_moves(maze, result.chasers)
    for k, start in enumerate(chasers):
        d = result.distances[:, k]
        initial = _true_distance(maze, start, player)
        assert d[0] == initial
        assert np.all(np.diff(d) <= 0)                     # never increases
        if initial < 0:                                    # no route: stays put
            assert (d == -1).all() and (result.chasers[:, k] == start).all()
        else:                                              # one closer each step, then caught
            assert d.tolist() == [max(initial - t, 0) for t in range(steps + 1)]
            assert result.caught[k] == initial
            assert tuple(result.chasers[-1, k]) == player


@given(_mazes(), st.integers(0, 2**32 - 1))
def test_wandering_player_is_never_gained_on_by_distance(case, seed):
    maze, player, chasers = case
    result = chase(maze, player, chasers, 30, np.random.default_rng(seed))
    _check_moves(maze, result.player[:, None, :])
    _check_moves(maze, result.chasers)
    reached = result.distances[0] >= 0
    assert np.all(np.diff(result.distances[:, reached], axis=0) <= 0)
    t = len(result.player) - 1
    for k in range(len(chasers)):
        assert result.distances[t, k] == _true_distance(maze, result.chasers[t, k],
                                                        result.player[t])


def test_same_seed_same_pursuit():
    cells = place_chasers(TUTORIAL, 4, np.random.default_rng(5), avoid=TUTORIAL.start)
    assert len(set(cells)) == 4 and TUTORIAL.start not in cells
    first = chase(TUTORIAL, TUTORIAL.start, cells, 25, np.random.default_rng(9))
    again = chase(TUTORIAL, TUTORIAL.start, cells, 25, np.random.default_rng(9))
    assert np.array_equal(first.chasers, again.chasers)
    assert np.array_equal(first.player, again.player)


def test_chase_text():
    text = chase_text(TUTORIAL, (1, 1), [(1, 3), (5, 5), (1, 1)])
    lines = text.splitlines()
    assert lines[1] == "#@.A..#.....#"
    assert lines[5] == "#....B......#"
    assert "C" not in text                                 # under the player


def test_bad_requests():
    with pytest.raises(MazeFormatError, match=r"chaser 2: \(0, 0\) is a wall"):
        chase(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal, (0, 0)], 5)
    with pytest.raises(SearchError, match="steps: -1"):
        chase(TUTORIAL, TUTORIAL.start, [], -1)
    with pytest.raises(SearchError, match="36 do not fit on the 35 free passage cells"):
        place_chasers(TUTORIAL, 36, np.random.default_rng(0), avoid=TUTORIAL.start)
    with pytest.raises(SearchError, match="at most 26"):
        chase_text(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal] * 27)


def test_chase_scene_draws_each_cell_once():
    """A caught chaser stands on the player (drawn as S) and is hidden; of two chasers on one
    cell the first is drawn; a chaser on G is hidden by G (as in chase_text)."""
    maze = read_maze(DATA / "tutorial_7x13.txt")
    result = chase(maze, maze.start, [(1, 3), (5, 5), (5, 5)], steps=2)
    scene, visits = chase_scene(maze, result)
    assert (scene.start, scene.goal) == (maze.start, maze.goal)
    assert dict(scene.marks) == {"B": (5, 3)}
    assert visits.sum() == 3 * 3 and visits[5, 3] == 2
    on_goal, _ = chase_scene(maze, chase(maze, maze.start, [maze.goal], steps=0))
    assert dict(on_goal.marks) == {}


def test_a_pursuit_too_long_is_refused_before_any_work():
    steps = MAX_CHASE_RECORD // 2 - 1                     # (steps + 1) x 2 cells: just fits
    with pytest.raises(SearchError, match=r"steps: 1000000000 with 0 chasers is too long a "
                                          r"pursuit: \(steps \+ 1\) x \(chasers \+ 1\) = "
                                          r"1,000,000,001 cells to record \(at most 2,000,000\)"):
        chase(TUTORIAL, TUTORIAL.start, [], 10**9)
    with pytest.raises(SearchError, match=r"= 2,000,002 cells"):
        chase(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal], steps + 1)
    assert chase(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal], steps // 1000).steps == steps // 1000


def test_to_dict_reports_the_final_position():
    result = chase(TUTORIAL, TUTORIAL.start, [TUTORIAL.goal, (1, 3)], 3)
    assert result.to_dict() == {"steps": 3, "player": [1, 1], "chasers": [
        {"name": "A", "cell": [1, 8], "distance": 14 - 3, "caught": None},
        {"name": "B", "cell": [1, 1], "distance": 0, "caught": 2}]}
