"""Page views: only what the participant may see (a window, a line of sight, a known layout)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.agents import parse_vision
from mazesim.agents.vision import isovist
from mazesim.maze import Maze
from mazesim.play.view import full_view, in_sight, known_view, maze_view, window_view


@st.composite
def scenes(draw):
    h, w = draw(st.integers(2, 9)), draw(st.integers(2, 9))
    grid = np.array(draw(st.lists(st.integers(0, 1), min_size=h * w, max_size=h * w)),
                    np.uint8).reshape(h, w)
    cells = [(r, c) for r in range(h) for c in range(w)]
    pos, start, goal = (draw(st.sampled_from(cells)) for _ in range(3))
    for cell in (pos, start, goal):
        grid[cell] = 0
    return grid, pos, start, goal, draw(st.integers(0, 3)), draw(st.integers(0, 2**32 - 1))


def _changed_outside(grid, keep, start, goal, seed):
    """A grid equal on `keep` and random elsewhere; start and goal moved out of `keep` when
    they were outside it."""
    rng = np.random.default_rng(seed)
    other = np.where(keep, grid, rng.integers(0, 2, grid.shape)).astype(np.uint8)
    moved = [cell if keep[cell] else tuple(np.argwhere(~keep)[0]) for cell in (start, goal)]
    for cell in moved:
        other[cell] = 0
    return other, moved


@settings(max_examples=80)
@given(scenes())
def test_window_is_the_square_and_ignores_everything_outside(scene):
    grid, pos, start, goal, k, seed = scene
    view = window_view(Maze(grid, start, goal), pos, k)
    padded = np.pad(grid, k, constant_values=2)
    square = padded[pos[0]:pos[0] + 2 * k + 1, pos[1]:pos[1] + 2 * k + 1]
    assert view["rows"] == ["".join({0: ".", 1: "#", 2: "~"}[v] for v in row)
                            for row in square]
    for name, cell in (("start", start), ("goal", goal)):
        dr, dc = cell[0] - pos[0], cell[1] - pos[1]
        assert view[name] == ([dr, dc] if max(abs(dr), abs(dc)) <= k else None)
    keep = np.zeros_like(grid, bool)               # the square and the four neighbours
    keep[max(pos[0] - k, 0):pos[0] + k + 1, max(pos[1] - k, 0):pos[1] + k + 1] = True
    r, c = pos
    keep[max(r - 1, 0):r + 2, c] = keep[r, max(c - 1, 0):c + 2] = True
    other, moved = _changed_outside(grid, keep, start, goal, seed)
    assert window_view(Maze(other, *moved), pos, k) == view


@settings(max_examples=80)
@given(scenes(), st.integers(1, 4))
def test_an_isovist_view_shows_the_line_of_sight_only(scene, radius):
    grid, pos, start, goal, _, seed = scene
    vision = parse_vision({"isovist": radius})
    maze = Maze(grid, start, goal)
    sight = isovist(grid, pos, radius)
    view = maze_view(maze, pos, vision)
    assert view["kind"] == "window" and view["k"] == radius
    for i, row in enumerate(view["rows"]):
        for j, ch in enumerate(row):
            cell = (pos[0] - radius + i, pos[1] - radius + j)
            if not maze.in_bounds(cell):
                assert ch == "~"
            elif not sight[cell]:
                assert ch == "?"
            else:
                assert ch == ("#" if grid[cell] else ".")
    assert view["goal"] == ([goal[0] - pos[0], goal[1] - pos[1]] if sight[goal] else None)
    other, moved = _changed_outside(grid, sight, start, goal, seed)
    if np.array_equal(isovist(other, pos, radius), sight):   # same walls block the same lines
        assert maze_view(Maze(other, *moved), pos, vision) == view


def test_window_sees_the_neighbours_even_with_k_zero():
    maze = Maze(np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1]]), (1, 1), (0, 1))
    view = window_view(maze, (1, 1), 0)
    assert view == {"kind": "window", "k": 0, "rows": ["."], "start": [0, 0], "goal": None,
                    "open": ["up", "right", "left"]}
    assert window_view(maze, (0, 1), 1)["rows"] == ["~~~", "#.#", "..."]


def test_known_map_view():
    grid = np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]], np.uint8)
    maze = Maze(grid, (0, 0), (2, 3))
    seen = np.zeros(grid.shape, bool)
    seen[0, :2] = seen[1, 0] = True
    assert known_view(maze, (0, 0), seen) == {
        "kind": "known", "rows": ("....", ".##.", "...."), "position": [0, 0],
        "start": [0, 0], "goal": None, "seen": ["1100", "1000", "0000"],
        "open": ["right", "down"]}
    seen[2, 3] = True
    assert known_view(maze, (0, 0), seen)["goal"] == [2, 3]
    with pytest.raises(ValueError, match="known-map view needs the cells seen"):
        maze_view(maze, (0, 0), parse_vision({"window": 1, "map": "known"}))


def test_under_exit_on_arrival_the_goal_shows_on_its_cell_only():
    grid = np.array([[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]], np.uint8)
    maze = Maze(grid, (0, 0), (2, 3))
    seen = np.ones(grid.shape, bool)
    for form in ("sweep, map known", "2"):
        shown = parse_vision(form)
        hidden = parse_vision(form + ", exit on arrival")
        assert maze_view(maze, (2, 2), shown, seen)["goal"] is not None
        assert maze_view(maze, (2, 2), hidden, seen)["goal"] is None
        assert maze_view(maze, (2, 3), hidden, seen)["goal"] == maze_view(
            maze, (2, 3), shown, seen)["goal"]


def test_in_sight():
    grid = np.array([[0, 0, 0], [1, 1, 0], [0, 0, 0]], np.uint8)
    maze = Maze(grid, (0, 0), (2, 0))
    assert in_sight(maze, (0, 0), parse_vision("full")) is None
    assert in_sight(maze, (0, 0), parse_vision(1)) is None         # the whole square: cut
    assert np.array_equal(in_sight(maze, (0, 0), parse_vision({"isovist": 2})),
                          isovist(grid, (0, 0), 2))      # DESIGN 5's rule, from agents
    assert in_sight(maze, (0, 0), parse_vision({"window": 1, "map": "known"})).astype(
        int).tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    occluded = in_sight(maze, (0, 0), parse_vision({"window": 2, "occlusion": True}))
    assert not occluded[2, 0] and occluded[0, 2]


def test_full_view_is_the_whole_grid():
    maze = Maze(np.array([[1, 0, 1], [0, 0, 0]]), (1, 0), (0, 1))
    assert full_view(maze, (1, 1)) == {"kind": "full", "rows": ("#.#", "..."),
                                       "position": [1, 1], "start": [1, 0], "goal": [0, 1],
                                       "open": ["up", "right", "left"]}
