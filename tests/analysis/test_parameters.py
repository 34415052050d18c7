"""Tests of mazesim.analysis: seed-000 figures, hand-worked parameters, a Python reference."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.analysis import (
    DESCRIPTIONS,
    PARAMETERS,
    PATH_PARAMETERS,
    dfs_path,
    distance_map,
    parameters,
)
from mazesim.analysis import shortest_path
from mazesim.errors import ConfigError, MazeFormatError, SearchError
from mazesim.maze import DELTAS, Maze, parse_maze, read_maze

from fixture_paths import DATA

TUTORIAL = DATA / "tutorial_7x13.txt"

# A perfect maze (a tree: 17 cells, 16 edges) with one 3-way and one 4-way junction.
PERFECT = """
#######
#S....#
###.###
#.....#
###.#.#
#G..#.#
#######
"""
# Degrees: dead ends (1,1) S, (1,5), (3,1), (5,1) G, (5,5) -> 5; (1,3) has 3 neighbours, (3,3) has
# 4; the other 10 cells are corridor cells.
# BFS from S: (1,2)1 (1,3)2 (1,4)3 (2,3)3 (1,5)4 (3,3)4 (3,4)5 (4,3)5 (3,2)5 (3,5)6 (5,3)6 (3,1)6
# (4,5)7 (5,2)7 (5,5)8 (5,1)8 -> solution_length 8, max_depth 8.
# Path S (1,2) (1,3) (2,3) (3,3) (4,3) (5,3) (5,2) G: moves R R D D D D L L; turns at (1,3) and
# (5,3); at (1,3) the path arrives moving right and turns down while (1,4) straight ahead is open:
# one straight wrong branch; at (5,3) straight ahead (6,3) is wall. On-path branch points (1,3),
# (3,3). Off-path branches: (1,4)(1,5) depth 2 at (1,3); (3,4)(3,5)(4,5)(5,5) depth 4 and
# (3,2)(3,1) depth 2 at (3,3) -> detour_depth 4.
# Corridor runs: {(1,2)} {(1,4)} {(2,3)} {(3,2)} {(3,4),(3,5),(4,5)} {(4,3),(5,3),(5,2)}: 10/6.
PERFECT_VALUES = {
    "solution_length": 8, "max_depth": 8, "branch_points": 2, "branch_points_on_path": 2,
    "detour_depth": 4, "passage_cells": 17, "dead_ends": 5, "dead_end_ratio": 5 / 17,
    "junctions_3": 1, "junctions_4": 1, "loops": 0, "solution_turns": 2,
    "straight_wrong_branches": 1, "corridor_mean": 10 / 6,
}

# Two loops (13 cells, 14 edges, one component).
LOOPS = """
#######
#S....#
#.#.#.#
#..G..#
#######
"""
# Degrees: (1,3) and G (3,3) have 3 neighbours; the other 11 cells 2; no dead ends.
# BFS from S: (1,2)1 (2,1)1 (1,3)2 (3,1)2 (1,4)3 (2,3)3 (3,2)3 (1,5)4 G4 (2,5)5 (3,4)5 (3,5)6.
# G is first reached from (2,3) ((2,3) is queued before (3,2)): path S (1,2) (1,3) (2,3) G, moves
# R R D D: one turn, at (1,3), where (1,4) straight ahead is open: one straight wrong branch.
# On-path branch points (1,3) and G. Detour: from S with the path removed (2,1)1 (3,1)2 (3,2)3;
# from (1,3): (1,4)1 (1,5)2 (2,5)3 (3,5)4 (3,4)5; from G: (3,2)1 (3,4)1 (3,1)2 (3,5)2 (2,1)3
# (2,5)3 (1,5)4 (1,4)5; (1,2), (2,3) reach nothing -> 5.
# Corridor runs: (1,2)(1,1)(2,1)(3,1)(3,2); (1,4)(1,5)(2,5)(3,5)(3,4); (2,3): 11 cells / 3 runs.
LOOPS_VALUES = {
    "solution_length": 4, "max_depth": 6, "branch_points": 2, "branch_points_on_path": 2,
    "detour_depth": 5, "passage_cells": 13, "dead_ends": 0, "dead_end_ratio": 0.0,
    "junctions_3": 2, "junctions_4": 0, "loops": 2, "solution_turns": 1,
    "straight_wrong_branches": 1, "corridor_mean": 11 / 3,
}

# A ring of 8 cells: two shortest routes of 4 moves; one corridor run without ends.
RING = """
#####
#S..#
#.#.#
#..G#
#####
"""
# BFS from S: (1,2)1 (2,1)1 (1,3)2 (3,1)2 (2,3)3 (3,2)3 G4 via (2,3) (queued first): the canonical
# path goes right first. Detour from S without the path: (2,1)1 (3,1)2 (3,2)3; likewise from G.
RING_VALUES = {
    "solution_length": 4, "max_depth": 4, "branch_points": 0, "branch_points_on_path": 0,
    "detour_depth": 3, "passage_cells": 8, "dead_ends": 0, "dead_end_ratio": 0.0,
    "junctions_3": 0, "junctions_4": 0, "loops": 1, "solution_turns": 1,
    "straight_wrong_branches": 0, "corridor_mean": 8.0,
}

# Two components: S's and G's; four dead ends, two edges, no corridor cells.
SPLIT = """
#######
#S.#.G#
#######
"""
SPLIT_VALUES = {
    "solution_length": None, "max_depth": 1, "branch_points": 0, "branch_points_on_path": None,
    "detour_depth": None, "passage_cells": 4, "dead_ends": 4, "dead_end_ratio": 1.0,
    "junctions_3": 0, "junctions_4": 0, "loops": 0, "solution_turns": None,
    "straight_wrong_branches": None, "corridor_mean": 0.0,
}


@pytest.fixture(scope="module")
def tutorial():
    return read_maze(TUTORIAL)


def test_tutorial_bfs_path_is_the_drawn_one(tutorial):
    path = shortest_path(tutorial)
    assert len(path) - 1 == 14  # source 000: "歩数: 14"
    drawn = ([(1, c) for c in range(1, 6)] + [(2, 5), (3, 5), (3, 6), (3, 7), (2, 7)]
             + [(1, c) for c in range(7, 12)])
    assert [tuple(cell) for cell in path.tolist()] == drawn


def test_tutorial_step_map_peaks_two_below_the_goal(tutorial):
    dist = distance_map(tutorial)
    assert dist.dtype == np.int32 and dist.shape == (7, 13)
    assert dist.max() == 16  # source 000: the largest number, two cells below G
    assert np.argwhere(dist == 16).tolist() == [[3, 11]]
    assert dist[1, 11] == 14 and dist[0, 0] == -1 and dist[5, 1] == 8


def test_tutorial_dfs_down_right_up_left_takes_18(tutorial):
    route = dfs_path(tutorial, ("down", "right", "up", "left"))
    assert len(route) - 1 == 18  # source 000: "深さ優先が 18"
    # down from S to the bottom corridor, along it to the right, up to G
    assert route[:4].tolist() == [[1, 1], [2, 1], [3, 1], [3, 2]]
    assert route[6].tolist() == [5, 3] and route[12].tolist() == [5, 9]
    assert route[-1].tolist() == [1, 11]
    assert np.all(np.abs(np.diff(route, axis=0)).sum(1) == 1)


def test_dfs_order_changes_the_route(tutorial):
    # right first: along the top row, down around the middle wall, up again: the BFS route
    assert len(dfs_path(tutorial, ["right", "down", "up", "left"])) - 1 == 14
    assert len(dfs_path(tutorial, "down,right,up,left")) - 1 == 18


@pytest.mark.parametrize("order", [("down", "right", "up"), ("up", "up", "down", "left"),
                                   ("north", "right", "down", "left")])
def test_dfs_order_must_be_a_permutation(tutorial, order):
    with pytest.raises(SearchError, match="dfs order: .*allowed: each of up, right, down, left"):
        dfs_path(tutorial, order)


def test_tutorial_parameters(tutorial):
    # Degrees: dead ends (5,1) and (5,11); junctions (5,3) and (5,9); 32 corridor cells in runs
    # {(5,2)}, {(5,10)}, (5,4)..(5,8) and the 25-cell loop from (4,3) to (4,9) over the top.
    # detour_depth: from S without the path: down, along row 5, up to (2,11): 17 moves.
    assert parameters(tutorial) == {
        "solution_length": 14, "max_depth": 16, "branch_points": 2,
        "branch_points_on_path": 0, "detour_depth": 17, "passage_cells": 36, "dead_ends": 2,
        "dead_end_ratio": 2 / 36, "junctions_3": 2, "junctions_4": 0, "loops": 1,
        "solution_turns": 4, "straight_wrong_branches": 0, "corridor_mean": 8.0,
    }


@pytest.mark.parametrize("text, expected", [
    (PERFECT, PERFECT_VALUES), (LOOPS, LOOPS_VALUES), (RING, RING_VALUES), (SPLIT, SPLIT_VALUES),
], ids=["perfect", "loops", "ring", "split"])
def test_hand_worked_parameters(text, expected):
    values = parameters(parse_maze(text))
    assert list(values) == list(PARAMETERS)
    assert values == pytest.approx(expected)
    for name, value in values.items():  # ints are ints, ratios floats, undefined None
        kind = type(None) if expected[name] is None else type(expected[name])
        assert type(value) is kind, name


def test_hand_worked_paths():
    perfect = shortest_path(parse_maze(PERFECT))
    assert perfect.tolist() == [[1, 1], [1, 2], [1, 3], [2, 3], [3, 3], [4, 3], [5, 3],
                                [5, 2], [5, 1]]
    # of the two 4-move routes around the ring, BFS in up-right-down-left order goes right first
    assert shortest_path(parse_maze(RING)).tolist() == [[1, 1], [1, 2], [1, 3], [2, 3], [3, 3]]


def test_parameters_cover_design_section_4():
    assert PARAMETERS == (
        "solution_length", "max_depth", "branch_points", "branch_points_on_path",
        "detour_depth", "passage_cells", "dead_ends", "dead_end_ratio", "junctions_3",
        "junctions_4", "loops", "solution_turns", "straight_wrong_branches", "corridor_mean")
    assert set(DESCRIPTIONS) == set(PARAMETERS) and PATH_PARAMETERS < set(PARAMETERS)


def test_parameter_selection_keeps_canonical_order(tutorial):
    assert parameters(tutorial, ["loops", "solution_length"]) == {
        "solution_length": 14, "loops": 1}
    assert parameters(tutorial, "max_depth") == {"max_depth": 16}


def test_unknown_parameter_suggests_the_closest(tutorial):
    with pytest.raises(ConfigError, match="unknown parameter 'dead_end'; did you mean "
                                          "'dead_ends'"):
        parameters(tutorial, ["dead_end"])


def test_unreachable_goal():
    maze = parse_maze(SPLIT)
    with pytest.raises(SearchError, match=r"no route from \(1, 1\) to \(1, 5\)"):
        shortest_path(maze)
    with pytest.raises(SearchError, match="no route"):
        dfs_path(maze)
    assert distance_map(maze)[1].tolist() == [-1, 0, 1, -1, -1, -1, -1]


def test_source_and_target(tutorial):
    dist = distance_map(tutorial, (1, 11))
    assert dist[1, 1] == 14 and dist[1, 11] == 0
    path = shortest_path(tutorial, (5, 1), (5, 11))
    assert len(path) == 11 and path[0].tolist() == [5, 1]
    with pytest.raises(MazeFormatError, match=r"source: \(0, 0\) is a wall"):
        distance_map(tutorial, (0, 0))
    with pytest.raises(MazeFormatError, match=r"target: \(9, 9\) is outside the 7x13 grid"):
        shortest_path(tutorial, None, (9, 9))


def test_start_equals_goal_and_results_are_read_only():
    maze = Maze(np.zeros((1, 3), np.uint8), (0, 1), (0, 1))
    assert shortest_path(maze).tolist() == [[0, 1]]
    assert dfs_path(maze).tolist() == [[0, 1]]
    values = parameters(maze)
    assert values["solution_length"] == 0 and values["detour_depth"] == 1
    # the middle cell of three is a corridor run of one
    assert values["corridor_mean"] == 1.0 and values["branch_points_on_path"] == 0
    for array in (distance_map(maze), shortest_path(maze), dfs_path(maze)):
        assert not array.flags.writeable


# --- a literal Python reference of DESIGN.md section 4, compared on random grids -------------

def _bfs(open_, source, blocked=frozenset()):
    h, w = open_.shape
    dist, parent, queue = {source: 0}, {source: None}, deque([source])
    while queue:
        r, c = queue.popleft()
        for dr, dc in DELTAS.tolist():
            nxt = (r + dr, c + dc)
            if (0 <= nxt[0] < h and 0 <= nxt[1] < w and open_[nxt] and nxt not in dist
                    and nxt not in blocked):
                dist[nxt], parent[nxt] = dist[(r, c)] + 1, (r, c)
                queue.append(nxt)
    return dist, parent


def _reference(maze):
    open_ = maze.grid == 0
    cells = [tuple(map(int, cell)) for cell in np.argwhere(open_)]
    nbrs = {cell: [n for n in ((cell[0] + dr, cell[1] + dc) for dr, dc in DELTAS.tolist())
                   if n in set(cells)] for cell in cells}
    deg = {cell: len(n) for cell, n in nbrs.items()}
    components, seen = 0, set()
    for cell in cells:
        if cell not in seen:
            components += 1
            seen |= set(_bfs(open_, cell)[0])
    corridor = {cell for cell in cells if deg[cell] == 2}
    runs, seen = 0, set()
    for cell in corridor:
        if cell not in seen:
            runs += 1
            stack = [cell]
            while stack:
                cur = stack.pop()
                if cur not in seen:
                    seen.add(cur)
                    stack += [n for n in nbrs[cur] if n in corridor]
    dist, parent = _bfs(open_, maze.start)
    out = {
        "max_depth": max(dist.values()), "passage_cells": len(cells),
        "branch_points": sum(d >= 3 for d in deg.values()),
        "dead_ends": sum(d == 1 for d in deg.values()),
        "dead_end_ratio": sum(d == 1 for d in deg.values()) / len(cells),
        "junctions_3": sum(d == 3 for d in deg.values()),
        "junctions_4": sum(d == 4 for d in deg.values()),
        "loops": sum(deg.values()) // 2 - len(cells) + components,
        "corridor_mean": len(corridor) / runs if runs else 0.0,
    }
    if maze.goal not in dist:
        return out | dict.fromkeys(PATH_PARAMETERS)
    path = [maze.goal]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    path.reverse()
    moves = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(path, path[1:])]
    turns = [i for i in range(1, len(path) - 1) if moves[i - 1] != moves[i]]
    ahead = [(path[i][0] + moves[i - 1][0], path[i][1] + moves[i - 1][1]) for i in turns]
    return out | {
        "solution_length": len(path) - 1,
        "branch_points_on_path": sum(deg[cell] >= 3 for cell in path),
        "detour_depth": max(max(_bfs(open_, p, frozenset(path) - {p})[0].values())
                            for p in path),
        "solution_turns": len(turns),
        "straight_wrong_branches": sum(cell in deg for cell in ahead),
    }


@st.composite
def _random_mazes(draw):
    h, w = draw(st.integers(1, 7)), draw(st.integers(2, 7))
    wall_share = draw(st.sampled_from([0.0, 0.2, 0.35, 0.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    grid = (np.random.default_rng(seed).random((h, w)) < wall_share).astype(np.uint8)
    cells = draw(st.lists(st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)),
                          min_size=2, max_size=2))
    for cell in cells:
        grid[cell] = 0
    return Maze(grid, cells[0], cells[1])


@settings(max_examples=150)
@given(_random_mazes())
def test_parameters_match_a_literal_reference(maze):
    assert parameters(maze) == pytest.approx(_reference(maze))


@settings(max_examples=80)
@given(_random_mazes())
def test_routes_are_walkable(maze):
    dist = distance_map(maze)
    if dist[maze.goal] < 0:
        return
    for route in (shortest_path(maze), dfs_path(maze, ("left", "up", "right", "down"))):
        assert tuple(route[0]) == maze.start and tuple(route[-1]) == maze.goal
        assert np.all(np.abs(np.diff(route, axis=0)).sum(1) == 1)
        assert np.all(maze.grid[route[:, 0], route[:, 1]] == 0)
        assert len({tuple(cell) for cell in route.tolist()}) == len(route)
    assert len(shortest_path(maze)) - 1 == dist[maze.goal]


@pytest.mark.parametrize("seed", range(12))
def test_braided_mazes_match_the_reference(seed):
    # large off-path components touching the path in many places: the pruned detour search
    from mazesim.generators import generate

    maze = generate("kruskal", (15, 21), seed=seed, braid=(0.3, 1.0)[seed % 2],
                    placement=("random", "farthest")[seed // 6])
    assert parameters(maze) == pytest.approx(_reference(maze))


def test_kernel_slots_follow_parameters():
    from mazesim.analysis import _kernels

    assert len(PARAMETERS) == _kernels.N_VALUES
    assert [getattr(_kernels, name.upper()) for name in PARAMETERS] == list(
        range(len(PARAMETERS)))
