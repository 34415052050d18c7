"""The regression of mean moves on z-scored parameters with generator as a factor."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.outliers_influence import variance_inflation_factor

from mazesim.experiment.regression import INTERCEPT, factor_term, regression, vif_table


def _data(n=60, seed=2):
    rng = np.random.default_rng(seed)
    strata = np.repeat(["stick-knocking", "digging", "wall-extending"], n // 3)
    a = rng.normal(size=n) + (strata == "digging") * 3
    b = -0.8 * a + rng.normal(size=n)            # collinear with a
    y = 100 + 20 * a + 5 * b + 30 * (strata == "digging") + rng.normal(scale=5, size=n)
    return {"a": a, "b": b}, y, strata


@pytest.mark.parametrize("errors, cov_type", [("hc3", "HC3"), ("nonrobust", "nonrobust")])
def test_coefficients_match_statsmodels_formula(errors, cov_type):
    x, y, strata = _data()
    fit = regression("dfs", "2", x, y, strata, errors=errors)
    z = {k: (v - v.mean()) / v.std(ddof=1) for k, v in x.items()}
    frame = pd.DataFrame({**z, "y": y, "g": pd.Categorical(strata, list(dict.fromkeys(strata)))})
    expected = smf.ols("y ~ a + b + C(g)", frame).fit(cov_type=cov_type, use_t=True)
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
        assert (t.r2, t.n, t.errors) == (pytest.approx(expected.rsquared), 60, errors)
    assert fit.r2 == pytest.approx(expected.rsquared) and fit.note == ""


def test_hc3_is_the_default_and_is_mackinnon_and_whites_formula():
    """HC3 by hand: (X'X)^-1 X' diag(e^2 / (1 - h)^2) X (X'X)^-1, h the leverages."""
    x, y, strata = _data()
    y = y + np.random.default_rng(4).normal(scale=1 + 3 * np.abs(x["a"]))   # spread grows
    robust, classical = (regression("dfs", "2", x, y, strata, errors=e)
                         for e in ("hc3", "nonrobust"))
    default = regression("dfs", "2", x, y, strata)
    assert [(t.se, t.errors) for t in default.terms] == [(t.se, "hc3") for t in robust.terms]
    assert [t.coef for t in robust.terms] == pytest.approx([t.coef for t in classical.terms])
    z = [(v - v.mean()) / v.std(ddof=1) for v in x.values()]
    design = np.column_stack([np.ones(60), *z, strata == "digging", strata == "wall-extending"])
    inverse = np.linalg.inv(design.T @ design)
    residuals = y - design @ (inverse @ design.T @ y)
    leverage = np.einsum("ij,jk,ik->i", design, inverse, design)
    meat = design.T @ (design * (residuals / (1 - leverage))[:, None] ** 2)
    assert [t.se for t in robust.terms] == pytest.approx(
        np.sqrt(np.diag(inverse @ meat @ inverse)), rel=1e-9)
    with pytest.raises(ValueError, match="errors 'hc1'"):
        regression("dfs", "2", x, y, strata, errors="hc1")


def test_vif_and_classical_errors_give_the_numbers_of_the_hand_written_code():
    """Computed before statsmodels' `variance_inflation_factor` replaced the inverse of the
    correlation matrix, with the classical OLS standard errors of then."""
    rng = np.random.default_rng(2)
    strata = np.repeat(["stick-knocking", "digging", "wall-extending"], 20)
    a = rng.normal(size=60) + (strata == "digging") * 3
    b = -0.8 * a + rng.normal(size=60)
    c = rng.normal(size=60)
    y = 100 + 20 * a + 5 * b + 30 * (strata == "digging") + rng.normal(scale=5, size=60)
    fit = regression("dfs", "2", {"a": a, "b": b, "c": c}, y, strata, errors="nonrobust")
    assert np.isnan(fit.terms[0].vif)
    assert [t.vif for t in fit.terms[1:]] == pytest.approx(
        [6.472116286664887, 3.851391809247451, 1.0681643015978683, 3.6805002426621427,
         1.3805138256047824], rel=1e-12)
    assert [t.se for t in fit.terms] == pytest.approx(
        [1.6140656118025698, 1.9728172884978057, 1.5218524944362437, 0.8014616368843843,
         3.1294914698322516, 1.9166407916815769], rel=1e-12)


def test_vifs_within_generators_are_those_of_each_generators_mazes():
    x, y, strata = _data()
    table = {(v.stratum, v.term): v for v in vif_table(x, strata)}
    fit = regression("dfs", "2", x, y, strata)
    assert [table["all", t.term].vif for t in fit.terms[1:3]] == pytest.approx(
        [t.vif for t in fit.terms[1:3]])                       # the regression's, with dummies
    for g in dict.fromkeys(strata):
        mine = strata == g
        z = [(v[mine] - v[mine].mean()) / v[mine].std(ddof=1) for v in x.values()]
        design = np.column_stack([np.ones(mine.sum()), *z])
        assert [table[g, k].vif for k in x] == pytest.approx(
            [variance_inflation_factor(design, i) for i in (1, 2)])
        assert table[g, "a"].n == 20
    demeaned = [v - np.array([v[strata == g].mean() for g in strata]) for v in x.values()]
    design = np.column_stack([np.ones(60), *[(v - v.mean()) / v.std(ddof=1) for v in demeaned]])
    assert [table["within", k].vif for k in x] == pytest.approx(
        [variance_inflation_factor(design, i) for i in (1, 2)])
    assert table["within", "a"].vif < table["all", "a"].vif     # a tells the generators apart
    assert {s for s, _ in table} == {"all", "within", "stick-knocking", "digging",
                                     "wall-extending"}
    assert [v.stratum for v in vif_table(x, ["digging"] * 60)] == ["all", "all"]   # one stratum


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
