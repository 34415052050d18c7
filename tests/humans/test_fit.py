"""Maximum-likelihood fits to people's junction decisions, cross-validated by participant."""

from __future__ import annotations

import csv
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim.agents import make_agent
from mazesim.errors import AgentError, ConfigError, DataError
from mazesim.humans import default_models, fit_models, import_mst, load_human_run
from mazesim.humans.fitting.junction import fit_run
from mazesim.humans.fitting.likelihood import best_lapse, log_likelihood
from mazesim.humans.fitting.crossval import person_folds
from mazesim.humans.fitting.output import FIGURE, FIT_CSV, PARTICIPANTS_CSV, format_fit, write_fit
from mazesim.humans.fitting.models import (PlanSteps, ReadModel, build_model, fitted_params,
                                           parse_model)
from mazesim.humans.fitting.likelihood import with_lapse
from mazesim.humans.fitting.ranking_output import RANKING_CSV

from tests.humans.conftest import GOOD

REFERENCE_3 = "choice-model:straight=0,frontier=0,closed=0,goal=0,region=0"
REFERENCE_5 = "choice-model:closed=0,goal=0,region=0"


@pytest.fixture(scope="module")
def experiment(experiment_1_run):
    return load_human_run(experiment_1_run)


@pytest.fixture
def small(write_mst, tmp_path):
    rows = GOOD + [("s2", "line", 2, "p(0,0)p(1,0);p(2,0);p(3,0);", "1;1;1;"),
                   ("s3", "fork", 1, "p(2,0)p(2,1);p(3,1);p(4,1);p(4,2);p(4,3);p(4,2);p(4,1);"
                    "p(3,1);p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);", ";".join(["1"] * 13) + ";")]
    import_mst(write_mst(rows), tmp_path / "run")
    return load_human_run(tmp_path / "run")


def test_decisions_are_the_junction_departures(small):
    d = small.decisions
    assert small.participants == ("s1", "s2", "s3")
    assert len(d) == 5 and d.n_open.tolist() == [3, 3, 3, 3, 3]
    assert d.chosen.tolist() == [3, 1, 3, 1, 3]                     # left; right, left; ...
    assert d.baseline_bits() == pytest.approx(math.log2(3))


@given(st.lists(st.floats(0, 1), min_size=1, max_size=40), st.integers(0, 2**31))
def test_the_lapse_maximises_the_likelihood(chosen, seed):
    chosen = np.array(chosen)
    n_open = np.random.default_rng(seed).integers(2, 5, len(chosen)).astype(float)
    lapse, ll = best_lapse(chosen, n_open)
    grid = np.linspace(0, 1, 2001)
    assert ll >= max(log_likelihood(chosen, n_open, g) for g in grid) - 1e-9
    assert ll == pytest.approx(log_likelihood(chosen, n_open, lapse))


@pytest.mark.parametrize("name", ["turn-bias", "weighted-walker", "random-walk",
                                  "choice-model"])
def test_the_lapse_is_mixed_as_the_walking_loop_mixes_it(experiment, name):
    trial = experiment.trials[7]
    maze = experiment.mazes[trial.maze_id]
    plain = make_agent(name).step_probabilities(maze, trial.vision, trial.positions)
    mixed = make_agent(name, lapse=0.3).step_probabilities(maze, trial.vision, trial.positions)
    n_open = np.array([len(maze.open_directions(tuple(p))) for p in trial.positions[:-1]])
    moves = np.diff(trial.positions, axis=0)
    chosen = np.select([moves[:, 0] < 0, moves[:, 1] > 0, moves[:, 0] > 0], [0, 1, 2], 3)
    at = np.arange(len(chosen))
    assert np.allclose(mixed[at, chosen], with_lapse(plain[at, chosen], n_open, 0.3),
                       rtol=1e-14, atol=0)


@pytest.mark.parametrize("name, theta", [("turn-bias", [0.3, 0.15, 0.8]),
                                         ("straight-biased", [0.8]),
                                         ("weighted-walker", [0.7])])
def test_agents_read_without_goal_seeking_plus_their_plans_are_the_agents(experiment, name,
                                                                          theta):
    """Each evaluation reads the fast loop without perception and puts the plan steps back
    (through decision classes): the same probabilities as the goal-seeking agent itself."""
    spec = parse_model(name)
    model = build_model(spec, experiment, PlanSteps(experiment))
    assert isinstance(model, ReadModel) and model.classes is not None
    values = {p.name: p.value(x) for p, x in zip(spec.free, theta)}
    agent = make_agent(name, **values)
    d = experiment.decisions
    rows = np.flatnonzero(d.trial < 400)
    expected = np.array([agent.step_probabilities(
        experiment.mazes[experiment.trials[t].maze_id], experiment.trials[t].vision,
        experiment.trials[t].positions)[s, c] for t, s, c in zip(d.trial[rows], d.step[rows],
                                                                 d.chosen[rows])])
    assert np.allclose(model.chosen(np.array(theta), rows), expected, rtol=1e-12, atol=1e-15)


def test_the_logit_gradient_is_the_derivative(experiment):
    model = build_model(parse_model("choice-model"), experiment, None)
    rows = np.arange(300)
    data = model.subset(rows)
    w = np.random.default_rng(0).normal(size=8)
    _, grad = data.chosen_and_gradient(w)
    h = 1e-6
    for f in range(8):
        step = np.zeros(8)
        step[f] = h
        numeric = (data.chosen_and_gradient(w + step)[0]
                   - data.chosen_and_gradient(w - step)[0]) / (2 * h)
        assert np.allclose(grad[:, f], numeric, atol=1e-7)


def test_a_fit_is_the_maximum_and_one_seed_gives_one_answer(small):
    one = fit_run(small, ["turn-bias", "random-walk"], folds=3, seed=4)
    two = fit_run(small, ["turn-bias", "random-walk"], folds=3, seed=4)
    assert json.dumps(one.to_json()) == json.dumps(two.to_json())
    turn = next(m for m in one.models if m.model == "turn-bias")
    model = build_model(parse_model("turn-bias"), small, PlanSteps(small))
    rows = np.arange(len(small.decisions))
    rng = np.random.default_rng(1)
    for _ in range(30):
        chosen = model.chosen(rng.uniform(0, 1, 3), rows)
        assert turn.estimate.log_likelihood >= best_lapse(chosen, small.decisions.n_open)[1] \
            - 1e-9


def test_folds_deal_participants_evenly():
    folds = person_folds(11, 4, np.random.default_rng(0))
    assert sorted(np.bincount(folds).tolist()) == [2, 3, 3, 3]
    assert not np.array_equal(folds, person_folds(11, 4, np.random.default_rng(1)))


def test_cross_validated_bits_come_from_fits_without_the_participant(small):
    report = fit_run(small, ["random-walk"], folds=3, seed=0, by="participant")
    (m,) = report.models
    assert m.cv_bits_ci[0] <= m.cv_bits <= m.cv_bits_ci[1]
    per = {p.participant: p for p in m.participants}
    assert sum(p.decisions for p in per.values()) == 5
    total = sum(p.cv_bits * p.decisions for p in per.values())
    assert total / 5 == pytest.approx(m.cv_bits)
    assert all(p.own is not None and p.own.decisions == p.decisions for p in per.values())
    assert m.k == 1 and m.aic == pytest.approx(2 - 2 * m.estimate.log_likelihood)
    assert m.bic == pytest.approx(math.log(5) - 2 * m.estimate.log_likelihood)


def test_fit_outputs(small, tmp_path):
    report = fit_run(small, ["random-walk", "weighted-walker"], folds=3, seed=0)
    paths = write_fit(report, tmp_path / "out")
    assert [p.name for p in paths] == [FIT_CSV, PARTICIPANTS_CSV, FIGURE, RANKING_CSV]
    rows = (tmp_path / "out" / FIT_CSV).read_text().splitlines()
    assert rows[0].startswith("model,agent,k,decisions,participants,baseline_bits,lapse,bits")
    assert len(rows) == 3
    assert len((tmp_path / "out" / PARTICIPANTS_CSV).read_text().splitlines()) == 1 + 2 * 3
    text = format_fit(report)
    assert "| model | k | lapse | bits | cv bits | 95 % CI | AIC | BIC |" in text
    assert "5 junction decisions of 3 participants; 3-fold cross-validation" in text
    best = report.to_json()["models"][0]
    assert set(best) >= {"model", "params", "lapse", "bits", "cv_bits", "cv_bits_ci", "aic",
                         "bic"}


def test_two_models_are_compared_over_people_or_a_line_says_why_not(small, tmp_path):
    """The junction level compared models only by their separate intervals; now, as at the
    node level, paired over people from their cross-validated (or held-out) bits."""
    report = fit_run(small, ["random-walk", "weighted-walker"], folds=3, seed=0)
    rank = report.ranking
    assert rank.models == tuple(m.model for m in report.models) and rank.people == 3
    assert rank.best == report.models[0].model and sum(rank.best_counts) == pytest.approx(3)
    (gap,) = rank.paired
    per_person = [b.cv_bits - a.cv_bits for a, b in zip(*(m.participants for m in
                                                          report.models))]
    assert gap.worse + gap.better <= 3 and gap.worse == sum(d > 0 for d in per_person)
    assert f"Against the best ({rank.best}), paired over 3 people" in format_fit(report)
    assert report.to_json()["ranking"]["best"] == rank.best
    rows = write_fit(report, tmp_path / "out")[-1].read_text().splitlines()
    assert rows[0].startswith("model,bits,bits_lost,ci_low,ci_high") and len(rows) == 3
    in_sample = fit_run(small, ["random-walk", "weighted-walker"], folds=0)
    assert in_sample.ranking is None and "without cross-validation" in in_sample.ranking_note
    assert "Paired comparison: none (no paired comparison without cross-validation" in \
        format_fit(in_sample)
    assert RANKING_CSV not in [p.name for p in write_fit(in_sample, tmp_path / "in")]
    one = fit_run(small, ["random-walk"], folds=3)
    assert one.ranking is None and one.to_json()["ranking_note"] == "one model: nothing to compare"


def test_a_fit_tells_its_progress(small):
    heard = []
    fit_run(small, ["random-walk", "turn-bias"], folds=0, progress=lambda *a: heard.append(a))
    assert heard == [("models fitted (now random-walk)", 0, 2),
                     ("models fitted (now turn-bias)", 1, 2), ("models fitted", 2, 2)]


@pytest.mark.parametrize("models, folds, message", [
    (["choice-model"], 4, "folds: 4 (allowed: 0 for none, or 2 to 3: the participants with a "
                          "junction decision, at most 100)"),
    (["shortest"], 0, "shortest gives no step probabilities"),
    (["random-walk:lapse=0.2"], 0, "the lapse is always fitted"),
    (["random-walk", "random-walk"], 0, "random-walk twice"),
    (["bsf"], 0, "unknown agent 'bsf'"),
    (["turn-bias:p_straight"], 0, "model turn-bias: 'p_straight': not key=value"),
])
def test_bad_fit_requests_are_one_line(small, models, folds, message):
    with pytest.raises((DataError, AgentError, ConfigError), match=re.escape(message)):
        fit_run(small, models, folds=folds)


def test_a_run_without_decisions_has_nothing_to_fit(write_mst, tmp_path):
    import_mst(write_mst([GOOD[1]]), tmp_path / "line")
    with pytest.raises(DataError, match="no junction decision"):
        fit_models(tmp_path / "line", ["random-walk"], folds=0)


def test_the_reference_figures_of_experiment_1(experiment):
    """The data README's independent computation: 9,927 decisions, 1.707 bits uniform, three
    features 1.503 in-sample, five features 1.181 in-sample and 1.182 by 5-fold CV."""
    report = fit_run(experiment, [REFERENCE_3, REFERENCE_5, "choice-model"], folds=5, seed=0)
    assert report.decisions == 9927 and report.participants == 119
    assert report.baseline_bits == pytest.approx(1.707, abs=5e-4)
    fits = {m.model: m for m in report.models}
    assert fits[REFERENCE_3].bits == pytest.approx(1.503, abs=3e-3)
    assert fits[REFERENCE_5].bits == pytest.approx(1.181, abs=2e-3)
    assert fits[REFERENCE_5].cv_bits == pytest.approx(1.182, abs=2e-3)
    five = fits[REFERENCE_5].estimate.params
    assert (five["frontier"], five["visited"], five["reverse"], five["straight"]) == \
        pytest.approx((1.55, -2.26, -0.91, 0.58), abs=0.06)
    best = report.models[0]
    assert best.model == "choice-model" and best.cv_bits < 1.18 and best.cv_bits_ci[1] < 1.18


def test_every_default_model_fits_a_tiny_run(small):
    """The headline `mazesim fit RUN` fits `default_models()`: every one must fit (a renamed
    agent key once broke it after a minute of fitting)."""
    report = fit_run(small, default_models(), folds=2, seed=0, starts=1)
    assert sorted(m.model for m in report.models) == sorted(default_models())
    for m in report.models:
        assert set(m.estimate.params) == {p.name for p in fitted_params(m.agent)}
        assert 0.0 <= m.bits and m.cv_bits is not None and math.isfinite(m.cv_bits)
        make_agent(m.agent, **m.estimate.params)        # the fitted values are valid keys


def test_imported_ids_that_are_formulas_are_neutralised_in_fit_participants(write_mst, tmp_path):
    formula = "@SUM(1+1)*cmd|' /C calc'!A0"
    rows = [(formula if s == "s1" else s, *rest) for s, *rest in GOOD]
    import_mst(write_mst(rows), tmp_path / "run")
    report = fit_run(load_human_run(tmp_path / "run"), ["random-walk"], folds=2, seed=0)
    write_fit(report, tmp_path / "out")
    with open(tmp_path / "out" / PARTICIPANTS_CSV, encoding="utf-8", newline="") as handle:
        people = [row["participant"] for row in csv.DictReader(handle)]
    assert people == ["'" + formula, "s2"]
