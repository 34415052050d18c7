"""What a finished command leaves in a run directory: no writer's lock, no SQLite journal (-wal,
-shm), and the same permissions whether the run was simulated or imported (imported runs were
0700 from `mkdtemp`, simulated ones 0755; both kept `writer.lock` and the WAL files)."""

from __future__ import annotations

import json
import os
import stat

from click.testing import CliRunner

from mazesim.cli import main

from tests.experiment.experiment_fixtures import SMALL, write_config

CORRIDOR = "######\n#S..G#\n######\n"
LEFT_OVER = ("writer.lock", "results.sqlite-wal", "results.sqlite-shm")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_simulated_and_imported_runs_are_alike_and_leave_no_lock_or_journal(tmp_path):
    config = write_config(tmp_path / "cfg", {**SMALL, "mazes": SMALL["mazes"][2:],
                                             "vision": ["full"]})
    result = CliRunner().invoke(main, ["run", str(config), "--output", str(tmp_path / "sim"),
                                       "--json"])
    assert result.exit_code == 0, result.output
    simulated = json.loads(result.stdout)["run_dir"]
    (tmp_path / "mazes").mkdir()
    (tmp_path / "mazes" / "m.txt").write_text(CORRIDOR)
    (tmp_path / "walks.csv").write_text("participant,maze,trial,step,row,col\n"
                                        + "".join(f"a,m,1,{k},1,{k + 1}\n" for k in range(4)))
    result = CliRunner().invoke(main, ["import", "csv", str(tmp_path / "walks.csv"), "--mazes",
                                       str(tmp_path / "mazes"), "-o", str(tmp_path / "imported")])
    assert result.exit_code == 0, result.output
    (tmp_path / "plain").mkdir()                       # what the umask gives a new folder
    for run in (simulated, tmp_path / "imported"):
        assert _mode(run) == _mode(tmp_path / "plain"), run
        assert not [name for name in LEFT_OVER if os.path.exists(os.path.join(run, name))], run
    assert not list(tmp_path.glob(".imported.import-*"))
