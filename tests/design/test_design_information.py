"""The exact information of a maze's walks: zero between identical models, the divergence of
one binary decision by hand, and the tree's dynamic programme against the path distributions
enumerated one by one."""

import math

import numpy as np
import pytest

from mazesim.agents.node_models import node_model
from mazesim.design.information import (information, maze_table, panel, score_maze)
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
    assert result.error[("eu", "du")] == pytest.approx(0.5)
    fits = {"steps": [({"tau": 0.5}, 0.0)], "steps-cells": [({"tau": 0.5, "k": 1.0}, 0.0)]}
    result = information([score_maze(panel(fits, 3, 1), table)])
    assert max(v for v, _ in result.divergence.values()) == pytest.approx(0.0, abs=1e-12)


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
