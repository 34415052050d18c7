import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim.agents.base import LOG
from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import NODE_MODELS, NodeLogit, NodeModel, node_model
from mazesim.agents.planners import uniform_probabilities
from mazesim.errors import AgentError
from mazesim.humans.peer.tables import PEER_MODELS, read_peer_trees, read_peer_values
from tests.agents.small_trees import CHAIN
from tests.humans.mst_data import mst_folder

CHAIN_DECISIONS = decision_nodes({"t": CHAIN})
GRID_MODELS = [m for m in NODE_MODELS if isinstance(NODE_MODELS[m], NodeModel)]


def test_the_registry():
    assert list(NODE_MODELS) == ["eu", "du", "pw", "pw-du", "steps", "cells", "steps-cells",
                                 "random", "node-choice"]
    assert isinstance(NODE_MODELS["node-choice"], NodeLogit)
    assert {m: [p.name for p in NODE_MODELS[m].params] for m in GRID_MODELS} == {
        "eu": ["tau"], "du": ["tau", "gamma"], "pw": ["tau", "beta"],
        "pw-du": ["tau", "gamma", "beta"], "steps": ["tau"], "cells": ["tau"],
        "steps-cells": ["tau", "k"], "random": []}
    assert {m: NODE_MODELS[m].size for m in GRID_MODELS} == {
        "eu": 12, "du": 144, "pw": 120, "pw-du": 1440, "steps": 12, "cells": 12,
        "steps-cells": 132, "random": 1}
    assert node_model("du").params[0].scale == LOG and node_model("du").params[0].low == 0.2


@pytest.mark.parametrize("model", list(PEER_MODELS))
def test_the_grids_are_the_authors_in_the_order_of_their_columns(model):
    table = read_peer_values(mst_folder() / "peer", model)
    points = NODE_MODELS[model].points()
    for name, values in points.items():
        assert values.tolist() == table.grid[name].tolist()
    assert len(next(iter(points.values()), [0])) == table.probabilities.shape[1]


def test_one_setting_is_the_grid_s_column():
    model = node_model("pw-du")
    grid = model.grid_probabilities(CHAIN_DECISIONS)
    g = 777
    at = {k: float(v[g]) for k, v in model.points().items()}
    assert model.probabilities(CHAIN_DECISIONS, **at) == pytest.approx(grid[:, g], abs=1e-15)
    assert node_model("random").grid_probabilities(CHAIN_DECISIONS).shape == (4, 1)


@pytest.fixture(scope="module")
def authors():
    return decision_nodes(read_peer_trees(mst_folder() / "peer", mst_folder() / "mazes"))


@given(name=st.sampled_from(GRID_MODELS), data=st.data())
def test_every_model_gives_a_distribution_at_every_decision(authors, name, data):
    model = NODE_MODELS[name]
    values = {p.name: data.draw(st.floats(p.low, p.high)) for p in model.params}
    p = model.probabilities(authors, **values)
    assert np.all((p >= 0) & (p <= 1))
    assert np.add.reduceat(p, authors.start[:-1]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: node_model("pwdu"), r"unknown node model 'pwdu' \(known: eu, du, .*\); did you mean "
                               r"'pw-du'\?"),
    (lambda: node_model("du").probabilities(CHAIN_DECISIONS, tau=1.0),
     r"node model du: missing 'gamma' \(its parameters: tau, gamma\)"),
    (lambda: node_model("eu").probabilities(CHAIN_DECISIONS, tau=1.0, beta=2.0),
     r"node model eu: unknown parameter 'beta' \(its parameters: tau\)"),
    (lambda: node_model("random").probabilities(CHAIN_DECISIONS, tau=1.0),
     r"node model random: unknown parameter 'tau' \(its parameters: none\)"),
    (lambda: node_model("du").probabilities(CHAIN_DECISIONS, tau=0.1, gamma=0.5),
     r"node model du: tau = 0.1 \(allowed: 0.2 to 8\)"),
    (lambda: node_model("du").grid_probabilities(CHAIN_DECISIONS, {"tau": [1, 2],
                                                                   "gamma": [0.5, np.nan]}),
     r"node model du: gamma = nan \(allowed: 0 to 1\)"),
])
def test_bad_requests_are_named(call, message):
    with pytest.raises(AgentError, match=message):
        call()


def test_a_grid_of_ragged_points_or_beyond_the_ceiling(monkeypatch):
    from mazesim.agents import node_models
    du = node_model("du")
    with pytest.raises(AgentError, match=r"grid points of shapes \[\(2,\), \(3,\)\]"):
        du.grid_probabilities(CHAIN_DECISIONS, {"tau": [1, 2], "gamma": [0, 0.5, 1]})
    monkeypatch.setattr(node_models, "MAX_VALUE_CELLS", 40)
    du.grid_probabilities(CHAIN_DECISIONS, {"tau": [1.0] * 8, "gamma": [0.5] * 8})   # 5 x 8
    with pytest.raises(AgentError, match=r"node model du: 5 nodes x 9 grid points \(allowed: "
                                         r"at most 40\)"):
        du.grid_probabilities(CHAIN_DECISIONS, {"tau": [1.0] * 9, "gamma": [0.5] * 9})


def test_a_declaration_is_checked_at_registration():
    from mazesim.agents import node_models
    with pytest.raises(TypeError, match="grid of tau outside its bounds"):
        node_models._registered(NodeModel("x", uniform_probabilities,
                                          (node_models.TAU,), ((0.1, 1.0),)))
    with pytest.raises(TypeError, match="1 parameters, 0 grid axes"):
        node_models._registered(NodeModel("x", uniform_probabilities, (node_models.TAU,)))
