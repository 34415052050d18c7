"""Line of sight (DESIGN.md section 5): the compiled isovist against a literal Python port of the
rule, cell for cell on every map of the Maze Search Task, and what a maze shows at the start."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim import isovist, make_agent, simulate
from mazesim.agents import seen_cells
from mazesim.agents.vision import MST_VISION, SEEN_AT_START, seen_at_start
from mazesim.errors import AgentError, MazeFormatError
from mazesim.humans.data.sources import MST_MAZES, read_mst_maze
from mazesim.maze import Maze, parse_maze

from tests.humans.mst_data import mst_folder

CORNERS = ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9))


def port_visible(grid, y, x, py, px, radius=10):
    """DESIGN 5, word for word: four segments from matching points of the two cells, each walked
    from the target in 45 d equal steps; blocked by a wall point, clear on reaching the agent's
    cell; the 4-neighbours and the cell itself visible without a test."""
    h, w = grid.shape
    d = max(abs(py - y), abs(px - x))
    if d > radius:
        return False
    if d == 0 or abs(py - y) + abs(px - x) == 1:
        return True
    n = 45 * d
    for ox, oy in CORNERS:
        ax, ay, bx, by = x + ox, y + oy, px + ox, py + oy
        sx, sy = (ax - bx) / n, (ay - by) / n
        for k in range(1, n + 1):
            cy, cx = math.floor(by + k * sy), math.floor(bx + k * sx)
            if (cy, cx) == (y, x):
                break
            if not (0 <= cy < h and 0 <= cx < w) or grid[cy, cx]:
                return False
    return True


def port_isovist(grid, cell, radius=10):
    h, w = grid.shape
    return np.array([[port_visible(grid, cell[0], cell[1], r, c, radius) for c in range(w)]
                     for r in range(h)])


@pytest.fixture(scope="module")
def mst_maps():
    folder = mst_folder() / MST_MAZES
    return {path.stem: read_mst_maze(path) for path in sorted(folder.glob("*.txt"))}


def test_the_isovist_is_the_rule_cell_for_cell_on_every_mst_map(mst_maps):
    assert len(mst_maps) == 40
    compared = 0
    for name, maze in mst_maps.items():
        for cell in np.argwhere(maze.grid == 0):
            cell = tuple(int(v) for v in cell)
            assert np.array_equal(isovist(maze.grid, cell), port_isovist(maze.grid, cell)), \
                (name, cell)
            compared += 1
    assert compared == sum(int((m.grid == 0).sum()) for m in mst_maps.values())


def test_what_s_sees_is_inside_the_cells_each_map_shows_at_the_start(mst_maps):
    """From S the rule never sees floor the map keeps dark; the files light more (corridors
    behind walls): 6 maps agree exactly, 34 show more, 234 cells in all."""
    equal, extra = 0, 0
    for maze in mst_maps.values():
        shown = seen_at_start(maze)
        shown[maze.start] = True
        seen = isovist(maze.grid, maze.start) & (maze.grid == 0)
        assert not (seen & ~shown).any()
        equal += np.array_equal(seen, shown)
        extra += int((shown & ~seen).sum())
    assert (equal, extra) == (6, 234)


@given(st.integers(0, 2**32 - 1), st.integers(3, 9), st.integers(3, 9), st.integers(1, 6))
def test_the_isovist_is_the_rule_on_random_grids(seed, h, w, radius):
    rng = np.random.default_rng(seed)
    grid = (rng.random((h, w)) < 0.35).astype(np.uint8)
    cell = (int(rng.integers(h)), int(rng.integers(w)))
    assert np.array_equal(isovist(grid, cell, radius), port_isovist(grid, cell, radius))


def test_isovist_checks_its_arguments():
    with pytest.raises(AgentError, match="outside the 2x2 grid"):
        isovist(np.zeros((2, 2), np.uint8), (2, 0))
    with pytest.raises(AgentError, match="0 and 1"):
        isovist(np.full((2, 2), 2, np.uint8), (0, 0))


LIT = """\
#########
#S......#
#.#####.#
#.......#
#.#####.#
#......G#
#########
"""


def _lit(cells):
    maze = parse_maze(LIT)
    return Maze(maze.grid, maze.start, maze.goal, meta={SEEN_AT_START: cells})


def test_cells_shown_at_the_start_are_seen_before_the_first_step():
    maze = _lit([[5, 7]])                            # G itself lit
    assert seen_at_start(maze)[5, 7] and seen_cells(maze, [maze.start], 1)[5, 7]
    assert not seen_cells(_lit([]), [maze.start], 1)[5, 7]
    known = {"window": 1, "map": "known"}
    for seed in range(5):                            # the goal is known: a shortest walk
        assert simulate(maze, make_agent("random-walk"), known, seed=seed).moves == 10
    dark = [simulate(_lit([]), make_agent("random-walk"), known, seed=s).moves for s in range(5)]
    assert min(dark) > 10


def test_bad_seen_at_start_cells_are_named_when_the_maze_is_made():
    with pytest.raises(MazeFormatError, match=r"seen_at_start\[1\]: .*\(0, 0\) is a wall"):
        _lit([[1, 1], [0, 0]])
    with pytest.raises(MazeFormatError, match="a list of"):
        _lit("everything")


def test_mst_vision_label():
    assert str(MST_VISION) == "isovist 10, map known"
