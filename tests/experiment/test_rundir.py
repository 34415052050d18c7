"""Run directories: one writer at a time, readers that never write, and a damaged run refused
with one line saying what is damaged, before anything reads on or writes."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mazesim.errors import RunError
from mazesim.experiment.storage import DATABASE, RunStore, transaction, write_samples

from experiment_fixtures import run_small
from limited import assert_one_error_line, cli_read_only


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run of the small config (kept pristine: tests damage copies)."""
    from experiment_fixtures import SMALL, write_config

    folder = tmp_path_factory.mktemp("finished")
    return run_small(write_config(folder / "cfg", SMALL), folder / "out").run_dir


@pytest.fixture(scope="module")
def reported(finished, tmp_path_factory):
    """A copy of the finished run with its report's exports (what a damage must not touch)."""
    from click.testing import CliRunner

    from mazesim.cli import main

    copy = tmp_path_factory.mktemp("reported") / "run"
    shutil.copytree(finished, copy)
    assert CliRunner().invoke(main, ["report", str(copy)]).exit_code == 0
    return copy


@pytest.fixture
def run(finished, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(finished, copy)
    return copy


def _sql(run_dir: Path, *statements: str) -> None:
    conn = sqlite3.connect(run_dir / DATABASE)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _first_sample_file(run_dir: Path) -> Path:
    return sorted((run_dir / "trajectories").glob("*.npz"))[0]


DAMAGES = {
    "garbage": (lambda r: (r / DATABASE).write_bytes(os.urandom(5000)),
                r"results.sqlite: damaged \(file is not a database\)"),
    "truncated": (lambda r: os.truncate(r / DATABASE, (r / DATABASE).stat().st_size // 2),
                  r"results.sqlite: damaged \(database disk image is malformed\)"),
    "empty": (lambda r: (r / DATABASE).write_bytes(b""),
              r"results.sqlite: damaged: no table 'meta' \(an empty database\)"),
    "no trials table": (lambda r: _sql(r, "DROP TABLE trials"),
                        r"results.sqlite: damaged: no table 'trials'"),
    "a column renamed": (lambda r: _sql(r, "ALTER TABLE trials RENAME COLUMN moves TO steps"),
                         r"damaged: table 'trials' has columns trial_id, maze_id, agent, vision, "
                         r"trial, seed, steps, reached, capped, participant \(expected .*moves"),
    "meta deleted": (lambda r: _sql(r, "DELETE FROM meta"),
                     r"results.sqlite: damaged: meta 'config' is missing"),
    "meta not JSON": (lambda r: _sql(r, "UPDATE meta SET value = '{' WHERE key = 'config'"),
                      r"results.sqlite: damaged: meta 'config' is not JSON"),
    "config without agents": (
        lambda r: _sql(r, "UPDATE meta SET value = json_remove(value, '$.agents') "
                          "WHERE key = 'config'"),
        r"results.sqlite: damaged: meta 'config': agents: missing \(required\)"),
    "an agent without label": (
        lambda r: _sql(r, "UPDATE meta SET value = json_remove(value, '$.agents[1].label') "
                          "WHERE key = 'config'"),
        r"damaged: meta 'config': agents\[1\].label: None \(allowed: text"),
    "trajectory file missing": (lambda r: _first_sample_file(r).unlink(),
                                r"damaged: trajectory file 'trajectories/trials-000000000.npz' "
                                r"is missing"),
    "trajectory file corrupt": (lambda r: _first_sample_file(r).write_bytes(b"PK\x03\x04junk"),
                                r"trajectory file 'trajectories/trials-000000000.npz' is not "
                                r"readable \(File is not a zip file\)"),
    "trajectory file without its trials": (
        lambda r: np.savez(_first_sample_file(r).with_suffix(""), other=np.zeros(1)),
        r"trajectory file 'trajectories/trials-000000000.npz' lacks trial 0"),
    "trajectory path outside the run": (
        lambda r: _sql(r, "UPDATE samples SET file = '../../etc/passwd' WHERE trial_id = 0"),
        r"trajectory file '../../etc/passwd' \(allowed: trajectories/trials-NNNNNNNNN.npz\)"),
}


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("create", [False, True], ids=["read", "write"])
def test_a_damaged_run_is_refused_with_what_is_damaged(run, damage, create):
    change, message = DAMAGES[damage]
    change(run)
    before = (run / DATABASE).read_bytes()
    with pytest.raises(RunError, match=message):
        with RunStore(run, create=create) as store:
            store.meta("config")
    # nothing repaired or written; a writer's open may only switch the journal to WAL (a
    # finished run is left as one file), which changes the 100-byte header's mode and counters
    assert (run / DATABASE).read_bytes()[100:] == before[100:]


def test_readers_never_write(run):
    before = (run / DATABASE).read_bytes()
    with RunStore(run) as store:
        assert store.meta("config")["name"] == "small" and store.mazes()
        with pytest.raises(sqlite3.OperationalError, match="readonly database"):
            store.conn.execute("INSERT INTO meta VALUES ('x', '1')")
    assert (run / DATABASE).read_bytes() == before


_HOLD = """
import sys, time
from mazesim.experiment.storage import RunStore
store = RunStore(sys.argv[1], create=True)
print("locked", flush=True)
time.sleep(60)
"""


def test_one_writer_at_a_time_and_no_stale_lock(run):
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(run)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunError, match=rf"run: pid {holder.pid} \(mazesim run\) is "
                                           r"writing this run; wait for it to finish"):
            RunStore(run, create=True)
        with RunStore(run) as reader:                      # readers are not locked out
            assert reader.done_units()
    finally:
        holder.send_signal(signal.SIGKILL)                 # the kernel drops its lock
        holder.wait()
    with RunStore(run, create=True) as store:
        store.set_meta(status="running")


def test_trajectory_files_are_never_written_over(run):
    """The loser of two resumes overwrote the winner's committed trials-*.npz with a smaller set
    (30 listed trajectories missing): a listed file is never replaced, nothing half-written
    stays."""
    with RunStore(run, create=True) as store:
        listed = dict(store.query("SELECT trial_id, file FROM samples"))
        first, name = min(listed.items())
        before = (run / name).read_bytes()
        with transaction(store.conn):
            again = write_samples(store.conn, run, {first: np.array([[1, 1], [1, 2]])})
    assert again == name.replace(".npz", "-1.npz")
    assert (run / name).read_bytes() == before
    assert not list((run / "trajectories").glob(".*"))     # no temporary file left
    with RunStore(run) as store:
        assert store.sample(first).tolist() == [[1, 1], [1, 2]]
        others = [t for t, f in listed.items() if f == name and t != first]
        assert all(store.sample(t) is not None for t in others)


def test_a_failed_trajectory_write_leaves_nothing(run, monkeypatch):
    from mazesim.experiment import storage

    class Full(io.FileIO):
        def write(self, data):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage.os, "fdopen", lambda fd, mode: Full(fd, mode))
    files = sorted((run / "trajectories").iterdir())
    with RunStore(run, create=True) as store:
        with pytest.raises(RunError, match=r"trajectories: cannot write a trajectory file "
                                           r"\(No space left on device\)"):
            with transaction(store.conn):
                write_samples(store.conn, run, {10**6: np.array([[1, 1], [1, 2]])})
        assert not store.query("SELECT 1 FROM samples WHERE trial_id = 1000000")
    assert sorted((run / "trajectories").iterdir()) == files


def test_csv_exports_are_replaced_whole_or_not_at_all(run, monkeypatch):
    from mazesim.experiment import storage

    with RunStore(run) as store:
        store.export_csv(run)
    before = {name: (run / name).read_text() for name in ("mazes.csv", "trials.csv")}
    written = []

    def failing(path, header, rows):
        written.append(path)
        if len(written) == 2:
            raise OSError(28, "No space left on device")
        return original(path, header, rows)

    original = storage._write_csv
    monkeypatch.setattr(storage, "_write_csv", failing)
    _sql(run, "DELETE FROM trials WHERE trial_id > 3")
    with RunStore(run) as store:
        with pytest.raises(RunError, match=r"cannot write the CSV exports \(No space left"):
            store.export_csv(run)
    assert {name: (run / name).read_text() for name in before} == before
    assert not list(run.glob(".*.part"))


_UNCHECKPOINTED = """
import os, sys
from mazesim.experiment.storage import RunStore
store = RunStore(sys.argv[1], create=True)
store.set_meta(note="in the WAL only")
os._exit(0)                       # killed: the WAL keeps the committed change
"""


@pytest.mark.slow
def test_a_read_only_run_with_unsaved_changes_is_refused(run):
    subprocess.run([sys.executable, "-c", _UNCHECKPOINTED, str(run)], check=True)
    assert (run / (DATABASE + "-wal")).stat().st_size > 0
    with_index = cli_read_only(run, "replay", run, "--trial", "0")   # its index: read in full
    assert with_index.code == 0 and "identical" in with_index.stdout, with_index.stderr
    (run / (DATABASE + "-shm")).unlink()          # without it, only `immutable` opens it
    done = cli_read_only(run, "replay", run, "--trial", "0")
    assert_one_error_line(done, f"{run / DATABASE}: the directory is read-only but "
                                "results.sqlite-wal holds changes not yet in the database")


@pytest.mark.slow
def test_read_only_runs_are_read_and_writes_are_one_line(finished, tmp_path):
    """replay and compare on a finished read-only run failed with "attempt to write a readonly
    database"; report, run and --resume into read-only places were tracebacks."""
    out = tmp_path / "out"
    run = out / "small" / finished.name
    shutil.copytree(finished, run)
    replayed = cli_read_only(out, "replay", run, "--trial", "5")
    assert replayed.code == 0 and "identical" in replayed.stdout, replayed.stderr
    compared = cli_read_only(out, "compare", run, run)             # both opened, read-only
    assert_one_error_line(compared, f"{run}: not a run of people")
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    report = cli_read_only(out, "report", run)
    assert_one_error_line(report, f"{run}: cannot write the CSV exports (Read-only file system)")
    config = run / "config.yaml"
    again = cli_read_only(out, "run", config, "--output", out)
    assert_one_error_line(again, f"output: cannot create a run directory in {out / 'small'} "
                                 "(Read-only file system)")
    with RunStore(run, create=True) as store:
        store.set_meta(status="running")                   # as if interrupted
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    resumed = cli_read_only(out, "run", config, "--resume", "--output", out)
    assert_one_error_line(resumed, f"{run}: cannot write (Read-only file system)")
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before


_META = ("meta deleted", "meta not JSON", "config without agents", "an agent without label")


@pytest.mark.parametrize("command, damage", [
    (command, damage) for command in ("report", "replay", "compare") for damage in DAMAGES
    if not (command == "compare" and damage in _META)])   # compare first reads meta 'kind'
def test_commands_on_a_damaged_run_say_what_is_damaged_and_touch_nothing(reported, tmp_path,
                                                                       damage, command):
    """report, replay and compare on a garbage, truncated, empty or table-less database, bad
    meta, missing or corrupt trajectory files: tracebacks, and report rewrote the CSVs first."""
    from click.testing import CliRunner

    from mazesim.cli import main

    run = tmp_path / "run"
    shutil.copytree(reported, run)
    change, message = DAMAGES[damage]
    change(run)
    before = _files(run)
    args = {"report": ["report", run], "replay": ["replay", run, "--trial", "0"],
            "compare": ["compare", run, run]}[command]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 2 and result.exception is None or isinstance(
        result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert re.search(message, lines[0]), (message, lines[0])
    assert _files(run) == before


def _files(run: Path) -> dict[str, bytes]:
    """The run's files and their bytes (SQLite's own -wal and -shm files of a reader aside)."""
    return {p.name: p.read_bytes() for p in run.iterdir()
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}
