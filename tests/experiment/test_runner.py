"""The runner: run directory layout, tables, seeds by coordinates, samples, never overwriting."""

import csv
import json

import numpy as np
import pytest
import yaml

from mazesim.agents import agent_keys

from mazesim.errors import ConfigError
from mazesim.experiment.config import load_config
from mazesim.experiment.runner import plan_units
from mazesim.experiment.seeds import maze_seed
from mazesim.experiment.storage import RunStore
from mazesim.maze import parse_maze

from experiment_fixtures import SMALL, run_small, tables, write_config

TRIALS_PER_MAZE = 2 * (6 + 4 + 5)  # vision entries x trials of the three agents


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_run_directory_holds_everything(small_config, tmp_path):
    result = run_small(small_config, tmp_path / "out", report=True)
    run_dir = result.run_dir
    assert run_dir.parent == tmp_path / "out" / "small"
    for name in ("config.yaml", "environment.json", "results.sqlite", "mazes.csv", "trials.csv",
                 "choices.csv", "correlations.csv", "summary.csv", "branch_choices.csv",
                 "report.md"):
        assert (run_dir / name).is_file(), name
    assert result.mazes == 6 and result.units == 6 * 3 * 2 and result.trials == 6 * TRIALS_PER_MAZE
    env = json.loads((run_dir / "environment.json").read_text())
    assert env["numpy"] == np.__version__ and "git_commit" in env
    stored = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert stored["agents"][0] == {"type": "weighted-walker", "label": "weighted-walker",
                                   "trials": 6, **agent_keys("weighted-walker")}
    figures = {p.name for p in (run_dir / "figures").iterdir()}
    assert {"scatter-vision-2.png", "moves-boxplot.png", "choices-A.png",
            "trajectories-dfs-vision-2.png", "heatmaps-dfs-vision-2.png"} <= figures
    report = (run_dir / "report.md").read_text()
    assert "## Correlation of moves per maze" in report and "| up |" in report


def test_tables_have_the_design_columns_and_coordinates(small_config, tmp_path):
    run_dir = run_small(small_config, tmp_path / "out").run_dir
    tables(run_dir)
    mazes = _rows(run_dir / "mazes.csv")
    assert list(mazes[0])[:5] == ["maze_id", "source", "generator", "size", "seed"]
    assert "detour_depth" in mazes[0]
    assert [int(m["seed"]) for m in mazes[:3]] == [maze_seed(7, 0, i) for i in range(3)]
    assert [int(m["seed"]) for m in mazes[3:5]] == [maze_seed(7, 1, i) for i in range(2)]
    assert mazes[5]["source"].endswith("maze.txt") and mazes[5]["seed"] == ""
    trials = _rows(run_dir / "trials.csv")
    assert [int(t["trial_id"]) for t in trials] == list(range(6 * TRIALS_PER_MAZE))
    first = trials[0]
    assert (first["maze_id"], first["agent"], first["vision"], first["trial"], first["seed"]) == (
        "0", "weighted-walker", "full", "0", "7:0.0.0.0")
    assert trials[6]["agent"] == "weighted-walker" and trials[6]["vision"] == "2"
    assert trials[6]["seed"] == "7:0.0.1.0"
    choices = _rows(run_dir / "choices.csv")
    assert {c["mark"] for c in choices} == {"A"} and {c["maze_id"] for c in choices} == {"5"}
    # a trial that reaches G on the branch-point maze must have left A (once for the first time)
    reached = {t["trial_id"] for t in trials if t["maze_id"] == "5" and t["reached"] == "1"}
    firsts = [c["trial_id"] for c in choices if c["first"] == "1"]
    assert len(firsts) == len(set(firsts)) and reached <= set(firsts) and len(reached) > 20
    assert {c["direction"] for c in choices
            if c["first"] == "1" and c["agent"] == "weighted-walker"} == {"up", "right"}


def test_sample_trajectories_are_the_first_trials(small_config, tmp_path):
    run_dir = run_small(small_config, tmp_path / "out").run_dir
    with RunStore(run_dir) as store:
        config = load_config(small_config)
        units = plan_units(config, 6)
        sampled = {row[0] for row in store.query("SELECT trial_id FROM samples")}
        expected = {u.first_trial_id + i for u in units for i in range(3)}
        assert sampled == expected
        for trial_id, maze_id, moves in store.query(
                "SELECT trial_id, maze_id, moves FROM trials WHERE trial_id IN (0, 1, 20, 200)"):
            maze = parse_maze(store.query("SELECT text FROM mazes WHERE maze_id = ?",
                                          (maze_id,))[0][0])
            positions = store.sample(trial_id)
            if trial_id in sampled:
                assert len(positions) == moves + 1 and tuple(positions[0]) == maze.start
            else:
                assert positions is None


def test_same_config_gives_identical_tables_in_a_new_run_directory(small_config, tmp_path):
    first = run_small(small_config, tmp_path / "out").run_dir
    before = {p.name: p.stat().st_mtime_ns for p in first.iterdir()}
    second = run_small(small_config, tmp_path / "out").run_dir
    assert second != first and second.parent == first.parent
    assert {p.name: p.stat().st_mtime_ns for p in first.iterdir()} == before
    assert tables(first) == tables(second)


def test_seeds_do_not_depend_on_the_other_agents(small_config, tmp_path):
    """Removing an agent changes no other agent's trials (streams by coordinates)."""
    full = tables(run_small(small_config, tmp_path / "a").run_dir)["trials.csv"]
    data = dict(SMALL, agents=SMALL["agents"][:1], name="small")
    alone = tables(run_small(write_config(tmp_path / "b", data), tmp_path / "b").run_dir)
    walker = [line.split(",", 1)[1] for line in full.splitlines()[1:7]]
    assert walker == [line.split(",", 1)[1] for line in alone["trials.csv"].splitlines()[1:7]]


def test_resume_refuses_a_different_config(small_config, tmp_path):
    run_dir = run_small(small_config, tmp_path / "out").run_dir
    with RunStore(run_dir, create=True) as store:
        store.set_meta(status="running")  # pretend it was interrupted
    data = dict(SMALL, seed=8)
    other = write_config(tmp_path / "cfg2", data)
    with pytest.raises(ConfigError, match=r"resume: the config differs .* at seed \(7 stored, "
                                          r"8 now\)"):
        run_small(other, tmp_path / "out", resume=True)


def test_resume_without_an_unfinished_run(small_config, tmp_path):
    run_small(small_config, tmp_path / "out")
    with pytest.raises(ConfigError, match=r"resume: no unfinished run of 'small'"):
        run_small(small_config, tmp_path / "out", resume=True)


def test_progress_reports_trials_up_to_the_total(small_config, tmp_path):
    calls = []
    run_small(small_config, tmp_path / "out", progress=lambda done, total: calls.append(
        (done, total)))
    assert calls[0] == (0, 6 * TRIALS_PER_MAZE) and calls[-1] == (6 * TRIALS_PER_MAZE,) * 2
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_progress_moves_within_a_maze_and_changes_no_result(small_config, tmp_path):
    calls, stages = [], []
    told = run_small(small_config, tmp_path / "told", progress=lambda done, total: calls.append(
        done), stage=stages.append, report=True)
    silent = run_small(small_config, tmp_path / "silent")
    assert tables(told.run_dir) == tables(silent.run_dir)
    assert len(set(calls)) > 6 + 1                       # more steps than the six mazes' chunks
    assert any(0 < done < TRIALS_PER_MAZE for done in calls)  # inside the first maze's chunk
    assert calls == sorted(calls) and calls[-1] == 6 * TRIALS_PER_MAZE
    assert [s.split(":")[0] for s in stages] == ["mazes", "trials"] + ["report"] * 3
    assert stages[1] == f"trials: {6 * TRIALS_PER_MAZE:,} in 36 units"


def test_timings_split_kernel_and_runner(small_config, tmp_path):
    timings = run_small(small_config, tmp_path / "out").timings
    assert {"mazes", "sweep", "kernel", "worker", "storage", "main_cpu"} <= set(timings)
    assert 0 < timings["kernel"] <= timings["sweep"]
