"""A run of people whose trajectory file was edited after the import: every command that reads
it stops with one line naming the run, the trial and the file, before any kernel sees a cell
(an edited start far off the grid crashed the compiled kernels: exit 139)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.errors import RunError
from mazesim.humans import fit_models, import_mst, load_human_run

FILE = "trajectories/trials-000000000.npz"


def _edit(run, **arrays):
    """Replace arrays of the run's trajectory file (`t0_start`, `t0`, ...)."""
    path = run / FILE
    with np.load(path) as data:
        kept = dict(data)
    kept.update(arrays)
    np.savez(path, **kept)


@pytest.fixture
def run(write_mst, tmp_path):
    out = tmp_path / "run"
    import_mst(write_mst(), out)
    return out


@pytest.mark.parametrize("arrays, fault", [
    ({"t0_start": np.array([100_000, 100_000], np.int32)},
     "step 0: (100000, 100000) is off the 4x5 grid"),
    ({"t0_start": np.array([-3, 4], np.int32)}, "step 0: (-3, 4) is off the 4x5 grid"),
    ({"t0": np.zeros(5, np.uint8)}, "step 1: (-1, 2) is off the 4x5 grid"),
    ({"t0_start": np.array([1, 1], np.int32)}, "step 0: starts at (1, 1), not at S (0, 2)"),
    ({"t0": np.array([2, 2, 3, 3, 2], np.uint8)}, "step 2: (2, 2) is a wall"),
])
def test_an_edited_walk_is_refused_naming_run_trial_and_file(run, arrays, fault):
    _edit(run, **arrays)
    message = f"{run}: damaged: trial 0 in {FILE}, {fault}"
    with pytest.raises(RunError, match="^" + re.escape(message) + "$"):
        load_human_run(run)
    with pytest.raises(RunError, match=re.escape(message)):
        fit_models(run, ["random-walk"], folds=0, starts=1)


@pytest.mark.parametrize("command", [["fit", "--model", "random-walk", "--cv", "0"],
                                     ["fit", "--model", "choice-model", "--cv", "0"],
                                     ["fit", "--level", "node"], ["report"]])
def test_every_command_stops_with_one_line(run, command):
    _edit(run, t0_start=np.array([100_000, 100_000], np.int32))
    result = CliRunner().invoke(main, [command[0], str(run), *command[1:]])
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: {run}: damaged: trial 0 in {FILE}, step 0: (100000, "
                             "100000) is off the 4x5 grid\n")


def test_replay_of_a_persons_trial_says_so(run):
    result = CliRunner().invoke(main, ["replay", str(run), "--trial", "1"])
    assert result.exit_code == 2
    assert result.output == (f"Error: trial: 1 of {run} is a person's walk (a run of "
                             "people): there is no agent to simulate again (`mazesim report` "
                             "shows it)\n")
