"""The play tables of a run's `results.sqlite`: participants, shown mazes, raw moves, choices.

A finished maze becomes rows of the experiment's tables (`trials`, `choices` with every junction
departure, `samples`), written by `mazesim.experiment.storage`. Every write is one transaction
(`transaction()`), so a crash loses at most the move in flight.
Raw moves keep both clocks: `server_ms` (epoch milliseconds when the server accepted the move) and
`client_ms` (epoch milliseconds of the key press by the page's monotonic clock,
`performance.timeOrigin + performance.now()`, fractional), because response times matter to
researchers.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from mazesim.experiment.storage import DATABASE, transaction
from mazesim.maze import Cell

__all__ = ["DATABASE", "MoveRow", "PlayStore", "now_ms"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS play_participants (
    participant TEXT PRIMARY KEY,
    number INTEGER NOT NULL UNIQUE,
    maze_order TEXT NOT NULL,
    joined_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS play_progress (
    participant TEXT NOT NULL,
    maze_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    started_ms INTEGER NOT NULL,
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
"""
_SELECT_MOVES = ("SELECT seq, from_row, from_col, to_row, to_col, direction, server_ms, client_ms "
                 "FROM play_moves WHERE participant = ? AND maze_id = ?")


def now_ms() -> int:
    """Wall-clock time in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class MoveRow:
    """One stored move."""

    seq: int
    source: Cell
    target: Cell
    direction: str
    server_ms: int
    client_ms: float | None


class PlayStore:
    """The play tables in `run_dir/results.sqlite`; one connection shared under the caller's lock.

    The server serialises every call with one lock (moves are tiny; a loopback study has a
    handful of participants), so the connection is opened with `check_same_thread=False`.
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / DATABASE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.executescript(_SCHEMA)

    def close(self) -> None:
        self.connection.close()

    def transaction(self) -> transaction:
        """`with store.transaction() as db:` runs the block as one BEGIN ... COMMIT."""
        return transaction(self.connection)

    def participant_order(self, participant: str) -> list[str] | None:
        row = self.connection.execute(
            "SELECT maze_order FROM play_participants WHERE participant = ?", (participant,)
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def add_participant(self, participant: str, order: list[str]) -> None:
        with self.transaction() as db:
            number = db.execute("SELECT COUNT(*) FROM play_participants").fetchone()[0]
            db.execute("INSERT INTO play_participants VALUES (?, ?, ?, ?)",
                       (participant, number, json.dumps(order), now_ms()))

    @staticmethod
    def participant_number(db: sqlite3.Connection, participant: str) -> int:
        """The participant's number in join order (0 for the first)."""
        return db.execute("SELECT number FROM play_participants WHERE participant = ?",
                          (participant,)).fetchone()[0]

    def participants(self) -> list[str]:
        rows = self.connection.execute(
            "SELECT participant FROM play_participants ORDER BY number")
        return [r[0] for r in rows]

    def progress(self, participant: str) -> dict[str, tuple[int, int | None]]:
        """{maze_id: (started_ms, finished_ms or None)} of the mazes shown to `participant`."""
        rows = self.connection.execute(
            "SELECT maze_id, started_ms, finished_ms FROM play_progress WHERE participant = ?",
            (participant,))
        return {maze_id: (started, finished) for maze_id, started, finished in rows}

    def start_maze(self, participant: str, maze_id: str, position: int) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO play_progress VALUES (?, ?, ?, ?, NULL)",
                       (participant, maze_id, position, now_ms()))

    def moves(self, participant: str, maze_id: str) -> list[MoveRow]:
        rows = self.connection.execute(_SELECT_MOVES + " ORDER BY seq", (participant, maze_id))
        return [_move_row(*row) for row in rows]

    def move(self, participant: str, maze_id: str, seq: int) -> MoveRow | None:
        row = self.connection.execute(_SELECT_MOVES + " AND seq = ?",
                                      (participant, maze_id, seq)).fetchone()
        return None if row is None else _move_row(*row)

    @staticmethod
    def insert_move(db: sqlite3.Connection, participant: str, maze_id: str, row: MoveRow) -> None:
        """Append one move inside an open transaction."""
        db.execute("INSERT INTO play_moves VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (participant, maze_id, row.seq, *row.source, *row.target, row.direction,
                    row.server_ms, row.client_ms))

    @staticmethod
    def finish_maze(db: sqlite3.Connection, participant: str, maze_id: str, when: int) -> None:
        """Mark a maze finished inside an open transaction."""
        db.execute("UPDATE play_progress SET finished_ms = ? WHERE participant = ? AND maze_id = ?",
                   (when, participant, maze_id))


def _move_row(seq: int, from_row: int, from_col: int, to_row: int, to_col: int, direction: str,
              server_ms: int, client_ms: float | None) -> MoveRow:
    return MoveRow(seq, (from_row, from_col), (to_row, to_col), direction, server_ms, client_ms)
