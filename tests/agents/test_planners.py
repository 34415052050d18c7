import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import NODE_MODELS
from mazesim.agents.planners import (heuristic_probabilities, planner_probabilities,
                                     planner_values, prelec, uniform_probabilities)
from mazesim.humans.peer.tables import PEER_MODELS, read_peer_trees, read_peer_values
from tests.agents.small_trees import CHAIN, FORK, tree
from tests.humans.mst_data import mst_folder

PRINTED = 5e-5 + 1e-12          # the authors' tables print 4 decimals
TARGET = 1e-3                   # the tolerance


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def one(name: str, t=FORK, **params) -> np.ndarray:
    return NODE_MODELS[name].probabilities(decision_nodes({"t": t}), **params)


def test_two_leaves_by_hand():
    # V(a) = 2 + 0.4 * 1.5 = 2.6, V(b) = 5 + 0.6 * 2 = 6.2 (leaves: nothing beyond)
    p = one("eu", tau=1.0)
    assert p == pytest.approx([sigmoid(3.6), 1 - sigmoid(3.6)], abs=1e-12)
    w = lambda q: math.exp(-math.sqrt(-math.log(q)))          # Prelec, beta = 0.5
    va, vb = 2 + w(0.4) * 1.5, 5 + w(0.6) * 2
    assert one("pw", tau=0.5, beta=0.5)[0] == pytest.approx(sigmoid((vb - va) / 0.5), abs=1e-12)


def test_a_chain_by_hand():
    # V(c) = 2 + 0.5 * 2 = 3, V(e) = 3 + 0.5 * 2 = 4; V(a) = 1 + 0.2 * 2 + 0.5 * 0.8 * 3 = 2.6;
    # V(b) = 4 + 0.6 * 3 = 5.8. Rows: the root's a, b, then a's c, e.
    p = one("du", CHAIN, tau=2.0, gamma=0.5)
    assert p == pytest.approx([sigmoid(3.2 / 2), 1 - sigmoid(3.2 / 2), sigmoid(0.5),
                               1 - sigmoid(0.5)], abs=1e-12)
    w = lambda q: math.exp(-math.log(q) ** 2)                 # beta = 2
    vc, ve = 2 + w(0.5) * 2, 3 + w(0.5) * 2
    va, vb = 1 + w(0.2) * 2 + 0.5 * w(0.8) * vc, 4 + w(0.6) * 3
    p = one("pw-du", CHAIN, tau=0.7, gamma=0.5, beta=2.0)
    assert p == pytest.approx([sigmoid((vb - va) / 0.7), 1 - sigmoid((vb - va) / 0.7),
                               sigmoid((ve - vc) / 0.7), 1 - sigmoid((ve - vc) / 0.7)],
                              abs=1e-12)


def test_a_node_that_reveals_nothing_passes_on_what_lies_beyond():
    # Of 8 dark cells, x (3 steps) reveals none: p = 0, d = 0, so
    # V(x) = 3 + gamma * w(1) * min(V(y), V(z)); its children y (1 step, 2 cells at 1, 1) and
    # z (2 steps, 2 cells at 2, 2) have p = 2 / 8; x's sibling w (2 steps, 4 cells at 1) 4 / 8.
    t = tree(8, [(-1, 0, ()), (0, 3, ()), (0, 2, (1, 1, 1, 1)), (1, 1, (1, 1)), (1, 2, (2, 2))])
    vy, vz = 1 + 0.25 * 1, 2 + 0.25 * 2
    vx, vw = 3 + 0.5 * min(vy, vz), 2 + 0.5 * 1
    p = one("du", t, tau=1.0, gamma=0.5)
    assert p == pytest.approx([sigmoid(vw - vx), 1 - sigmoid(vw - vx),
                               sigmoid(vz - vy), 1 - sigmoid(vz - vy)], abs=1e-12)


def test_equal_values_share_equally_and_the_heuristics_by_hand():
    twins = tree(4, [(-1, 0, ()), (0, 2, (1, 1)), (0, 2, (1, 1))])
    for name, params in [("eu", {"tau": 0.2}), ("pw-du", {"tau": 0.2, "gamma": 0.3,
                                                          "beta": 0.1})]:
        assert one(name, twins, **params) == pytest.approx([0.5, 0.5], abs=1e-15)
    # steps-cells, k = 0.3: V(a) = 0.6 - 1.4 = -0.8, V(b) = 1.5 - 2.1 = -0.6
    assert one("steps-cells", tau=0.5, k=0.3)[0] == pytest.approx(sigmoid(0.4), abs=1e-12)
    assert one("steps", tau=1.0)[0] == pytest.approx(sigmoid(3.0), abs=1e-12)     # 2 vs 5
    assert one("cells", tau=1.0)[0] == pytest.approx(sigmoid(-1.0), abs=1e-12)    # 2 vs 3
    assert one("random")[0] == 0.5 and one("random", CHAIN).tolist() == [0.5] * 4


def test_prelec_weighting():
    p = np.array([0.0, 0.1, 0.5, 1.0])
    assert prelec(p, 1.0) == pytest.approx(p, abs=1e-15)
    w = prelec(p[:, None], np.array([0.1, 0.5, 2.0]))
    assert w[0].tolist() == [0, 0, 0] and w[-1].tolist() == [1, 1, 1]
    assert w[1] == pytest.approx(np.exp(-np.log(10.0) ** np.array([0.1, 0.5, 2.0])))


def test_values_of_every_node_and_a_grid_of_pairs():
    d = decision_nodes({"t": CHAIN})
    v = planner_values(d, np.array([0.5, 0.0]), np.array([1.0, 1.0]))
    assert v[1:, 0] == pytest.approx([2.6, 5.8, 3.0, 4.0])
    assert v[1:, 1] == pytest.approx([1.4, 5.8, 3.0, 4.0])            # gamma 0: no future


specs = st.lists(st.tuples(st.integers(0, 9), st.lists(st.integers(1, 9), max_size=4)),
                 min_size=2, max_size=12)


@given(specs, st.floats(0.2, 8.0), st.floats(0.0, 1.0), st.floats(0.1, 2.0))
def test_probabilities_are_a_distribution_at_every_decision(spec, tau, gamma, beta):
    rows = [(-1, 0, ())]
    for k, (steps, distances) in enumerate(spec):
        rows.append((k // 3, steps, tuple(distances) or (1,)))   # up to three children each
    dark = sum(len(r[2]) for r in rows)
    d = decision_nodes({"t": tree(dark, rows)})          # the root has 2 or 3 children
    for p in (planner_probabilities(d, tau, gamma, beta), heuristic_probabilities(d, tau, gamma),
              uniform_probabilities(d)):
        assert np.all((p > 0) & (p <= 1))
        assert np.add.reduceat(p[:, 0], d.start[:-1]) == pytest.approx(np.ones(d.size))


@pytest.fixture(scope="module")
def authors():
    peer = mst_folder() / "peer"
    return peer, decision_nodes(read_peer_trees(peer, mst_folder() / "mazes"))


@pytest.mark.parametrize("model", list(PEER_MODELS))
def test_every_value_table_of_the_authors(authors, model):
    """Every node, child and grid point of `values/MODEL.csv`, to the table's 4 decimals."""
    peer, d = authors
    table = read_peer_values(peer, model)
    spec = NODE_MODELS[model]
    for key, value in spec.fixed.items():                  # their columns carry fixed values
        assert np.all(table.grid[key] == value)
    points = {p.name: table.grid[p.name] for p in spec.params}
    ours = spec.grid_probabilities(d, points)
    rows = [d.row(w, n, c) for w, n, c in zip(table.world, table.node, table.child)]
    assert sorted(rows) == list(range(d.rows))             # the table covers every child
    gap = np.abs(ours[rows] - table.probabilities)
    assert gap.max() <= TARGET
    assert gap.max() <= PRINTED
