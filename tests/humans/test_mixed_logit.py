import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import optimize

from mazesim.humans.fitting._logit_kernels import logit_sums
from mazesim.humans.fitting.mixed_logit import (chosen_log_probabilities, grouped, map_weights,
                                        population)


def simulate(groups: int, choices: int, mean, cov, seed: int, k_rows=(2, 4)):
    """Choices of `groups` groups, each with weights drawn from N(mean, cov): features,
    start, chosen rows, group of each choice, and the true weights."""
    rng = np.random.default_rng(seed)
    k = len(mean)
    true = rng.multivariate_normal(mean, cov, size=groups)
    sizes = rng.integers(k_rows[0], k_rows[1] + 1, size=groups * choices)
    start = np.concatenate([[0], np.cumsum(sizes)])
    x = rng.normal(size=(start[-1], k))
    group = np.repeat(np.arange(groups), choices)
    chosen = np.empty(len(sizes), dtype=np.int64)
    for o in range(len(sizes)):
        u = x[start[o]:start[o + 1]] @ true[group[o]]
        p = np.exp(u - u.max())
        chosen[o] = start[o] + rng.choice(sizes[o], p=p / p.sum())
    return x, start, chosen, group, true


def plain_ll(w, x, start, chosen):
    total = 0.0
    for o in range(len(start) - 1):
        u = x[start[o]:start[o + 1]] @ w
        total += u[chosen[o] - start[o]] - np.log(np.exp(u).sum())
    return total


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_kernel_s_sums_are_the_likelihood_its_gradient_and_information(seed):
    x, start, chosen, group, _ = simulate(3, 5, np.zeros(3), np.eye(3), seed)
    data = grouped(x, start, chosen, group, 3)
    w = np.random.default_rng(seed).normal(size=(3, 3))
    ll, grad, info, each = logit_sums(data.features, data.start, data.chosen,
                                      data.group_start, w, 2)
    step = 1e-6
    for g in range(3):
        mine = group == g
        rows = np.flatnonzero(mine)
        sub = grouped(x, start, chosen, np.zeros(len(group), np.int64), 1, mine)

        def f(v):
            return plain_ll(v, sub.features, sub.start, sub.chosen)

        assert ll[g] == pytest.approx(f(w[g]), abs=1e-10)
        assert each[data.group_start[g]:data.group_start[g + 1]].sum() == pytest.approx(ll[g])
        numeric = [(f(w[g] + step * e) - f(w[g] - step * e)) / (2 * step) for e in np.eye(3)]
        assert grad[g] == pytest.approx(numeric, abs=1e-6)
        h = 1e-4            # a second difference: 1e-6 leaves rounding of 1e-16 / 1e-12
        hess = [[(f(w[g] + h * (a + b)) - f(w[g] + h * (a - b)) - f(w[g] - h * (a - b))
                  + f(w[g] - h * (a + b))) / (4 * h * h) for b in np.eye(3)]
                for a in np.eye(3)]
        assert -np.array(hess) == pytest.approx(info[g], abs=1e-3)
        assert len(rows) == 5


def test_map_without_a_prior_is_the_maximum_likelihood():
    x, start, chosen, group, _ = simulate(1, 300, np.array([1.0, -0.5]), np.eye(2) * 0.01, 3)
    data = grouped(x, start, chosen, group, 1)
    w, value, curvature = map_weights(data, np.zeros(2), np.zeros((2, 2)))
    best = optimize.minimize(lambda v: -plain_ll(v, x, start, chosen), np.zeros(2),
                             method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12})
    assert w[0] == pytest.approx(best.x, abs=1e-4)
    assert value[0] == pytest.approx(-best.fun, abs=1e-8)


def test_a_strong_prior_holds_the_weights_at_its_mean_and_a_group_without_choices_too():
    x, start, chosen, group, _ = simulate(2, 50, np.zeros(2), np.eye(2), 4)
    data = grouped(x, start, chosen, group, 3)            # group 2 has no choice
    mean = np.array([0.3, -0.2])
    w = map_weights(data, mean, np.eye(2) * 1e9)[0]
    assert w == pytest.approx(np.tile(mean, (3, 1)), abs=1e-5)
    loose = map_weights(data, mean, np.eye(2) * 1e-3)[0]
    assert loose[2] == pytest.approx(mean) and np.abs(loose[0] - mean).max() > 0.05


def test_the_population_of_simulated_people_is_recovered():
    """120 people of 80 choices each, weights from N((1, -1), diag(0.25, 0.04)): the
    population's mean within 0.1 (about 2.5 standard errors) and the spreads within 35 %."""
    mean, cov = np.array([1.0, -1.0]), np.diag([0.25, 0.04])
    x, start, chosen, group, true = simulate(120, 80, mean, cov, 5)
    pop = population(grouped(x, start, chosen, group, 120))
    assert pop.mean == pytest.approx(mean, abs=0.1)
    assert np.sqrt(np.diag(pop.cov)) == pytest.approx(np.sqrt(np.diag(cov)), rel=0.35)
    assert 1 < pop.steps < 500
    w = map_weights(grouped(x, start, chosen, group, 120), pop.mean, pop.precision)[0]
    assert np.corrcoef(w[:, 0], true[:, 0])[0, 1] > 0.6     # the person's own weights


def test_chosen_log_probabilities_come_back_in_the_caller_s_order():
    x, start, chosen, group, _ = simulate(3, 4, np.zeros(2), np.eye(2), 6)
    shuffled = np.array([2, 0, 1])[group]                  # groups not in order of choices
    data = grouped(x, start, chosen, shuffled, 3)
    w = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    logs = chosen_log_probabilities(data, w)
    for o in range(len(group)):
        u = x[start[o]:start[o + 1]] @ w[shuffled[o]]
        assert logs[o] == pytest.approx(u[chosen[o] - start[o]] - np.log(np.exp(u).sum()))
