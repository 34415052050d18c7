"""The quadrant sweep (the Maze Search Task authors' `observation_made`): the compiled rule
against a literal transcription (`authors_port`), cell for cell on every map of experiment 1 and on random grids;
hand-made grids; the vision's config forms; agents walking under it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from authors_port import LIT_CODE, WALL_CODE, observation_made
from mazesim import make_agent, simulate
from mazesim.agents import parse_vision, seen_cells
from mazesim.agents.vision import SWEEP_VISION, Vision, isovist, sweep
from mazesim.errors import AgentError
from mazesim.humans.data.sources import MST_MAZES, read_mst_maze
from mazesim.maze import parse_maze

from tests.humans.mst_data import mst_folder


def codes(grid, dark=None):
    """Task codes of a 0/1 grid: walls 3, passages 0 (dark) or 6 where `dark` is False."""
    dark = np.ones(grid.shape, bool) if dark is None else dark
    return [[WALL_CODE if v else (0 if d else LIT_CODE) for v, d in zip(row, drow)]
            for row, drow in zip(grid.tolist(), dark.tolist())]


def assert_sweep_is_the_rule(grid, cell):
    observed, broke = observation_made(codes(grid), cell)
    seen = sweep(grid, cell)
    assert {tuple(map(int, c)) for c in np.argwhere(seen & (grid == 0))} == observed, cell
    assert {tuple(map(int, c)) for c in np.argwhere(seen & (grid == 1))} == broke, cell


@pytest.fixture(scope="module")
def mst_maps():
    folder = mst_folder() / MST_MAZES
    return {path.stem: read_mst_maze(path) for path in sorted(folder.glob("*.txt"))}


def test_the_sweep_is_the_authors_rule_from_every_floor_cell_of_every_map(mst_maps):
    assert len(mst_maps) == 40
    compared = 0
    for name, maze in mst_maps.items():
        for cell in np.argwhere(maze.grid == 0):
            assert_sweep_is_the_rule(maze.grid, tuple(int(v) for v in cell))
            compared += 1
    assert compared == 854          # the floor cells of the 40 maps


def test_the_maps_dark_cells_seen_from_each_floor_cell_are_the_authors(mst_maps):
    """With the maps' own codes (lit cells 6 are not observed)."""
    for maze in mst_maps.values():
        dark = np.ones(maze.shape, bool)
        dark[tuple(np.array(maze.meta["seen_at_start"]).T)] = False
        dark[maze.start] = False
        for cell in map(tuple, np.argwhere(maze.grid == 0).tolist()):
            observed, _ = observation_made(codes(maze.grid, dark), cell)
            mine = sweep(maze.grid, cell) & dark & (maze.grid == 0)
            assert {tuple(map(int, c)) for c in np.argwhere(mine)} == observed


@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(1, 9), st.floats(0, 0.6))
def test_the_sweep_is_the_rule_on_random_grids(seed, h, w, density):
    rng = np.random.default_rng(seed)
    grid = (rng.random((h, w)) < density).astype(np.uint8)
    cell = (int(rng.integers(h)), int(rng.integers(w)))
    grid[cell] = 0
    assert_sweep_is_the_rule(grid, cell)


def test_each_row_is_never_wider_than_the_row_before():
    grid = np.array([[0, 0, 0, 0, 0],
                     [0, 0, 0, 0, 0],
                     [1, 0, 0, 0, 0],
                     [0, 0, 0, 1, 0]], np.uint8)
    # From (3, 2) up: the wall at (3, 3) keeps the up-right sweep in column 2 for every row
    # above; the wall at (2, 0) keeps the up-left sweep right of column 0 from row 2 on. The
    # walls that end a row's scan are seen.
    assert sweep(grid, (3, 2)).astype(int).tolist() == [[0, 1, 1, 0, 0],
                                                         [0, 1, 1, 0, 0],
                                                         [1, 1, 1, 0, 0],
                                                         [1, 1, 1, 1, 0]]


def test_a_wall_in_the_agent_s_column_ends_the_sweep_and_the_edge_is_a_wall():
    grid = np.array([[0, 0, 0],
                     [0, 1, 0],
                     [0, 0, 0],
                     [0, 0, 0]], np.uint8)
    assert sweep(grid, (3, 1)).astype(int).tolist() == [[0, 0, 0],
                                                        [0, 1, 0],
                                                        [1, 1, 1],
                                                        [1, 1, 1]]
    assert sweep(np.zeros((1, 1), np.uint8), (0, 0)).tolist() == [[True]]


def test_the_sweep_is_not_the_isovist():
    corridor = np.zeros((1, 14), np.uint8)              # no radius: a row is seen to its wall
    assert sweep(corridor, (0, 0)).sum() == 14 and isovist(corridor, (0, 0)).sum() == 11
    room = parse_maze("#######\n#.....#\n#S#..G#\n#.....#\n#######")
    seen = sweep(room.grid, (2, 1))                     # the pillar at (2, 2) ends every row
    assert seen[1:4, 1].all() and seen[2, 2] and seen[1:4, 2:].sum() == 1


def test_sweep_checks_its_arguments():
    with pytest.raises(AgentError, match=r"sweep: cell \(2, 0\) is outside the 2x2 grid"):
        sweep(np.zeros((2, 2), np.uint8), (2, 0))
    with pytest.raises(AgentError, match="sweep: grid must be a non-empty 2-D array of 0 and 1"):
        sweep(np.full((2, 2), 2, np.uint8), (0, 0))


@pytest.mark.parametrize("form", [{"sweep": True, "map": "known"}, "sweep, map known",
                                  SWEEP_VISION])
def test_the_sweep_s_config_forms_and_label(form):
    vision = parse_vision(form)
    assert vision == Vision(sweep=True, known_map=True) == SWEEP_VISION
    assert str(vision) == "sweep, map known"
    assert vision.to_config() == {"sweep": True, "map": "known"}
    assert parse_vision(vision.to_config()) == vision == parse_vision(str(vision))
    assert not vision.full


def test_the_sweep_without_the_map_and_without_memory_reads_back():
    for vision in (Vision(sweep=True), Vision(sweep=True, memory=False)):
        assert parse_vision(str(vision)) == vision == parse_vision(vision.to_config())
    assert str(Vision(sweep=True, memory=False)) == "sweep, no memory"


@pytest.mark.parametrize("form, message", [
    ({"sweep": False}, r"vision.sweep: False \(allowed: true"),
    ({"sweep": True, "isovist": 3}, "exactly one of 'window', 'isovist' or 'sweep'"),
    ({"sweep": True, "occlusion": True}, "the sweep is always occluded"),
    ("sweep 3", r"'sweep 3' \(allowed: full or an integer .* sweep: true"),
])
def test_bad_sweep_forms_are_refused(form, message):
    with pytest.raises(AgentError, match=message):
        parse_vision(form)
    with pytest.raises(AgentError, match="a window and a sweep at once"):
        Vision(2, sweep=True)


ROOMS = parse_maze("""
#########
#S..#...#
#.#.#.#.#
#.#...#.#
#.#####.#
#......G#
#########
""")


@pytest.mark.parametrize("agent", ["random-walk", "dfs", "bfs", "choice-model"])
def test_agents_walk_under_the_sweep_and_see_the_union_of_its_sweeps(agent):
    for known in (True, False):
        vision = Vision(sweep=True, known_map=known)
        walk = simulate(ROOMS, make_agent(agent), vision, seed=3)
        assert walk.reached
        union = np.zeros(ROOMS.shape, bool)
        for cell in walk.positions.tolist():
            union |= sweep(ROOMS.grid, tuple(cell))
        assert np.array_equal(seen_cells(ROOMS, walk.positions, vision), union)


def test_agents_walk_under_the_sweep_without_memory():
    walk = simulate(ROOMS, make_agent("random-walk"), Vision(sweep=True, memory=False), seed=1)
    assert walk.reached and walk.moves > 0
