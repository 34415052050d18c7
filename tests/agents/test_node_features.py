import math

import numpy as np
import pytest

from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_features import (HORIZONS, NODE_FEATURES, child_features,
                                          observed_rows, walk_features)
from mazesim.agents.node_models import NodeLogit, node_model
from mazesim.agents.trees import decision_tree
from mazesim.errors import AgentError
from mazesim.maze import parse_maze

# S above a corridor that forks at (3, 3) into two arms (the exit at the end of the left one's
# drop): node 1 at (3, 3) is the one decision, children 2 (right, path (3, 4), (3, 5)) and 3
# (left, (3, 2), (3, 1)); each leads on to a last node at the other arm's end.
TREE = decision_tree(parse_maze("#######\n###S###\n###.###\n#.....#\n#.###.#\n#G###.#\n"
                                "#######"))
DECISIONS = decision_nodes({"t": TREE})
STRAIGHT = [(1, 3), (2, 3), (3, 3)]                     # down from S to the fork
BACK = [(1, 3), (2, 3), (3, 3), (3, 4), (3, 3)]          # a step right, and back


def test_the_tree_is_the_one_described():
    assert DECISIONS.size == 1 and TREE.nodes[DECISIONS.decision_node[0]].cell == (3, 3)
    assert [TREE.nodes[c].path[1:] for c in TREE.nodes[1].children] == [
        ((3, 4), (3, 5)), ((3, 2), (3, 1))]


def test_walk_features_of_hand_made_walks():
    revisit, reverse = walk_features(DECISIONS, np.array([0, 0]), [STRAIGHT, BACK])
    assert revisit.tolist() == [0.0, 0.0, 0.5, 0.0]     # (3, 4) walked: half the right arm
    assert reverse.tolist() == [0.0, 0.0, 1.0, 0.0]     # came back from (3, 4): right reverses


def test_child_features_are_the_planners_values_and_the_counts():
    x = child_features(DECISIONS, np.array([0]), [STRAIGHT])
    assert x.shape == (2, len(NODE_FEATURES))
    nodes = TREE.nodes
    for row, child in enumerate(nodes[1].children):
        below = nodes[nodes[child].children[0]]            # a leaf: p = 1, nothing after it
        d_child, d_below = np.mean(nodes[child].distances), np.mean(below.distances)
        p = nodes[child].cells / nodes[1].remaining         # 2 of the 4 dark cells left
        for g, gamma in enumerate(HORIZONS):
            value = nodes[child].steps + p * d_child + gamma * (1 - p) * (below.steps + d_below)
            assert x[row, g] == pytest.approx(-value, abs=1e-12)
        # 2 steps, 2 cells (log1p(2) may differ from log(3) in the last bit, by CPU)
        assert x[row, 5:7].tolist() == pytest.approx([math.log(2), math.log(3)], rel=1e-15)


def test_observed_rows_repeat_a_decision_s_children():
    start, rows = observed_rows(DECISIONS, np.array([0, 0, 0]))
    assert start.tolist() == [0, 2, 4, 6] and rows.tolist() == [0, 1, 0, 1, 0, 1]


def test_the_model_s_probabilities_are_a_softmax_of_the_features():
    model = node_model("node-choice")
    assert isinstance(model, NodeLogit) and model.features == NODE_FEATURES
    w = np.zeros(len(NODE_FEATURES))
    w[NODE_FEATURES.index("reverse")] = -math.log(3)       # reversing: odds 1 to 3
    p = model.probabilities(DECISIONS, np.array([0, 0]), [STRAIGHT, BACK], w)
    assert p == pytest.approx([0.5, 0.5, 0.25, 0.75], abs=1e-12)
    both = model.probabilities(DECISIONS, np.array([0, 0]), [STRAIGHT, BACK],
                               np.stack([np.zeros_like(w), w]))
    assert both == pytest.approx(p, abs=1e-12)
    small = NodeLogit("x", ("revisit",))
    assert small.feature_rows(DECISIONS, np.array([0]), [BACK]).tolist() == [[0.5], [0.0]]


@pytest.mark.parametrize("call, message", [
    (lambda: walk_features(DECISIONS, np.array([0]), [[(1, 3), (2, 3)]]),
     r"walks\[0\]: ends at \(2, 3\), not at its node's cell \(3, 3\)"),
    (lambda: walk_features(DECISIONS, np.array([0]), []),
     r"walks: 0 for 1 decisions"),
    (lambda: observed_rows(DECISIONS, np.array([1])),
     r"decision: 1 values \(allowed: integers from 0 to 0"),
    (lambda: NodeLogit("x", ("height",)), r"node model x: features \['height'\]"),
    (lambda: node_model("node-choice").probabilities(DECISIONS, np.array([0]), [STRAIGHT],
                                                     np.zeros(3)),
     r"node model node-choice: weights of shape \(3,\)"),
])
def test_errors_name_the_fault(call, message):
    with pytest.raises(AgentError, match=message):
        call()
