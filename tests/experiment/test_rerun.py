"""Replay: any trial re-simulated from the run directory alone equals the stored one."""

import shutil

import numpy as np
import pytest

from mazesim.errors import ConfigError, RunError
from mazesim.experiment.rerun import rerun_trial
from mazesim.experiment.storage import RunStore

from experiment_fixtures import run_small


def test_replay_equals_the_stored_moves(small_config, tmp_path):
    run_dir = run_small(small_config, tmp_path / "out").run_dir
    moved = tmp_path / "elsewhere"  # the run directory alone: config and maze files gone
    shutil.copytree(run_dir, moved)
    shutil.rmtree(small_config.parent)
    with RunStore(moved) as store:
        rows = store.query("SELECT trial_id, moves, reached FROM trials ORDER BY trial_id")
    for trial_id, moves, reached in rows[::7] + rows[-3:]:
        result = rerun_trial(moved, trial_id)
        assert result.matches
        assert result.trajectory.moves == moves and result.trajectory.reached == bool(reached)
    with RunStore(moved) as store:
        sampled = store.query("SELECT trial_id FROM samples ORDER BY trial_id")[5][0]
        stored = store.sample(sampled)
    np.testing.assert_array_equal(rerun_trial(moved, sampled).trajectory.positions, stored)


def test_replay_unknown_trial(small_config, tmp_path):
    run_dir = run_small(small_config, tmp_path / "out").run_dir
    with pytest.raises(ConfigError, match=r"trial_id: 100000 is not a trial of .* \(allowed: 0 to "
                                          r"179\)"):
        rerun_trial(run_dir, 100000)


def test_replay_needs_a_run_directory(tmp_path):
    with pytest.raises(RunError, match="not a run directory"):
        rerun_trial(tmp_path, 0)


def test_replay_walks_at_most_the_stored_moves(tmp_path):
    """A trial is walked again only as far as it went: its positions fit however large the
    run's max_steps (here 10^8: keeping that many would be refused)."""
    from experiment_fixtures import write_config

    data = {"name": "long", "seed": 2, "mazes": [{"generator": "digging", "size": 9}],
            "agents": [{"type": "random-walk", "trials": 2, "max_steps": 10**8}]}
    run_dir = run_small(write_config(tmp_path / "cfg", data), tmp_path / "out").run_dir
    result = rerun_trial(run_dir, 1)
    assert result.matches and result.trajectory.moves == result.stored_moves


def test_replay_of_a_trial_the_config_does_not_know_is_damage(small_config, tmp_path):
    import sqlite3

    run_dir = run_small(small_config, tmp_path / "out").run_dir
    with sqlite3.connect(run_dir / "results.sqlite") as conn:
        conn.execute("UPDATE trials SET agent = 'ghost' WHERE trial_id = 3")
    with pytest.raises(RunError, match=r"damaged: trial 3 names maze 0, agent 'ghost' and vision "
                                       r"'full', not all in the run"):
        rerun_trial(run_dir, 3)
