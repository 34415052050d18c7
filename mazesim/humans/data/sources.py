"""Readers of recorded human trajectories: the Maze Search Task's files and a documented long CSV.

Both readers return a `Source`: the recorded trials as given (`Recording`, unchecked: the
importer checks every one) and the mazes by name. Problems of one trial (a bad number, a path
that cannot be read, a maze without a file) are kept as `Problem`s, so that `--skip-invalid` can
list them; problems of the whole input (no such file, a missing column, a ceiling passed) raise
`DataError` at once.

**Maze Search Task** (Kryven et al. 2024, `marta-kryven/MST`): a folder with `plandata.csv` (tab
separated: `subject world trialNo steps path times`; `path` is `p(x,y)` cells with x = column,
y = row, `times` the milliseconds before each move) and `mazes/NAME.txt` (width, height, then
rows of digits: 3 wall, 0 floor not yet seen, 6 floor seen from the start, 5 start, 2 exit;
cells beyond a short row are outside the map, read as walls). The `steps` column is not read
(in experiment 1 it is each participant's running total, not the trial's moves). The maps are
read by `mst_maps` (re-exported here).

**Long CSV**: one row per visited cell, header `participant, maze, trial, step, row, col` and
optionally `t_ms` (milliseconds before the move into the cell; empty on step 0) and `vision` (a
vision label such as `isovist 10, map known`; one per trial); rows of a trial in any order, steps
0, 1, ..., T; mazes are mazesim files `MAZES/<maze>.txt` (or `.json`, whose `meta` may list the
cells seen at the start).
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from mazesim.agents.vision import MST_VISION, Vision, parse_vision
from mazesim.errors import DataError, MazesimError, file_problem
from mazesim.humans.data.fields import Unreadable, integer, number, quoted, read_table
from mazesim.mst_maps import (MAX_MAZE_SIDE, SIDE_DIGITS, mst_cells, parse_mst_maze,
                                     read_any_maze, read_mst_maze)
from mazesim.limits import MAX_MAZE_CELLS
from mazesim.maze import Maze, read_maze
from mazesim.schema import NAME_PATTERN

__all__ = ["Recording", "Problem", "Source", "MST_TABLE", "MST_MAZES", "CSV_COLUMNS",
           "CSV_OPTIONAL", "MAX_TRIALS", "MAX_CSV_ROWS", "MAX_STEPS", "MAX_PARTICIPANTS",
           "MAX_MAZES", "MAX_MAZE_SIDE", "check_counts", "read_mst", "read_csv",
           "read_mst_maze", "parse_mst_maze", "read_any_maze"]

MST_TABLE = "plandata.csv"
MST_MAZES = "mazes"
MST_COLUMNS = ("subject", "world", "trialNo", "path", "times")
CSV_COLUMNS = ("participant", "maze", "trial", "step", "row", "col")
CSV_OPTIONAL = ("t_ms", "vision")
MAZE_SUFFIXES = (".txt", ".json")

MAX_TRIALS = 1_000_000
"""Most trials of one input."""
MAX_CSV_ROWS = 20_000_000
"""Most rows (visited cells) of a long CSV."""
MAX_STEPS = 1_000_000
"""Most moves of one trial."""
MAX_PARTICIPANTS = 100_000
"""Most participants of one input."""
MAX_MAZES = 10_000
"""Most distinct mazes of one input."""

MAX_TOTAL_CELLS = MAX_MAZE_CELLS
"""Most cells of all the mazes of one input together, as their files declare them (a Maze
Search Task map of a few bytes may declare 5,000 x 5,000): checked before any maze is read."""

_CELL = re.compile(r"p\(([0-9]+),([0-9]+)\)")
_PATH = re.compile(r"(?:p\([0-9]+,[0-9]+\);?)+")


@dataclass(frozen=True)
class Problem:
    """Why one recorded trial cannot be imported: where it is and what is wrong."""

    line: int
    participant: str
    maze: str
    step: int | None
    reason: str

    def describe(self, path: str) -> str:
        """One line: `path:line: participant P, maze M, step k: reason`."""
        return f"{path}:{self.line}: {self.where()}: {self.reason}"

    def where(self) -> str:
        """`participant P, maze M[, step k]`, the ids cut to 40 characters."""
        step = "" if self.step is None else f", step {self.step}"
        return (f"participant {_cut(self.participant) or '?'}, maze {_cut(self.maze) or '?'}"
                f"{step}")

    def to_json(self) -> dict:
        return {"line": self.line, "participant": self.participant, "maze": self.maze,
                "step": self.step, "reason": self.reason}


@dataclass(frozen=True, eq=False)
class Recording:
    """One recorded trial as read (unchecked): positions (T+1, 2) as (row, col), the input line
    of each cell, the milliseconds before each move (T,) or None, and its vision if given."""

    line: int
    participant: str
    maze: str
    number: int
    positions: np.ndarray
    lines: np.ndarray
    times: np.ndarray | None = None
    vision: Vision | None = None
    bumps: tuple[tuple[int, int, float], ...] = ()
    """Key presses that moved nothing (into a wall or off the grid), never moves: (the move
    they came before, the direction, the milliseconds before the press)."""

    def problem(self, step: int | None, reason: str) -> Problem:
        """A Problem at `step` (its input line when known)."""
        line = int(self.lines[step]) if step is not None and step < len(self.lines) else self.line
        return Problem(line, self.participant, self.maze, step, reason)


@dataclass(frozen=True, eq=False)
class Source:
    """What a reader found, in input order: recordings, trials it could not read, the mazes by
    name and the mazes it could not find (name -> reason), and the vision of trials without one;
    `path` is the table the line numbers refer to."""

    format: str
    path: str
    recordings: tuple[Recording, ...]
    unreadable: tuple[Problem, ...]
    mazes: dict[str, Maze] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    vision: Vision = MST_VISION
    level: str = "junction"
    """The decisions a fit reads by default (`humans.data.run.LEVELS`)."""


def read_mst(folder: str | Path) -> Source:
    """Read a Maze Search Task folder (`plandata.csv` and `mazes/`); vision `{isovist: 10, map:
    known}`, what each map shows at the start in its mazes' `meta["seen_at_start"]`. A second
    row of a subject's trialNo is a problem of its trial (a duplicated row was imported twice)."""
    folder = Path(folder)
    table = folder / MST_TABLE
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder (expected {MST_TABLE} and {MST_MAZES}/)")
    rows = read_table(table, "\t", MAX_TRIALS)
    index = rows.columns(MST_COLUMNS, optional=None)
    recordings, unreadable = [], []
    first: dict[tuple[str, str], int] = {}
    for line, row in rows.rows():
        get = _getter(row, index)
        participant, maze = get("subject"), get("world")
        try:
            rec = _mst_recording(line, participant, maze, get)
            seen = first.setdefault((participant, get("trialNo")), line)
            if seen != line:
                raise Unreadable(f"trialNo {rec.number} of this subject again (first on line "
                                 f"{seen})")
            recordings.append(rec)
        except Unreadable as err:
            unreadable.append(Problem(line, participant, maze, err.step, str(err)))
    check_counts(table, recordings, unreadable)
    mazes, missing = _mazes({r.maze for r in recordings}, lambda name: _mst_maze_file(
        folder, name), read_mst_maze, mst_cells)
    return Source("mst", str(table), tuple(recordings), tuple(unreadable), mazes, missing,
                  MST_VISION)


def read_csv(path: str | Path, mazes: str | Path, vision: Vision | str | int = "full",
             delimiter: str = ",") -> Source:
    """Read a long CSV of visited cells and the mazes it names from the folder `mazes`; trials
    without a `vision` value get `vision`. Rows are kept as numbers as they are read (about 50
    bytes a row), never as text. `delimiter`: "\\t" for a TSV file (a dataset's)."""
    path, folder = Path(path), Path(mazes)
    if not folder.is_dir():
        raise DataError(f"mazes: {folder}: not a folder")
    default = parse_vision(vision, "vision")
    table = read_table(path, delimiter, MAX_CSV_ROWS)
    index = table.columns(CSV_COLUMNS, optional=CSV_OPTIONAL)
    cells = _CsvCells(index, len(table.header))
    for line, row in table.rows():
        cells.add(line, row)
    recordings, unreadable = cells.recordings()
    check_counts(path, recordings, unreadable)
    found, missing = _mazes({r.maze for r in recordings}, lambda name: _maze_file(folder, name),
                            read_maze, _file_cells, "bytes (a cell takes at least one)")
    return Source("csv", str(path), tuple(recordings), tuple(unreadable), found, missing,
                  default)


class _CsvCells:
    """The rows of a long CSV as columns of numbers, grouped into trials by (participant, maze,
    trial); a trial's first unreadable field makes it a problem (the rest of it is dropped)."""

    def __init__(self, index: dict[str, int], width: int) -> None:
        self.timed = "t_ms" in index
        self.width = width                              # a missing column reads the "" after
        self.index = [index.get(name, width) for name in CSV_COLUMNS + CSV_OPTIONAL]
        self.keys: dict[tuple[str, str, str], int] = {}
        self.first: list[int] = []                      # each trial's first line
        self.visions: list[set[str]] = []
        self.problems: dict[int, Unreadable] = {}
        self.columns = {name: array("q") for name in ("trial", "line", "step", "row", "col")}
        self.times = array("d")

    def add(self, line: int, row: list[str]) -> None:
        """One row (the hot loop of a 20-million-row file: a few microseconds a row)."""
        if len(row) < self.width:
            row += [""] * (self.width - len(row))
        row.append("")
        p, m, t, st, r, c, ms_at, v = self.index
        key = (row[p].strip(), row[m].strip(), row[t].strip())
        k = self.keys.setdefault(key, len(self.keys))
        if k == len(self.first):
            self.first.append(line)
            self.visions.append(set())
        if k in self.problems:
            return
        try:
            step = integer(row[st], "step", line)
            values = (k, line, step, integer(row[r], "row", line, step),
                      integer(row[c], "col", line, step))
            t_ms = row[ms_at].strip()
            if not self.timed:
                ms = 0.0
            elif step == 0:
                if t_ms not in ("", "0"):
                    raise Unreadable("t_ms on step 0 (no move leads into the start): leave it "
                                     "empty", line, 0)
                ms = float("nan")
            else:
                ms = number(t_ms, "t_ms", line, step)
        except Unreadable as err:
            self.problems[k] = err
            return
        for column, value in zip(self.columns.values(), values):
            column.append(value)
        self.times.append(ms)
        self.visions[k].add(row[v].strip())

    def recordings(self) -> tuple[list[Recording], list[Problem]]:
        """The trials in order of first appearance, and the problems of the unreadable ones."""
        cols = {name: np.frombuffer(values, np.int64) if len(values) else np.zeros(0, np.int64)
                for name, values in self.columns.items()}
        times = np.frombuffer(self.times, np.float64) if len(self.times) else np.zeros(0)
        order = np.lexsort((cols["step"], cols["trial"]))
        bounds = np.searchsorted(cols["trial"][order], np.arange(len(self.keys) + 1))
        recordings, unreadable = [], []
        for (participant, maze, trial), k in self.keys.items():
            rows = order[bounds[k]:bounds[k + 1]]
            try:
                if k in self.problems:
                    raise self.problems[k]
                recordings.append(self._recording(participant, maze, trial, k, rows,
                                                  {n: c[rows] for n, c in cols.items()},
                                                  times[rows]))
            except Unreadable as err:
                unreadable.append(Problem(err.line or self.first[k], participant, maze,
                                          err.step, str(err)))
        return recordings, unreadable

    def _recording(self, participant: str, maze: str, trial: str, k: int, rows: np.ndarray,
                   col: dict[str, np.ndarray], times: np.ndarray) -> Recording:
        first = self.first[k]
        if not participant:
            raise Unreadable("no participant", first)
        trial_no = integer(trial, "trial", first)
        if len(rows) - 1 > MAX_STEPS:
            raise Unreadable(f"{len(rows) - 1:,} moves (at most {MAX_STEPS:,})", first)
        steps, lines = col["step"], col["line"]
        wrong = np.flatnonzero(steps != np.arange(len(steps)))
        if wrong.size:
            j = int(wrong[0])
            step, line = int(steps[j]), int(lines[j])
            if j > 0 and steps[j - 1] == step:
                raise Unreadable(f"step {step} twice (lines {min(line, int(lines[j - 1]))} and "
                                 f"{max(line, int(lines[j - 1]))})", line, step)
            raise Unreadable(f"no step {j} (steps must be 0, 1, 2, ...)", line, j)
        labels = self.visions[k]
        vision = None
        if labels - {""}:
            if len(labels) > 1:
                raise Unreadable(f"vision changes within the trial "
                                 f"({', '.join(sorted(labels))})", int(lines[0]))
            try:
                vision = parse_vision(next(iter(labels)), "vision")
            except MazesimError as err:
                raise Unreadable(str(err), int(lines[0])) from None
        positions = np.stack([col["row"], col["col"]], axis=1)
        return Recording(int(lines[0]), participant, maze, trial_no, positions, lines.copy(),
                         times[1:].copy() if self.timed else None, vision)


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _getter(row: list[str], index: dict[str, int]):
    def get(name: str) -> str:
        k = index.get(name)
        return row[k].strip() if k is not None and k < len(row) else ""
    return get


def _mst_recording(line: int, participant: str, maze: str, get) -> Recording:
    if not participant:
        raise Unreadable("no subject")
    trial_no = integer(get("trialNo"), "trialNo")
    path = get("path")
    if not _PATH.fullmatch(path):
        raise Unreadable(f"path {quoted(path)} is not p(x,y) cells separated by ';'")
    pairs = _CELL.findall(path)
    if len(pairs) - 1 > MAX_STEPS:
        raise Unreadable(f"{len(pairs) - 1:,} moves (at most {MAX_STEPS:,})")
    far = next((k for k, xy in enumerate(pairs) if max(map(len, xy)) > SIDE_DIGITS), None)
    if far is not None:
        raise Unreadable(f"p({pairs[far][0]},{pairs[far][1]}) is off any map (sides at most "
                         f"{MAX_MAZE_SIDE:,})"[:120], step=far)
    cells = [(int(y), int(x)) for x, y in pairs]
    times = [t for t in get("times").split(";") if t.strip()]
    values = np.array([number(t.strip(), "times") for t in times], np.float64)
    if len(values) != len(cells) - 1:
        raise Unreadable(f"{len(values)} times for {len(cells) - 1} moves")
    return Recording(line, participant, maze, trial_no, np.array(cells, np.int64).reshape(-1, 2),
                     np.full(len(cells), line, np.int64), values)


def check_counts(path: Path, recordings: list[Recording], unreadable: list[Problem]) -> None:
    """DataError past the input's ceilings: trials, participants, mazes."""
    trials = len(recordings) + len(unreadable)
    for what, count, limit in (
            ("trials", trials, MAX_TRIALS),
            ("participants", len({r.participant for r in recordings}), MAX_PARTICIPANTS),
            ("mazes", len({r.maze for r in recordings}), MAX_MAZES)):
        if count > limit:
            raise DataError(f"{path}: {count:,} {what} (at most {limit:,})")


def _mazes(names: Iterable[str], locate, read, cells, counted: str = "cells"
           ) -> tuple[dict[str, Maze], dict[str, str]]:
    """Each named maze read from the file `locate(name)` gives (None: a reason instead), once
    the cells all the files declare (`cells(path)`, at most that many `counted`) are known to
    be within `MAX_TOTAL_CELLS`."""
    files, missing = {}, {}
    for name in sorted(names):
        where = locate(name)
        if isinstance(where, str):
            missing[name] = where
        else:
            files[name] = where
    total = sum(cells(path) for path in files.values())
    if total > MAX_TOTAL_CELLS:
        folder = next(iter(files.values())).parent
        raise DataError(f"{folder}: the {len(files):,} maze files declare {total:,} {counted} "
                        f"in all (allowed: at most {MAX_TOTAL_CELLS:,} cells)")
    found, total = {}, 0
    for name, path in files.items():                # what a file hid from `cells`: one maze more
        found[name] = read(path)
        total += found[name].grid.size
        if total > MAX_TOTAL_CELLS:
            raise DataError(f"{path.parent}: the maze files up to {path.name} have "
                            f"{total:,} cells in all (at most {MAX_TOTAL_CELLS:,})")
    return found, missing


def _file_cells(path: Path) -> int:
    """At most the size of a mazesim maze file (a cell takes at least one byte of its text)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mst_maze_file(folder: Path, name: str) -> Path | str:
    return _maze_file(folder / MST_MAZES, name, (".txt",))


def _maze_file(folder: Path, name: str, suffixes: tuple[str, ...] = MAZE_SUFFIXES
               ) -> Path | str:
    """The file of maze `name` in `folder`, or why there is none."""
    if not NAME_PATTERN.fullmatch(name):
        return (f"maze name {quoted(name)} (allowed: letters, digits, '_', '.', '-', at most "
                "64)")
    for suffix in suffixes:
        path = folder / (name + suffix)
        if path.exists() or path.is_symlink():
            problem = file_problem(path)
            return path if problem is None else f"maze file {path}: {problem}"
    return f"no maze file {' or '.join(str(folder / (name + s)) for s in suffixes)}"
