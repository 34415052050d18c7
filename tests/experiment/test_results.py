"""`load_run`: the tables of any run as DataFrames, the report's statistics, stored walks."""

import numpy as np
import pandas as pd
import pytest

from mazesim import load_run
from mazesim.errors import ConfigError, RunError
from mazesim.experiment.report import build_report
from mazesim.experiment.storage import CHOICE_COLUMNS, RunStore

from experiment_fixtures import SMALL, run_small, write_config
from report_fixtures import PEOPLE, TUTORIAL, human_run, positions, simulated_run


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    return simulated_run(tmp_path_factory.mktemp("sim"))


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    return human_run(tmp_path_factory.mktemp("people") / "run")


def test_simulated_run_tables(sim):
    run = load_run(sim)
    assert run.kind == "simulated" and run.settings.agents == ("weighted-walker", "dfs",
                                                               "random-walk")
    assert run.settings.visions == ("full", "2") and run.settings.capped == "exclude"
    assert list(run.mazes.columns[:7]) == ["maze_id", "source", "generator", "size", "seed",
                                           "stratum", "text"]
    assert list(run.mazes.stratum) == ["digging"] * 3 + ["stick-knocking"] * 2 + ["file"]
    assert len(run.trials) == 6 * 2 * (6 + 4 + 5)
    assert run.trials.reached.dtype == bool and run.trials.capped.dtype == bool
    assert list(run.choices.columns) == list(CHOICE_COLUMNS) and run.choices["first"].dtype == bool
    with RunStore(sim) as store:
        stored = store.query("SELECT trial_id, moves, reached FROM trials ORDER BY trial_id")
        params = {m.maze_id: m.parameters for m in store.mazes()}
    assert run.trials[["trial_id", "moves"]].to_numpy().tolist() == [[t, m] for t, m, _ in stored]
    assert run.trials.reached.tolist() == [bool(r) for _, _, r in stored]
    # the maze parameters are joined to every trial
    row = run.trials.iloc[100]
    assert row.solution_length == params[row.maze_id]["solution_length"]
    assert row.stratum == run.mazes.set_index("maze_id").stratum[row.maze_id]


def test_maze_means_exclude_capped_trials(sim):
    run = load_run(sim)
    means = run.maze_means.set_index(["agent", "vision", "maze_id"])
    t = run.trials
    mine = t[(t.agent == "random-walk") & (t.vision == "2") & (t.maze_id == 0)]
    row = means.loc[("random-walk", "2", 0)]
    assert (row.trials, row.capped) == (len(mine), mine.capped.sum())
    assert row.mean_moves == pytest.approx(mine.moves[~mine.capped].mean())


def test_correlations_and_regression_are_the_reports_tables(sim):
    run = load_run(sim)
    build_report(sim)
    for name, frame in (("correlations.csv", run.correlations),
                        ("regression.csv", run.regression)):
        stored = pd.read_csv(sim / name, keep_default_na=False, na_values=[""])
        assert list(stored.columns) == list(frame.columns)
        pd.testing.assert_frame_equal(stored, frame, check_dtype=False)
    assert list(run.correlations.columns) == ["agent", "vision", "parameter", "method", "stratum",
                                              "r", "ci_low", "ci_high", "p", "p_adjusted", "n",
                                              "capped_share", "estimate", "tau"]
    assert list(run.regression.columns) == ["agent", "vision", "term", "coef", "se", "ci_low",
                                            "ci_high", "p", "r2", "n", "vif", "errors",
                                            "estimate", "tau"]


def test_trials_counted_follow_the_reports_rule(sim, tmp_path):
    """The trials the report's means and medians count: capped ones left out, unless the config
    includes them."""
    run = load_run(sim)
    assert run.trials.capped.any()
    assert run.trials_counted.trial_id.tolist() == run.trials.trial_id[~run.trials.capped].tolist()
    medians = run.trials_counted.groupby(["agent", "vision"]).moves.median()
    build_report(sim)
    summary = pd.read_csv(sim / "summary.csv").set_index(["agent", "vision"])
    assert medians.to_dict() == pytest.approx(summary["median"].to_dict())
    data = {**SMALL, "name": "included", "analysis": {**SMALL["analysis"],
                                                       "capped": "include"}}
    data["agents"] = [{"type": "random-walk", "trials": 3, "max_steps": 20}]
    included = load_run(run_small(write_config(tmp_path / "cfg", data), tmp_path / "out").run_dir)
    assert included.trials.capped.any() and len(included.trials_counted) == len(included.trials)


def test_trajectory_is_the_stored_sample(sim):
    run = load_run(sim)
    trial_id = int(run.sampled[4])
    with RunStore(sim) as store:
        expected = store.sample(trial_id)
    assert np.array_equal(run.trajectory(trial_id), expected)
    missing = int(np.setdiff1d(run.trials.trial_id, run.sampled)[0])
    with pytest.raises(ConfigError, match=f"trial {missing} has no stored trajectory"):
        run.trajectory(missing)


def test_run_of_people_without_a_config(people):
    run = load_run(people)
    assert run.kind == "human" and run.meta["recorder"] == "import"
    s = run.settings
    assert (s.agents, s.visions, s.probes) == (("human",), ("2",), (("A", {}),))
    assert run.trials.seed.tolist() == list(PEOPLE) and run.trials.trial.tolist() == [1, 2]
    assert run.trials.moves.tolist() == [len(w) for w in PEOPLE.values()]
    firsts = run.choices[run.choices["first"] & (run.choices.mark == "A")]
    assert firsts.direction.tolist() == ["right", "left"]
    from mazesim.maze import parse_maze

    walk = positions(parse_maze(TUTORIAL), PEOPLE["p2"])
    assert np.array_equal(run.trajectory(1), walk)
    assert run.correlations.empty or run.correlations.r.isna().all()   # one maze


def test_not_a_run_directory(tmp_path):
    with pytest.raises(RunError, match="not a run directory"):
        load_run(tmp_path)


def test_a_run_stored_before_the_participant_column_reads_and_migrates(people, sim, tmp_path):
    """The first layout (`trials` without `participant`, a person's id in `seed`) still reads:
    the participant falls back to the seed for people and is None for agents; a writer opening
    such a run adds the column, filled from the seed, and keeps the rows otherwise."""
    import shutil
    import sqlite3

    from mazesim.humans import load_human_run

    for name, source in (("people", people), ("sim", sim)):
        shutil.copytree(source, tmp_path / name)
        conn = sqlite3.connect(tmp_path / name / "results.sqlite")
        conn.execute("ALTER TABLE trials DROP COLUMN participant")
        conn.commit()
        conn.close()
    old_people, old_sim = tmp_path / "people", tmp_path / "sim"
    with RunStore(old_people) as store:
        assert store.legacy
        before = store.query("SELECT * FROM trials ORDER BY trial_id")
    assert load_run(old_people).trials.participant.tolist() == list(PEOPLE)
    assert load_human_run(old_people).participants == tuple(PEOPLE)
    assert load_run(old_sim).trials.participant.isna().all()
    with RunStore(old_people) as store:
        (trials_csv,) = [p for p in store.export_csv(tmp_path) if p.name == "trials.csv"]
    lines = trials_csv.read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith(",capped,participant") and lines[1].endswith(",p1")
    with RunStore(old_people, create=True) as store:
        assert not store.legacy
        after = store.query("SELECT * FROM trials ORDER BY trial_id")
    assert after == [(*row, who) for row, who in zip(before, PEOPLE)]
    with RunStore(old_people) as store:
        assert not store.legacy
    assert load_run(old_people).trials.participant.tolist() == list(PEOPLE)



def test_the_stored_config_is_parsed_once(sim, monkeypatch):
    """`load_run` checks the stored config once (it used to read it twice), and a store keeps
    the checked config for later readers."""
    from mazesim.experiment import storage

    calls = []
    check = storage.check_config
    monkeypatch.setattr(storage, "check_config", lambda *a: calls.append(1) or check(*a))
    run = load_run(sim)
    assert len(calls) == 1 and run.meta["config"]["agents"][0]["label"] == "weighted-walker"
    with RunStore(sim) as store:
        first = store.meta("config")
        assert store.meta("config") is first and store.all_meta()["config"] is first
    assert len(calls) == 2


@pytest.mark.parametrize("parts", [2, 3, 7])
def test_trials_read_in_slices_are_the_frame_read_at_once(sim, monkeypatch, parts):
    """A large run's trials are read in one slice per core (forked processes): the same rows,
    order and dtypes as one read, whatever the number of slices."""
    from mazesim.experiment import results, storage

    whole = load_run(sim).trials
    monkeypatch.setattr(storage, "SLICE_ROWS", 1)
    monkeypatch.setattr(storage, "cores", lambda: parts)
    sliced = load_run(sim).trials
    pd.testing.assert_frame_equal(sliced, whole)
    with RunStore(sim) as store:
        sql, params = store.trials_query()
        starts = [int(f.trial_id.iloc[0]) for f in
                  [results._trial_slice(store.path, sql, params, low, None)
                   for low in (0, 40)]]
    assert starts == [0, 40]


@pytest.mark.parametrize("parts", [2, 3, 7])
def test_exports_written_in_slices_are_the_bytes_written_at_once(sim, tmp_path, monkeypatch,
                                                                  parts):
    """A large run's trials.csv and choices.csv are written in slices of trial ids (forked
    processes) and joined: the same bytes as one writer, no slice file left."""
    from mazesim.experiment import storage

    (tmp_path / "whole").mkdir()
    (tmp_path / "sliced").mkdir()
    with RunStore(sim) as store:
        whole = {p.name: p.read_bytes() for p in store.export_csv(tmp_path / "whole")}
        monkeypatch.setattr(storage, "SLICE_ROWS", 1)
        monkeypatch.setattr(storage, "cores", lambda: parts)
        assert len(store.trial_ranges("SELECT trial_id FROM trials", [])) == parts
        sliced = {p.name: p.read_bytes() for p in store.export_csv(tmp_path / "sliced")}
    assert sliced == whole and whole["choices.csv"].count(b"\n") > parts
    assert sorted(p.name for p in (tmp_path / "sliced").iterdir()) == sorted(whole)
