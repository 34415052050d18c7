"""Parameter and model recovery: people simulated from known parameters are fitted back.

Every parameter (and the lapse) must lie in its Wald interval, Bonferroni-adjusted over the
model's parameters (family-wise 95 %); the model that generated the data must have the fewest
cross-validated bits among the candidates. On the 40 maps of the Maze Search Task (line of sight
over a known layout, what each map shows at the start) and on generated mazes (a window of 2
over an unknown layout).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mazesim import generate, make_agent
from mazesim.agents.vision import MST_VISION
from mazesim.errors import DataError
from mazesim.humans import fit_run, load_human_run, read_mst
from mazesim.humans.fitting.likelihood import best_lapse, person_weights
from mazesim.humans.fitting.recovery import (people, population_estimates, population_means,
                                     simulate_population)
from mazesim.experiment.storage import RunStore

from tests.humans.mst_data import mst_folder

PEOPLE = 40
TRUE_WEIGHTS = dict(reverse=-0.5, visited=-1.0, straight=0.7, view=0.3, frontier=2.0,
                    closed=-1.0, goal=4.0, region=1.5)
CANDIDATES = ["choice-model", "weighted-walker", "turn-bias"]


@pytest.fixture(scope="module")
def mst_mazes():
    return read_mst(mst_folder()).mazes


@pytest.fixture(scope="module")
def generated():
    return {f"digging-{i}": generate("digging", (11, 11), seed=i) for i in range(16)}


def _recovered(tmp_path, mazes, agent, vision, seed):
    summary = simulate_population(mazes, agent, vision, PEOPLE, seed, tmp_path / "people")
    run = load_human_run(tmp_path / "people")
    report = fit_run(run, CANDIDATES, folds=5, seed=seed)
    return summary, report


def _check(report, agent):
    best = report.models[0]
    assert best.model == agent.name, [(m.model, m.cv_bits) for m in report.models]
    names = [*best.estimate.params, "lapse"]
    family = 1 - 0.05 / len(names)
    for name in names:
        true = agent.lapse if name == "lapse" else getattr(agent, name)
        low, high = best.interval(name, family)
        assert low <= true <= high, (name, true, best.estimate.params, low, high)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["mst", "generated"])
def test_the_choice_model_is_recovered(tmp_path, mst_mazes, generated, where):
    agent = make_agent("choice-model", **TRUE_WEIGHTS, lapse=0.05)
    mazes, vision = (mst_mazes, MST_VISION) if where == "mst" else (generated, {"window": 2})
    summary, report = _recovered(tmp_path, mazes, agent, vision, seed=1)
    assert summary.trials == PEOPLE * len(mazes) and summary.decisions > 4000
    _check(report, agent)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["mst", "generated"])
def test_the_weighted_walker_is_recovered(tmp_path, mst_mazes, generated, where):
    agent = make_agent("weighted-walker", initial_count=3.0, lapse=0.1)
    mazes, vision = (mst_mazes, MST_VISION) if where == "mst" else (generated, {"window": 2})
    _, report = _recovered(tmp_path, mazes, agent, vision, seed=2)
    _check(report, agent)


def test_a_simulated_population_is_stored_as_a_run_of_people(tmp_path, generated):
    two = dict(list(generated.items())[:2])
    summary = simulate_population(two, make_agent("random-walk"), 2, 3, 7, tmp_path / "p")
    assert (summary.trials, summary.participants, summary.mazes) == (6, 3, 2)
    with RunStore(tmp_path / "p") as store:
        assert (store.meta("kind"), store.meta("format")) == ("human", "simulated")
        assert sorted({s for (s,) in store.query("SELECT participant FROM trials")}) == [
            "sim0", "sim1", "sim2"]
    again = simulate_population(two, make_agent("random-walk"), 2, 3, 7, tmp_path / "q")
    assert again.to_json() == summary.to_json()


def test_people_who_differ_walk_with_their_own_agent(tmp_path, generated):
    """One agent per participant: participant i's walk on maze m is the one trial of
    simulate_many(maze, agents[i], vision, 1, SeedSequence(seed, spawn_key=(m, i)))."""
    import numpy as np

    from mazesim.errors import DataError
    from mazesim.walks import simulate_many

    two = dict(sorted(generated.items())[:2])
    agents = [make_agent("turn-bias", p_straight=0.9), make_agent("turn-bias", p_straight=0.1)]
    summary = simulate_population(two, agents, 2, 2, 5, tmp_path / "p")
    assert (summary.trials, summary.participants) == (4, 2)
    run = load_human_run(tmp_path / "p")
    for trial in run.trials:
        m = sorted(two).index(next(k for k, v in two.items() if v.grid.shape == run.mazes[
            trial.maze_id].grid.shape and np.array_equal(v.grid, run.mazes[trial.maze_id].grid)))
        i = int(trial.participant.removeprefix("sim"))
        expected = simulate_many(two[sorted(two)[m]], agents[i], 2, 1,
                                 np.random.SeedSequence(5, spawn_key=(m, i)),
                                 keep_positions=True).positions[0]
        assert np.array_equal(trial.positions, expected)
    with pytest.raises(DataError, match="agents: 1 for 2 participants"):
        simulate_population(two, agents[:1], 2, 2, 5, tmp_path / "q")


@pytest.mark.slow
def test_the_recovery_experiment_quick_mode_fills_the_confusion_matrix():
    """experiments/model-recovery/recover.py --quick: every model generates once and every
    model is a column; the quick run's known outcomes (README)."""
    import subprocess
    import sys
    from pathlib import Path

    from mazesim.humans import default_models

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(root / "experiments/model-recovery/recover.py"),
                          "--quick"], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(root)}).stdout
    models = default_models()
    lines = out.splitlines()
    header = lines.index("| generated by | " + " | ".join(models) + " |")
    rows = {line.split(" | ")[0][2:]: [int(c) for c in line.strip("| ").split(" | ")[1:]]
            for line in lines[header + 2: header + 2 + len(models)]}
    assert list(rows) == models and all(sum(r) == 1 for r in rows.values())
    best = {g: models[r.index(1)] for g, r in rows.items()}
    assert best["choice-model"] == "choice-model" and best["turn-bias"] == "turn-bias"
    assert f"Recovered: {sum(best[g] == g for g in models)} of {len(models)}." in out


def test_population_means_are_the_mean_of_the_people_drawn():
    """The generating population's values: the centres times E exp(N(0, s)), clipped and
    rounded as `people` draws them (against the mean of many people drawn)."""
    rng = np.random.default_rng(5)
    drawn = people("finite-memory", {"horizon": 7}, 0.9, 20_000, 0.3, rng)
    exact = population_means("finite-memory", {"horizon": 7}, 0.9, 0.3)
    assert exact["lapse"] < 0.9 * math.exp(0.3 ** 2 / 2)          # clipped at 1
    assert exact["lapse"] == pytest.approx(np.mean([a.lapse for a in drawn]), abs=0.003)
    assert exact["horizon"] == pytest.approx(np.mean([a.horizon for a in drawn]), abs=0.05)
    assert population_means("bfs", {}, 0.4, 0.0) == {"lapse": pytest.approx(0.4)}


def test_person_weights_count_every_person_once():
    participant = np.array([0, 0, 0, 2, 2, 0, 3])         # person 1 made no decision
    weights = person_weights(participant)
    assert weights.sum() == pytest.approx(len(participant))
    totals = np.bincount(participant, weights=weights)
    assert totals[[0, 2, 3]] == pytest.approx([7 / 3] * 3) and totals[1] == 0


def test_a_lapse_fitted_with_every_person_once_is_the_mean_of_their_lapses():
    """A rule's choice taken or not, three options everywhere: each person's own lapse is
    1.5 times their share of other choices, and the likelihood with every person counted once
    is maximal at the mean of those lapses (the pooled one weighs the busy person more)."""
    rng = np.random.default_rng(3)
    people = np.repeat([0, 1, 2], [40, 200, 90])
    lapses = np.array([0.2, 0.6, 0.35])
    chosen = (rng.random(len(people)) >= lapses[people] * 2 / 3).astype(float)
    n_open = np.full(len(people), 3)
    own = [best_lapse(chosen[people == i], n_open[people == i])[0] for i in range(3)]
    weighted = best_lapse(chosen, n_open, person_weights(people))[0]
    pooled = best_lapse(chosen, n_open)[0]
    assert weighted == pytest.approx(np.mean(own), abs=1e-9)
    assert abs(pooled - np.mean(own)) > 0.03


def test_a_fit_weighs_decisions_or_people_and_nothing_else(tmp_path, generated):
    simulate_population(generated, make_agent("bfs", lapse=0.3), {"window": 2}, 4, 1,
                        tmp_path / "people")
    run = load_human_run(tmp_path / "people")
    with pytest.raises(DataError, match=r"weigh: 'each' \(allowed: decision, person\)"):
        fit_run(run, ["bfs"], folds=0, weigh="each")


@pytest.mark.slow
def test_fits_counting_people_once_cover_the_population_lapse_and_the_pooled_fit_does_not(
        tmp_path):
    """20 seeds of 30 bfs people who differ (lapse 0.4 x exp(N(0, 0.3))) on 6 mazes of 11x11
    (the bfs row of experiments/model-recovery/coverage.py): the pooled lapse sits above the
    population's mean (people who lapse more walk longer and weigh more) and its interval
    misses it in 3 seeds; counting every person once (`weigh="person"`) or averaging the
    people's own fits does not, and their 95 % intervals hold the population value in 18 and
    19 of 20 seeds."""
    mazes = {f"digging-{i}": generate("digging", (11, 11), seed=i) for i in range(6)}
    truth = population_means("bfs", {}, 0.4, 0.3)["lapse"]
    pooled, own, once, held, pooled_held, once_held = [], [], [], 0, 0, 0
    for seed in range(20):
        rng = np.random.default_rng(np.random.SeedSequence([seed, *b"bfs"]))
        simulate_population(mazes, people("bfs", {}, 0.4, 30, 0.3, rng), {"window": 2}, 30,
                            seed, tmp_path / str(seed))
        run = load_human_run(tmp_path / str(seed))
        fit = fit_run(run, ["bfs"], folds=0, seed=seed, starts=1, by="participant").models[0]
        weighted = fit_run(run, ["bfs"], folds=0, seed=seed, weigh="person").models[0]
        once.append(weighted.estimate.lapse)
        low, high = weighted.interval("lapse")
        once_held += low <= truth <= high
        estimate = population_estimates(fit)["lapse"]
        pooled.append(fit.estimate.lapse)
        low, high = fit.interval("lapse")
        pooled_held += low <= truth <= high
        own.append(estimate.mean)
        held += estimate.holds(truth)
    assert np.mean(pooled) - truth > 0.04 and pooled_held == 17
    assert abs(np.mean(own) - truth) < 0.002 and held == 19
    assert abs(np.mean(once) - truth) < 0.002 and once_held == 18
