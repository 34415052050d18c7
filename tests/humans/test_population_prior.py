"""The planners' population prior under the peer protocol (issue 28, point 2): the EM recovers
a known mixing distribution, a person's own decisions never reach their prior, the default
(the authors' 1/tau prior) is unchanged, the prior is recorded, errors."""

import csv
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mazesim.agents.node_models import node_model
from mazesim.errors import DataError
from mazesim.humans.fitting.node import fit_nodes
from mazesim.humans.fitting.node_output import format_node_fit, write_node_fit
from mazesim.humans.peer.grid import fit_node_model, grid_fit, prior_of
from mazesim.humans.peer.population import (PRIOR_FLOOR, mixing_weights, population_groups,
                                            population_log_prior)

THETA = np.array([0.1, 0.3, 0.5, 0.7, 0.9])    # a toy grid: a coin's chance of heads


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=5, max_size=5).filter(lambda w: sum(w) > 0.5),
       st.integers(0, 2**32 - 1))
def test_the_em_recovers_a_known_mixing_distribution(raw, seed):
    """People draw a grid point from known weights and toss that coin 60 times; the EM's
    weights from their likelihoods are within 0.08 of the truth in total variation, sum to 1,
    and no point falls below the floor."""
    truth = np.array(raw) / sum(raw)
    rng = np.random.default_rng(seed)
    point = rng.choice(len(THETA), size=600, p=truth)
    heads = rng.binomial(60, THETA[point])
    ll = heads[:, None] * np.log(THETA) + (60 - heads[:, None]) * np.log(1 - THETA)
    w = mixing_weights(ll)
    assert w.sum() == pytest.approx(1.0)
    assert w.min() >= PRIOR_FLOOR / len(THETA) * (1 - 1e-12)
    assert 0.5 * np.abs(w - truth).sum() < 0.08


def test_the_prior_of_a_group_comes_from_the_other_groups():
    rng = np.random.default_rng(5)
    ll = rng.normal(size=(12, 4)) * 5
    group = population_groups(12, 3, seed=1)
    assert sorted(np.bincount(group)) == [4, 4, 4]
    prior = population_log_prior(ll, group)
    for g in range(3):
        assert np.array_equal(prior[group == g],
                              np.tile(np.log(mixing_weights(ll[group != g])), (4, 1)))


def _rotated(choices, who):
    """`choices` with every choice of person `who` moved to the next child."""
    rows = choices.rows.copy()
    mine = choices.participant == who
    starts = choices.decisions.start[choices.decision]
    rows[mine] = starts[mine] + (rows[mine] - starts[mine] + 1) % choices.children[mine]
    return type(choices)(choices.decisions, choices.decision, rows, choices.participant,
                         choices.participants, choices.walks, "changed")


@pytest.mark.parametrize("name", ["du", "steps-cells"])
def test_a_person_s_own_decisions_never_reach_their_prior(few_people, name):
    """Changing every choice of one person changes nothing for the others of their group
    and changes some people of the other groups (whose prior the person is part of)."""
    model, who = node_model(name), 0
    fits = [fit_node_model(model, c.decisions, c.rows, c.people, seed=0, prior="population",
                           groups=4) for c in (few_people, _rotated(few_people, who))]
    before, after = fits
    same = before.group == before.group[who]
    same[who] = False
    assert np.array_equal(after.test_ll[same], before.test_ll[same])
    assert np.array_equal(after.fold_choice[same], before.fold_choice[same])
    other = before.group != before.group[who]
    assert not np.array_equal(after.fold_choice[other], before.fold_choice[other])
    assert after.test_ll[who] != before.test_ll[who]


def test_the_default_is_the_authors_prior_unchanged(few_people):
    model = node_model("du")
    default = fit_node_model(model, few_people.decisions, few_people.rows, few_people.people,
                             seed=2)
    points = model.points()
    chosen = model.grid_probabilities(few_people.decisions, points)[few_people.rows]
    plain = grid_fit(chosen, few_people.people, points, seed=2, log_prior=prior_of(points))
    assert default.group is None
    assert np.array_equal(default.test_ll, plain.test_ll)
    assert np.array_equal(default.fold_choice, plain.fold_choice)
    population = fit_node_model(model, few_people.decisions, few_people.rows,
                                few_people.people, seed=2, prior="population")
    assert np.array_equal(population.fold, default.fold)            # the same folds
    assert not np.array_equal(population.fold_choice, default.fold_choice)
    reports = [fit_nodes(few_people, ["du", "node-choice"], protocol="peer", seed=2, **kw)
               for kw in ({}, {"prior": "authors"})]
    assert json.dumps(reports[0].to_json()) == json.dumps(reports[1].to_json())
    assert reports[0].to_json()["prior"] == "authors"


def test_the_population_prior_helps_du_on_the_authors_decisions(authors_choices):
    """Seed 0 on all 5,971 decisions: 0.945 bits with the 1/tau prior, 0.938 with the
    population's."""
    model = node_model("du")
    c = authors_choices
    fits = {prior: fit_node_model(model, c.decisions, c.rows, c.people, seed=0,
                                  prior=prior).pooled_bits
            for prior in ("authors", "population")}
    assert fits["authors"] == pytest.approx(0.9447, abs=1e-4)
    assert fits["population"] == pytest.approx(0.9377, abs=1e-4)


def test_the_prior_is_recorded(few_people, tmp_path):
    report = fit_nodes(few_people, ["du", "random"], protocol="peer", seed=0,
                       prior="population")
    assert report.to_json()["prior"] == "population"
    assert "a population prior over the grid" in format_node_fit(report)
    write_node_fit(report, tmp_path)
    with open(tmp_path / "fit.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["prior"] for r in rows] == ["population", "population"]
    ml = fit_nodes(few_people, ["random"], folds=0)
    assert "prior" not in ml.to_json()


@pytest.mark.parametrize("kwargs, message", [
    ({"protocol": "peer", "prior": "flat"}, "prior 'flat' (allowed: authors, population;"),
    ({"prior": "population"}, "other than authors only under the peer protocol"),
])
def test_bad_priors_are_named(few_people, kwargs, message):
    with pytest.raises(DataError) as info:
        fit_nodes(few_people, ["du"], **kwargs)
    assert message in str(info.value)


def test_bad_groups_are_named(few_people):
    model = node_model("eu")
    for groups in (1, 25):
        with pytest.raises(DataError, match=f"groups: {groups} for 24 people"):
            fit_node_model(model, few_people.decisions, few_people.rows, few_people.people,
                           seed=0, prior="population", groups=groups)
    with pytest.raises(DataError, match="prior 'none' "):
        fit_node_model(model, few_people.decisions, few_people.rows, few_people.people,
                       seed=0, prior="none")
