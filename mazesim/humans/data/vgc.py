"""Reader of the value-guided construal experiments (Ho et al. 2022, Nature 606): people walking
11x11 grids with obstacles from S to G in full view, one arrow key a step.

A folder holds `navtrials.json` (every key press of every navigation trial, a pandas "column"
JSON `{column: {record: value}}`) and one `*config.json` (the experiment's timelines: each
`GridNavigation` trial names its grid, `navgridname`, and gives it as rows of characters,
`taskparams.feature_array`), each also accepted zipped (`NAME.zip` holding one file). The
conventions, measured on experiment 1 and checked by the reader on every trial:

- positions are `trans_state`, `[x, y]` in the frame of `feature_array`: x is the column, y
  counts rows from the bottom; `action` (`^ > v <`) is in the same frame;
- `feature_array`: `.` floor, `#` wall, each digit one obstacle (impassable, probed by its
  digit in the awareness trials), `S` start, `G` goal. Walls and obstacles become mazesim walls;
  each obstacle's cells are kept in the maze's `meta["obstacles"]` by its digit, and the name's
  last part (`base`, `hflip`, `vflip`, `rot180`, ...: the transformation of the base grid that
  `feature_array` already has) in `meta["transformation"]`;
- a key press whose move leads into a wall, an obstacle or off the grid is a **bump**: the
  position does not change. Bumps are never moves: a recording keeps them apart
  (`Recording.bumps`: the move they came before, the direction, the milliseconds);
- a trial is a session's `round`, its key presses ordered by `trialnum` (0, 1, ...); each
  press's `state` must be where the presses before it led (else the trial is a problem);
- a session (`sessionId`) is a participant; `rt` is the milliseconds before each key press.

A problem's `line` is the record's key in `navtrials` (its pandas index).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from mazesim.agents.vision import parse_vision
from mazesim.errors import DataError, MazeFormatError, file_problem
from mazesim.humans.data.fields import Unreadable, quoted
from mazesim.humans.data.sources import (MAX_CSV_ROWS, MAX_STEPS, Problem, Recording, Source,
                                    check_counts)
from mazesim.limits import MAX_FILE_BYTES
from mazesim.maze import DOWN, LEFT, RIGHT, UP, Maze

__all__ = ["NAVTRIALS", "CONFIG_SUFFIX", "COLUMNS", "ACTIONS", "STEP_LEVEL", "read_vgc",
           "load_json", "located", "parse_grid"]

NAVTRIALS = "navtrials.json"
CONFIG_SUFFIX = "config.json"
COLUMNS = ("sessionId", "round", "gridname", "trialnum", "trans_state", "action", "rt")
ACTIONS = {"^": UP, ">": RIGHT, "v": DOWN, "<": LEFT}
STEP_LEVEL = "step"
"""The decision level of a run in full view (`humans.data.run`): every move."""
MAX_JSON_BYTES = 16 * MAX_FILE_BYTES
"""Largest JSON file read, zipped or not (experiment 1's key presses are 13 MB)."""
_FLOOR, _START, _GOAL, _WALL = ".", "S", "G", "#"


def read_vgc(folder: str | Path) -> Source:
    """Read a value-guided construal folder (`navtrials.json`, `*config.json`, either zipped);
    vision full, decision level `step`. Problems of one trial (a bad value, a key press not where
    the presses before it led, a grid the config lacks) are kept; a missing file or column, or
    a ceiling passed, raises DataError."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder (expected {NAVTRIALS} and *{CONFIG_SUFFIX})")
    config_path = _one_config(folder)
    grids = _grids(load_json(config_path), config_path)
    path = located(folder, NAVTRIALS)
    table = _columns(load_json(path), path)
    recordings, unreadable = [], []
    for keys in _trials(table):
        get = _row_getter(table)
        try:
            recordings.append(_recording(keys, get, grids))
        except Unreadable as err:
            unreadable.append(Problem(err.line if err.line is not None else keys[0],
                                      str(get(keys[0], "sessionId")),
                                      str(get(keys[0], "gridname")), err.step, str(err)))
    check_counts(path, recordings, unreadable)
    mazes = {name: grids[name] for name in sorted({r.maze for r in recordings})}
    return Source("vgc", str(path), tuple(recordings), tuple(unreadable), mazes, {},
                  parse_vision("full"), STEP_LEVEL)


def parse_grid(name: str, rows: Any) -> Maze:
    """The maze of a `feature_array` (rows of characters, see the module's docstring);
    MazeFormatError naming the grid for anything else."""
    if (not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows)
            or len({len(r) for r in rows}) != 1 or not rows[0]):
        raise MazeFormatError(f"grid {name}: feature_array is not rows of characters of one "
                              "length")
    if len(rows) * len(rows[0]) > 10_000:
        raise MazeFormatError(f"grid {name}: {len(rows)}x{len(rows[0])} (at most 10,000 cells)")
    chars = np.array([list(r) for r in rows])
    known = np.isin(chars, [_FLOOR, _START, _GOAL, _WALL]) | np.char.isdigit(chars)
    if not known.all():
        r, c = np.argwhere(~known)[0]
        raise MazeFormatError(f"grid {name}: {chars[r, c]!r} at ({r}, {c}) (allowed: . # S G "
                              "and digits)")
    ends = []
    for mark in (_START, _GOAL):
        cells = np.argwhere(chars == mark)
        if len(cells) != 1:
            raise MazeFormatError(f"grid {name}: {len(cells)} cells {mark} (exactly one)")
        ends.append(tuple(int(v) for v in cells[0]))
    obstacles = {d: np.argwhere(chars == d).tolist() for d in sorted(set(chars[
        np.char.isdigit(chars)].tolist()))}
    base, _, transformation = name.rpartition("-")
    grid = ~np.isin(chars, [_FLOOR, _START, _GOAL])
    return Maze(grid.astype(np.uint8), ends[0], ends[1], {}, {
        "obstacles": obstacles, "base_grid": base, "transformation": transformation})


def _one_config(folder: Path) -> Path:
    names = sorted({p.name.removesuffix(".zip") for p in folder.iterdir()
                    if p.name.removesuffix(".zip").endswith(CONFIG_SUFFIX)})
    if len(names) != 1:
        raise DataError(f"{folder}: {len(names)} files *{CONFIG_SUFFIX}[.zip] (exactly one: "
                        f"the experiment's timelines){': ' + ', '.join(names) if names else ''}")
    return located(folder, names[0])


def located(folder: Path, name: str) -> Path:
    """`folder/name`, or its zip `folder/name.zip`."""
    for path in (folder / name, folder / (name + ".zip")):
        if path.exists():
            return path
    raise DataError(f"{folder}: no {name} (or {name}.zip)")


def load_json(path: Path) -> Any:
    """The JSON of `path` (a zip: of its one member), at most `MAX_JSON_BYTES`."""
    problem = file_problem(path, MAX_JSON_BYTES)
    if problem is not None:
        raise DataError(f"{path}: {problem}")
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                members = [m for m in archive.infolist() if not m.is_dir()]
                if len(members) != 1:
                    raise DataError(f"{path}: {len(members)} files in the zip (exactly one)")
                if members[0].file_size > MAX_JSON_BYTES:
                    raise DataError(f"{path}: {members[0].filename} has "
                                    f"{members[0].file_size:,} bytes (at most "
                                    f"{MAX_JSON_BYTES:,})")
                with archive.open(members[0]) as handle:
                    data = handle.read(MAX_JSON_BYTES + 1)
        else:
            data = path.read_bytes()
        return json.load(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as err:
        raise DataError(f"{path}: cannot read ({err})") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise DataError(f"{path}: not JSON ({str(err)[:80]})") from None


def _grids(config: Any, path: Path) -> dict[str, Maze | str]:
    """Each navigation grid of the timelines by name: its maze, or why it is none."""
    timelines = config.get("timelines") if isinstance(config, dict) else None
    if not isinstance(timelines, list):
        raise DataError(f"{path}: no 'timelines' list")
    found: dict[str, Any] = {}
    for timeline in timelines:
        for trial in timeline if isinstance(timeline, list) else ():
            if not isinstance(trial, dict) or trial.get("type") != "GridNavigation":
                continue
            name = trial.get("navgridname")
            rows = (trial.get("taskparams") or {}).get("feature_array")
            if not isinstance(name, str) or not name:
                continue                            # the practice rounds have no grid name
            if name in found and found[name] != rows:
                raise DataError(f"{path}: grid {quoted(name)} given twice, differently")
            found[name] = rows
    grids: dict[str, Maze | str] = {}
    for name, rows in found.items():
        try:
            grids[name] = parse_grid(name, rows)
        except MazeFormatError as err:
            grids[name] = str(err)
    return grids


def _columns(table: Any, path: Path) -> dict[str, dict[str, Any]]:
    if not isinstance(table, dict):
        raise DataError(f"{path}: not a column JSON ({{column: {{record: value}}}})")
    missing = [c for c in COLUMNS if not isinstance(table.get(c), dict)]
    if missing:
        raise DataError(f"{path}: no column {missing[0]!r} (required: {', '.join(COLUMNS)})")
    keys = table[COLUMNS[0]].keys()
    if len(keys) > MAX_CSV_ROWS:
        raise DataError(f"{path}: {len(keys):,} records (at most {MAX_CSV_ROWS:,})")
    for column in COLUMNS[1:]:
        if table[column].keys() != keys:
            raise DataError(f"{path}: column {column!r} has other records than "
                            f"{COLUMNS[0]!r}")
    if not all(k.isascii() and k.isdigit() and len(k) < 16 for k in keys):
        bad = next(k for k in keys if not (k.isascii() and k.isdigit() and len(k) < 16))
        raise DataError(f"{path}: record key {quoted(bad)} is not a number")
    return table


def _trials(table: dict[str, dict[str, Any]]) -> list[list[int]]:
    """The record keys of each trial (session, round), in order of first record."""
    groups: dict[tuple[str, str], list[int]] = {}
    for key in sorted(table["sessionId"], key=int):
        trial = (json.dumps(table["sessionId"][key]), json.dumps(table["round"][key]))
        groups.setdefault(trial, []).append(int(key))
    return list(groups.values())


def _row_getter(table: dict[str, dict[str, Any]]):
    def get(key: int, column: str) -> Any:
        return table[column][str(key)]
    return get


def _recording(keys: list[int], get, grids: dict[str, Maze | str]) -> Recording:
    """One trial from its records: the moves (bumps apart), checked against its grid."""
    first = keys[0]
    who, name, number = get(first, "sessionId"), get(first, "gridname"), get(first, "round")
    if not isinstance(who, str) or not who:
        raise Unreadable(f"sessionId {quoted(str(who))} is not a name", first)
    if not isinstance(number, int) or isinstance(number, bool):
        raise Unreadable(f"round {quoted(str(number))} is not an integer", first)
    if len(keys) > MAX_STEPS:
        raise Unreadable(f"{len(keys):,} key presses (at most {MAX_STEPS:,})", first)
    order = sorted(keys, key=lambda k: _integer(get(k, "trialnum"), "trialnum", k))
    wrong = next((s for s, k in enumerate(order) if get(k, "trialnum") != s), None)
    if wrong is not None:
        raise Unreadable(f"no trialnum {wrong} (trialnum must be 0, 1, 2, ...)", order[wrong])
    other = next((k for k in order if get(k, "gridname") != name), None)
    if other is not None:
        raise Unreadable(f"gridname {quoted(str(get(other, 'gridname')))} within a trial of "
                         f"{quoted(str(name))}", other)
    maze = grids.get(name) if isinstance(name, str) else None
    if not isinstance(maze, Maze):
        raise Unreadable(maze if isinstance(maze, str) else
                         f"grid {quoted(str(name))}: no GridNavigation trial of that name in "
                         "the config", first)
    cells, lines, times, bumps = [_cell(get(order[0], "trans_state"), maze, order[0], 0)], \
        [order[0]], [], []
    for k in order:
        at = _cell(get(k, "trans_state"), maze, k, len(times))
        if at != cells[-1]:
            raise Unreadable(f"trans_state {get(k, 'trans_state')} is not {cells[-1]}, where "
                             "the key presses before it led", k, len(times))
        d = ACTIONS.get(get(k, "action"))
        if d is None:
            raise Unreadable(f"action {quoted(str(get(k, 'action')))} (allowed: ^ > v <)", k,
                             len(times))
        rt = get(k, "rt")
        if isinstance(rt, bool) or not isinstance(rt, (int, float)) or not 0 <= rt < 1e12:
            raise Unreadable(f"rt {quoted(str(rt))} is not a number of milliseconds", k,
                             len(times))
        to = (at[0] + (-1, 0, 1, 0)[d], at[1] + (0, 1, 0, -1)[d])
        if maze.is_passage(to):
            cells.append(to)
            lines.append(k)
            times.append(float(rt))
        else:
            bumps.append((len(times), d, float(rt)))
    return Recording(first, who, name, number, np.array(cells, np.int64), np.array(lines,
                     np.int64), np.array(times, np.float64), None, tuple(bumps))


def _integer(value: Any, column: str, key: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Unreadable(f"{column} {quoted(str(value))} is not an integer", key)
    return value


def _cell(value: Any, maze: Maze, key: int, step: int) -> tuple[int, int]:
    """(row, col) of an `[x, y]` with y counted from the bottom row; Unreadable off the grid."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise Unreadable(f"trans_state {quoted(str(value))} is not [x, y]", key, step)
    cell = (maze.shape[0] - 1 - value[1], value[0])
    if not maze.in_bounds(cell):
        raise Unreadable(f"trans_state {value} is off the {maze.shape[0]}x{maze.shape[1]} "
                         "grid", key, step)
    return cell
