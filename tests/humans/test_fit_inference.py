"""Inference of `mazesim fit`: cluster-robust errors, the optimiser's status, folds that train
on something, scoring another fit's parameters (`--params`), the per-person results."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.errors import DataError
from mazesim.humans import import_mst, load_human_run, score_models
from mazesim.humans.data.run import excluded
from mazesim.humans.fitting.junction import fit_run, score_run
from mazesim.humans.fitting.wald import cluster_covariance
from mazesim.humans.fitting.output import (FIT_CSV, PARTICIPANTS_CSV, format_fit, read_fitted,
                                       write_fit)
from mazesim.humans.fitting.models import PlanSteps, build_model, parse_model
from mazesim.humans.fitting.likelihood import with_lapse

from tests.humans.conftest import GOOD

# s3 turns right twice at the fork's T before going left: a third person with decisions.
THIRD = ("s3", "fork", 1, "p(2,0)p(2,1);p(3,1);p(4,1);p(4,2);p(4,3);p(4,2);p(4,1);p(3,1);"
         "p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);", ";".join(["1"] * 13) + ";")


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def people(experiment_1_run):
    """Twelve participants of experiment 1 (about a thousand decisions)."""
    run = load_human_run(experiment_1_run)
    return excluded(run, run.participants[12:])


@pytest.fixture
def small(write_mst, tmp_path):
    import_mst(write_mst(GOOD + [THIRD]), tmp_path / "run")
    return tmp_path / "run"


def test_the_sandwich_is_statsmodels_cluster_covariance_of_a_logit():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    n, groups = 400, 15
    x = sm.add_constant(rng.normal(size=(n, 2)))
    cluster = rng.integers(0, groups, n)
    shared = rng.normal(0.0, 0.7, groups)[cluster]
    y = (rng.random(n) < 1 / (1 + np.exp(-(x @ [0.3, 1.0, -0.5] + shared)))).astype(float)
    model = sm.Logit(y, x)
    result = model.fit(disp=0, cov_type="cluster", cov_kwds={"groups": cluster})
    ours = cluster_covariance(-model.hessian(result.params), model.score_obs(result.params),
                              cluster)
    assert np.allclose(ours, result.cov_params(), rtol=1e-10, atol=0)
    assert np.all(np.isnan(cluster_covariance(np.eye(3), np.ones((5, 3)), np.zeros(5, int))))


def test_the_fits_robust_error_of_the_lapse_is_the_sandwich_by_hand(people):
    """random-walk: the lapse alone. Per decision log p = log((1 - l) c + l / n): the score
    s = (1/n - c) / p, the information sum s^2; the sandwich (sum over people of their summed
    scores squared) / information^2 times G/(G-1) (N-1)/(N-1). The interval takes the larger
    of it and the observed information's."""
    (m,) = fit_run(people, ["random-walk"], folds=0).models
    d = people.decisions
    chosen = build_model(parse_model("random-walk"), people, PlanSteps(people)).chosen(
        np.zeros(0), np.arange(len(d)))
    lapse = m.estimate.lapse
    score = (1 / d.n_open - chosen) / with_lapse(chosen, d.n_open, lapse)
    information = np.sum(score ** 2)
    per_person = np.bincount(d.participant, weights=score)
    groups = len(per_person)
    robust = math.sqrt(groups / (groups - 1) * np.sum(per_person ** 2)) / information
    assert 0.05 < lapse < 0.9 and groups == 12
    assert m.cluster_errors["lapse"] == pytest.approx(robust, rel=1e-4)
    assert m.model_errors["lapse"] == pytest.approx(1 / math.sqrt(information), rel=1e-4)
    assert m.errors["lapse"] == max(m.cluster_errors["lapse"], m.model_errors["lapse"])
    assert robust > 1.1 / math.sqrt(information)        # these people differ
    z = 1.959963984540054
    assert m.interval("lapse") == pytest.approx((lapse - z * robust, lapse + z * robust),
                                                rel=1e-4)
    data = m.to_json()
    assert (data["params_se"]["lapse"], data["params_se_cluster"]["lapse"],
            data["params_se_model"]["lapse"]) == (m.errors["lapse"], m.cluster_errors["lapse"],
                                                  m.model_errors["lapse"])
    assert data["bic_n"] == len(d)


def test_a_fit_that_did_not_converge_is_said(people):
    """An iteration limit of 1 stops SLSQP before the maximum: flagged, never silent."""
    report = fit_run(people, ["choice-model", "random-walk"], folds=2, max_iterations=1)
    fits = {m.model: m for m in report.models}
    assert fits["choice-model"].not_converged == ("pooled", "fold 0", "fold 1")
    assert fits["random-walk"].converged                # the lapse alone: Newton, no limit
    data = report.to_json()
    assert data["converged"] is False
    assert data["warnings"] == ["choice-model: the optimiser did not converge (pooled, fold 0, "
                                "fold 1; raise max_iterations)"]
    entry = next(m for m in data["models"] if m["model"] == "choice-model")
    assert (entry["converged"], entry["not_converged"]) == (False, ["pooled", "fold 0",
                                                                     "fold 1"])
    assert "**Warning**: choice-model: the optimiser did not converge" in format_fit(report)
    fine = fit_run(people, ["choice-model"], folds=0)
    assert fine.to_json()["converged"] is True and fine.warnings == []
    assert fine.models[0].bits < fits["choice-model"].bits - 0.05


def test_the_cli_warns_on_stderr_and_keeps_the_json(small):
    result = run_cli("fit", small, "--model", "choice-model", "--cv", "0", "--max-iterations",
                     "1", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: choice-model: the optimiser did not converge")
    assert json.loads(result.stdout)["converged"] is False


def test_no_fold_trains_on_nothing(write_mst, tmp_path):
    """Issue 23.14: s2 walks only the line (no junction decision); `--cv 2` trained one fold on
    s2 alone and scored s1 at the probability floor (996.58 bits). The folds are now dealt
    among the people with decisions, and there must be two of them."""
    line_only = ("s2", "line", 2, "p(0,0)p(1,0);p(2,0);p(3,0);", "1;1;1;")
    import_mst(write_mst([GOOD[0], line_only]), tmp_path / "run-two")
    result = run_cli("fit", tmp_path / "run-two", "--model", "random-walk", "--cv", "2")
    assert result.exit_code == 2 and result.output == (
        "Error: folds: 2: cross-validation by participant needs two participants with a "
        "junction decision (the run has 1; 1 of the 2 made none; folds 0 fits without it)\n")
    silent = ("s0",) + line_only[1:]
    import_mst(write_mst([GOOD[0], GOOD[2], silent], name="three"), tmp_path / "run-three")
    run = load_human_run(tmp_path / "run-three")
    counts = np.bincount(run.decisions.participant, minlength=3)
    assert dict(zip(run.participants, counts.tolist())) == {"s0": 0, "s1": 1, "s2": 2}
    for seed in range(5):
        (m,) = fit_run(run, ["random-walk"], folds=2, seed=seed).models
        cv = {p.participant: p.cv_bits for p in m.participants}
        assert m.cv_bits < 5 and cv["s0"] is None and cv["s1"] < 5 and cv["s2"] < 5
    with pytest.raises(DataError, match=r"folds: 3 \(allowed: 0 for none, or 2 to 2: the "
                                        r"participants with a junction decision, at most 100; "
                                        r"1 of the 3 made none\)"):
        fit_run(run, ["random-walk"], folds=3)


def test_params_on_the_run_it_was_fitted_on_give_the_in_sample_bits(small, tmp_path):
    models = ["choice-model:goal=0,region=0", "turn-bias", "random-walk"]
    report = fit_run(load_human_run(small), models, folds=0, seed=1)
    write_fit(report, tmp_path / "fit")
    (tmp_path / "fit.json").write_text(json.dumps(report.to_json()))
    fitted = read_fitted(tmp_path / "fit")
    assert [label for label, _ in fitted] == [m.model for m in report.models]
    for (_, estimate), m in zip(fitted, report.models):
        assert estimate.params == m.estimate.params and estimate.lapse == m.estimate.lapse
    def held(source):
        return [(label, e.params, e.lapse) for label, e in read_fitted(source)]

    assert held(tmp_path / "fit.json") == held(tmp_path / "fit") == \
        held(tmp_path / "fit" / FIT_CSV)
    for source in (tmp_path / "fit", tmp_path / "fit.json"):
        result = run_cli("fit", small, "--params", source, "--json")
        assert result.exit_code == 0, result.output
        scored = {m["model"]: m for m in json.loads(result.output)["models"]}
        for m in report.models:
            assert scored[m.model]["bits"] == pytest.approx(m.bits, rel=1e-12)
            assert scored[m.model]["lapse"] == m.estimate.lapse
    refit = score_models(small, tmp_path / "fit", ["turn-bias"], refit_lapse=True)
    assert [m.model for m in refit.models] == ["turn-bias"] and refit.models[0].k == 1
    turn = next(m for m in report.models if m.model == "turn-bias")
    assert refit.models[0].bits == pytest.approx(turn.bits, abs=1e-9)   # its lapse was the best
    text = run_cli("fit", small, "--params", tmp_path / "fit", "--refit-lapse").output
    assert "parameters held, the lapse refitted" in text and "| turn-bias |" in text
    everyone = score_models(small, tmp_path / "fit")          # held-out bits: compared too
    assert everyone.ranking.models == tuple(m.model for m in everyone.models)
    assert "paired over" in run_cli("fit", small, "--params", tmp_path / "fit").output


def test_params_scored_elsewhere_hold_the_fitted_weights(people):
    """Fitted on six people, scored on the other six: the same weights, the bits of those
    weights on those people (worse than their own fit's)."""
    ids = people.participants
    train, test = excluded(people, ids[6:]), excluded(people, ids[:6])
    (fit,) = fit_run(train, ["choice-model"], folds=0).models
    (scored,) = score_run(test, [(fit.model, fit.estimate)]).models
    (own,) = fit_run(test, ["choice-model"], folds=0).models
    assert scored.estimate.params == fit.estimate.params
    assert scored.estimate.lapse == fit.estimate.lapse
    assert scored.estimate.decisions == len(test.decisions)
    assert own.bits < scored.bits < test.decisions.baseline_bits()
    per = [p.pooled_bits * p.decisions for p in scored.participants]
    assert sum(per) / len(test.decisions) == pytest.approx(scored.bits)


@pytest.mark.parametrize("content, message", [
    ("{", "params {path}:1:2: Expecting property name enclosed in double quotes"),
    ('{"level": "node", "models": []}', "params {path}: a node-level fit (scoring at the "
                                        "junction level)"),
    ('{"models": [{"model": "turn-bias", "lapse": 0.1}]}',
     "params {path}: model 1 'turn-bias': needs model, lapse and params"),
    ('{"models": [{"model": "turn-bias", "lapse": 2, "params": {}}]}',
     "params {path}: model 1 'turn-bias': lapse 2.0 (allowed: 0 to 1)"),
    ('{"models": [{"model": "turn-bias", "lapse": 0.1, "params": {"p_straight": 0.5}}]}',
     "params {path}: model 1 'turn-bias': missing parameter 'p_alternate' (the model's "
     "parameters: p_straight, p_reverse, p_alternate)"),
    ('{"models": [{"model": "nobody", "lapse": 0.1, "params": {}}]}', "unknown agent 'nobody'"),
    ('{"models": []}', "params {path}: no model"),
])
def test_bad_params_files_are_one_line(small, tmp_path, content, message):
    path = tmp_path / "params.json"
    path.write_text(content)
    result = run_cli("fit", small, "--params", path)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert message.format(path=path) in result.output


@pytest.mark.parametrize("args, message", [
    (["--refit-lapse"], "Error: --refit-lapse: only with --params"),
    (["--level", "node", "--max-iterations", "5"], "Error: --max-iterations: junction level "
                                                   "only (not with --level node)"),
    (["--max-iterations", "0"], "Invalid value for '--max-iterations': 0 is not in the range"),
])
def test_inference_options_errors(small, args, message):
    result = run_cli("fit", small, *args)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("Error: ") and message in result.output


def test_by_participant_prints_and_stores_each_person(small, tmp_path):
    """Issue 24.4: the per-person fits reach the text, the JSON and filled CSV columns."""
    result = run_cli("fit", small, "--model", "turn-bias", "--by", "participant", "--cv", "3",
                     "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "Each participant's own fit" in result.output
    assert "| participant | decisions | cv bits | lapse | bits | parameters |" in result.output
    assert sum(line.startswith("| s") for line in result.output.splitlines()) == 3
    data = json.loads(run_cli("fit", small, "--model", "turn-bias", "--by", "participant",
                              "--cv", "3", "--json").output)
    people = data["models"][0]["participants"]
    assert [p["participant"] for p in people] == ["s1", "s2", "s3"]
    assert [p["decisions"] for p in people] == [1, 2, 2]
    assert set(people[0]) == {"participant", "decisions", "cv_bits", "pooled_bits", "lapse",
                              "bits", "params", "converged"}
    with open(tmp_path / "out" / FIT_CSV, encoding="utf-8", newline="") as handle:
        (row,) = csv.DictReader(handle)
    params = json.loads(row["params"])
    assert {k: float(row["param_" + k]) for k in params} == params
    with open(tmp_path / "out" / PARTICIPANTS_CSV, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["fit"] for r in rows] == ["own"] * 3
    for r, p in zip(rows, people):
        assert float(r["lapse"]) == p["lapse"] and float(r["bits"]) == p["bits"]
        assert json.loads(r["params"]) == p["params"]
        assert float(r["param_p_straight"]) == p["params"]["p_straight"]


def test_pooled_participant_rows_carry_the_pooled_fit(small, tmp_path):
    report = fit_run(load_human_run(small), ["turn-bias", "random-walk"], folds=0)
    write_fit(report, tmp_path / "out")
    with open(tmp_path / "out" / PARTICIPANTS_CSV, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6 and {r["fit"] for r in rows} == {"pooled"}
    turn = next(m for m in report.models if m.model == "turn-bias")
    mine = [r for r in rows if r["model"] == "turn-bias"]
    assert all(float(r["lapse"]) == turn.estimate.lapse for r in mine)
    assert all(r["param_p_straight"] != "" for r in mine)
    walk = [r for r in rows if r["model"] == "random-walk"]
    assert all(r["param_p_straight"] == "" and r["params"] == "{}" for r in walk)
    total = sum(float(r["bits"]) * int(r["decisions"]) for r in mine)
    assert total / 5 == pytest.approx(turn.bits)
