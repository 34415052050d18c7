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
(in experiment 1 it is each participant's running total, not the trial's moves).

**Long CSV**: one row per visited cell, header `participant, maze, trial, step, row, col` and
optionally `t_ms` (milliseconds before the move into the cell; empty on step 0) and `vision` (a
vision label such as `isovist 10, map known`; one per trial); rows of a trial in any order, steps
0, 1, ..., T; mazes are mazesim files `MAZES/<maze>.txt` (or `.json`, whose `meta` may list the
cells seen at the start).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from mazesim.agents.vision import MST_VISION, SEEN_AT_START, Vision, parse_vision
from mazesim.errors import DataError, MazeFormatError, MazesimError, read_text
from mazesim.maze import PASSAGE, WALL, Maze, parse_maze, read_maze
from mazesim.schema import NAME_PATTERN

__all__ = ["Recording", "Problem", "Source", "MST_TABLE", "MST_MAZES", "CSV_COLUMNS",
           "CSV_OPTIONAL", "MAX_TRIALS", "MAX_CSV_ROWS", "MAX_STEPS", "MAX_PARTICIPANTS",
           "MAX_MAZES", "MAX_MAZE_SIDE", "read_mst", "read_csv", "read_mst_maze",
           "parse_mst_maze", "read_any_maze"]

MST_TABLE = "plandata.csv"
MST_MAZES = "mazes"
MST_COLUMNS = ("subject", "world", "trialNo", "path", "times")
MST_WALL, MST_FLOOR, MST_SEEN, MST_START, MST_EXIT = "3", "0", "6", "5", "2"
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
MAX_MAZE_SIDE = 5_000
"""Largest width or height of a Maze Search Task map."""

_CELL = re.compile(r"p\((\d+),(\d+)\)")
_DIGITS = re.compile(r"[0-9]+")
_PATH = re.compile(r"(?:p\(\d+,\d+\);?)+")


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
        step = "" if self.step is None else f", step {self.step}"
        return (f"{path}:{self.line}: participant {self.participant or '?'}, maze "
                f"{self.maze or '?'}{step}: {self.reason}")

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


def read_mst(folder: str | Path) -> Source:
    """Read a Maze Search Task folder (`plandata.csv` and `mazes/`); vision `{isovist: 10, map:
    known}`, what each map shows at the start in its mazes' `meta["seen_at_start"]`."""
    folder = Path(folder)
    table = folder / MST_TABLE
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder (expected {MST_TABLE} and {MST_MAZES}/)")
    rows, header = _rows(table, "\t")
    index = _columns(table, header, MST_COLUMNS, optional=None)
    recordings, unreadable = [], []
    for line, row in rows:
        get = _getter(row, index)
        participant, maze = get("subject"), get("world")
        try:
            recordings.append(_mst_recording(line, participant, maze, get))
        except _Unreadable as err:
            unreadable.append(Problem(line, participant, maze, None, str(err)))
    _check_counts(table, recordings, unreadable)
    mazes, missing = _mazes({r.maze for r in recordings}, lambda name: _mst_maze_file(
        folder, name), read_mst_maze)
    return Source("mst", str(table), tuple(recordings), tuple(unreadable), mazes, missing,
                  MST_VISION)


def read_csv(path: str | Path, mazes: str | Path, vision: Vision | str | int = "full"
             ) -> Source:
    """Read a long CSV of visited cells and the mazes it names from the folder `mazes`; trials
    without a `vision` value get `vision`."""
    path, folder = Path(path), Path(mazes)
    if not folder.is_dir():
        raise DataError(f"mazes: {folder}: not a folder")
    default = parse_vision(vision, "vision")
    rows, header = _rows(path, ",")
    index = _columns(path, header, CSV_COLUMNS, optional=CSV_OPTIONAL)
    groups: dict[tuple[str, str, str], list[tuple[int, list[str]]]] = {}
    for line, row in rows:
        get = _getter(row, index)
        groups.setdefault((get("participant"), get("maze"), get("trial")), []).append((line, row))
    recordings, unreadable = [], []
    for (participant, maze, trial), cells in groups.items():
        first = cells[0][0]
        try:
            recordings.append(_csv_recording(participant, maze, trial, cells, index))
        except _Unreadable as err:
            unreadable.append(Problem(err.line or first, participant, maze, err.step, str(err)))
    _check_counts(path, recordings, unreadable)
    found, missing = _mazes({r.maze for r in recordings}, lambda name: _maze_file(folder, name),
                            read_maze)
    return Source("csv", str(path), tuple(recordings), tuple(unreadable), found, missing,
                  default)


def read_mst_maze(path: str | Path) -> Maze:
    """A Maze Search Task map file as a Maze (`meta`: its name and `seen_at_start`)."""
    path = Path(path)
    return parse_mst_maze(read_text(path, DataError), str(path), path.stem)


def read_any_maze(path: str | Path) -> Maze:
    """A maze file of either kind: a mazesim JSON maze ends in `.json`; a Maze Search Task map
    begins with its width, a line of digits (no line of a mazesim text maze has a digit);
    anything else is a mazesim text maze. Its `meta["name"]` is the file's stem unless it has
    one."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        maze = read_maze(path)
    else:
        text = read_text(path, MazeFormatError)
        if _DIGITS.fullmatch(text.split("\n", 1)[0].strip()):
            return parse_mst_maze(text, str(path), path.stem)
        maze = parse_maze(text, str(path))
    if maze.meta.get("name"):
        return maze
    return Maze(maze.grid, maze.start, maze.goal, maze.marks, {**maze.meta, "name": path.stem})


def parse_mst_maze(text: str, source: str = "<mst>", name: str = "") -> Maze:
    """Parse a Maze Search Task map (see the module docstring); errors name `source:line:col`."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2:
        raise DataError(f"{source}: expected the width and the height on lines 1 and 2")
    width, height = (_side(source, k + 1, lines[k]) for k in range(2))
    rows = lines[2:]
    if len(rows) > height:
        raise DataError(f"{source}:{height + 3}: more than the {height} rows the header gives")
    codes = np.full((height, width), MST_WALL, "<U1")
    for r, row in enumerate(rows):
        row = row.rstrip("\r")
        if len(row) > width:
            raise DataError(f"{source}:{r + 3}:{width + 1}: row longer than the width {width}")
        for c, ch in enumerate(row):
            if ch not in (MST_WALL, MST_FLOOR, MST_SEEN, MST_START, MST_EXIT):
                raise DataError(f"{source}:{r + 3}:{c + 1}: unknown code {ch!r} (allowed: "
                                "3 wall, 0 floor, 6 floor seen, 5 start, 2 exit)")
            codes[r, c] = ch
    cells = {}
    for code, what in ((MST_START, "start"), (MST_EXIT, "exit")):
        found = np.argwhere(codes == code)
        if len(found) != 1:
            raise DataError(f"{source}: {len(found)} cells coded {code} ({what}); expected one")
        cells[what] = (int(found[0, 0]), int(found[0, 1]))
    grid = np.where(codes == MST_WALL, WALL, PASSAGE).astype(np.uint8)
    seen = [[int(r), int(c)] for r, c in np.argwhere(codes == MST_SEEN)]
    return Maze(grid, cells["start"], cells["exit"],
                meta={"name": name or Path(source).stem, SEEN_AT_START: seen})


class _Unreadable(Exception):
    """A trial that cannot be read; `line` and `step` say where, when known."""

    def __init__(self, reason: str, line: int | None = None, step: int | None = None) -> None:
        super().__init__(reason)
        self.line, self.step = line, step


def _rows(path: Path, delimiter: str) -> tuple[list[tuple[int, list[str]]], list[str]]:
    """(line number, fields) of every non-empty row after the header, and the header."""
    text = read_text(path, DataError)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise DataError(f"{path}: empty file (expected a header line)")
        rows = []
        for fields in reader:
            if any(f.strip() for f in fields):
                rows.append((reader.line_num, fields))
            if len(rows) > MAX_CSV_ROWS:
                raise DataError(f"{path}: more than {MAX_CSV_ROWS:,} rows")
    except csv.Error as err:
        raise DataError(f"{path}:{reader.line_num}: {err}") from None
    return rows, [h.strip() for h in header]


def _columns(path: Path, header: list[str], required: tuple[str, ...],
             optional: tuple[str, ...] | None) -> dict[str, int]:
    """Column index by name; DataError for a missing column or, when `optional` is given (a
    closed format), an unknown one."""
    index = {name: k for k, name in enumerate(header)}
    allowed = f"{', '.join(required)}" + (f"; optional {', '.join(optional)}" if optional
                                          else "")
    if optional is not None:
        for name in header:
            if name not in required and name not in optional:
                raise DataError(f"{path}:1: unknown column {name!r} (expected {allowed})")
    if len(index) != len(header):
        raise DataError(f"{path}:1: a column name appears twice")
    for name in required:
        if name not in index:
            raise DataError(f"{path}:1: no column {name!r} (expected {allowed})")
    return index


def _getter(row: list[str], index: dict[str, int]):
    def get(name: str) -> str:
        k = index.get(name)
        return row[k].strip() if k is not None and k < len(row) else ""
    return get


def _mst_recording(line: int, participant: str, maze: str, get) -> Recording:
    if not participant:
        raise _Unreadable("no subject")
    number = _integer(get("trialNo"), "trialNo")
    path = get("path")
    if not _PATH.fullmatch(path):
        raise _Unreadable(f"path {_short(path)} is not p(x,y) cells separated by ';'")
    cells = [(int(y), int(x)) for x, y in _CELL.findall(path)]
    if len(cells) - 1 > MAX_STEPS:
        raise _Unreadable(f"{len(cells) - 1:,} moves (at most {MAX_STEPS:,})")
    times = [t for t in get("times").split(";") if t.strip()]
    values = np.array([_number(t, "times") for t in times], np.float64)
    if len(values) != len(cells) - 1:
        raise _Unreadable(f"{len(values)} times for {len(cells) - 1} moves")
    return Recording(line, participant, maze, number, np.array(cells, np.int64).reshape(-1, 2),
                     np.full(len(cells), line, np.int64), values)


def _csv_recording(participant: str, maze: str, trial: str, cells: list, index: dict
                   ) -> Recording:
    if not participant:
        raise _Unreadable("no participant", cells[0][0])
    number = _integer(trial, "trial", cells[0][0])
    if len(cells) - 1 > MAX_STEPS:
        raise _Unreadable(f"{len(cells) - 1:,} moves (at most {MAX_STEPS:,})", cells[0][0])
    steps = []
    for line, row in cells:
        get = _getter(row, index)
        step = _integer(get("step"), "step", line)
        steps.append((step, line, _integer(get("row"), "row", line, step),
                      _integer(get("col"), "col", line, step), get("t_ms"), get("vision")))
    steps.sort()
    for k, (step, line, *_rest) in enumerate(steps):
        if step != k:
            seen = next((s[1] for s in steps if s[0] == step and s[1] != line), None)
            if seen is not None:
                raise _Unreadable(f"step {step} twice (lines {seen} and {line})", line, step)
            raise _Unreadable(f"no step {k} (steps must be 0, 1, 2, ...)", line, k)
    positions = np.array([(r, c) for _, _, r, c, _, _ in steps], np.int64).reshape(-1, 2)
    lines = np.array([line for _, line, *_ in steps], np.int64)
    times = None
    if "t_ms" in index:
        if steps[0][4] not in ("", "0"):
            raise _Unreadable("t_ms on step 0 (no move leads into the start): leave it empty",
                              steps[0][1], 0)
        times = np.array([_number(t, "t_ms", line, step)
                          for step, line, _, _, t, _ in steps[1:]], np.float64)
    labels = {v for *_, v in steps}
    vision = None
    if labels - {""}:
        if len(labels) > 1:
            raise _Unreadable(f"vision changes within the trial ({', '.join(sorted(labels))})",
                              steps[0][1])
        try:
            vision = parse_vision(labels.pop(), "vision")
        except MazesimError as err:
            raise _Unreadable(str(err), steps[0][1]) from None
    return Recording(steps[0][1], participant, maze, number, positions, lines, times, vision)


def _integer(text: str, name: str, line: int | None = None, step: int | None = None) -> int:
    try:
        return int(text)
    except ValueError:
        raise _Unreadable(f"{name} {_short(text)} is not an integer", line, step) from None


def _number(text: str, name: str, line: int | None = None, step: int | None = None) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0.0 <= value < float("inf")):
        raise _Unreadable(f"{name} {_short(text)} is not a number >= 0", line, step)
    return value


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _side(source: str, line: int, text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_MAZE_SIDE:
        raise DataError(f"{source}:{line}: {text.strip()!r} (expected a size from 1 to "
                        f"{MAX_MAZE_SIDE:,})")
    return int(text)


def _check_counts(path: Path, recordings: list[Recording], unreadable: list[Problem]) -> None:
    """The input's ceilings: trials, participants, mazes."""
    trials = len(recordings) + len(unreadable)
    for what, count, limit in (
            ("trials", trials, MAX_TRIALS),
            ("participants", len({r.participant for r in recordings}), MAX_PARTICIPANTS),
            ("mazes", len({r.maze for r in recordings}), MAX_MAZES)):
        if count > limit:
            raise DataError(f"{path}: {count:,} {what} (at most {limit:,})")


def _mazes(names: Iterable[str], locate, read) -> tuple[dict[str, Maze], dict[str, str]]:
    """Each named maze read from the file `locate(name)` gives (None: a reason instead)."""
    found, missing = {}, {}
    for name in sorted(names):
        where = locate(name)
        if isinstance(where, str):
            missing[name] = where
            continue
        found[name] = read(where)
    return found, missing


def _mst_maze_file(folder: Path, name: str) -> Path | str:
    return _maze_file(folder / MST_MAZES, name, (".txt",))


def _maze_file(folder: Path, name: str, suffixes: tuple[str, ...] = MAZE_SUFFIXES
               ) -> Path | str:
    """The file of maze `name` in `folder`, or why there is none."""
    if not NAME_PATTERN.fullmatch(name):
        return (f"maze name {_short(name)} (allowed: letters, digits, '_', '.', '-', at most "
                "64)")
    for suffix in suffixes:
        if (folder / (name + suffix)).is_file():
            return folder / (name + suffix)
    return f"no maze file {' or '.join(str(folder / (name + s)) for s in suffixes)}"
