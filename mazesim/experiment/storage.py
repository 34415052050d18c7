"""The results database of a run (stdlib sqlite3, the source of truth) and its CSV exports.

Tables: `meta` (key, value), `mazes` (with their text, so a run directory is self-contained),
`parameters` (maze_id, name, value), `units` (finished sweep cells), `trials`, `choices` (junction
departures: at marked cells for simulated runs, every one for human runs; the columns of
`mazesim.records.CHOICE_FIELDS` after the trial's context) and `samples` (which `.npz` file holds
a sampled trajectory; the file's layout: `sample_files`). A unit's trials, choices and its `units` row are committed in the same
transaction, so an interrupted run resumes without losing or duplicating a trial. Sample
trajectories are written before that commit.

This module is the one place that knows the layout of `trials`, `choices` and `samples`:
`write_trials` and `write_samples` insert them on any connection inside the caller's transaction
(`transaction`), for the runner's units and for human trials (`mazesim.play`, `mazesim.humans`)
alike. The runner's workers write their units' rows into an in-memory database whose image
(`trial_image`) `RunStore.add_results` copies with `INSERT ... SELECT`: no Python per row in the
main process, the serial part of a run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import zipfile
import shutil
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from mazesim import csvfile
from mazesim.errors import RunError
from mazesim.experiment.background import Call, Jobs, cores
from mazesim.experiment.rundir import (RunLock, check_config, check_database, database_error,
                                       lock_run, open_database, write_environment)
from mazesim.experiment.sample_files import pack_samples, unpacked
from mazesim.records import CHOICE_FIELDS

__all__ = ["DATABASE", "TRAJECTORIES", "HUMAN", "HUMAN_PILOT", "PLAY_RECORDER", "CHOICE_COLUMNS",
           "MazeRecord", "RunStore", "is_play_run", "StoredTrial", "TRIAL_COLUMNS", "TrialRows", "next_trial_id", "peek_meta",
           "read_samples", "transaction", "trial_image", "write_sample_files", "write_samples",
           "write_trials"]

DATABASE = "results.sqlite"
TRAJECTORIES = "trajectories"
HUMAN = "human"
"""The `kind` (meta) of a run of people, recorded by `mazesim play` or imported, and the `agent`
of their trials."""
HUMAN_PILOT = f"{HUMAN}-pilot"
"""The `agent` of a pilot participant's trials: stored and exported, never counted."""
PLAY_RECORDER = "play"
"""The meta `recorder` of a run written by `mazesim play`."""
_CHOICE_CONTEXT = (("trial_id", "INTEGER"), ("maze_id", "INTEGER"), ("agent", "TEXT"),
                   ("vision", "TEXT"), ("trial", "INTEGER"), ("mark", "TEXT"))
CHOICE_COLUMNS = tuple(name for name, _ in _CHOICE_CONTEXT) + tuple(f.stored
                                                                     for f in CHOICE_FIELDS)
"""The columns of the `choices` table and of `choices.csv`: the trial's context, the mark (''
for none), then `records.CHOICE_FIELDS`."""
_CHOICES_TABLE = ("CREATE TABLE IF NOT EXISTS choices ("
                  + ", ".join(f"{name} {sql} NOT NULL" for name, sql in _CHOICE_CONTEXT)
                  + "".join(f", {f.stored} {f.sql} NOT NULL" for f in CHOICE_FIELDS)
                  + ", PRIMARY KEY (trial_id, step));")
_TRIALS_TABLE = """
CREATE TABLE IF NOT EXISTS trials (
    trial_id INTEGER PRIMARY KEY, maze_id INTEGER NOT NULL, agent TEXT NOT NULL,
    vision TEXT NOT NULL, trial INTEGER NOT NULL, seed TEXT NOT NULL, moves INTEGER NOT NULL,
    reached INTEGER NOT NULL, capped INTEGER NOT NULL, participant TEXT);"""
_IMAGE = "chunk"
"""The schema name under which `add_results` attaches a `trial_image`."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mazes (
    maze_id INTEGER PRIMARY KEY, source TEXT NOT NULL, generator TEXT, size TEXT NOT NULL,
    seed INTEGER, text TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parameters (
    maze_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL, PRIMARY KEY (maze_id, name));
CREATE TABLE IF NOT EXISTS units (
    unit_id INTEGER PRIMARY KEY, maze_id INTEGER NOT NULL, agent TEXT NOT NULL,
    vision TEXT NOT NULL, trials INTEGER NOT NULL, seconds REAL, kernel_seconds REAL);""" \
    + _TRIALS_TABLE + """
CREATE TABLE IF NOT EXISTS samples (trial_id INTEGER PRIMARY KEY, file TEXT NOT NULL);
""" + _CHOICES_TABLE
_ADDED_COLUMNS = {"trials": ("participant",)}
"""Columns added to the first layout: a database without them still reads (`RunStore.legacy`),
and a writer opening it adds them (`RunStore._migrate`)."""


@dataclass(frozen=True)
class MazeRecord:
    """One maze of a run as stored: provenance, its text and its parameters."""

    maze_id: int
    source: str
    generator: str | None
    size: str
    seed: int | None
    text: str
    meta: Mapping[str, Any]
    parameters: Mapping[str, float]


class StoredTrial(NamedTuple):
    """One row of `trials` as `RunStore.trials` reads it (`participant`: `participant_sql`)."""

    trial_id: int
    maze_id: int
    agent: str
    vision: str
    trial: int
    seed: str
    moves: int
    reached: int
    capped: int
    participant: str | None


SLICE_ROWS = 50_000
"""Fewest trials per process when a run's trials are read or exported in slices."""
_COPY_BYTES = 1 << 20

TRIAL_COLUMNS = StoredTrial._fields
"""The columns of the `trials` table and of `trials.csv`."""


@dataclass(frozen=True, eq=False, kw_only=True)
class TrialRows:
    """Finished trials of one (maze, agent, vision) as parallel columns, one item per trial.

    `numbers` fills the `trial` column (the trial's index among the trials of its maze, agent
    and vision), `seeds` the `seed` column (the trial's seed label; empty for a person) and
    `participants` the `participant` column (a person's id; empty: NULL, for agents).
    `choices` is a `records.CHOICE_DTYPE` array (its `trial` is the position in these columns,
    its `mark` an index into `mark_names`), stored as given.
    """

    maze_id: int
    agent: str
    vision: str
    trial_ids: Sequence[int]
    numbers: Sequence[int]
    seeds: Sequence[str]
    moves: Sequence[int]
    reached: Sequence[bool]
    capped: Sequence[bool]
    choices: np.ndarray
    mark_names: Sequence[str] = ()
    participants: Sequence[str] = ()


class RunStore:
    """The sqlite database of one run directory; use as a context manager.

    Read-only unless `create`: then this store becomes the run's one writer (RunError when
    another writer holds it; `lock`: the caller's own, already held, kept on close) and the
    database and its tables are made if missing. Either way the database is checked first
    (`rundir.check_database`). A database of the first layout (`trials` without `participant`)
    is `legacy` for a reader; a writer adds the column (`_migrate`).
    """

    def __init__(self, run_dir: str | Path, *, create: bool = False,
                 lock: RunLock | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DATABASE
        self._lock: RunLock | None = None
        self.conn: sqlite3.Connection | None = None
        self.legacy = False
        self._config: dict[str, Any] | None = None
        self._writer = False
        if not create and not self.path.is_file():
            raise RunError(f"{self.run_dir}: not a run directory (no {DATABASE})")
        if create and lock is None:
            self._lock = lock_run(self.run_dir)
        try:
            fresh = not self.path.exists()
            if not fresh:                     # checked read-only, before anything is written
                self.conn = open_database(self.path, writable=False)
                check_database(self.conn, self.path, _SCHEMA, _ADDED_COLUMNS)
                self.legacy = "participant" not in _trial_columns(self.conn)
            if create:
                self._close_connection()
                self.conn = open_database(self.path, writable=True)
                self._writer = True
                with self._sqlite():
                    if fresh:
                        self.conn.executescript(_SCHEMA)
                    elif self.legacy:
                        self._migrate()
        except BaseException:
            self.close(finished=False)
            raise

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, kind: Any, *exc: Any) -> None:
        self.close(finished=kind is None)

    def close(self, finished: bool = True) -> None:
        """Close; `finished` False (a failure) leaves the database file exactly as it is."""
        self._close_connection(finished)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _close_connection(self, finished: bool = False) -> None:
        """Close the connection; a finished writer's last act turns the database back into one file (a
        rollback journal: WAL's -wal and -shm go), so that the readers that open a finished run
        later (`mode=ro`, which cannot remove them) leave none behind; while another process
        still reads, it stays in WAL mode (changing needs the database alone)."""
        if self.conn is not None:
            if self._writer and finished:
                with suppress(sqlite3.OperationalError):
                    self.conn.execute("PRAGMA journal_mode=DELETE")
            self.conn.close()
            self.conn = None

    def _migrate(self) -> None:
        """Add `participant` to a first-layout `trials`, filled from `seed` for people (where
        that layout kept their id); their `seed` and `trial` are left as they were."""
        with transaction(self.conn):
            self.conn.execute("ALTER TABLE trials ADD COLUMN participant TEXT")
            self.conn.execute("UPDATE trials SET participant = seed WHERE agent IN (?, ?)",
                              (HUMAN, HUMAN_PILOT))
        self.legacy = False

    @property
    def participant_sql(self) -> str:
        """The SQL of a trial's participant: the column, or for a person's trial stored without
        it (the first layout, which kept the id in `seed`) the seed; NULL for agents."""
        fallback = f"CASE WHEN agent IN ('{HUMAN}', '{HUMAN_PILOT}') THEN seed END"
        return fallback if self.legacy else f"COALESCE(participant, {fallback})"

    @contextmanager
    def _sqlite(self) -> Iterator[None]:
        """sqlite errors inside the block as one RunError line naming the database."""
        try:
            yield
        except sqlite3.DatabaseError as err:
            raise database_error(self.path, err) from None

    # -- the parts every run has ---------------------------------------------------------------
    def write_head(self, mazes: Iterable[MazeRecord] = (), **meta: Any) -> None:
        """Write what every run directory has, for its writer (`mazesim run`, `mazesim play`,
        `mazesim import`): `environment.json` unless present (`rundir.write_environment`),
        the meta values (the stored `config` among them) and the mazes (`add_mazes`)."""
        write_environment(self.run_dir)
        self.set_meta(**meta)
        self.add_mazes(mazes)

    # -- meta ---------------------------------------------------------------------------------
    def set_meta(self, **values: Any) -> None:
        with self._sqlite(), transaction(self.conn):
            self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                  [(k, json.dumps(v)) for k, v in values.items()])
        self._config = None

    def meta(self, key: str, default: Any = None) -> Any:
        """The stored value of `key` (JSON); `config` is checked to have what its readers use
        (`rundir.check_config`): a missing or bad one is a RunError, not a KeyError later. The
        checked config is kept: parsed once per store."""
        if key == "config" and self._config is not None:
            return self._config
        with self._sqlite():
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            if key == "config":
                raise RunError(f"{self.path}: damaged: meta 'config' is missing")
            return default
        value = _meta_value(row[0], self.path, key)
        if key == "config":
            self._config = value = check_config(value, self.path)
        return value

    def all_meta(self) -> dict[str, Any]:
        """Every meta value by key, each parsed once; `config` checked (`meta`) when present,
        or when the run is not one of people (whose readers need none)."""
        with self._sqlite():
            rows = self.conn.execute("SELECT key, value FROM meta").fetchall()
        values = {key: _meta_value(text, self.path, key) for key, text in rows}
        if "config" in values:
            if self._config is None:
                self._config = check_config(values["config"], self.path)
            values["config"] = self._config
        elif values.get("kind") != HUMAN:
            raise RunError(f"{self.path}: damaged: meta 'config' is missing")
        return values

    # -- mazes --------------------------------------------------------------------------------
    def add_mazes(self, records: Iterable[MazeRecord]) -> None:
        """Store mazes and their parameters in one transaction (existing ids are kept)."""
        with self._sqlite(), transaction(self.conn):
            for rec in records:
                self.conn.execute(
                    "INSERT OR IGNORE INTO mazes VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rec.maze_id, rec.source, rec.generator, rec.size, rec.seed, rec.text,
                     json.dumps(dict(rec.meta), default=str)))
                self.conn.executemany(
                    "INSERT OR IGNORE INTO parameters VALUES (?, ?, ?)",
                    [(rec.maze_id, k, _number(v)) for k, v in rec.parameters.items()])

    def mazes(self, maze_id: int | None = None) -> list[MazeRecord]:
        """The stored mazes in id order (only `maze_id`'s, when given)."""
        where, args = ("", ()) if maze_id is None else ("WHERE maze_id = ? ", (maze_id,))
        params: dict[int, dict[str, float]] = {}
        with self._sqlite():
            for m, name, value in self.conn.execute(
                    f"SELECT maze_id, name, value FROM parameters {where}ORDER BY maze_id, rowid",
                    args):
                params.setdefault(m, {})[name] = value
            rows = self.conn.execute(f"SELECT * FROM mazes {where}ORDER BY maze_id",
                                     args).fetchall()
        try:
            return [MazeRecord(m, s, g, z, seed, t, json.loads(meta), params.get(m, {}))
                    for m, s, g, z, seed, t, meta in rows]
        except (TypeError, ValueError, RecursionError):
            raise RunError(f"{self.path}: damaged: a maze's meta is not JSON") from None

    # -- results ------------------------------------------------------------------------------
    def trials(self, *, agent: str | None = None, trial_id: int | None = None
               ) -> list[StoredTrial]:
        """`trials` rows in trial order, those of one agent or the one trial asked for."""
        return [StoredTrial._make(row) for row in self.query(
            *self.trials_query(agent=agent, trial_id=trial_id))]

    def trials_query(self, *, agent: str | None = None, trial_id: int | None = None,
                     but: str | None = None) -> tuple[str, list]:
        """The SQL and parameters reading `trials` (`TRIAL_COLUMNS`, `participant` by
        `participant_sql`) in trial order: of `agent`, the trial `trial_id`, without agent
        `but` (for `pandas.read_sql_query` on `conn`, or `trials`)."""
        clauses = [(f"{name} {op} ?", value) for name, op, value in (
            ("agent", "=", agent), ("trial_id", "=", trial_id), ("agent", "!=", but))
            if value is not None]
        where = f"WHERE {' AND '.join(c for c, _ in clauses)} " if clauses else ""
        return (f"SELECT {', '.join(TRIAL_COLUMNS[:-1])}, {self.participant_sql} AS "
                f"participant FROM trials {where}ORDER BY trial_id", [v for _, v in clauses])

    def count_trials(self, agent: str) -> int:
        return self.query("SELECT COUNT(*) FROM trials WHERE agent = ?", (agent,))[0][0]

    def last_trial_id(self) -> int | None:
        return self.query("SELECT MAX(trial_id) FROM trials")[0][0]

    def done_units(self) -> set[int]:
        with self._sqlite():
            return {row[0] for row in self.conn.execute("SELECT unit_id FROM units")}

    def add_results(self, results: Sequence[Any]) -> None:
        """Store finished chunks (`tasks.ChunkResult`: `tasks` writes its rows with this module,
        so it is not imported here) in one transaction, their sample files first, then their
        units and their rows, copied from each chunk's `trial_image` in its order (as the
        workers packed them: one `.npz` per chunk with samples)."""
        if not results:
            return
        with self._sqlite(), _attached(self.conn, _IMAGE), transaction(self.conn):
            write_sample_files(self.conn, self.run_dir, [(chunk.samples, chunk.sample_ids)
                                                         for chunk in results if chunk.sample_ids])
            self.conn.executemany("INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?)", [
                (r.unit.unit_id, r.unit.maze_id, r.unit.agent_label, r.unit.vision_label,
                 r.unit.trials, r.seconds, r.kernel_seconds)
                for chunk in results for r in chunk.units])
            for chunk in results:       # the same tables: sqlite copies the trials' records
                self.conn.deserialize(chunk.rows, name=_IMAGE)
                self.conn.execute(f"INSERT INTO trials SELECT * FROM {_IMAGE}.trials")
                self.conn.execute(f"INSERT INTO choices SELECT * FROM {_IMAGE}.choices "
                                  "ORDER BY rowid")

    def sample(self, trial_id: int) -> np.ndarray | None:
        """The stored positions of a sampled trial, or None."""
        return self.samples([trial_id]).get(trial_id)

    def samples(self, trial_ids: Iterable[int], mazes: Mapping[int, Any] | None = None
                ) -> dict[int, np.ndarray]:
        """Positions (T+1, 2) of those of `trial_ids` that were sampled (each file read once);
        with `mazes` (trial id -> Maze) each checked against its maze (`read_samples`)."""
        files: dict[str, list[int]] = {}
        with self._sqlite():
            for trial_id in trial_ids:
                row = self.conn.execute("SELECT file FROM samples WHERE trial_id = ?",
                                        (int(trial_id),)).fetchone()
                if row is not None:
                    files.setdefault(row[0], []).append(int(trial_id))
        return read_samples(self.run_dir, files, mazes)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._sqlite():
            return self.conn.execute(sql, params).fetchall()

    def trial_ranges(self, sql: str, params: Sequence[Any]
                     ) -> list[tuple[int | None, int | None]]:
        """Consecutive ranges [low, high) of trial ids (None: unbounded) covering the rows of
        the trials query `sql` in near-equal shares of their ids (a run's ids are dense: of
        its rows too): one per core, at least `SLICE_ROWS` ids each; one range, (None, None),
        for a smaller query. Found from the first and last id (the index, not a scan)."""
        first, last = self.query(
            f"SELECT (SELECT trial_id FROM ({sql}) ORDER BY trial_id LIMIT 1), "
            f"(SELECT trial_id FROM ({sql}) ORDER BY trial_id DESC LIMIT 1)",
            [*params, *params])[0]
        span = 0 if first is None else last - first + 1
        parts = min(cores(), span // SLICE_ROWS)
        if parts < 2:
            return [(None, None)]
        starts = [first + span * i // parts for i in range(parts)]
        return list(zip(starts, [*starts[1:], None]))

    # -- exports ------------------------------------------------------------------------------
    def export_csv(self, folder: str | Path) -> list[Path]:
        """Write mazes.csv, trials.csv and choices.csv (DESIGN.md section 8 columns) into
        `folder`, their pieces in forked processes (`csv_export`)."""
        export = self.csv_export(folder)
        with export, Jobs() as jobs:
            return export.finish(lambda: jobs.results(jobs.start_all(export.pieces)))

    def csv_export(self, folder: str | Path) -> CsvExport:
        """The CSV exports as pieces to run anywhere (a caller that forks its own work starts
        them beside it): mazes.csv, and a large run's trials and choices in slices of trial
        ids (`trial_ranges`), each slice a file of its own, joined by `CsvExport.finish`."""
        folder = Path(folder)
        mazes = self.mazes()
        names = list(mazes[0].parameters) if mazes else []
        paths = [folder / "mazes.csv", folder / "trials.csv", folder / "choices.csv"]
        parts = [path.with_name(f".{path.name}.part") for path in paths]
        ranges = self.trial_ranges("SELECT trial_id FROM trials", [])
        rows = [[m.maze_id, m.source, m.generator or "", m.size, "" if m.seed is None else m.seed,
                 *(_cell(m.parameters.get(n)) for n in names)] for m in mazes]
        pieces: list[Call] = [
            (_write_csv, (parts[0], ["maze_id", "source", "generator", "size", "seed", *names],
                          rows))]
        joins = []
        for part, header, sql in (
                (parts[1], TRIAL_COLUMNS, f"SELECT {', '.join(TRIAL_COLUMNS[:-1])}, "
                 f"{self.participant_sql} FROM trials WHERE {{}} ORDER BY trial_id"),
                (parts[2], CHOICE_COLUMNS, f"SELECT {', '.join(CHOICE_COLUMNS)} FROM choices "
                 "WHERE {} ORDER BY trial_id, step")):
            slices = [part.with_name(f"{part.name}-{i}") for i in range(len(ranges))]
            pieces += [(_export_slice, (self.path, piece, sql, low, high))
                       for piece, (low, high) in zip(slices, ranges)]
            joins.append((part, list(header), slices))
        return CsvExport(folder, paths, parts, pieces, joins)


@dataclass(frozen=True)
class CsvExport:
    """A run's CSV exports: `pieces` (calls, each writing one temporary file) and `finish`,
    which joins the slices and renames the files into place. Leaving its `with` block (after
    the pieces' processes are stopped) removes what a failure left."""

    folder: Path
    paths: list[Path]
    parts: list[Path]
    pieces: list[Call]
    joins: list[tuple[Path, list[str], list[Path]]]

    def finish(self, done: Callable[[], Any]) -> list[Path]:
        """Wait for the pieces (`done()`), join the slices and rename the exports into place;
        RunError when a write failed: the previous exports stay whole, no temporary file."""
        try:
            done()
            for part, header, slices in self.joins:
                _write_csv(part, header, ())
                with open(part, "ab") as out:
                    for piece in slices:
                        with open(piece, "rb") as handle:
                            shutil.copyfileobj(handle, out, _COPY_BYTES)
            for part, path in zip(self.parts, self.paths):
                part.replace(path)
        except OSError as err:
            raise RunError(f"{self.folder}: cannot write the CSV exports ({err.strerror})"
                           ) from None
        finally:
            self._remove_temporary()
        return self.paths

    def __enter__(self) -> CsvExport:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._remove_temporary()

    def _remove_temporary(self) -> None:
        """Remove the temporary files (none to remove where none could be written: a read-only
        folder refuses even the unlink of a missing file)."""
        for path in [*self.parts, *(p for _, _, slices in self.joins for p in slices)]:
            with suppress(OSError):
                path.unlink(missing_ok=True)


def range_condition(low: int | None, high: int | None) -> tuple[str, list[int]]:
    """The SQL condition of the trial-id range [low, high) (`trial_ranges`; None: unbounded)
    and its parameters."""
    bounds = [(f"trial_id {op} ?", value) for op, value in ((">=", low), ("<", high))
              if value is not None]
    return " AND ".join(c for c, _ in bounds) or "1", [v for _, v in bounds]


def _export_slice(db_path: Path, path: Path, sql: str, low: int | None, high: int | None
                  ) -> None:
    """The rows of `sql` (its `{}` the condition) over trial ids [low, high) into `path`, no
    header, on a read-only connection of its own."""
    condition, params = range_condition(low, high)
    with closing(open_database(db_path, writable=False)) as conn:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            try:
                csvfile.writer(handle).writerows(conn.execute(sql.format(condition), params))
            except sqlite3.DatabaseError as err:
                raise database_error(db_path, err) from None


class transaction:
    """`with transaction(conn) as db:` runs the block as BEGIN IMMEDIATE ... COMMIT (ROLLBACK on
    an error) on an autocommit connection; the write lock is taken at BEGIN."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")


def read_samples(run_dir: Path, files: Mapping[str, Sequence[int]],
                 mazes: Mapping[int, Any] | None = None) -> dict[int, np.ndarray]:
    """Positions (T+1, 2) by trial id of the trials listed under each trajectory file; with
    `mazes` (trial id -> Maze), every walk there checked against its maze (`walks.walk_fault`: from
    S over passages inside the grid), so that no kernel indexes a grid with an edited file's
    cells; RunError naming the run, the trial, the file and the fault."""
    from mazesim.walks import walk_fault

    out = {}
    for file, ids in files.items():
        try:
            with np.load(run_dir / file) as data:
                for trial_id in ids:
                    out[trial_id] = unpacked(data[f"t{trial_id}_start"], data[f"t{trial_id}"])
        except (OSError, ValueError, KeyError, EOFError, IndexError,
                zipfile.BadZipFile) as err:
            raise RunError(f"{run_dir}: damaged: trajectory file {file} cannot be read "
                           f"({type(err).__name__}: {str(err)[:80]})") from None
        for trial_id in ids if mazes is not None else ():
            fault = walk_fault(mazes[trial_id], out[trial_id]) if trial_id in mazes else None
            if fault is not None:
                raise RunError(f"{run_dir}: damaged: trial {trial_id} in {file}, step "
                               f"{fault[0]}: {fault[1]}")
    return out


def next_trial_id(conn: sqlite3.Connection) -> int:
    """The first unused `trial_id` (inside a transaction, so that it stays unused)."""
    return conn.execute("SELECT COALESCE(MAX(trial_id) + 1, 0) FROM trials").fetchone()[0]


def write_trials(conn: sqlite3.Connection, rows: TrialRows) -> None:
    """Insert the `trials` rows and the `choices` rows of `rows`, in the caller's transaction."""
    condition = (rows.maze_id, rows.agent, rows.vision)
    ids, numbers = list(rows.trial_ids), list(rows.numbers)
    people = list(rows.participants) or [None] * len(ids)
    conn.executemany(
        f"INSERT INTO trials ({', '.join(TRIAL_COLUMNS)}) VALUES "
        f"({', '.join('?' * len(TRIAL_COLUMNS))})",
        zip(ids, *(repeat(c) for c in condition), numbers, rows.seeds, _column(rows.moves),
            _column(rows.reached), _column(rows.capped), people))
    marks = list(rows.mark_names) + [""]        # NO_MARK (-1) reads the last: no mark
    records = rows.choices
    conn.executemany(
        f"INSERT INTO choices VALUES ({', '.join('?' * len(CHOICE_COLUMNS))})",
        [(ids[t], *condition, numbers[t], marks[mark],
          *(f.to_stored(value) for f, value in zip(CHOICE_FIELDS, values)))
         for t, mark, *values in zip(_column(records["trial"]), _column(records["mark"]),
                                     *(_column(records[f.name]) for f in CHOICE_FIELDS))])


def trial_image(rows: Iterable[TrialRows]) -> bytes:
    """The `trials` and `choices` rows of `rows` (`write_trials`) as the image of an in-memory
    database of those two tables (`Connection.serialize`), for `RunStore.add_results`."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.executescript(_TRIALS_TABLE + _CHOICES_TABLE)
        with transaction(conn):
            for part in rows:
                write_trials(conn, part)
        return conn.serialize()
    finally:
        conn.close()


@contextmanager
def _attached(conn: sqlite3.Connection, name: str) -> Iterator[None]:
    """An empty in-memory database attached as `name` for the block (outside a transaction)."""
    conn.execute("ATTACH ':memory:' AS " + name)
    try:
        yield
    finally:
        conn.execute("DETACH " + name)


def _trial_columns(conn: sqlite3.Connection) -> list[str]:
    return [row[1] for row in conn.execute("PRAGMA table_info(trials)")]


def peek_meta(run_dir: str | Path, key: str) -> Any:
    """The meta value `key` of the run database in `run_dir` (None when absent), read without
    the checks a `RunStore` makes on opening (its tables, every trajectory file)."""
    path = Path(run_dir) / DATABASE
    conn = open_database(path, writable=False)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error as err:
        raise database_error(path, err) from None
    finally:
        conn.close()
    return None if row is None else _meta_value(row[0], path, key)


def is_play_run(run_dir: str | Path) -> bool:
    """True when `run_dir` holds a database written by `mazesim play` (its meta is all that is
    read, and nothing of `mazesim.play` is imported: a report of any other run needs none)."""
    if not (Path(run_dir) / DATABASE).is_file():
        return False
    try:
        return peek_meta(run_dir, "recorder") == PLAY_RECORDER
    except RunError:
        return False                  # not a readable run: the report's own check says why


def _meta_value(text: Any, path: Path, key: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise RunError(f"{path}: damaged: meta {key!r} is not JSON") from None


def write_samples(conn: sqlite3.Connection, run_dir: str | Path,
                  samples: Mapping[int, np.ndarray]) -> str | None:
    """Write sampled trajectories (trial id -> positions (T+1, 2)) to one `.npz` under
    `run_dir` and register them in `samples`, in the caller's transaction (the file exists
    before the commit); returns the file's name relative to `run_dir`, None when empty."""
    if not samples:
        return None
    return write_sample_files(conn, run_dir, [(pack_samples(samples), sorted(samples))])[0]


def write_sample_files(conn: sqlite3.Connection, run_dir: str | Path,
                       files: Sequence[tuple[bytes, Sequence[int]]]) -> list[str]:
    """Write each `.npz` file image (`sample_files.pack_samples`) with the trial ids it holds
    under `run_dir` and register them in `samples`, in the caller's transaction; their names
    (`_free_name`: the files `samples` lists are read once, not once a file)."""
    if not files:
        return []
    folder = Path(run_dir) / TRAJECTORIES
    listed = {row[0] for row in conn.execute("SELECT DISTINCT file FROM samples")}
    names = []
    for image, trial_ids in files:
        names.append(name := _free_name(listed, min(trial_ids)))
        _write_file(folder, folder.parent / name, image)
        conn.executemany("INSERT OR REPLACE INTO samples VALUES (?, ?)",
                         [(int(trial_id), name) for trial_id in trial_ids])
        listed.add(name)
    return names


def _write_file(folder: Path, path: Path, image: bytes) -> None:
    """Write `image` to `path` in `folder` (made if missing) by a rename: whole or not at all."""
    try:
        folder.mkdir(exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".trials-", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(image)
            os.replace(part, path)
        except BaseException:
            os.unlink(part)
            raise
    except OSError as err:
        raise RunError(f"{folder}: cannot write a trajectory file ({err.strerror})") from None


def _free_name(listed: set[str], first: int) -> str:
    """`trajectories/trials-<first>.npz`, or with a suffix when a row lists that file already
    (`listed`): a listed file is never replaced (a file no row lists is a leftover of an
    interrupted attempt and may be)."""
    base = f"{TRAJECTORIES}/trials-{first:09d}"
    name, n = f"{base}.npz", 1
    while name in listed:
        name, n = f"{base}-{n}.npz", n + 1
    return name


def _column(values: Sequence[Any]) -> list:
    """A column as a list of Python scalars (sqlite binds no numpy scalars)."""
    return np.asarray(values).tolist()


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if np.isnan(value) else value


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return int(value) if float(value).is_integer() else value


def _write_csv(path: Path, header: list[str], rows: Iterable[Sequence[Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
