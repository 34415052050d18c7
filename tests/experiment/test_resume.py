"""Interrupted runs: SIGKILL mid-sweep then --resume, and Ctrl-C, give the uninterrupted tables."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim.cli import main

from experiment_fixtures import run_small, tables, write_config

CONFIG = {
    "name": "interrupted",
    "seed": 11,
    "mazes": [{"generator": "digging", "size": 15, "count": 30}],
    "agents": [{"type": "random-walk", "trials": 10}, {"type": "weighted-walker", "trials": 10}],
    "vision": [2],
}
UNITS = 30 * 2
# Each chunk (one maze) is slowed down so that the kill surely lands mid-sweep; results are not
# affected (seeds by coordinates).
_SLOW = """
import sys, time
import mazesim.experiment.runner as runner
_run_chunk = runner.run_chunk
def _slow(chunk, **told):
    time.sleep(0.1)
    return _run_chunk(chunk, **told)
runner.run_chunk = _slow
"""
_API = _SLOW + """
from mazesim.experiment.config import load_config
runner.run_experiment(load_config(sys.argv[1]), output=sys.argv[2], report=False,
                      flush_seconds=0.0)
"""
_CLI = _SLOW + """
from mazesim.cli import main
main(["run", sys.argv[1], "--output", sys.argv[2]])
"""
_TIMEOUT = 120.0


def _start(script: str, config: Path, output: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, str(config), str(output)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _units(output: Path) -> tuple[Path | None, int]:
    for db in output.glob("interrupted/*/results.sqlite"):
        try:
            with sqlite3.connect(db, timeout=0.1) as conn:
                return db.parent, conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
        except sqlite3.OperationalError:  # tables not created yet
            return db.parent, 0
    return None, 0


def _wait_for_units(proc: subprocess.Popen, output: Path, at_least: int) -> Path:
    deadline = time.monotonic() + _TIMEOUT
    while time.monotonic() < deadline:
        run_dir, done = _units(output)
        if run_dir is not None and done >= at_least:
            return run_dir
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("the run never stored a unit")


def test_sigkill_mid_sweep_then_resume_gives_the_uninterrupted_tables(tmp_path):
    config, output, run_dir = _interrupted(tmp_path)
    _, done = _units(output)
    assert 4 <= done < UNITS
    resumed = run_small(config, output, resume=True)
    assert resumed.run_dir == run_dir and resumed.resumed
    fresh = run_small(config, tmp_path / "fresh")
    got, want = tables(run_dir), tables(fresh.run_dir)
    assert got["trials.csv"].count("\n") == 1 + UNITS * 10  # none lost, none duplicated
    assert got == want


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    config = write_config(tmp_path / "cfg", CONFIG)
    output = tmp_path / "out"
    proc = _start(_CLI, config, output)
    run_dir = _wait_for_units(proc, output, 1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=_TIMEOUT)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("Interrupted:")]
    assert f"of {UNITS} units stored in {run_dir}" in line
    assert line.endswith(f"resume with: mazesim run {config} --resume --output {output}")
    result = CliRunner().invoke(main, ["run", str(config), "--resume", "--output", str(output)])
    assert result.exit_code == 0, result.output
    assert str(run_dir) in result.output
    fresh = run_small(config, tmp_path / "fresh")
    assert tables(run_dir) == tables(fresh.run_dir)


_CLI_RESUME = _SLOW + """
from mazesim.cli import main
main(["run", sys.argv[1], "--output", sys.argv[2], "--resume"])
"""
_CLI_WORKERS = """
import sys, time
import mazesim.experiment.runner as runner
_run_chunk = runner.run_chunk
def _stuck_on_the_first(chunk, **told):  # one worker busy a minute, the other idle at the end
    time.sleep(60 if chunk.units[0].unit_id == 0 else 0.05)
    return _run_chunk(chunk, **told)
runner.run_chunk = _stuck_on_the_first
from mazesim.cli import main
main(["run", sys.argv[1], "--output", sys.argv[2], "--workers", "2"])
"""


def _interrupted(tmp_path: Path) -> tuple[Path, Path, Path]:
    config = write_config(tmp_path / "cfg", CONFIG)
    output = tmp_path / "out"
    proc = _start(_API, config, output)
    run_dir = _wait_for_units(proc, output, 4)
    proc.kill()
    proc.communicate()
    return config, output, run_dir


@pytest.mark.slow
def test_two_resumes_at_once_have_one_writer_and_lose_nothing(tmp_path):
    """Two --resume of one unfinished run: the loser crashed with an IntegrityError after
    overwriting the winner's committed trajectories with a smaller set (30 listed but missing).
    Now the loser is refused with one line and the run is whole."""
    config, output, run_dir = _interrupted(tmp_path)
    both = [_start(_CLI_RESUME, config, output) for _ in range(2)]
    ended = [proc.communicate(timeout=_TIMEOUT) + (proc.returncode,) for proc in both]
    codes = sorted(code for _, _, code in ended)
    assert codes == [0, 2], ended
    (loser,) = [err for _, err, code in ended if code == 2]
    assert "Traceback" not in loser
    (line,) = loser.strip().splitlines()
    assert re.fullmatch(rf"Error: {run_dir}: pid \d+ \(mazesim run\) is writing this run; wait "
                        r"for it to finish or stop it \(a run has one writer at a time\)", line)
    fresh = run_small(config, tmp_path / "fresh")
    assert tables(run_dir) == tables(fresh.run_dir)
    from mazesim.experiment.storage import RunStore
    with RunStore(run_dir) as store:                   # every listed trajectory is there
        listed = [t for (t,) in store.query("SELECT trial_id FROM samples")]
        assert len(store.samples(listed)) == len(listed) == UNITS * 3


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(x) for x in handle.read().split()]
    except FileNotFoundError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
def test_killing_the_main_process_stops_its_workers(tmp_path):
    """SIGKILL of the main process left the pool workers running as orphans: the busy one to
    the end of its task, the idle one for ever."""
    config = write_config(tmp_path / "cfg", CONFIG)
    output = tmp_path / "out"
    proc = _start(_CLI_WORKERS, config, output)
    _wait_for_units(proc, output, 10)
    time.sleep(2)                         # the second worker is done with the rest: idle
    workers = _children(proc.pid)
    assert len(workers) >= 2 and all(_alive(w) for w in workers)
    proc.kill()
    proc.wait()                           # not communicate(): orphans would hold its pipes
    proc.stdout.close()
    proc.stderr.close()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphans = [w for w in workers if _alive(w)]
    for orphan in orphans:                # do not leave them to the machine
        os.kill(orphan, signal.SIGKILL)
    assert not orphans
