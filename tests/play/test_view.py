"""Page views: the window holds exactly the cells within k of the participant, nothing else."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.maze import Maze
from mazesim.play.view import full_view, window_view


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


@settings(max_examples=80)
@given(scenes())
def test_window_is_the_padded_square_and_ignores_everything_outside(scene):
    grid, pos, start, goal, k, seed = scene
    view = window_view(Maze(grid, start, goal), pos, k)
    padded = np.pad(grid, k, constant_values=1)
    square = padded[pos[0]:pos[0] + 2 * k + 1, pos[1]:pos[1] + 2 * k + 1]
    assert view["rows"] == ["".join("#" if v else "." for v in row) for row in square]
    for name, cell in (("start", start), ("goal", goal)):
        dr, dc = cell[0] - pos[0], cell[1] - pos[1]
        assert view[name] == ([dr, dc] if max(abs(dr), abs(dc)) <= k else None)
    # anything outside the window (walls, start, goal) may change: the view does not (the four
    # neighbours are sensed even with k = 0, DESIGN.md section 5)
    rng = np.random.default_rng(seed)
    outside = np.ones_like(grid, bool)
    outside[max(pos[0] - k, 0):pos[0] + k + 1, max(pos[1] - k, 0):pos[1] + k + 1] = False
    r, c = pos
    outside[max(r - 1, 0):r + 2, c] = outside[r, max(c - 1, 0):c + 2] = False
    other = np.where(outside, rng.integers(0, 2, grid.shape), grid).astype(np.uint8)
    moved = [cell if not outside[cell] else tuple(np.argwhere(outside)[0]) for cell in (start,
                                                                                         goal)]
    for cell in moved:
        other[cell] = 0
    assert window_view(Maze(other, *moved), pos, k) == view


def test_window_sees_the_neighbours_even_with_k_zero():
    maze = Maze(np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1]]), (1, 1), (0, 1))
    view = window_view(maze, (1, 1), 0)
    assert view == {"kind": "window", "k": 0, "rows": ["."], "start": [0, 0], "goal": None,
                    "open": ["up", "right", "left"]}


def test_full_view_is_the_whole_grid():
    maze = Maze(np.array([[1, 0, 1], [0, 0, 0]]), (1, 0), (0, 1))
    assert full_view(maze, (1, 1)) == {"kind": "full", "rows": ["#.#", "..."], "position": [1, 1],
                                       "start": [1, 0], "goal": [0, 1],
                                       "open": ["up", "right", "left"]}
