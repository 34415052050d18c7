"""Merged decision trees (`decision_tree(..., merged=True)`): unfolded from the root the graph is
the tree node for node, and every node model gives the same values and probabilities on both
(random maps and experiment 1's 40); walks cut the same; every map of the replication, whose
trees pass any ceiling, builds."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from agent_mazes import mazes
from mazesim.agents import make_agent
from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import NODE_MODELS
from mazesim.agents.planners import planner_values
from mazesim.agents.trees import MAX_TREE_NODES, decision_tree
from mazesim.errors import AgentError
from mazesim.humans.data.sources import MST_MAZES, read_any_maze, read_mst_maze
from mazesim.walks import simulate
from mazesim.walks.nodes import NodeCutter

from tests.humans.mst_data import mst_folder, replication_mazes

GRID_MODELS = [name for name, model in NODE_MODELS.items() if hasattr(model, "grid")]


def unfolded(tree, graph) -> list[int]:
    """The graph node of each tree node, found by walking both from the root (children in
    order); asserts that each pair is the same node: cell, path, revealed, counts, children."""
    twin = [0] * len(tree)
    for k in range(len(tree)):
        a, b = tree.nodes[k], graph.nodes[twin[k]]
        assert (a.cell, a.path, a.revealed, a.distances, a.remaining, len(a.children)) == (
            b.cell, b.path, b.revealed, b.distances, b.remaining, len(b.children))
        for c, d in zip(a.children, b.children):
            twin[c] = d
    return twin


def check_same_models(tree, graph, twin, rng) -> None:
    """Planner values at random (gamma, beta) and every grid model's probabilities at random
    grid points: exactly the tree's at each tree node's twin."""
    plain, merged = decision_nodes({"t": tree}), decision_nodes({"t": graph})
    assert plain.size == len(tree.decisions())
    assert {int(merged.node_decision[twin[k]]) for k in tree.decisions()} == set(
        range(merged.size))
    gamma, beta = rng.random(4), rng.uniform(0.1, 2.0, 4)
    assert np.array_equal(planner_values(plain, gamma, beta),
                          planner_values(merged, gamma, beta)[twin])
    for name in GRID_MODELS:
        model = NODE_MODELS[name]
        points = {k: v[rng.integers(len(v), size=5)] for k, v in model.points().items()}
        p, q = (model.grid_probabilities(d, points) for d in (plain, merged))
        for d, k in enumerate(plain.decision_node.tolist()):
            e = merged.node_decision[twin[k]]
            assert np.array_equal(p[plain.start[d]:plain.start[d + 1]],
                                  q[merged.start[e]:merged.start[e + 1]]), name


@settings(max_examples=25)
@given(mazes(max_size=11), st.sampled_from(["sweep, map known", "1, map known"]),
       st.integers(0, 2**32 - 1))
def test_the_graph_unfolds_into_the_tree_with_the_same_values(maze, vision, seed):
    try:
        tree = decision_tree(maze, vision, max_nodes=3_000)
    except AgentError:
        assume(False)
    graph = decision_tree(maze, vision, merged=True)
    assert graph.merged and len(graph) <= len(tree) and graph.levels()
    check_same_models(tree, graph, unfolded(tree, graph), np.random.default_rng(seed))
    walk = simulate(maze, make_agent("du"), vision, seed)        # walked on the graph
    cells = [[(g.nodes[c.node].cell, g.nodes[c.chosen].cell) for c in NodeCutter(g).cut(
        walk.positions)] for g in (tree, graph)]
    assert cells[0] == cells[1]


def test_experiment_1_s_trees_and_their_graphs_give_the_same_values():
    """158 of the 690 nodes merge (4ways, 3ways_3 and their mirrors); every model is the
    tree's on all 40 maps."""
    rng = np.random.default_rng(0)
    sizes = []
    for path in sorted((mst_folder() / MST_MAZES).glob("*.txt")):
        maze = read_mst_maze(path)
        tree, graph = decision_tree(maze), decision_tree(maze, merged=True)
        check_same_models(tree, graph, unfolded(tree, graph), rng)
        sizes.append((len(tree), len(graph), len(graph.states())))
    assert np.sum(sizes, axis=0).tolist() == [690, 532, 397]


def test_states_share_their_children_and_merged_nodes_keep_the_first_way_found():
    maze = read_mst_maze(mst_folder() / MST_MAZES / "4ways.txt")
    graph = decision_tree(maze, merged=True)
    assert (len(graph), len(graph.states()), max(graph.levels())) == (97, 53, 5)
    for k, node in enumerate(graph.nodes):
        first = graph.nodes[graph.state[k]]
        assert node.children is first.children and node.cell == first.cell
        if k:
            parent = graph.nodes[node.parent]
            assert graph.state[node.parent] == node.parent and k in parent.children
            assert node.depth == parent.depth + 1
    data = graph.to_json()
    assert (data["merged"], data["states"]) == (True, 53)
    assert [n["state"] for n in data["nodes"]] == list(graph.state)
    with pytest.raises(AgentError, match="merged: 'yes' \\(allowed: true or false\\)"):
        decision_tree(maze, merged="yes")


def test_every_map_of_the_replication_builds_merged_within_its_ceilings():
    """The trees pass 50,000 nodes (map02 at once); the graphs hold at most 7,552 nodes
    (map24: 1,610 states). Their time, well under the issue's 2 s each, is a benchmark's
    (`benchmarks/bench_trees.py`): a timed test fails on a loaded machine."""
    files = replication_mazes()
    assert len(files) == 30
    with pytest.raises(AgentError, match="'map02': the tree passes 50,000 nodes .* merged "
                                         "graphs do not"):
        decision_tree(read_any_maze(files[1]))
    sizes = {}
    for path in files:
        graph = decision_tree(read_any_maze(path), merged=True)
        sizes[path.stem] = (len(graph), len(graph.states()))
        assert decision_nodes({"g": graph}).size > 0
    assert max(sizes.values()) == (7_552, 1_610) == sizes["map24"]
    assert sum(n for n, _ in sizes.values()) < MAX_TREE_NODES
    with pytest.raises(AgentError, match="decision graph of maze 'map24': the graph passes "
                                         "7,000 nodes"):
        decision_tree(read_any_maze(files[23]), max_nodes=7_000, merged=True)
