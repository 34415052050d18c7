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
    with pytest.raises(ConfigError, match=r"--trial: 100000 is not a trial of .* \(allowed: 0 to "
                                          r"179\)"):
        rerun_trial(run_dir, 100000)


def test_replay_needs_a_run_directory(tmp_path):
    with pytest.raises(RunError, match="not a run directory"):
        rerun_trial(tmp_path, 0)
