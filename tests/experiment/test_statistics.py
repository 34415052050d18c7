"""Table 1 statistics: strata, intervals, partial correlations, Holm's correction, summaries."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings, strategies as st
from scipy import stats

from mazesim.experiment.statistics import (BOOTSTRAP_RESAMPLES, CONFIDENCE, MIN_MAZES,
                                           correlate, correlations, fisher_interval, holm,
                                           summary)


def test_holm_on_a_known_list():
    # sorted 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> max so far
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_ignores_nan_and_caps_at_one():
    out = holm([0.01, np.nan, 0.6, 0.55])
    assert np.isnan(out[1])
    # three tests, not four: 0.01 x 3; 0.55 x 2 = 1.1 -> 1; 0.6 x 1, but not below 1.1 -> 1
    assert out[[0, 2, 3]] == pytest.approx([0.03, 1.0, 1.0])


@settings(max_examples=15)     # statsmodels' Holm runs a full garbage collection per call
@given(st.lists(st.floats(0, 1) | st.just(float("nan")), min_size=1, max_size=30))
def test_holm_is_the_step_down_of_the_finite_p_values(p):
    """Against a step-down written out: sorted, scaled by m - rank, running maximum, cap 1."""
    p = np.array(p)
    finite = np.flatnonzero(np.isfinite(p))
    order = finite[np.argsort(p[finite], kind="stable")]
    expected = np.full(len(p), np.nan)
    scaled = p[order] * (len(order) - np.arange(len(order)))
    expected[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    assert np.allclose(holm(p), expected, rtol=1e-12, atol=0, equal_nan=True)


def test_holm_gives_the_numbers_of_the_hand_written_step_down_it_replaced():
    # computed by the former step-down code (sort, scale by m - rank, running maximum, cap 1)
    p = [0.01, 0.04, 0.03, 0.005, np.nan, 0.04, 0.5, 0.9, 0.0, 1.0, 0.2, 0.012]
    old = [0.09, 0.24, 0.21, 0.05, np.nan, 0.24, 1.0, 1.0, 0.0, 1.0, 0.8, 0.096]
    assert np.allclose(holm(p), old, rtol=1e-12, atol=0, equal_nan=True)


def test_fisher_interval_by_hand():
    # z = atanh 0.5 = 0.549306; se = 1 / sqrt(28 - 3) = 0.2; z +- 1.959964 x 0.2, back by tanh
    low, high = fisher_interval(0.5, 28)
    assert (low, high) == pytest.approx((0.15602836252908606, 0.7358184794439376), abs=1e-12)
    assert fisher_interval(0.5, 31, controls=3) == pytest.approx((low, high), abs=1e-12)
    assert np.isnan(fisher_interval(0.5, 3)[0])


def test_pearson_from_scipy_gives_the_numbers_of_the_hand_written_formulas():
    """r, Fisher's interval and Student's p computed before scipy's `pearsonr` replaced them;
    the partial r within groups (scipy has none) is unchanged."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=25)
    y = 0.6 * x + rng.normal(size=25)
    groups = np.repeat(["a", "b", "c"], [8, 9, 8])
    assert correlate(x, y, "pearson") == pytest.approx(
        (0.6175970500814776, 0.2942797266582044, 0.8140692614066111, 0.0010041707888995407),
        rel=1e-12)
    assert correlate(x + (groups == "b") * 3, y - (groups == "c") * 2, "pearson",
                     groups=groups) == pytest.approx(
        (0.5894741262891302, 0.2341715404961606, 0.8058651576283423, 0.0030759118880582088),
        rel=1e-12)
    for (r, n), old in zip([(0.5, 28), (-0.73, 300), (0.08, 100), (0.99, 5)], [
            (0.15602836252908606, 0.7358184794439376), (-0.7788560692915311, -0.6723385755345606),
            (-0.11827665186811305, 0.2721418307903482), (0.8512703563706671, 0.9993715660074504)]):
        assert fisher_interval(r, n) == pytest.approx(old, rel=1e-12)
        scipy_ci = stats.pearsonr(*_with_r(r, n)).confidence_interval()
        assert (scipy_ci.low, scipy_ci.high) == pytest.approx(old, rel=1e-9)


def _with_r(r, n):
    """Two samples of n values whose Pearson correlation is exactly r."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, n))
    a, b = (a - a.mean()) / np.linalg.norm(a - a.mean()), b - b.mean()
    b = b - (b @ a) * a
    b /= np.linalg.norm(b)
    return a, r * a + np.sqrt(1 - r * r) * b


def _sample(n=60, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, 2 * x + rng.normal(size=n)


@pytest.mark.parametrize("method, scipy_test", [("pearson", stats.pearsonr),
                                                 ("spearman", stats.spearmanr)])
def test_pooled_r_and_p_match_scipy(method, scipy_test):
    x, y = _sample()
    r, low, high, p = correlate(x, y, method, seed=1)
    expected = scipy_test(x, y)
    assert r == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue)
    assert low < r < high


def _grouped(seed=5):
    """Three groups whose means differ a lot in both x and y (Simpson's setting)."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(["a", "b", "c"], [20, 25, 15])
    shift = {"a": 0.0, "b": 10.0, "c": 20.0}
    base = np.array([shift[g] for g in groups])
    x = base + rng.normal(size=len(groups))
    y = -3 * base + 0.5 * (x - base) + rng.normal(size=len(groups))
    return x, y, groups


def test_within_is_the_partial_correlation_of_statsmodels():
    x, y, groups = _grouped()
    fit = smf.ols("y ~ x + C(g)", pd.DataFrame({"x": x, "y": y, "g": groups})).fit()
    t, df = fit.tvalues["x"], fit.df_resid
    r, low, high, p = correlate(x, y, "pearson", groups=groups)
    assert r == pytest.approx(t / np.sqrt(t * t + df))
    assert p == pytest.approx(fit.pvalues["x"])
    assert (low, high) == pytest.approx(fisher_interval(r, len(x), controls=2))
    assert r > 0 > correlate(x, y, "pearson")[0]      # pooled: the sign flips


def test_within_spearman_is_the_partial_correlation_of_the_pooled_ranks():
    x, y, groups = _grouped()
    ranks = pd.DataFrame({"x": stats.rankdata(x), "y": stats.rankdata(y), "g": groups})
    fit = smf.ols("y ~ x + C(g)", ranks).fit()
    t, df = fit.tvalues["x"], fit.df_resid
    r, _, _, p = correlate(x, y, "spearman", groups=groups, seed=1)
    assert r == pytest.approx(t / np.sqrt(t * t + df)) and p == pytest.approx(fit.pvalues["x"])


def test_spearman_bootstrap_is_seeded():
    x, y = _sample(40)
    first = correlate(x, y, "spearman", seed=np.random.SeedSequence(7, spawn_key=(1, 2)))
    again = correlate(x, y, "spearman", seed=np.random.SeedSequence(7, spawn_key=(1, 2)))
    other = correlate(x, y, "spearman", seed=np.random.SeedSequence(8))
    assert first == again and first[1:3] != other[1:3] and first[0] == other[0]
    assert first[1] < first[0] < first[2]


def test_spearman_bootstrap_resamples_within_groups():
    """The interval is the percentile interval of the partial rank correlation over resamples
    drawn within each group, from the same seed."""
    x, y, groups = _grouped()
    r, low, high, _ = correlate(x, y, "spearman", groups=groups, seed=3)
    rng = np.random.default_rng(3)
    codes = np.unique(groups, return_inverse=True)[1]
    members = [np.flatnonzero(codes == g) for g in range(3)]
    draws = [rng.choice(m, size=(BOOTSTRAP_RESAMPLES, len(m))) for m in members]
    rhos = []
    for b in range(BOOTSTRAP_RESAMPLES):
        index = np.empty(len(x), np.int64)
        for m, drawn in zip(members, draws):
            index[m] = drawn[b]
        rhos.append(_partial_rank_r(x[index], y[index], codes))
    assert (low, high) == pytest.approx(tuple(np.nanpercentile(rhos, [2.5, 97.5])))


def _partial_rank_r(x, y, codes):
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    for g in range(codes.max() + 1):
        rx[codes == g] -= rx[codes == g].mean()
        ry[codes == g] -= ry[codes == g].mean()
    return np.corrcoef(rx, ry)[0, 1]


@settings(max_examples=30)
@given(st.integers(10, 60), st.integers(1, 4), st.integers(2, 20), st.integers(0, 2**32 - 1))
def test_spearman_bootstrap_is_numpy_s_bit_for_bit(n, n_groups, levels, seed):
    """The compiled rank counting gives the interval that numpy gives (`rng.choice` within
    groups, `rankdata`, group means removed, sums of products), exactly: ties, interleaved
    groups and one group (its shortcut) included."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n).astype(str) if n_groups > 1 else None
    x, y = rng.integers(0, levels, n).astype(float), rng.normal(size=n).round(1)
    r, low, high, _ = correlate(x, y, "spearman", groups=groups, seed=seed)
    if np.isfinite(r):
        assert (low, high) == _numpy_bootstrap(x, y, groups, seed)


def _numpy_bootstrap(x, y, groups, seed):
    codes = (np.zeros(len(x), np.int64) if groups is None
             else np.unique(groups, return_inverse=True)[1])
    rng = np.random.default_rng(seed)
    index = np.empty((BOOTSTRAP_RESAMPLES, len(x)), np.int64)
    for g in range(codes.max() + 1):
        members = np.flatnonzero(codes == g)
        index[:, members] = rng.choice(members, size=(BOOTSTRAP_RESAMPLES, len(members)))
    rx, ry = stats.rankdata(x[index], axis=-1), stats.rankdata(y[index], axis=-1)
    for g in range(codes.max() + 1):
        for ranks in (rx, ry):
            ranks[:, codes == g] -= ranks[:, codes == g].mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.clip((rx * ry).sum(-1) / np.sqrt((rx * rx).sum(-1) * (ry * ry).sum(-1)), -1, 1)
    tail = 100 * (1 - CONFIDENCE) / 2              # as the code has it: 2.5 and a little
    low, high = np.nanpercentile(rho, [tail, 100 - tail])
    return float(low), float(high)


def test_correlations_in_strata():
    x, y, groups = _grouped()
    y[3] = np.nan                                      # a maze without a counted trial
    recs = correlations("bfs", "2", {"solution_length": x}, y, ["pearson"], strata=groups,
                        capped_share={"a": 0.5, "all": 0.1})
    assert [(r.stratum, r.n) for r in recs] == [("a", 19), ("b", 25), ("c", 15), ("all", 59),
                                                ("within", 59)]
    a = recs[0]
    expected = stats.pearsonr(x[:20][np.arange(20) != 3], y[:20][np.arange(20) != 3])
    assert a.r == pytest.approx(expected.statistic) and a.p == pytest.approx(expected.pvalue)
    assert (a.capped_share, recs[3].capped_share) == (0.5, 0.1) and np.isnan(recs[1].capped_share)
    assert all(np.isnan(r.p_adjusted) for r in recs)   # set over a whole table by holm


def test_one_stratum_gives_only_all():
    x, y = _sample()
    recs = correlations("bfs", "2", {"p": x}, y, ["pearson", "spearman"],
                        strata=["digging"] * len(x))
    assert [(r.stratum, r.method) for r in recs] == [("all", "pearson"), ("all", "spearman")]


def test_too_few_mazes_or_a_constant_column_give_nan_not_an_error():
    (constant,) = correlations("bfs", "full", {"loops": np.zeros(10)}, np.arange(10.0),
                               ["pearson"])
    assert np.isnan(constant.r) and np.isnan(constant.p) and constant.n == 10
    few = correlate(np.arange(9.0), np.arange(9.0) ** 2, "spearman")
    assert MIN_MAZES["spearman"] == 10 and all(np.isnan(few))
    r, low, high, p = correlate(np.array([1.0, 2, 3]), np.array([1.0, 3, 2]), "pearson")
    assert r == pytest.approx(0.5) and p == pytest.approx(stats.pearsonr([1, 2, 3],
                                                                         [1, 3, 2]).pvalue)
    assert np.isnan(low) and np.isnan(high)            # Fisher's z needs a fourth maze


def test_unknown_method_is_a_bug_not_input():
    with pytest.raises(ValueError, match="kendall"):
        correlate(np.arange(5.0), np.arange(5.0), "kendall")


def test_summary_excludes_capped_trials_from_the_means():
    moves = np.array([10, 20, 30, 40, 1000])
    reached = np.array([True, True, True, True, False])
    s = summary("dfs", "2", moves, reached, ~reached, np.full(5, 10), np.zeros(5))
    assert (s.trials, s.counted, s.mean, s.median, s.q1, s.q3) == (5, 4, 25.0, 25.0, 17.5,
                                                                  32.5)
    assert s.reach_rate == 0.8 and s.capped_share == 0.2
    assert s.efficiency == pytest.approx(np.mean([1, 0.5, 1 / 3, 0.25]))
    # one maze: the interval of the mean is Student's t over the four counted trials
    half = stats.t.ppf(0.975, 3) * np.std([10, 20, 30, 40], ddof=1) / 2
    assert (s.ci_low, s.ci_high) == pytest.approx((25 - half, 25 + half))
    # the capped trial counts with the cap in the restricted mean: (10 + 20 + 30 + 40 + 1000) / 5
    assert (s.tau, s.restricted_mean) == (1000.0, 220.0)
    every = summary("dfs", "2", moves, reached, ~reached, np.full(5, 10), include_capped=True)
    assert (every.counted, every.mean) == (5, 220.0)


def test_summary_interval_takes_the_mazes_as_the_unit():
    moves = np.array([10, 12, 30, 34, 50, 50])
    mazes = np.array([0, 0, 1, 1, 2, 2])
    s = summary("a", "2", moves, np.ones(6, bool), np.zeros(6, bool), np.ones(6), mazes)
    means = np.array([11.0, 32.0, 50.0])
    half = stats.t.ppf(0.975, 2) * means.std(ddof=1) / np.sqrt(3)
    assert s.mazes == 3 and s.mean == pytest.approx(31.0)
    assert (s.ci_low, s.ci_high) == pytest.approx((31.0 - half, 31.0 + half))
    assert np.isnan(s.tau) and np.isnan(s.restricted_mean)      # nothing capped


def test_summary_mean_is_the_mean_of_the_maze_means_its_interval_is_centred_on():
    """Maze 0 has three counted trials, maze 1 one (two capped): the trial-weighted mean would
    be 17.5, off the centre of the interval sized from the maze means."""
    moves = np.array([10, 10, 10, 40, 90, 90])
    capped = np.array([False, False, False, False, True, True])
    mazes = np.array([0, 0, 0, 1, 1, 1])
    s = summary("a", "2", moves, ~capped, capped, np.ones(6), mazes)
    half = stats.t.ppf(0.975, 1) * np.std([10.0, 40.0], ddof=1) / np.sqrt(2)
    assert (s.counted, s.mean) == (4, 25.0)
    assert (s.ci_low, s.ci_high) == pytest.approx((25.0 - half, 25.0 + half))
    # restricted to the cap 90: maze 0 10, maze 1 (40 + 90 + 90) / 3
    assert (s.tau, s.restricted_mean) == (90.0, pytest.approx((10 + 220 / 3) / 2))


def test_summary_without_counted_trials():
    s = summary("a", "2", np.array([5, 5]), np.zeros(2, bool), np.ones(2, bool), np.ones(2))
    assert s.counted == 0 and np.isnan(s.mean) and s.capped_share == 1.0
    assert (s.tau, s.restricted_mean) == (5.0, 5.0)
