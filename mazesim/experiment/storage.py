"""The results database of a run (stdlib sqlite3, the source of truth) and its CSV exports.

Tables: `meta` (key, value), `mazes` (with their text, so a run directory is self-contained),
`parameters` (maze_id, name, value), `units` (finished sweep cells), `trials`, `choices` (departures
from marked cells) and `samples` (which `.npz` file holds a sampled trajectory: its start
`t<id>_start` and one direction code per move `t<id>`, 0-3 in the canonical order). A unit's
trials, choices and its `units` row are committed in the same transaction, so an interrupted run
resumes without losing or duplicating a trial. Sample trajectories are written before that commit.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from mazesim.errors import ConfigError
from mazesim.experiment.seeds import trial_seed_label
from mazesim.experiment.tasks import UnitResult, direction_name
from mazesim.maze import DELTAS

__all__ = ["DATABASE", "TRAJECTORIES", "MazeRecord", "RunStore"]

DATABASE = "results.sqlite"
TRAJECTORIES = "trajectories"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mazes (
    maze_id INTEGER PRIMARY KEY, source TEXT NOT NULL, generator TEXT, size TEXT NOT NULL,
    seed INTEGER, text TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parameters (
    maze_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL, PRIMARY KEY (maze_id, name));
CREATE TABLE IF NOT EXISTS units (
    unit_id INTEGER PRIMARY KEY, maze_id INTEGER NOT NULL, agent TEXT NOT NULL,
    vision TEXT NOT NULL, trials INTEGER NOT NULL, seconds REAL, kernel_seconds REAL);
CREATE TABLE IF NOT EXISTS trials (
    trial_id INTEGER PRIMARY KEY, maze_id INTEGER NOT NULL, agent TEXT NOT NULL,
    vision TEXT NOT NULL, trial INTEGER NOT NULL, seed TEXT NOT NULL, moves INTEGER NOT NULL,
    reached INTEGER NOT NULL, capped INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS choices (
    trial_id INTEGER NOT NULL, step INTEGER NOT NULL, maze_id INTEGER NOT NULL,
    agent TEXT NOT NULL, vision TEXT NOT NULL, trial INTEGER NOT NULL, mark TEXT NOT NULL,
    row INTEGER NOT NULL, col INTEGER NOT NULL, arrival TEXT NOT NULL, direction TEXT NOT NULL,
    first INTEGER NOT NULL, PRIMARY KEY (trial_id, step));
CREATE TABLE IF NOT EXISTS samples (trial_id INTEGER PRIMARY KEY, file TEXT NOT NULL);
"""


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


class RunStore:
    """The sqlite database of one run directory; use as a context manager."""

    def __init__(self, run_dir: str | Path, *, create: bool = False) -> None:
        self.run_dir = Path(run_dir)
        path = self.run_dir / DATABASE
        if not create and not path.is_file():
            raise ConfigError(f"{self.run_dir}: not a run directory (no {DATABASE})")
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        if create:
            self.conn.executescript(_SCHEMA)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # -- meta ---------------------------------------------------------------------------------
    def set_meta(self, **values: Any) -> None:
        with _transaction(self.conn):
            self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                  [(k, json.dumps(v)) for k, v in values.items()])

    def meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    # -- mazes --------------------------------------------------------------------------------
    def add_mazes(self, records: Iterable[MazeRecord]) -> None:
        """Store mazes and their parameters in one transaction (existing ids are kept)."""
        with _transaction(self.conn):
            for rec in records:
                self.conn.execute(
                    "INSERT OR IGNORE INTO mazes VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rec.maze_id, rec.source, rec.generator, rec.size, rec.seed, rec.text,
                     json.dumps(dict(rec.meta), default=str)))
                self.conn.executemany(
                    "INSERT OR IGNORE INTO parameters VALUES (?, ?, ?)",
                    [(rec.maze_id, k, _number(v)) for k, v in rec.parameters.items()])

    def mazes(self) -> list[MazeRecord]:
        params: dict[int, dict[str, float]] = {}
        for maze_id, name, value in self.conn.execute(
                "SELECT maze_id, name, value FROM parameters ORDER BY maze_id, rowid"):
            params.setdefault(maze_id, {})[name] = value
        return [MazeRecord(m, s, g, z, seed, t, json.loads(meta), params.get(m, {}))
                for m, s, g, z, seed, t, meta in self.conn.execute(
                    "SELECT * FROM mazes ORDER BY maze_id")]

    # -- results ------------------------------------------------------------------------------
    def done_units(self) -> set[int]:
        return {row[0] for row in self.conn.execute("SELECT unit_id FROM units")}

    def add_results(self, results: Sequence[UnitResult], root: int,
                    agent_labels: Sequence[str], vision_labels: Sequence[str]) -> None:
        """Store finished units in one transaction, sample trajectories first (one `.npz`)."""
        if not results:
            return
        samples = {r.unit.first_trial_id + i: pos for r in results for i, pos in r.samples.items()}
        sample_file = None
        if samples:
            folder = self.run_dir / TRAJECTORIES
            folder.mkdir(exist_ok=True)
            sample_file = f"{TRAJECTORIES}/trials-{min(samples):09d}.npz"
            tmp = self.run_dir / (sample_file + ".part.npz")
            np.savez_compressed(tmp, **{key: value for k, pos in samples.items()
                                        for key, value in _packed(k, pos).items()})
            tmp.replace(self.run_dir / sample_file)
        with _transaction(self.conn):
            for res in results:
                self._insert_unit(res, root, agent_labels, vision_labels)
            if sample_file:
                self.conn.executemany("INSERT OR REPLACE INTO samples VALUES (?, ?)",
                                      [(k, sample_file) for k in samples])

    def _insert_unit(self, res: UnitResult, root: int, agent_labels: Sequence[str],
                     vision_labels: Sequence[str]) -> None:
        u = res.unit
        agent, vision = agent_labels[u.agent_index], vision_labels[u.vision_index]
        self.conn.execute("INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (u.unit_id, u.maze_id, agent, vision, u.trials, res.seconds,
                           res.kernel_seconds))
        first = u.first_trial_id
        coords = (root, u.maze_id, u.agent_index, u.vision_index)
        self.conn.executemany(
            "INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + i, u.maze_id, agent, vision, i, trial_seed_label(*coords, i), m, r, c)
             for i, (m, r, c) in enumerate(zip(res.moves.tolist(), res.reached.tolist(),
                                                res.capped.tolist()))])
        ch = res.choices
        if len(ch["trial"]):
            self.conn.executemany(
                "INSERT INTO choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(first + int(t), int(s), u.maze_id, agent, vision, int(t), str(mk), int(r),
                  int(c), direction_name(a), direction_name(d), int(bool(f)))
                 for t, s, mk, r, c, a, d, f in zip(
                     ch["trial"].tolist(), ch["step"].tolist(), ch["mark"].tolist(),
                     ch["row"].tolist(), ch["col"].tolist(), ch["arrival"].tolist(),
                     ch["chosen"].tolist(), ch["first"].tolist())])

    def sample(self, trial_id: int) -> np.ndarray | None:
        """The stored positions of a sampled trial, or None."""
        return self.samples([trial_id]).get(trial_id)

    def samples(self, trial_ids: Iterable[int]) -> dict[int, np.ndarray]:
        """Positions (T+1, 2) of those of `trial_ids` that were sampled (each file read once)."""
        files: dict[str, list[int]] = {}
        for trial_id in trial_ids:
            row = self.conn.execute("SELECT file FROM samples WHERE trial_id = ?",
                                    (int(trial_id),)).fetchone()
            if row is not None:
                files.setdefault(row[0], []).append(int(trial_id))
        out = {}
        for file, ids in files.items():
            with np.load(self.run_dir / file) as data:
                for trial_id in ids:
                    out[trial_id] = _unpacked(data[f"t{trial_id}_start"], data[f"t{trial_id}"])
        return out

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    # -- exports ------------------------------------------------------------------------------
    def export_csv(self, folder: str | Path) -> list[Path]:
        """Write mazes.csv, trials.csv and choices.csv (DESIGN.md section 8 columns)."""
        folder = Path(folder)
        mazes = self.mazes()
        names = list(mazes[0].parameters) if mazes else []
        paths = [folder / "mazes.csv", folder / "trials.csv", folder / "choices.csv"]
        _write_csv(paths[0], ["maze_id", "source", "generator", "size", "seed", *names],
                   ([m.maze_id, m.source, m.generator or "", m.size,
                     "" if m.seed is None else m.seed, *(_cell(m.parameters.get(n)) for n in names)]
                    for m in mazes))
        _write_csv(paths[1], ["trial_id", "maze_id", "agent", "vision", "trial", "seed", "moves",
                              "reached", "capped"],
                   self.conn.execute("SELECT * FROM trials ORDER BY trial_id"))
        _write_csv(paths[2], ["trial_id", "maze_id", "agent", "vision", "trial", "step", "mark",
                              "row", "col", "arrival", "direction", "first"],
                   self.conn.execute(
                       "SELECT trial_id, maze_id, agent, vision, trial, step, mark, row, col, "
                       "arrival, direction, first FROM choices ORDER BY trial_id, step"))
        return paths


class _transaction:
    """BEGIN ... COMMIT (ROLLBACK on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN")

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")


def _packed(trial_id: int, positions: np.ndarray) -> dict[str, np.ndarray]:
    """A trajectory as its start and one direction code per move (a quarter of the bytes)."""
    positions = np.asarray(positions, dtype=np.int64)
    steps = np.diff(positions, axis=0)
    codes = np.argmax((steps[:, None, :] == DELTAS[None, :, :]).all(axis=2), axis=1)
    return {f"t{trial_id}_start": positions[0].astype(np.int32),
            f"t{trial_id}": codes.astype(np.uint8)}


def _unpacked(start: np.ndarray, codes: np.ndarray) -> np.ndarray:
    steps = DELTAS[codes.astype(np.int64)]
    return np.vstack([start[None, :], start + np.cumsum(steps, axis=0)]).astype(np.int64)


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
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
