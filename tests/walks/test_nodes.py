"""A walk on a decision tree (`mazesim.walks.nodes`): hand-made walks node for node, properties
of random walks, and every person's nodes of experiment 1 against the authors' table
(`subject_decisions_with_values.csv`)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from mazesim import make_agent, simulate
from mazesim.agents.trees import dark_floor, decision_tree
from mazesim.agents.vision import seen_cells
from mazesim.errors import AgentError
from mazesim.generators import generate
from mazesim.humans.peer.tables import read_peer_decisions, read_peer_trees
from mazesim.humans.data.sources import MST_MAZES, parse_mst_maze, read_mst
from mazesim.maze import parse_maze
from mazesim.walks.nodes import NodeChoice, NodeCutter, node_choices

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
# The tree (tests/agents/test_trees.py): 0 S (1, 3); 1 the fork (3, 3); 2 (3, 5) and 3 (3, 1),
# its children; 4 (3, 1) after (3, 5); 5 (3, 5) after (3, 1). G (5, 1) shows from (3, 1).
DOWN = [(1, 3), (2, 3), (3, 3)]


@pytest.fixture(scope="module")
def fork_tree():
    return decision_tree(FORK)


def test_a_walk_straight_to_the_exit(fork_tree):
    walk = DOWN + [(3, 2), (3, 1), (4, 1), (5, 1)]
    assert node_choices(fork_tree, walk) == (NodeChoice(0, (1,), 1, 0, 2),
                                             NodeChoice(1, (2, 3), 3, 2, 4))
    assert [c.is_decision for c in node_choices(fork_tree, walk)] == [False, True]
    assert node_choices(fork_tree, walk)[1].choice == 1


def test_the_cut_stops_where_the_exit_is_observed_not_where_it_is_reached(fork_tree):
    walk = DOWN + [(3, 2), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5)]
    assert [c.chosen for c in node_choices(fork_tree, walk)] == [1, 3]


def test_wandering_and_going_back_through_the_parent(fork_tree):
    """Back and forth in the corridor is no node; from (3, 5) back past the fork to (3, 1) is
    the child 4 of node 2, walked in 4 steps as the tree's path is."""
    walk = [(1, 3), (2, 3), (1, 3), (2, 3), (3, 3), (3, 4), (3, 5), (4, 5), (5, 5), (4, 5),
            (3, 5), (3, 4), (3, 3), (3, 2), (3, 1)]
    assert node_choices(fork_tree, walk) == (NodeChoice(0, (1,), 1, 0, 4),
                                             NodeChoice(1, (2, 3), 2, 4, 6),
                                             NodeChoice(2, (4,), 4, 6, 14))


def test_a_walk_that_stops_early_ends_at_its_last_node(fork_tree):
    assert node_choices(fork_tree, DOWN + [(3, 4)]) == (NodeChoice(0, (1,), 1, 0, 2),)
    assert node_choices(fork_tree, [(1, 3)]) == ()


def test_nothing_to_cut_when_the_start_shows_the_exit():
    corridor = parse_maze("#####\n#S.G#\n#####")
    assert node_choices(decision_tree(corridor), [(1, 1), (1, 2), (1, 3)]) == ()
    lit = parse_mst_maze("4\n3\n3333\n5662\n3003\n", "lit-exit")   # the exit seen from S
    assert node_choices(decision_tree(lit), [(1, 0), (1, 1), (1, 2), (1, 3)]) == ()


def test_a_child_the_first_child_already_showed_is_passed_without_a_node():
    """On the ring both ends see only the exit: reaching one, the cut ends; the other end is
    never a node of the first."""
    tree = decision_tree(parse_mst_maze("3\n3\n665\n636\n626\n", "ring"))
    walk = [(0, 2), (1, 2), (2, 2)]
    assert node_choices(tree, walk) == (NodeChoice(0, (1, 2), 1, 0, 2),)


@pytest.mark.parametrize("walk, message", [
    ([(2, 3)], r"positions\[0\]: starts at \(2, 3\), not at S \(1, 3\)"),
    ([(1, 3), (3, 3)], r"positions\[1\]: \(3, 3\) is not next to \(1, 3\)"),
    ([(1, 3), (1, 2)], r"positions\[1\]: \(1, 2\) is a wall"),
    ([[1, 3, 0]], r"positions: shape \(1, 3\)"),
])
def test_bad_walks_are_refused(fork_tree, walk, message):
    with pytest.raises(AgentError, match=message):
        node_choices(fork_tree, walk)


@st.composite
def walks(draw):
    """A random walk on a small generated maze whose tree is small, and the tree."""
    size = draw(st.sampled_from([(5, 5), (5, 7), (7, 7), (7, 9), (9, 9)]))
    maze = generate(draw(st.sampled_from(["digging", "prim", "kruskal"])), size,
                    seed=draw(st.integers(0, 10_000)),
                    braid=draw(st.sampled_from([0.0, 0.5])), placement="random")
    try:
        tree = decision_tree(maze, max_nodes=2_000)
    except AgentError:
        assume(False)
    walk = simulate(maze, make_agent("random-walk"), "full", seed=draw(st.integers(0, 99)))
    return maze, tree, walk.positions


@settings(max_examples=40)
@given(walks())
def test_properties_of_the_cut_of_random_walks(drawn):
    maze, tree, positions = drawn
    choices = node_choices(tree, positions)
    dark = dark_floor(maze)
    node, at = 0, 0
    for c in choices:
        assert (c.node, c.arrived) == (node, at)
        assert c.children == tree.nodes[c.node].children and c.chosen in c.children
        assert tuple(positions[c.arrived]) == tree.nodes[c.node].cell
        assert tuple(positions[c.reached]) == tree.nodes[c.chosen].cell
        cells = {tree.nodes[k].cell for k in c.children}
        between = [tuple(p) for p in positions[c.arrived + 1:c.reached].tolist()]
        assert not cells & set(between)                      # the first child cell reached
        left = dark.copy()                                     # nothing new on the way
        k = c.node
        while k >= 0:
            for cell in tree.nodes[k].revealed:
                left[cell] = False
            k = tree.nodes[k].parent
        if between:
            assert not (seen_cells(maze, between, "sweep, map known") & left).any()
        node, at = c.chosen, c.reached
    last = tree.nodes[node]             # the walk goes on to G: the cut ends where G shows
    assert maze.goal in last.revealed or (node == 0 and not dark[maze.goal])
    assert maze.goal not in set().union(*(tree.nodes[c.node].revealed for c in choices))


def branch(tree, k):
    cells = []
    while k >= 0:
        cells.append(tree.nodes[k].cell)
        k = tree.nodes[k].parent
    return tuple(reversed(cells))


@pytest.fixture(scope="module")
def experiment_1_nodes():
    """Each person's first walk of each map cut on our trees (as the authors keep one walk per
    person and map), by (subject, map): [(node, children, chosen)] as branches from the root."""
    source = read_mst(mst_folder())
    cutters = {name: NodeCutter(decision_tree(maze)) for name, maze in source.mazes.items()}
    out = {}
    for rec in source.recordings:
        key = (rec.participant, rec.maze)
        if key in out:
            continue
        tree = cutters[rec.maze].tree
        out[key] = [(branch(tree, c.node), frozenset(branch(tree, k) for k in c.children),
                     branch(tree, c.chosen)) for c in cutters[rec.maze].cut(rec.positions)]
    return out, len(source.recordings)


def test_every_person_s_nodes_of_experiment_1_are_the_authors(experiment_1_nodes):
    """The authors' table, person by person and map by map: the same nodes in the same order,
    the same children on offer (their table lists them in another order at 88 nodes) and the
    same child taken. 22 later walks of a map a person had walked before are not theirs."""
    ours, walks = experiment_1_nodes
    folder = mst_folder()
    trees = read_peer_trees(folder / "peer", folder / MST_MAZES)
    theirs = defaultdict(list)
    for row in read_peer_decisions(folder / "peer"):
        tree = trees[row.world]
        theirs[(row.subject, row.world)].append((
            branch(tree, tree.index[row.node]),
            frozenset(branch(tree, tree.index[c]) for c in row.children),
            branch(tree, tree.index[row.chosen])))
    assert walks - len(ours) == 22
    assert set(ours) == set(theirs) and len(ours) == 4_736
    assert [key for key in ours if ours[key] != theirs[key]] == []
    nodes = [n for walk in ours.values() for n in walk]
    assert (len(nodes), sum(len(children) >= 2 for _, children, _ in nodes)) == (8_309, 6_126)
    assert len({subject for subject, _ in ours}) == 119
