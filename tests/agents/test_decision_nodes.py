from dataclasses import replace

import numpy as np
import pytest

from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import NODE_MODELS
from mazesim.agents.trees import DecisionTree
from mazesim.errors import DataError
from mazesim.humans.peer.tables import read_peer_trees
from tests.agents.small_trees import CHAIN, FORK, tree
from tests.humans.mst_data import mst_folder


def test_the_layout_of_two_trees():
    d = decision_nodes({"fork": FORK, "chain": CHAIN})
    assert (d.size, d.rows, d.names) == (3, 6, ("fork", "chain"))
    assert d.base.tolist() == [0, 3, 8]
    assert d.decision_tree.tolist() == [0, 1, 1] and d.decision_node.tolist() == [0, 0, 1]
    assert d.start.tolist() == [0, 2, 4, 6]
    assert d.row_decision.tolist() == [0, 0, 1, 1, 2, 2]
    assert d.row_node.tolist() == [1, 2, 4, 5, 6, 7]
    assert d.steps.tolist() == [0, 2, 5, 0, 1, 4, 2, 3]
    assert d.cells.tolist() == [0, 2, 3, 0, 2, 6, 4, 4]
    assert d.mean_distance.tolist() == [0, 1.5, 2, 0, 2, 3, 2, 2]
    assert d.share.tolist() == [0, 0.4, 0.6, 0, 0.2, 0.6, 0.5, 0.5]
    assert d.parent.tolist() == [-1, 0, 0, -1, 3, 3, 4, 4]
    assert [level.tolist() for level in d.levels] == [[0, 3], [1, 2, 4, 5], [6, 7]]
    assert d.decision("chain", "n1") == 2
    assert [d.row("chain", "n1", c) for c in ("n3", "n4")] == [4, 5]
    with pytest.raises(ValueError):
        d.steps[0] = 1                                            # read-only


@pytest.mark.parametrize("call, message", [
    (lambda d: d.decision("maze", "n0"), r"unknown tree 'maze' \(1 trees\)"),
    (lambda d: d.decision("t", "n9"), "tree 't': node 'n9': no such node"),
    (lambda d: d.decision("t", "n3"), "tree 't': node 'n3': not a decision"),
    (lambda d: d.row("t", "n0", "n3"), r"tree 't': node 'n0': 'n3' is not one of its children "
                                       r"\(n1, n2\)"),
])
def test_lookups_name_what_is_missing(call, message):
    with pytest.raises(DataError, match=message):
        call(decision_nodes({"t": CHAIN}))


def test_nodes_in_any_order_give_the_same_values():
    # CHAIN with its leaves listed before their parent (the root stays first)
    order = [0, 3, 4, 1, 2]
    spec = [(-1, 0, ()), (0, 1, (1, 3)), (0, 4, (1, 2, 3, 3, 4, 5)), (1, 2, (1, 1, 2, 4)),
            (1, 3, (2, 2, 2, 2))]
    moved = [spec[k] for k in order]
    moved = [(order.index(p) if p >= 0 else -1, s, c) for p, s, c in moved]
    shuffled = tree(10, moved)
    d0, d1 = decision_nodes({"t": CHAIN}), decision_nodes({"t": shuffled})
    for name, params in [("pw-du", {"tau": 0.5, "gamma": 0.7, "beta": 0.3}),
                         ("steps-cells", {"tau": 1.0, "k": 0.4})]:
        p0 = NODE_MODELS[name].probabilities(d0, **params)
        p1 = NODE_MODELS[name].probabilities(d1, **params)
        for node, child in [(1, 3), (1, 4), (0, 1), (0, 2)]:
            moved_names = (f"n{order.index(node)}", f"n{order.index(child)}")
            assert p1[d1.row("t", *moved_names)] == pytest.approx(
                p0[d0.row("t", f"n{node}", f"n{child}")], abs=1e-15)


def test_a_node_not_below_the_root_is_a_bug():
    root, a, b = FORK.nodes
    broken = DecisionTree(FORK.maze, (replace(root, children=(1,)), a, b))   # b: no one's child
    with pytest.raises(ValueError, match="1 not below the root"):
        decision_nodes({"t": broken})
    with pytest.raises(DataError, match="no decision trees"):
        decision_nodes({})


def test_the_authors_trees():
    trees = read_peer_trees(mst_folder() / "peer", mst_folder() / "mazes")
    d = decision_nodes(trees)
    assert (len(d.names), d.size, d.rows, len(d.share)) == (40, 171, 388, 690)
    child = d.parent >= 0
    left = np.array([node.remaining for t in d.trees for node in t.nodes], dtype=float)
    assert d.share[child] == pytest.approx(d.cells[child] / left[d.parent[child]])
    assert np.all((d.share[child] > 0) & (d.share[child] <= 1))
    assert np.all(d.share[~child] == 0)
