"""The study's statistics: Table 2 numbers, correlations against scipy, summaries."""

import numpy as np
import pytest
from scipy import stats

from mazesim.experiment.statistics import choice_test, correlations, summary


def test_study_table_2_expected_human_counts():
    test = choice_test("weighted-walker", "2", "A", {"up": 66, "right": 34}, {"up": 10, "right": 4})
    up, right = test.directions
    assert (up.direction, right.direction) == ("up", "right")
    assert test.n == 100 and test.human_n == 14
    assert up.proportion == pytest.approx(0.66) and right.proportion == pytest.approx(0.34)
    assert round(up.expected_human, 1) == 9.2 and round(right.expected_human, 1) == 4.8
    assert (up.human, right.human) == (10, 4)
    assert up.ci_low < 0.66 < up.ci_high and 0.55 < up.ci_low and up.ci_high < 0.76
    assert test.fisher_p == pytest.approx(stats.fisher_exact([[66, 34], [10, 4]]).pvalue)
    assert test.fisher_p > 0.5  # the study: "extremely close"


def test_choice_test_lists_directions_chosen_by_either_side():
    test = choice_test("a", "full", "A", {"left": 3}, {"up": 2})
    assert [c.direction for c in test.directions] == ["up", "left"]
    assert [c.count for c in test.directions] == [0, 3]
    assert [c.human for c in test.directions] == [2, None]


def test_choice_test_without_humans_has_no_fisher_p():
    test = choice_test("a", "full", "A", {"up": 5, "down": 5}, {})
    assert test.human_n == 0 and np.isnan(test.fisher_p)
    assert [c.expected_human for c in test.directions] == [0.0, 0.0]


def test_correlations_match_scipy():
    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = 2 * x + rng.normal(size=40)
    y[5] = np.nan  # a maze without trials is left out
    recs = correlations("bfs", "2", {"solution_length": x}, y, ["pearson", "spearman"])
    ok = ~np.isnan(y)
    pearson = stats.pearsonr(x[ok], y[ok])
    spearman = stats.spearmanr(x[ok], y[ok])
    assert [(r.method, r.n) for r in recs] == [("pearson", 39), ("spearman", 39)]
    assert recs[0].r == pytest.approx(pearson.statistic) and recs[0].p == pytest.approx(
        pearson.pvalue)
    assert recs[1].r == pytest.approx(spearman.statistic)


def test_constant_parameter_gives_nan_not_an_error():
    (rec,) = correlations("bfs", "full", {"loops": np.zeros(10)}, np.arange(10.0), ["pearson"])
    assert np.isnan(rec.r) and np.isnan(rec.p) and rec.n == 10


def test_summary():
    moves = np.array([10, 20, 30, 40, 1000])
    reached = np.array([True, True, True, True, False])
    s = summary("dfs", "2", moves, reached, ~reached, np.full(5, 10))
    assert (s.trials, s.mean, s.median, s.q1, s.q3, s.iqr) == (5, 220.0, 30.0, 20.0, 40.0, 20.0)
    assert s.reach_rate == 0.8 and s.capped_rate == 0.2
    assert s.efficiency == pytest.approx(np.mean([1, 0.5, 1 / 3, 0.25]))
