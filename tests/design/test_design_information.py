"""The exact information of a maze's walks: zero between identical models, the divergence of
one binary decision by hand, and the tree's dynamic programme against the path distributions
enumerated one by one."""

import math

import numpy as np
import pytest

from mazesim.agents.node_models import node_model
from scipy.special import ndtr

from mazesim.design.information import (CV_PENALTY, information, joint_error, maze_table,
                                        near_identical, panel, predicted_error, score_maze)
from mazesim.errors import DataError
from mazesim.maze import parse_maze

# S above a corridor that forks into two dead ends, the exit in the far left one: one decision.
FORK = parse_maze("#########\n#####S###\n#####.###\n#.......#\n#.#####.#\n#.#####.#\n"
                  "#G#####.#\n#########")
# Two rooms behind a corridor and a third behind the first: decisions below decisions.
ROOMS = parse_maze("###########\n#...#...#.#\n#...#.#.#.#\n##.##.#...#\n#S........#\n"
                   "####.####.#\n#G...#....#\n###########")


def test_identical_models_give_zero_information():
    # du at gamma 1 is eu; steps-cells at k 1 is steps: the same choices at every node
    fits = {"eu": [({"tau": 1.07}, 0.0), ({"tau": 2.925}, 0.1)],
            "du": [({"tau": 1.07, "gamma": 1.0}, 0.0), ({"tau": 2.925, "gamma": 1.0}, 0.1)]}
    table = maze_table(ROOMS)
    result = information([score_maze(panel(fits, 6, 0), table)] * 2)
    assert result.divergence[("eu", "du")][0] == pytest.approx(0.0, abs=1e-12)
    assert result.divergence[("du", "eu")][0] == pytest.approx(0.0, abs=1e-12)
    # the fit still tells them apart by du's extra parameter, which costs it on held-out data
    assert result.error[("eu", "du")] == pytest.approx(ndtr(-CV_PENALTY / math.sqrt(0.5)))
    assert result.error[("du", "eu")] == pytest.approx(1 - result.error[("eu", "du")])
    fits = {"steps": [({"tau": 0.5}, 0.0)], "steps-cells": [({"tau": 0.5, "k": 1.0}, 0.0)]}
    result = information([score_maze(panel(fits, 3, 1), table)])
    assert max(v for v, _ in result.divergence.values()) == pytest.approx(0.0, abs=1e-12)


def test_people_who_walk_as_another_model_are_near_identical():
    # du at gamma 1 walks as eu; du at gamma 0.2 does not; eu is du's grid at 0.99 nearly
    fits = {"eu": [({"tau": 0.391}, 0.0)],
            "du": [({"tau": 0.391, "gamma": 1.0}, 0.0), ({"tau": 0.391, "gamma": 0.2}, 0.0)]}
    pan = panel(fits, 8, 0)
    scores = [score_maze(pan, maze_table(ROOMS))]
    near = near_identical(pan, scores)
    assert near.shape == (2, 8)
    assert near[0].all()
    assert (near[1] == (pan.people["du"].points["gamma"] == 1.0)).all()
    assert 0 < near[1].sum() < 8
    assert not near_identical(pan, scores, bits=0.0).any()


def test_the_predicted_error_of_a_pair_and_of_a_person_by_hand():
    d = np.array([0.0, 0.5, 2.0, 8.0])
    # models of as many parameters: Phi(-sqrt(D / 2)), a coin at D = 0
    assert predicted_error(d, 0) == pytest.approx(ndtr(-np.sqrt(d / 2)))
    # a rival with one parameter more: its expected score falls by CV_PENALTY, the variance
    # rises by 1/2
    assert CV_PENALTY == pytest.approx(5 / 8)
    assert predicted_error(d, 1) == pytest.approx(ndtr(-(d + 0.625) / np.sqrt(2 * d + 0.5)))
    assert predicted_error(d, -1) == pytest.approx(ndtr(-(d - 0.625) / np.sqrt(2 * d + 0.5)))
    assert (np.diff(predicted_error(d, 0)) < 0).all()
    assert (np.diff(predicted_error(d, -1)) < 0).all()
    # a person is recovered when no rival wins: 1 - (1 - e1)(1 - e2), averaged over people,
    # then over the generating models
    best = {("a", "b"): np.array([0.0, 2.0]), ("a", "c"): np.array([8.0, 0.5]),
            ("b", "a"): np.array([0.5, 0.5]), ("b", "c"): np.array([2.0, 2.0]),
            ("c", "a"): np.array([0.0, 0.0]), ("c", "b"): np.array([8.0, 8.0])}
    extra = {("a", "b"): 1, ("b", "a"): -1, ("a", "c"): 0, ("c", "a"): 0, ("b", "c"): -1,
             ("c", "b"): 1}
    e = {p: predicted_error(v, extra[p]) for p, v in best.items()}
    by_hand = np.mean([1 - ((1 - e[(m, r1)]) * (1 - e[(m, r2)])).mean()
                       for m, r1, r2 in (("a", "b", "c"), ("b", "a", "c"), ("c", "a", "b"))])
    assert joint_error(best, extra) == pytest.approx(by_hand)
    assert joint_error({}, {}) == 0.0


def test_one_binary_decision_has_the_divergence_written_by_hand():
    table = maze_table(FORK)
    assert table.decisions.size == 1
    p = node_model("eu").probabilities(table.decisions, tau=0.391)
    fits = {"eu": [({"tau": 0.391}, 0.0)], "random": [({}, 0.0)]}
    result = information([score_maze(panel(fits, 2, 0), table)])
    by_hand = sum(x * math.log2(2 * x) for x in p)
    assert by_hand > 0.01
    assert result.divergence[("eu", "random")][0] == pytest.approx(by_hand, rel=1e-12)
    assert result.per_decision[("eu", "random")] == pytest.approx(by_hand, rel=1e-12)
    # the uniform chooser against eu's best setting: eu's grid and its person
    grid = node_model("eu").grid_probabilities(table.decisions)
    best = min(sum(0.5 * math.log2(0.5 / q) for q in grid[:, g]) for g in range(12))
    assert result.divergence[("random", "eu")][0] == pytest.approx(best, rel=1e-12)
    # the walk: 2 steps to the fork, then 4 left (the exit in view) and 3 down to it, or 2
    # right, 6 back to the left branch and 3 down
    left = p[table.decisions.row("maze", "1", "3")]
    assert result.steps["eu"] == pytest.approx(9 * left + 13 * (1 - left))


def _paths(table, p, node=0, prob=1.0):
    """Every complete walk: (probability, chosen rows) by enumeration."""
    d = table.decisions
    kids = [k for k in range(len(table.parent)) if table.parent[k] == node]
    if not table.live[node] or not kids:
        yield prob, ()
        return
    k = {int(n): j for j, n in enumerate(d.decision_node)}.get(node)
    for j, kid in enumerate(kids):
        q = 1.0 if k is None else p[d.start[k] + j]
        for rest_p, rest in _paths(table, p, kid, prob * q):
            yield rest_p, (() if k is None else (d.start[k] + j,)) + rest


def test_the_dynamic_programme_is_the_divergence_of_the_path_distributions():
    table = maze_table(ROOMS)
    assert table.decisions.size >= 3
    a = {"tau": 0.547, "gamma": 0.6}
    fits = {"du": [(a, 0.05)], "pw": [({"tau": 1.07, "beta": 0.271}, 0.0)]}
    score = score_maze(panel(fits, 1, 0), table)
    pa = node_model("du").probabilities(table.decisions, **a)
    k = np.diff(table.decisions.start)[table.decisions.row_decision]
    pa = 0.95 * pa + 0.05 / k
    pb = node_model("pw").grid_probabilities(table.decisions)
    walks = list(_paths(table, pa))
    assert sum(w for w, _ in walks) == pytest.approx(1.0)
    for g in (0, 17, 100):
        enumerated = sum(w * sum(math.log(max(pa[r], 1e-5) / max(pb[r, g], 1e-5)) for r in rows)
                         for w, rows in walks)
        assert score.kl[("du", "pw")][0, g] == pytest.approx(enumerated, rel=1e-10)
    decisions = sum(w * len(rows) for w, rows in walks)
    assert score.decisions["du"][0] == pytest.approx(decisions)


def test_more_mazes_never_tell_less_and_the_panel_checks_its_input():
    fits = {"du": [({"tau": 0.547, "gamma": 0.6}, 0.0)], "pw": [({"tau": 1.07, "beta": 0.271},
                                                               0.0)]}
    pan = panel(fits, 4, 0)
    one = score_maze(pan, maze_table(ROOMS))
    two = score_maze(pan, maze_table(FORK))
    assert information([one, two]).divergence[("du", "pw")][0] >= \
        information([one]).divergence[("du", "pw")][0] > 0
    with pytest.raises(DataError, match="people: 0"):
        panel(fits, 0, 0)
    with pytest.raises(DataError, match="node-choice.*walk so far"):
        panel({"node-choice": [({}, 0.0)]}, 1, 0)
    with pytest.raises(DataError, match="no per-person fit"):
        panel({"du": []}, 1, 0)
    with pytest.raises(DataError, match="expected: tau, gamma"):
        panel({"du": [({"tau": 1.0}, 0.0)]}, 1, 0)
