"""Decision trees of observation nodes (`mazesim.agents.trees`): hand-made maps node for node,
the authors' trees of experiment 1 (`tree_builder.csv`) on all 40 maps, a transcription of
the authors' builder (`authors_port`) on random small maps, properties on generated mazes,
other visions, the ceilings."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from agent_mazes import mazes
from authors_port import TooManyPaths, authors_tree, codes
from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.trees import (MAX_TREE_NODES, DecisionTree, dark_floor, decision_tree,
                                  maze_name)
from mazesim.agents.vision import SEEN_AT_START, Vision, parse_vision, seen_cells, sweep
from mazesim.analysis import distance_map
from mazesim.errors import AgentError
from mazesim.generators import generate
from mazesim.humans.peer.tables import read_peer_trees
from mazesim.humans.data.sources import MST_MAZES, parse_mst_maze, read_mst_maze
from mazesim.maze import Maze, parse_maze

from tests.humans.mst_data import mst_folder

FORK = parse_maze("""
#######
###S###
###.###
#.....#
#.###.#
#G###.#
#######
""")


def branch(tree: DecisionTree, k: int) -> tuple:
    """The cells of the nodes from the root to node k: a node's name that survives numbering."""
    cells = []
    while k >= 0:
        cells.append(tree.nodes[k].cell)
        k = tree.nodes[k].parent
    return tuple(reversed(cells))


def fields(node):
    return (node.cell, node.parent, node.path, node.steps, node.cells, node.distances,
            node.remaining, node.depth, node.steps_from_root, node.children)


def test_a_fork_node_for_node():
    tree = decision_tree(FORK)
    assert [fields(n) for n in tree.nodes] == [
        ((1, 3), -1, (), 0, 2, (1, 2), 8, 0, 0, (1,)),
        ((3, 3), 0, ((1, 3), (2, 3), (3, 3)), 2, 4, (1, 1, 2, 2), 4, 1, 2, (2, 3)),
        ((3, 5), 1, ((3, 3), (3, 4), (3, 5)), 2, 2, (1, 2), 2, 2, 4, (4,)),   # right first
        ((3, 1), 1, ((3, 3), (3, 2), (3, 1)), 2, 2, (1, 2), 2, 2, 4, (5,)),
        ((3, 1), 2, ((3, 5), (3, 4), (3, 3), (3, 2), (3, 1)), 4, 2, (1, 2), 0, 3, 8, ()),
        ((3, 5), 3, ((3, 1), (3, 2), (3, 3), (3, 4), (3, 5)), 4, 2, (1, 2), 0, 3, 8, ())]
    assert tree.nodes[0].revealed == ((2, 3), (3, 3))
    assert tree.nodes[1].revealed == ((3, 1), (3, 2), (3, 4), (3, 5))
    assert tree.decisions() == [1] and tree.vision == "sweep, map known"
    assert [n.name for n in tree.nodes] == ["0", "1", "2", "3", "4", "5"]
    assert tree.index["3"] == 3


def test_remaining_counts_the_dark_cells_left_after_each_observation():
    """10 dark cells; the root reveals 2: 8 left, then 4, 2 and none on each branch."""
    tree = decision_tree(FORK)
    assert int(dark_floor(FORK).sum()) == 10
    assert [n.remaining for n in tree.nodes] == [8, 4, 2, 2, 0, 0]


# A loop around a pillar below S (codes: 3 wall, 0 dark, 6 lit, 5 S, 2 the exit).
LOOP = "5\n7\n33333\n36563\n30303\n30003\n33033\n33233\n33333\n"


def test_on_a_loop_children_are_found_right_first_and_a_child_may_lie_behind_the_parent():
    tree = decision_tree(parse_mst_maze(LOOP, "loop"))
    assert [fields(n) for n in tree.nodes[:5]] == [
        ((1, 2), -1, (), 0, 0, (), 7, 0, 0, (1, 2)),          # S sees only lit floor
        ((1, 3), 0, ((1, 2), (1, 3)), 1, 2, (1, 2), 5, 1, 1, (3, 4)),
        ((1, 1), 0, ((1, 2), (1, 1)), 1, 2, (1, 2), 5, 1, 1, (5, 6)),
        ((1, 1), 1, ((1, 3), (1, 2), (1, 1)), 2, 2, (1, 2), 3, 2, 3, (7, 8)),  # back past S
        ((3, 3), 1, ((1, 3), (2, 3), (3, 3)), 2, 2, (1, 2), 3, 2, 3, (9, 10))]
    assert [tree.nodes[k].revealed for k in (1, 3, 4)] == [
        ((2, 3), (3, 3)), ((2, 1), (3, 1)), ((3, 1), (3, 2))]
    # after (3, 3) has shown (3, 1), going on to (3, 1) from (1, 1) reveals only (3, 2)
    assert (tree.nodes[7].cell, tree.nodes[7].revealed) == ((3, 1), ((3, 2),))
    assert len(tree) == 25 and len(tree.decisions()) == 9


def test_cells_that_see_the_same_new_cells_are_children_of_their_own():
    """Both ends of the ring see the exit (2, 1), and nothing else: two children."""
    tree = decision_tree(parse_mst_maze("3\n3\n665\n636\n626\n", "ring"))
    assert [fields(n) for n in tree.nodes] == [
        ((0, 2), -1, (), 0, 0, (), 1, 0, 0, (1, 2)),
        ((2, 2), 0, ((0, 2), (1, 2), (2, 2)), 2, 1, (1,), 0, 1, 2, ()),
        ((2, 0), 0, ((0, 2), (0, 1), (0, 0), (1, 0), (2, 0)), 4, 1, (1,), 0, 1, 4, ())]


def test_a_map_without_dark_floor_is_one_node_and_a_start_that_sees_all_is_one_node():
    lit = parse_mst_maze("3\n1\n562\n", "line")
    assert [fields(n) for n in decision_tree(lit).nodes] == [
        ((0, 0), -1, (), 0, 1, (2,), 0, 0, 0, ())]
    room = parse_maze("#####\n#S.G#\n#####")
    tree = decision_tree(room)
    assert len(tree) == 1 and tree.nodes[0].revealed == ((1, 2), (1, 3))


@pytest.fixture(scope="module")
def experiment_1_maps():
    folder = mst_folder() / MST_MAZES
    return {path.stem: read_mst_maze(path) for path in sorted(folder.glob("*.txt"))}


@pytest.fixture(scope="module")
def peer_trees():
    folder = mst_folder()
    return read_peer_trees(folder / "peer", folder / MST_MAZES)


def test_equal_to_the_authors_trees_on_all_40_maps(experiment_1_maps, peer_trees):
    """tree_builder.csv: positions, parents, paths, S, N, blackremains, cellDistances, depth,
    stepsFromRoot of every node, matched by the branch from the root (and in the same order)."""
    assert len(peer_trees) == 40
    nodes = 0
    for name, theirs in peer_trees.items():
        ours = decision_tree(experiment_1_maps[name])
        assert len(ours) == len(theirs), name
        by_branch = {branch(theirs, k): node for k, node in enumerate(theirs.nodes)}
        assert len(by_branch) == len(theirs)
        for k, node in enumerate(ours.nodes):
            twin = by_branch[branch(ours, k)]
            assert (node.cell, node.path, node.steps, node.cells, node.distances,
                    node.remaining, node.depth, node.steps_from_root) == (
                twin.cell, twin.path, twin.steps, twin.cells, twin.distances, twin.remaining,
                twin.depth, twin.steps_from_root), (name, k)
            assert {branch(ours, c) for c in node.children} == {
                branch(theirs, c) for c in twin.children}
        assert [branch(ours, k) for k in range(len(ours))] == [
            branch(theirs, k) for k in range(len(theirs))]         # the table's order too
        nodes += len(ours)
    assert nodes == 690


def test_the_node_models_read_the_same_decisions_off_our_trees(experiment_1_maps, peer_trees):
    """What the planners value (`decision_nodes`): the same flat arrays from our 40 trees as
    from the authors' (in the same order)."""
    ours = decision_nodes({name: decision_tree(experiment_1_maps[name]) for name in peer_trees})
    theirs = decision_nodes(peer_trees)
    for field in ("decision_tree", "decision_node", "start", "row_node", "steps", "cells",
                  "mean_distance", "share", "parent"):
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field
    assert ours.size == theirs.size == 171


@st.composite
def small_maps(draw):
    """Random 0/1 grids of 1..5 x 1..6, a start on floor, some floor lit."""
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = (rng.random((h, w)) < draw(st.sampled_from([0.2, 0.35, 0.5]))).astype(np.uint8)
    start = (int(rng.integers(h)), int(rng.integers(w)))
    grid[start] = 0
    lit = (rng.random((h, w)) < draw(st.sampled_from([0.0, 0.3]))) & (grid == 0)
    lit[start] = False
    return grid, start, lit


@settings(max_examples=150)
@given(small_maps())
def test_equal_to_the_authors_builder_transcribed_on_random_maps(drawn):
    grid, start, lit = drawn
    goal = next((tuple(map(int, c)) for c in np.argwhere((grid == 0) & ~lit) if tuple(c) != start),
                start)
    maze = Maze(grid, start, goal, meta={SEEN_AT_START: np.argwhere(lit).tolist()})
    try:
        theirs = authors_tree(codes(grid, start, lit))
    except TooManyPaths:
        assume(False)
    ours = decision_tree(maze)
    assert len(ours) == len(theirs)
    root_seen = len(theirs[0]["observed"])
    for node, twin in zip(ours.nodes, theirs):
        assert node.cell == twin["pos"] and node.path == tuple(twin["path"])
        assert node.parent == (-1 if twin["parent"] is None else twin["parent"])
        assert set(node.revealed) == twin["observed"]
        # the one difference: the authors' count keeps the cells the start sees as dark
        assert node.remaining == twin["remains"] - root_seen


def reachable(maze):
    return distance_map(maze) >= 0


def check_tree(maze, tree, vision):
    """The properties every tree has, whatever the maze and vision."""
    dark = dark_floor(maze)
    sight = {tuple(c): seen_cells(Maze(maze.grid, tuple(c), maze.goal), [tuple(c)], vision)
             for c in np.argwhere(maze.grid == 0).tolist()}
    left = [None] * len(tree)
    for k, node in enumerate(tree.nodes):
        if node.parent < 0:
            assert node.cell == maze.start and node.path == ()
            dark_here = dark.copy()
        else:
            dark_here = left[node.parent].copy()
            path = np.array(node.path)
            parent = tree.nodes[node.parent]
            assert node.path[0] == parent.cell and node.path[-1] == node.cell
            assert (np.abs(np.diff(path, axis=0)).sum(axis=1) == 1).all()
            assert len(set(node.path)) == len(node.path)              # simple
            assert all(maze.grid[c] == 0 for c in node.path)           # over floor
            assert not any((sight[c] & dark_here).any() for c in node.path[1:-1])
            assert node.remaining == parent.remaining - node.cells
            assert node.steps_from_root == parent.steps_from_root + node.steps
            assert node.depth == parent.depth + 1
        new = sight[node.cell] & dark_here
        assert node.revealed == tuple(map(tuple, np.argwhere(new).tolist()))
        assert node.distances == tuple(sorted(abs(r - node.cell[0]) + abs(c - node.cell[1])
                                              for r, c in node.revealed))
        dark_here &= ~new
        left[k] = dark_here
        assert len({tree.nodes[c].cell for c in node.children}) == len(node.children)
        if not node.children:                       # a leaf: every reachable dark cell shown
            assert not (dark_here & reachable(maze)).any()
            union = dark & ~dark_here
            everything = np.zeros(maze.shape, bool)
            for cell in np.argwhere(reachable(maze)).tolist():
                everything |= sight[tuple(cell)]
            assert np.array_equal(union, dark & everything)
    assert tree.nodes[0].remaining == int(dark.sum()) - tree.nodes[0].cells


@settings(max_examples=40)
@given(mazes(max_size=9), st.sampled_from(["sweep, map known", "isovist 3, map known",
                                           {"window": 1, "map": "known"},
                                           {"window": 2, "occlusion": True, "map": "known"}]))
def test_properties_on_generated_mazes(maze, vision):
    try:
        tree = decision_tree(maze, vision, max_nodes=3_000)
    except AgentError as err:
        assert "passes 3,000 nodes" in str(err)
        assume(False)
    assert tree.vision == str(parse_vision(vision))
    check_tree(maze, tree, vision)


def test_trees_under_windows_see_by_the_window():
    """A window of 2 sees both arms of the fork from the corridor: no decision is left; a
    window of 1 sees one cell ahead, and every arm is a choice."""
    wide = decision_tree(FORK, {"window": 2, "map": "known"})
    assert [(n.cell, n.parent, n.revealed) for n in wide.nodes] == [
        ((1, 3), -1, ((2, 3), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5))),
        ((2, 3), 0, ((4, 1), (4, 5))),
        ((3, 3), 1, ((5, 1), (5, 5)))]
    assert wide.decisions() == [] and wide.vision == "2, map known"
    narrow = decision_tree(FORK, {"window": 1, "map": "known"})
    check_tree(FORK, narrow, "1, map known")
    assert (len(narrow), narrow.decisions()) == (20, [1, 2, 3, 5, 6])
    assert decision_tree(FORK, "isovist 10, map known").vision == "isovist 10, map known"


@pytest.mark.parametrize("vision, message", [
    ("full", "'full' sees everything from the start"),
    ({"sweep": True}, "'sweep' leaves the map unknown"),
    (2, "'2' leaves the map unknown"),
    ({"window": 2, "memory": False, "map": "known"}, "'2, no memory, map known' forgets"),
])
def test_visions_without_a_tree_are_refused_in_one_line(vision, message):
    with pytest.raises(AgentError, match=f"vision: {message}.*allowed: a limited vision with "
                                         "map: known and memory"):
        decision_tree(FORK, vision)


PILLARS = "9\n9\n" + "030303030\n000000000\n" * 4 + "000050002\n"
"""A room of pillars: each step shows a little; its tree passes any ceiling."""


def test_a_tree_passing_the_ceiling_is_one_error_naming_the_maze():
    with pytest.raises(AgentError, match=r"^decision tree of maze 'pillars': the tree passes "
                                         f"{MAX_TREE_NODES:,} nodes \\(the ceiling; allowed: "
                                         f"max_nodes up to {MAX_TREE_NODES:,}"):
        decision_tree(parse_mst_maze(PILLARS, "pillars"))
    with pytest.raises(AgentError, match="decision tree of maze '7x7': the tree passes 5 nodes"):
        decision_tree(FORK, max_nodes=5)
    assert len(decision_tree(FORK, max_nodes=6)) == 6


def test_the_views_of_a_big_maze_are_refused_before_any_tree_and_wide_views_are_clipped():
    big = generate("digging", (301, 301), seed=1)
    with pytest.raises(AgentError, match=r"decision tree of maze '301x301': the views from its "
                                         r"floor cells pass 200,000,000 cells of work"):
        decision_tree(big, "isovist 10, map known")
    assert len(decision_tree(FORK, {"window": 10_000, "map": "known"})) == 1


@pytest.mark.parametrize("value", [0, -1, MAX_TREE_NODES + 1, 2.5, True])
def test_max_nodes_is_checked(value):
    with pytest.raises(AgentError, match=r"max_nodes: .* \(allowed: an integer from 1 to"):
        decision_tree(FORK, max_nodes=value)


def test_to_json_lists_every_node():
    tree = decision_tree(FORK)
    data = json.loads(json.dumps(tree.to_json()))
    assert data["decisions"] == 1 and data["vision"] == "sweep, map known"
    assert data["maze"] == "7x7" == maze_name(FORK)
    assert data["nodes"][0] == {"index": 0, "name": "0", "cell": [1, 3], "parent": None,
                                "depth": 0, "steps": 0, "steps_from_root": 0, "path": [],
                                "cells": 2, "revealed": [[2, 3], [3, 3]], "remaining": 8,
                                "children": [1]}
    assert [n["parent"] for n in data["nodes"]] == [None, 0, 1, 1, 2, 3]


def test_the_sweep_tree_of_a_map_is_the_sweep_s():
    """Each node's revealed cells are what the sweep from its cell sees still dark."""
    maze = FORK
    tree = decision_tree(maze)
    dark = dark_floor(maze)
    assert set(tree.nodes[0].revealed) == {tuple(c) for c in np.argwhere(
        sweep(maze.grid, maze.start) & dark).tolist()}


@pytest.mark.parametrize("vision", ["sweep", "window"])
def test_an_open_room_is_refused_before_its_sight_table_is_allocated(vision):
    """Issue 33, point 15: an open 151x151 room took 2.98 GB before the work ceiling refused
    it. The table's work is counted first; a refusal returns with nothing allocated."""
    from mazesim.agents import _tree_kernels
    from mazesim.agents._vision_kernels import WINDOW_VIEW

    grid = np.zeros((41, 41), np.uint8)
    floor = np.argwhere(grid == 0)
    dark_id = np.arange(grid.size, dtype=np.int64).reshape(grid.shape)
    table = (_tree_kernels.sweep_table(grid, floor, dark_id, 10_000) if vision == "sweep"
             else _tree_kernels.view_table(grid, floor, dark_id, WINDOW_VIEW, 40, False,
                                           10_000))
    first, seen, status = table
    assert status == _tree_kernels.TOO_MUCH_WORK and len(seen) == 0
    first, seen, status = _tree_kernels.sweep_table(grid, floor, dark_id, 10**9)
    assert status == _tree_kernels.OK and first[-1] == len(seen) == grid.size ** 2
    assert seen.dtype == np.int32 and sorted(seen[first[5]:first[6]]) == list(range(grid.size))


def test_a_view_wider_than_the_map_is_the_map_s_width():
    """Issue 33, point 18: isovist=10000 on a 6x7 map hit the work ceiling, although a wider
    view only sees everything."""
    maze = parse_maze("#######\n#S....#\n#.###.#\n#.#...#\n#...#G#\n#######\n")
    wide = decision_tree(maze, {"isovist": 10_000, "map": "known"})
    narrow = decision_tree(maze, {"isovist": 7, "map": "known"})
    assert [(n.cell, n.parent, n.revealed) for n in wide.nodes] == [
        (n.cell, n.parent, n.revealed) for n in narrow.nodes]
