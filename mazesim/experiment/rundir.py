"""A run directory on disk: its one writer's lock, its database opened for reading or writing,
the checks that say what is damaged before anything reads on or writes, and the environment it
was written in (`ENVIRONMENT_FILE`, by `storage.RunStore.write_head`).

- **One writer.** A process writing a run holds `LOCK_FILE` with a POSIX record lock
  (`fcntl.lockf`): the kernel drops it when the process ends, however it ends (SIGKILL
  included), so no lock is ever stale, and forked workers do not inherit it. A second writer
  (another process, or another writer in this one) is refused with one line naming the
  holder's pid and command; a writer that holds the lock passes it on (`RunStore(lock=...)`).
  A writer that finishes removes the file while it still holds the lock; a writer that locked
  a file since removed locks again (the file it took must be the one at the path), so a
  finished run keeps no lock file and two writers never hold two files.
- **Readers never write.** The database is opened `mode=ro`; in a directory this process may
  not write (a read-only copy, another user's run), SQLite cannot make its WAL index there, so
  the database is opened `immutable` (nobody can be writing it), unless a WAL file holds
  changes that would then be missed.
- **Checked on open.** Every table with its columns (compared with the schema itself), every
  trajectory file the `samples` table lists (present, a readable archive, holding the listed
  trials); the stored config when it is read (`check_config`).
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import threading
import time
import zipfile
from contextlib import closing, suppress
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping, Sequence

from mazesim.errors import ConfigError, MazesimError, RunError, short
from mazesim.schema import Reader

__all__ = ["LOCK_FILE", "ENVIRONMENT_FILE", "RunLock", "lock_run", "open_database",
           "check_database", "check_config", "environment", "write_environment"]

LOCK_FILE = "writer.lock"
ENVIRONMENT_FILE = "environment.json"
_PACKAGES = ("mazesim", "numpy", "scipy", "numba", "click", "pyyaml", "matplotlib", "pillow",
             "pandas", "statsmodels")
_SAMPLE_FILE = re.compile(r"trajectories/trials-[0-9]{9}(-[0-9]+)?\.npz")


class RunLock:
    """The writer's lock of one run directory, held until `release()` (idempotent), which
    removes the lock file."""

    def __init__(self, key: tuple[int, int], fd: int, path: Path) -> None:
        self._key, self._fd, self._path = key, fd, path

    def moved(self, run_dir: Path) -> None:
        """The locked directory was renamed `run_dir` (the file removed at release is there)."""
        self._path = Path(run_dir) / LOCK_FILE

    def release(self) -> None:
        with _HELD_GUARD:
            if self._fd is not None:
                with suppress(OSError):   # a read-only or vanished directory
                    os.unlink(self._path)
                os.close(self._fd)
                del _HELD[self._key]
                self._fd = None


# Lock files this process holds, by (device, inode), with their holder's words. A record lock
# belongs to the process: a second lockf in it would succeed, and closing any descriptor of
# the file would drop it, so a second writer in the process is refused here, before any open.
_HELD: dict[tuple[int, int], str] = {}
_HELD_GUARD = threading.Lock()
os.register_at_fork(after_in_child=_HELD.clear)       # a forked child holds no lock


def lock_run(run_dir: Path, writer: str = "mazesim run") -> RunLock:
    """Take the writer's lock of `run_dir` for `writer` (named to whoever is refused); RunError
    when another process, or another writer in this one, holds it, or the directory cannot be
    written."""
    path = Path(run_dir) / LOCK_FILE
    with _HELD_GUARD:
        try:
            info = os.stat(path)
            holder = _HELD.get((info.st_dev, info.st_ino))
        except OSError:
            holder = None
        fd = None
        while holder is None and fd is None:
            fd, holder = _try_lock(run_dir, path)
        if holder is not None:
            raise RunError(f"{run_dir}: {holder} is writing this run; wait for it to finish "
                           "or stop it (a run has one writer at a time)")
        holder = f"pid {os.getpid()} ({writer})"
        words = f"{holder}\n".encode("ascii", "replace")
        os.pwrite(fd, words, 0)                       # never empty once a writer has been here
        os.ftruncate(fd, len(words))
        info = os.fstat(fd)
        _HELD[(info.st_dev, info.st_ino)] = holder
        return RunLock((info.st_dev, info.st_ino), fd, path)


def _try_lock(run_dir: Path, path: Path) -> tuple[int | None, str | None]:
    """(descriptor, None) with the lock taken on the file at `path`; (None, holder's words)
    when another holds it; (None, None) when the file locked was removed meanwhile by a writer
    that finished (try again)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise RunError(f"{run_dir}: cannot write ({err.strerror})") from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _holder(fd)
        os.close(fd)
        return None, holder
    try:
        same = os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        same = False
    if same:
        return fd, None
    os.close(fd)
    return None, None


def _holder(fd: int) -> str:
    """The words of the process holding the lock on `fd`; a writer that has just taken the
    lock may not have written them yet, so an empty file is read again for a moment."""
    for _ in range(50):
        words = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        if words:
            return words
        time.sleep(0.02)
    return "unknown"


def environment() -> dict[str, Any]:
    """Versions of Python and the packages, the platform and the git commit (if any)."""
    env: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(),
                           "executable": sys.executable}
    for name in _PACKAGES:
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            env[name] = None
    env["git_commit"] = _git("rev-parse", "HEAD")
    status = _git(*"status --porcelain --untracked-files=no".split())
    env["git_dirty"] = None if status is None else bool(status)
    return env


def write_environment(run_dir: Path) -> None:
    """Write `ENVIRONMENT_FILE` into `run_dir` unless it is there (the run's first writer's
    is kept: a resumed run or a play session opened again does not replace it)."""
    path = Path(run_dir) / ENVIRONMENT_FILE
    if path.exists():
        return
    try:
        path.write_text(json.dumps(environment(), indent=1) + "\n", encoding="utf-8")
    except OSError as err:
        raise RunError(f"{path}: cannot write ({err.strerror})") from None


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True,
                             text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def open_database(path: Path, *, writable: bool) -> sqlite3.Connection:
    """An autocommit connection to the run database `path` (created when `writable`), checked
    to answer; RunError naming the file otherwise."""
    try:
        if writable:
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            return conn
        return _open_readonly(path)
    except sqlite3.DatabaseError as err:
        raise database_error(path, err) from None


def _open_readonly(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        if os.access(path.parent, os.W_OK):
            raise
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise RunError(f"{path}: the directory is read-only but {wal.name} holds changes not "
                       "yet in the database; open the run once where it can be written")
    conn = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)
    conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    return conn


def database_error(path: Path, err: sqlite3.DatabaseError) -> RunError:
    """One line for an sqlite error: a damaged file, or one that cannot be read or written."""
    if isinstance(err, sqlite3.OperationalError):
        return RunError(f"{path}: cannot use the database ({err})")
    return RunError(f"{path}: damaged ({err})")


def check_database(conn: sqlite3.Connection, path: Path, schema: str,
                   added: Mapping[str, Sequence[str]] | None = None) -> None:
    """RunError naming the first fault: a table of `schema` missing or with other columns (a
    table without the columns `added` to it since, the older layout, passes), a trajectory
    file listed in `samples` missing, unreadable or without its trials."""
    expected = _schema_columns(schema)
    try:
        found = _columns(conn)
        for table, columns in expected.items():
            if table not in found:
                raise RunError(f"{path}: damaged: no table {table!r}"
                               + (" (an empty database)" if not found else ""))
            older = [c for c in columns if c not in (added or {}).get(table, ())]
            if found[table] not in (columns, older):
                raise RunError(f"{path}: damaged: table {table!r} has columns "
                               f"{', '.join(found[table])} (expected {', '.join(columns)})")
        listed: dict[str, set[int]] = {}
        for trial_id, file in conn.execute("SELECT trial_id, file FROM samples"):
            listed.setdefault(file, set()).add(trial_id)
    except sqlite3.DatabaseError as err:
        raise database_error(path, err) from None
    for file, trials in listed.items():
        _check_sample_file(path.parent, file, trials)


@functools.lru_cache(maxsize=None)
def _schema_columns(schema: str) -> dict[str, list[str]]:
    """The tables and columns `schema` makes (built in memory: the schema is the reference)."""
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(schema)
        return _columns(conn)


def _columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    tables = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {t: [row[1] for row in conn.execute(f"PRAGMA table_info({_quoted(t)})")]
            for t in tables}


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _check_sample_file(run_dir: Path, file: Any, trials: set[int]) -> None:
    where = f"{run_dir}: damaged: trajectory file {short(file)}"
    if not isinstance(file, str) or not _SAMPLE_FILE.fullmatch(file):
        raise RunError(f"{where} (allowed: trajectories/trials-NNNNNNNNN.npz)")
    try:
        with zipfile.ZipFile(run_dir / file) as archive:
            names = set(archive.namelist())
    except FileNotFoundError:
        raise RunError(f"{where} is missing") from None
    except (OSError, zipfile.BadZipFile) as err:
        raise RunError(f"{where} is not readable ({err})") from None
    missing = sorted(t for t in trials
                     if not {f"t{t}.npy", f"t{t}_start.npy"} <= names)
    if missing:
        raise RunError(f"{where} lacks trial {missing[0]} ({len(missing):,} of "
                       f"{len(trials):,} listed trials)")


def check_config(config: Any, path: Path) -> dict[str, Any]:
    """The stored config (meta `config`) if it has what the readers of a run use (name, seed,
    agents with type, label and trials, vision, analysis); RunError naming what is wrong."""
    reader = Reader(f"{path}: damaged: meta 'config'")
    try:
        if not isinstance(config, dict):
            raise reader.fail("", f"{short(config)} (expected a mapping)")
        for key in ("name", "seed", "agents", "vision", "analysis"):
            if key not in config:
                raise reader.fail(key, "missing (required)")
        reader.integer(config["seed"], "seed")
        for i, agent in enumerate(reader.listing(config["agents"], "agents", "agents")):
            if not isinstance(agent, dict):
                raise reader.fail(f"agents[{i}]", f"{short(agent)} (expected a mapping)")
            for key in ("type", "label"):
                reader.text(agent.get(key), f"agents[{i}].{key}", 64)
            reader.integer(agent.get("trials"), f"agents[{i}].trials")
        _check_visions(reader, reader.listing(config["vision"], "vision", "visions"))
        analysis = config["analysis"]
        if not isinstance(analysis, dict):
            raise reader.fail("analysis", f"{short(analysis)} (expected a mapping)")
        _check_analysis(reader, analysis)
    except ConfigError as err:
        raise RunError(str(err)) from None
    return config


def _check_visions(reader: Reader, visions: list) -> None:
    from mazesim.agents import parse_vision

    for i, value in enumerate(visions):
        try:
            parse_vision(value, f"vision[{i}]")
        except MazesimError as err:
            raise reader.fail("", str(err)) from None


def _check_analysis(reader: Reader, analysis: dict) -> None:
    corr = analysis.get("correlations")
    if not isinstance(corr, dict):
        raise reader.fail("analysis.correlations", f"{short(corr)} (expected a mapping)")
    for key in ("methods", "parameters"):
        for i, name in enumerate(reader.listing(corr.get(key), f"analysis.correlations.{key}",
                                                key, nonempty=False)):
            reader.text(name, f"analysis.correlations.{key}[{i}]", 64)
    probes = reader.listing(analysis.get("branch_choices", []), "analysis.branch_choices",
                            "probes", nonempty=False)
    for i, probe in enumerate(probes):
        where = f"analysis.branch_choices[{i}]"
        if not isinstance(probe, dict) or not isinstance(probe.get("human", {}), dict):
            raise reader.fail(where, f"{short(probe)} (expected {{mark, human}})")
        reader.text(probe.get("mark"), f"{where}.mark", 1)
