"""Models compared over people: paired differences, best-model counts, random-effects selection."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import special

from mazesim.errors import DataError
from mazesim.humans.fitting.ranking import DIRICHLET_SAMPLES, model_frequencies, rank_models

LN2 = math.log(2)


def test_paired_differences_by_hand():
    # three people, 10 decisions each; model b loses 1, 2, -1 bits (natural log x ln 2)
    ll = np.array([[-5.0, -6.0], [-4.0, -6.0], [-7.0, -6.0]]) * LN2
    r = rank_models(["a", "b"], ll, np.array([10, 10, 10]), seed=1)
    assert r.best == "a" and r.bits == pytest.approx((16 / 30, 18 / 30))
    (d,) = r.paired
    assert d.model == "b" and d.best == "a"
    assert d.bits == pytest.approx(2 / 30)           # (1 + 2 - 1) bits over 30 decisions
    assert (d.worse, d.better) == (2, 1)
    assert d.ci[0] <= d.bits <= d.ci[1]
    assert r.best_counts == (2.0, 1.0)


def test_ties_split_a_person():
    ll = np.array([[-1.0, -1.0, -3.0], [-2.0, -1.0, -1.5]])
    r = rank_models(["a", "b", "c"], ll, np.array([3, 3]))
    assert r.best_counts == (0.5, 1.5, 0.0)


def test_a_clear_winner_exceeds_and_the_omnibus_risk_vanishes():
    rng = np.random.default_rng(0)
    ll = np.column_stack([-rng.uniform(10, 20, 40), -rng.uniform(40, 60, 40)])
    f = model_frequencies(ll)
    assert f.exceedance[0] == 1.0 and f.omnibus_risk < 1e-6
    assert f.alpha == pytest.approx((41.0, 1.0), abs=1e-6)      # every person to model a


def test_equal_models_leave_the_frequencies_open():
    ll = -np.tile(np.arange(1.0, 21.0)[:, None], (1, 3))
    f = model_frequencies(ll)
    assert f.expected == pytest.approx((1 / 3,) * 3)
    assert f.omnibus_risk > 0.5                       # the null (equal frequencies) is likely
    assert f.protected == pytest.approx((1 / 3,) * 3, abs=0.2)


@settings(max_examples=25)
@given(st.lists(st.tuples(st.floats(-50, -0.1), st.floats(-50, -0.1)), min_size=2,
                max_size=30))
def test_the_variational_posterior_is_a_fixed_point_and_exceedance_is_the_beta_tail(rows):
    ll = np.array(rows)
    f = model_frequencies(ll, seed=3)
    alpha = np.array(f.alpha)
    u = ll + special.digamma(alpha) - special.digamma(alpha.sum())
    g = np.exp(u - special.logsumexp(u, axis=1, keepdims=True))
    assert alpha == pytest.approx(1.0 + g.sum(axis=0), abs=1e-6)
    exact = special.betainc(alpha[1], alpha[0], 0.5)        # P(r_a > 1/2) under Beta(a0, a1)
    assert f.exceedance[0] == pytest.approx(exact, abs=5 / math.sqrt(DIRICHLET_SAMPLES))
    assert 0.0 <= f.omnibus_risk <= 1.0


def test_same_seed_same_ranking():
    ll = -np.random.default_rng(5).uniform(1, 9, (12, 3))
    n = np.full(12, 7)
    a, b = (rank_models(["x", "y", "z"], ll, n, seed=4).to_json() for _ in range(2))
    assert a == b


@pytest.mark.parametrize("ll, n, match", [
    (np.zeros((3, 1)), [1, 1, 1], "models: 1"),
    (np.zeros((1, 2)) - 1, [1], "1 people"),
    (np.full((2, 2), np.nan), [1, 1], "finite"),
    (np.ones((2, 2)), [1, 1], "<= 0"),
    (-np.ones((2, 2)), [1, 0], "decisions"),
    (-np.ones((2, 3)), [1, 1], "shape"),
])
def test_bad_input_is_one_clear_error(ll, n, match):
    models = ["a", "b"] if np.asarray(ll).shape[1] != 1 else ["a"]
    with pytest.raises(DataError, match=match):
        rank_models(models, np.asarray(ll), np.asarray(n))
