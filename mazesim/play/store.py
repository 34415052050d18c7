"""The play tables of a run's `results.sqlite`, and the one thread that writes them.

Tables: `play_participants` (join number, pilot flag, maze order, entry fields such as Prolific's
ids, current tab, consent), `play_answers`, `play_progress` (mazes shown, started and finished),
`play_moves` and `play_bumps` (every key press: a move, or a bump into a wall that is never a
move). Raw events keep both clocks: `server_ms` (epoch milliseconds when the server accepted it)
and `client_ms` (epoch milliseconds of the key press by the page's monotonic clock,
`performance.timeOrigin + performance.now()`, fractional), because response times matter.

Rows are written in one transaction before the replies they belong to (`write`; the web app
passes the rows of every request of one event-loop turn at once): WAL with
`synchronous=NORMAL`, so a crash or kill of the server loses no answered move, and a commit costs
tens of microseconds instead of a disk sync (0.2 to 200 ms on a shared disk; an operating system
crash or power cut may lose the last second, see NOTES.md). A background thread checkpoints the
WAL into the database file every `CHECKPOINT_SECONDS`, so no request waits for a disk sync.
If a write fails, the store refuses every later one with `Unavailable` (fail-stop: the
recorder's memory and the disk never disagree; a restart rebuilds memory from the disk).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mazesim.errors import ConfigError, RunError, short
from mazesim.experiment.rundir import RunLock, lock_run
from mazesim.experiment.storage import DATABASE, transaction
from mazesim.maze import Cell
from mazesim.play.refusals import Unavailable

__all__ = ["DATABASE", "damaged", "MoveRow", "BumpRow", "ParticipantRow", "ProgressRow",
           "Stored", "PlayStore", "Work", "now_ms"]

"""Held by the one process writing into a run directory (advisory; released at exit)."""
CHECKPOINT_SECONDS = 1.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS play_participants (
    participant TEXT PRIMARY KEY,
    number INTEGER NOT NULL UNIQUE,
    pilot INTEGER NOT NULL,
    maze_order TEXT NOT NULL,
    entry TEXT NOT NULL,
    joined_ms INTEGER NOT NULL,
    tab INTEGER NOT NULL,
    consent INTEGER,
    consent_ms INTEGER
);
CREATE TABLE IF NOT EXISTS play_answers (
    participant TEXT NOT NULL,
    question TEXT NOT NULL,
    value TEXT NOT NULL,
    answered_ms INTEGER NOT NULL,
    PRIMARY KEY (participant, question)
);
CREATE TABLE IF NOT EXISTS play_progress (
    participant TEXT NOT NULL,
    maze_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    started_ms INTEGER NOT NULL,
    started_client_ms REAL,
    finished_ms INTEGER,
    PRIMARY KEY (participant, maze_id)
);
CREATE TABLE IF NOT EXISTS play_moves (
    participant TEXT NOT NULL,
    maze_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    from_row INTEGER NOT NULL,
    from_col INTEGER NOT NULL,
    to_row INTEGER NOT NULL,
    to_col INTEGER NOT NULL,
    direction TEXT NOT NULL,
    server_ms INTEGER NOT NULL,
    client_ms REAL,
    PRIMARY KEY (participant, maze_id, seq)
);
CREATE TABLE IF NOT EXISTS play_bumps (
    participant TEXT NOT NULL,
    maze_id TEXT NOT NULL,
    bump INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    row INTEGER NOT NULL,
    col INTEGER NOT NULL,
    direction TEXT NOT NULL,
    server_ms INTEGER NOT NULL,
    client_ms REAL,
    PRIMARY KEY (participant, maze_id, bump)
);
"""
_MOVE_COLUMNS = "seq, from_row, from_col, to_row, to_col, direction, server_ms, client_ms"
_BUMP_COLUMNS = "bump, seq, row, col, direction, server_ms, client_ms"

Work = Callable[[sqlite3.Connection], None]
"""A write: runs inside the writer's transaction."""


def now_ms() -> int:
    """Wall-clock time in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class MoveRow:
    """One stored move: number `seq` (from 1), from `source` to `target`."""

    seq: int
    source: Cell
    target: Cell
    direction: str
    server_ms: int
    client_ms: float | None


@dataclass(frozen=True)
class BumpRow:
    """One stored bump: number `bump` (from 1) at `cell`, before move number `seq`."""

    bump: int
    seq: int
    cell: Cell
    direction: str
    server_ms: int
    client_ms: float | None


@dataclass(frozen=True)
class ParticipantRow:
    participant: str
    number: int
    pilot: bool
    order: tuple[str, ...]
    entry: dict[str, str]
    joined_ms: int
    tab: int
    consent: bool | None


@dataclass(frozen=True)
class ProgressRow:
    participant: str
    maze_id: str
    position: int
    started_ms: int
    started_client_ms: float | None
    finished_ms: int | None


@dataclass
class Stored:
    """Everything the recorder keeps in memory, as read at open."""

    participants: list[ParticipantRow] = field(default_factory=list)
    progress: list[ProgressRow] = field(default_factory=list)
    moves: dict[tuple[str, str], list[MoveRow]] = field(default_factory=dict)
    bumps: dict[tuple[str, str], list[BumpRow]] = field(default_factory=dict)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    source: str = field(default="", compare=False)
    """The database read, for the messages that say it is damaged."""

    def damaged(self, what: str) -> RunError:
        """The one-line error of a stored row that cannot be right: `DB: damaged: what`."""
        return damaged(self.source, what)


class PlayStore:
    """The play tables in `run_dir/results.sqlite`: `write` stores a request's rows; `load` and
    the rest read. It holds the directory's writer lock (`lock`: one already taken, passed on
    to this store) until `close`."""

    def __init__(self, run_dir: str | Path, lock: RunLock | None = None) -> None:
        self.lock = lock if lock is not None else lock_run(Path(run_dir), "mazesim play")
        self.path = Path(run_dir) / DATABASE
        try:
            self._connection = _connect(self.path)
            self._connection.executescript(_SCHEMA)
            self._connection.execute("PRAGMA wal_autocheckpoint=0")   # the checkpointer's job
            self._reader = _connect(self.path)
            self._checkpointer = _Checkpointer(_connect(self.path))
        except sqlite3.Error as err:
            self.lock.release()
            raise ConfigError(f"{self.path}: cannot open ({err})") from None
        self._read_lock = threading.Lock()
        self._closed = False
        self.failure: str | None = None

    def close(self) -> None:
        """Checkpoint, close the connections, release the directory's lock (once)."""
        if self._closed:
            return
        self._closed = True
        self._connection.close()
        self._checkpointer.close()
        self._reader.close()
        self.lock.release()

    def write(self, works: list[Work]) -> None:
        """Run `works` in one transaction; after a failure, Unavailable (now and for good).

        `failure` then says why. The caller serialises calls (the recorder's lock)."""
        if self.failure is not None:
            raise Unavailable(self.failure)
        try:
            with transaction(self._connection) as db:
                for work in works:
                    work(db)
        except Exception as err:  # fail-stop boundary: whatever failed, write nothing more
            self.failure = (f"the results database failed ({type(err).__name__}: {err}); "
                            "nothing more is recorded until the server is restarted")
            raise Unavailable(self.failure) from None

    def load(self) -> Stored:
        """Every play row, for the recorder's memory; RunError when a JSON column is not what
        the recorder writes (a maze order: a list of names; an entry: a mapping of texts)."""
        stored = Stored(source=str(self.path))
        rows = self._query("SELECT participant, number, pilot, maze_order, entry, joined_ms, tab, "
                           "consent FROM play_participants ORDER BY number")
        for p, n, pilot, order, entry, joined, tab, consent in rows:
            where = f"play_participants: participant {short(p)}"
            order = _json(stored, order, f"{where}: maze_order", list, str)
            entry = _json(stored, entry, f"{where}: entry", dict, str)
            stored.participants.append(ParticipantRow(
                p, n, bool(pilot), tuple(order), entry, joined, tab,
                None if consent is None else bool(consent)))
        stored.progress = [ProgressRow(*row) for row in self._query(
            "SELECT participant, maze_id, position, started_ms, started_client_ms, finished_ms "
            "FROM play_progress ORDER BY participant, position")]
        for participant, maze_id, *row in self._query(
                f"SELECT participant, maze_id, {_MOVE_COLUMNS} FROM play_moves "
                "ORDER BY participant, maze_id, seq"):
            stored.moves.setdefault((participant, maze_id), []).append(_move(*row))
        for participant, maze_id, *row in self._query(
                f"SELECT participant, maze_id, {_BUMP_COLUMNS} FROM play_bumps "
                "ORDER BY participant, maze_id, bump"):
            stored.bumps.setdefault((participant, maze_id), []).append(_bump(*row))
        for participant, question, value in self._query(
                "SELECT participant, question, value FROM play_answers"):
            stored.answers.setdefault(participant, {})[question] = _json(
                stored, value, f"play_answers: participant {short(participant)}, question "
                               f"{short(question)}")
        return stored

    def participants(self) -> list[str]:
        """Participant ids in join order (committed rows)."""
        return [r[0] for r in self._query(
            "SELECT participant FROM play_participants ORDER BY number")]

    def moves(self, participant: str, maze_id: str) -> list[MoveRow]:
        """The committed moves of one participant on one maze, in order."""
        return [_move(*row) for row in self._query(
            f"SELECT {_MOVE_COLUMNS} FROM play_moves WHERE participant = ? AND maze_id = ? "
            "ORDER BY seq", (participant, maze_id))]

    def bumps(self, participant: str, maze_id: str) -> list[BumpRow]:
        """The committed bumps of one participant on one maze, in order."""
        return [_bump(*row) for row in self._query(
            f"SELECT {_BUMP_COLUMNS} FROM play_bumps WHERE participant = ? AND maze_id = ? "
            "ORDER BY bump", (participant, maze_id))]

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._read_lock:
            return self._reader.execute(sql, params).fetchall()

    # -- writes: each runs inside the writer's transaction -------------------------------------
    @staticmethod
    def insert_participant(db: sqlite3.Connection, row: ParticipantRow) -> None:
        db.execute("INSERT INTO play_participants VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                   (row.participant, row.number, int(row.pilot), json.dumps(list(row.order)),
                    json.dumps(row.entry), row.joined_ms, row.tab,
                    None if row.consent is None else int(row.consent)))

    @staticmethod
    def set_tab(db: sqlite3.Connection, participant: str, tab: int) -> None:
        db.execute("UPDATE play_participants SET tab = ? WHERE participant = ?",
                   (tab, participant))

    @staticmethod
    def set_consent(db: sqlite3.Connection, participant: str, agree: bool, when: int) -> None:
        db.execute("UPDATE play_participants SET consent = ?, consent_ms = ? WHERE "
                   "participant = ?", (int(agree), when, participant))

    @staticmethod
    def insert_answers(db: sqlite3.Connection, participant: str, answers: dict[str, Any],
                       when: int) -> None:
        db.executemany("INSERT INTO play_answers VALUES (?, ?, ?, ?)",
                       [(participant, q, json.dumps(v), when) for q, v in answers.items()])

    @staticmethod
    def start_maze(db: sqlite3.Connection, row: ProgressRow) -> None:
        db.execute("INSERT INTO play_progress VALUES (?, ?, ?, ?, ?, NULL)",
                   (row.participant, row.maze_id, row.position, row.started_ms,
                    row.started_client_ms))

    @staticmethod
    def insert_move(db: sqlite3.Connection, participant: str, maze_id: str, row: MoveRow
                    ) -> None:
        db.execute("INSERT INTO play_moves VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (participant, maze_id, row.seq, *row.source, *row.target, row.direction,
                    row.server_ms, row.client_ms))

    @staticmethod
    def insert_bump(db: sqlite3.Connection, participant: str, maze_id: str, row: BumpRow
                    ) -> None:
        db.execute("INSERT INTO play_bumps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (participant, maze_id, row.bump, row.seq, *row.cell, row.direction,
                    row.server_ms, row.client_ms))

    @staticmethod
    def finish_maze(db: sqlite3.Connection, participant: str, maze_id: str, when: int) -> None:
        db.execute("UPDATE play_progress SET finished_ms = ? WHERE participant = ? AND "
                   "maze_id = ?", (when, participant, maze_id))


class _Checkpointer:
    """Copies the WAL into the database file every `CHECKPOINT_SECONDS` (the disk syncs)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mazesim-play-checkpoint",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(CHECKPOINT_SECONDS):
            self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._connection.close()


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA busy_timeout=10000")
    return connection


def damaged(path: str | Path, what: str) -> RunError:
    """`path: damaged: what`, and what can be done."""
    return RunError(f"{path}: damaged: {what} (restore the run directory from a copy, or record "
                    "into another output)")


def _json(stored: Stored, text: Any, what: str, kind: type | None = None,
          item: type | None = None) -> Any:
    """The JSON value of a stored column, of type `kind` with values of type `item` if given."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise stored.damaged(f"{what}: {short(text)} is not JSON") from None
    items = value.values() if isinstance(value, dict) else value
    if kind is not None and (not isinstance(value, kind) or not all(
            isinstance(v, item) for v in items)):
        raise stored.damaged(f"{what}: {short(value)} (expected a {kind.__name__} of "
                             f"{item.__name__})")
    return value


def _move(seq: int, from_row: int, from_col: int, to_row: int, to_col: int, direction: str,
          server_ms: int, client_ms: float | None) -> MoveRow:
    return MoveRow(seq, (from_row, from_col), (to_row, to_col), direction, server_ms, client_ms)


def _bump(bump: int, seq: int, row: int, col: int, direction: str, server_ms: int,
          client_ms: float | None) -> BumpRow:
    return BumpRow(bump, seq, (row, col), direction, server_ms, client_ms)
