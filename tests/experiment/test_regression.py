"""The regression of mean moves on z-scored parameters with generator as a factor."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.outliers_influence import variance_inflation_factor

from mazesim.experiment.regression import INTERCEPT, factor_term, regression


def _data(n=60, seed=2):
    rng = np.random.default_rng(seed)
    strata = np.repeat(["stick-knocking", "digging", "wall-extending"], n // 3)
    a = rng.normal(size=n) + (strata == "digging") * 3
    b = -0.8 * a + rng.normal(size=n)            # collinear with a
    y = 100 + 20 * a + 5 * b + 30 * (strata == "digging") + rng.normal(scale=5, size=n)
    return {"a": a, "b": b}, y, strata


def test_coefficients_match_statsmodels_formula():
    x, y, strata = _data()
    fit = regression("dfs", "2", x, y, strata)
    z = {k: (v - v.mean()) / v.std(ddof=1) for k, v in x.items()}
    frame = pd.DataFrame({**z, "y": y, "g": pd.Categorical(strata, list(dict.fromkeys(strata)))})
    expected = smf.ols("y ~ a + b + C(g)", frame).fit()
    terms = {t.term: t for t in fit.terms}
    assert list(terms) == [INTERCEPT, "a", "b", factor_term("digging"),
                           factor_term("wall-extending")]
    names = {INTERCEPT: "Intercept", "a": "a", "b": "b",
             factor_term("digging"): "C(g)[T.digging]",
             factor_term("wall-extending"): "C(g)[T.wall-extending]"}
    interval = expected.conf_int()
    for term, name in names.items():
        t = terms[term]
        assert t.coef == pytest.approx(expected.params[name])
        assert t.se == pytest.approx(expected.bse[name])
        assert t.p == pytest.approx(expected.pvalues[name])
        assert (t.ci_low, t.ci_high) == pytest.approx(tuple(interval.loc[name]))
        assert (t.r2, t.n) == (pytest.approx(expected.rsquared), 60)
    assert fit.r2 == pytest.approx(expected.rsquared) and fit.note == ""


def test_vif_matches_statsmodels():
    x, y, strata = _data()
    fit = regression("dfs", "2", x, y, strata)
    z = [(v - v.mean()) / v.std(ddof=1) for v in x.values()]
    design = np.column_stack([np.ones(60), *z, strata == "digging", strata == "wall-extending"])
    expected = [variance_inflation_factor(design.astype(float), i) for i in range(1, 5)]
    assert [t.vif for t in fit.terms[1:]] == pytest.approx(expected)
    assert np.isnan(fit.terms[0].vif)
    assert fit.terms[1].vif > 2    # a and b go together


def test_one_stratum_has_no_factor_and_missing_mazes_are_left_out():
    x, y, _ = _data()
    y[[0, 5]] = np.nan
    fit = regression("dfs", "2", x, y)
    ok = np.isfinite(y)
    design = sm.add_constant(np.column_stack([(v[ok] - v[ok].mean()) / v[ok].std(ddof=1)
                                              for v in x.values()]))
    expected = sm.OLS(y[ok], design).fit()
    assert [t.term for t in fit.terms] == [INTERCEPT, "a", "b"] and fit.n == 58
    assert [t.coef for t in fit.terms] == pytest.approx(expected.params)


def test_constant_parameters_are_dropped_and_named():
    x, y, strata = _data()
    fit = regression("dfs", "2", {**x, "loops": np.zeros(60)}, y, strata)
    assert "loops" not in [t.term for t in fit.terms]
    assert fit.note == "constant, left out: loops"


def test_too_few_mazes_or_collinear_terms_are_said_not_fitted():
    x, y, strata = _data()
    few = regression("dfs", "2", {k: v[:3] for k, v in x.items()}, y[:3], strata[:3])
    assert few.terms == () and few.note == "3 mazes for 3 terms: too few to fit"
    assert regression("dfs", "2", {k: v[18:22] for k, v in x.items()}, y[18:22],
                      strata[18:22]).note == "4 mazes for 4 terms: too few to fit"
    twice = regression("dfs", "2", {"a": x["a"], "a2": 2 * x["a"]}, y, strata)
    assert twice.terms == () and "collinear" in twice.note
