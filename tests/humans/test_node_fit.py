"""Node models fitted under both protocols: the peer protocol's planners are the reproduction,
node-choice beats DU on the authors' decisions, nothing of a person reaches their prior,
same seed same bytes, a simulated population recovered, errors."""

import json
import math

import numpy as np
import pytest

from mazesim.agents.node_features import NODE_FEATURES
from mazesim.agents.node_models import NodeLogit, node_model
from mazesim.errors import AgentError, DataError
from mazesim.humans.peer.grid import fit_node_model
from mazesim.humans.fitting.mixed_logit import grouped, population
from mazesim.humans.fitting.node import fit_nodes
from mazesim.humans.fitting.node_choices import logit_inputs
from mazesim.humans.peer.protocol import logit_peer_fit

TARGET = 0.90           # the issue's target under the authors' protocol (their DU: 0.946)
FEW = ("revisit", "reverse", "log-steps")


def test_the_authors_decisions_with_their_walks(authors_choices):
    assert (len(authors_choices), len(authors_choices.participants)) == (5_971, 116)
    assert authors_choices.baseline_bits() == pytest.approx(1.2229, abs=1e-4)
    d = authors_choices.decisions
    for i in range(0, len(authors_choices), 101):               # every walk ends at its node
        node = d.trees[d.decision_tree[authors_choices.decision[i]]].nodes[
            d.decision_node[authors_choices.decision[i]]]
        assert tuple(authors_choices.walks[i][-1]) == node.cell
        assert d.row_decision[authors_choices.rows[i]] == authors_choices.decision[i]


@pytest.mark.slow
def test_node_choice_beats_du_under_the_authors_protocol(authors_choices):
    """Seed 0 on the authors' trees and decisions: node-choice 0.857 bits per decision
    (DU 0.945 on the same folds), better for most people."""
    report = fit_nodes(authors_choices, ["du", "node-choice"], protocol="peer", seed=0)
    bits = {m.model: m.cv_bits for m in report.report.models}
    assert bits["node-choice"] == pytest.approx(0.857, abs=0.002) and bits["node-choice"] < TARGET
    assert bits["du"] == pytest.approx(0.945, abs=0.002)
    paired = report.ranking.paired[0]
    assert (report.ranking.best, paired.model) == ("node-choice", "du")
    assert paired.ci[0] > 0.05 and paired.worse > 90


def test_the_peer_protocol_s_planners_are_the_grid_fit(few_people):
    report = fit_nodes(few_people, ["du", "steps-cells", "random"], protocol="peer", seed=3)
    for m in report.report.models:
        grid = fit_node_model(node_model(m.model), few_people.decisions, few_people.rows,
                              few_people.people, seed=3)
        assert m.cv_bits == grid.pooled_bits
        assert [p.cv_bits for p in m.participants] == pytest.approx(grid.bits, rel=1e-12)
        assert m.estimate.log_likelihood == pytest.approx(grid.full_ll.sum())


def test_same_seed_same_bytes(few_people):
    twelve = few_people.select(few_people.participant < 12)
    runs = [json.dumps(fit_nodes(twelve, ["du", "node-choice"], protocol=p, seed=s,
                                 folds=3).to_json())
            for p, s in [("ml", 1), ("ml", 1), ("peer", 1), ("peer", 1), ("peer", 2)]]
    assert runs[0] == runs[1] and runs[2] == runs[3] and runs[3] != runs[4]


def test_a_person_s_own_decisions_never_reach_their_prior(few_people):
    """Changing every choice of one person changes nothing for the other people of their
    population group (their prior comes from the other groups), and does change people of
    other groups (whose prior the person is part of): the test can fail."""
    model = NodeLogit("node-choice", FEW)
    before = logit_peer_fit(model, few_people, seed=0, groups=4)
    who = 0
    rows = few_people.rows.copy()
    mine = few_people.participant == who
    starts = few_people.decisions.start[few_people.decision]
    rows[mine] = starts[mine] + (rows[mine] - starts[mine] + 1) % few_people.children[mine]
    changed = type(few_people)(few_people.decisions, few_people.decision, rows,
                               few_people.participant, few_people.participants,
                               few_people.walks, "changed")
    after = logit_peer_fit(model, changed, seed=0, groups=4)
    same = before.group == before.group[who]
    same[who] = False
    assert np.array_equal(after.test_ll[same], before.test_ll[same])
    assert not np.allclose(after.test_ll[before.group != before.group[who]],
                           before.test_ll[before.group != before.group[who]])
    assert after.test_ll[who] != before.test_ll[who]


def test_a_simulated_population_is_recovered(authors_choices):
    """Choices drawn on the authors' trees and walks from per-person weights of a known
    population (revisit, log-cells, log-steps; revisit and reverse are too collinear here,
    r = 0.89, to be told apart): its mean recovered within 20 % (the Laplace approximation
    draws the weight of `revisit`, which varies at few decisions, about 10 % toward 0) and its
    spreads within 0.2, and the peer protocol scores the simulated choices near the truth's
    own cross-entropy."""
    model = NodeLogit("node-choice", ("revisit", "log-cells", "log-steps"))
    x, start, _ = logit_inputs(model, authors_choices)
    rng = np.random.default_rng(7)
    scale = x.std(axis=0)
    mean, spread = np.array([-1.5, -0.5, -0.8]), np.array([0.5, 0.3, 0.3])
    true = mean + spread * rng.normal(size=(len(authors_choices.participants), 3))
    chosen, entropy = np.empty(len(authors_choices), dtype=np.int64), 0.0
    for o in range(len(authors_choices)):
        u = x[start[o]:start[o + 1]] / scale @ true[authors_choices.participant[o]]
        p = np.exp(u - u.max())
        p /= p.sum()
        pick = rng.choice(len(p), p=p)
        chosen[o] = start[o] + pick
        entropy -= np.log(p[pick])
    pop = population(grouped(x / scale, start, chosen, authors_choices.participant,
                             len(authors_choices.participants)))
    assert pop.mean == pytest.approx(mean, rel=0.2)
    assert np.sqrt(np.diag(pop.cov)) == pytest.approx(spread, abs=0.2)
    first = authors_choices.decisions.start[authors_choices.decision]
    simulated = type(authors_choices)(authors_choices.decisions, authors_choices.decision,
                              first + chosen - start[:-1], authors_choices.participant,
                              authors_choices.participants, authors_choices.walks, "simulated")
    fit = logit_peer_fit(model, simulated, seed=0)
    truth = entropy / math.log(2) / len(authors_choices)
    assert truth < -fit.test_ll.sum() / math.log(2) / len(authors_choices) < truth + 0.03


def test_the_ml_protocol(few_people):
    report = fit_nodes(few_people, ["du", "random", "node-choice"], folds=3, seed=0)
    data = report.to_json()
    assert (data["level"], data["protocol"], data["decisions"]) == ("node", "ml",
                                                                     len(few_people))
    models = {m["model"]: m for m in data["models"]}
    assert set(models["du"]["params"]) == {"tau", "gamma"}
    assert set(models["node-choice"]["params"]) == set(NODE_FEATURES)
    assert models["random"]["bits"] == pytest.approx(few_people.baseline_bits())
    assert {m["model"] for m in data["ranking"]["models"]} == set(models)
    du = next(m for m in report.report.models if m.model == "du")
    grid = node_model("du").grid_probabilities(few_people.decisions)[few_people.rows]
    best_grid = np.log(grid).sum(axis=0).max()
    assert du.estimate.log_likelihood >= best_grid - 1e-9     # bounded search, not the grid
    own = fit_nodes(few_people, ["steps"], folds=0, by="participant").report.models[0]
    assert len(own.participants) == 24 and all(p.own is not None for p in own.participants)


@pytest.mark.parametrize("options, error, message", [
    ({"protocol": "bayes"}, DataError, r"protocol 'bayes' \(allowed: ml, peer\)"),
    ({"folds": 1, "protocol": "peer"}, DataError, r"folds 1 \(allowed under the peer protocol"),
    ({"folds": 25}, DataError, r"folds: 25 \(allowed: 0 for none, or 2 to 24"),
    ({"models": ["du", "du"]}, DataError, r"models: du twice"),
    ({"models": ["dv"]}, AgentError, r"unknown node model 'dv'"),
    ({"seed": -1}, DataError, r"seed: -1 \(allowed: an integer from 0 to"),
    ({"by": "maze"}, DataError, r"by 'maze' \(allowed: pooled, participant\)"),
])
def test_bad_requests(few_people, options, error, message):
    models = options.pop("models", ["random"])
    with pytest.raises(error, match=message):
        fit_nodes(few_people, models, **options)
