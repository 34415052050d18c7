"""Capped trials as censored counts: the restricted mean against known answers and Kaplan-Meier."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from statsmodels.duration.survfunc import SurvfuncRight

from mazesim.experiment.censoring import clipped_moves, restricted_mean, restriction_time


def _kaplan_meier_area(moves, capped, tau):
    """The area under statsmodels' Kaplan-Meier survival curve from 0 to tau."""
    fit = SurvfuncRight(np.asarray(moves, float), (~np.asarray(capped, bool)).astype(int))
    times, survival = np.asarray(fit.surv_times, float), np.asarray(fit.surv_prob, float)
    keep = times < tau
    edges = np.concatenate([[0.0], times[keep], [tau]])
    return float(np.sum(np.concatenate([[1.0], survival[keep]]) * np.diff(edges)))


def test_a_maze_capped_at_the_restriction_time_by_hand():
    # two of five trials hit the cap 10: (2 + 4 + 6 + 10 + 10) / 5
    moves, capped = np.array([2, 4, 6, 10, 10]), np.array([0, 0, 0, 1, 1], bool)
    assert restriction_time(moves, capped) == 10.0
    assert restricted_mean(moves, capped, 10) == pytest.approx(6.4)
    # Kaplan-Meier by hand: S = 4/5, 3/5, 2/5 after 2, 4, 6; area 2 x 1 + 2 x 0.8 + 2 x 0.6 +
    # 4 x 0.4 = 6.4
    assert _kaplan_meier_area(moves, capped, 10) == pytest.approx(6.4)


def test_a_maze_with_a_higher_cap_is_cut_at_the_conditions_restriction_time():
    """The condition's smallest cap is 10; this maze's cap is 20 (two trials capped there):
    every trial counts as min(moves, 10)."""
    moves, capped = np.array([3, 8, 12, 20, 20]), np.array([0, 0, 0, 1, 1], bool)
    assert restricted_mean(moves, capped, 10) == pytest.approx((3 + 8 + 10 + 10 + 10) / 5)
    assert _kaplan_meier_area(moves, capped, 10) == pytest.approx(8.2)


def test_nothing_capped_has_no_restriction_time_and_no_trial_no_mean():
    assert np.isnan(restriction_time(np.array([4, 5]), np.zeros(2, bool)))
    assert np.isnan(restricted_mean(np.array([]), np.array([], bool), 10))


def test_a_trial_censored_before_the_restriction_time_is_a_bug():
    with pytest.raises(ValueError, match="capped trial ended before the restriction time 10"):
        clipped_moves(np.array([5, 12]), np.array([True, False]), 10)


@given(st.lists(st.tuples(st.integers(1, 500), st.booleans()), min_size=1, max_size=40),
       st.integers(1, 500))
def test_the_restricted_mean_is_the_kaplan_meier_area(trials, tau):
    """With every capped trial censored at or after tau (its cap), the mean of min(moves, tau)
    is the Kaplan-Meier estimate of E[min(moves, tau)]."""
    moves = np.array([m for m, _ in trials])
    capped = np.array([c for _, c in trials])
    moves = np.where(capped, np.maximum(moves, tau), moves)     # caps at or above tau
    assert restricted_mean(moves, capped, tau) == pytest.approx(
        _kaplan_meier_area(moves, capped, tau), rel=1e-9)
