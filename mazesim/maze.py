"""The maze model (DESIGN.md section 2): grid, start, goal, named marks; text and JSON I/O."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from mazesim.errors import (MazeFormatError, load_json, nesting, read_bytes, read_text, short,
                            utf8_text)
from mazesim.limits import MAX_MAZE_CELLS, MAX_NESTING

__all__ = [
    "Cell",
    "Size",
    "WALL",
    "PASSAGE",
    "WALL_CHAR",
    "PASSAGE_CHAR",
    "UP",
    "RIGHT",
    "DOWN",
    "LEFT",
    "DIRECTIONS",
    "DELTAS",
    "FORMAT_VERSION",
    "Maze",
    "parse_size",
    "parse_maze",
    "read_maze",
    "format_maze",
    "write_maze",
    "maze_to_json",
    "maze_from_json",
    "readonly",
    "check_cells",
    "SEEN_AT_START",
]

Cell = tuple[int, int]
Size = tuple[int, int]

WALL = 1
PASSAGE = 0
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
DIRECTIONS = ("up", "right", "down", "left")
DELTAS = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], dtype=np.int64)
DELTAS.flags.writeable = False

FORMAT_VERSION = 1
WALL_CHAR, PASSAGE_CHAR = "#", "."
"""The characters of a wall and a passage in the text format (a passage also reads from ' ')."""
_PASSAGE_READ = (".", " ")
SEEN_AT_START = "seen_at_start"
"""`Maze.meta` key: the distinct [row, col] passages shown before the first step (the Maze
Search Task lights corridors that no line of sight from S reaches, so they travel with the
maze); checked when a maze is made (`Maze`), at most one per cell of the grid."""
_SIZE_HELP = "use 31, '31x31' or [31, 31]"
_DIMENSION = re.compile(r"[0-9]{1,18}")       # ASCII digits only ('²'.isdigit() is True)


def readonly(array: np.ndarray) -> np.ndarray:
    """Mark `array` read-only and return it (results handed to users are not views to mutate)."""
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Maze:
    """A grid maze: `grid` uint8 (H, W) with 1 = wall and 0 = passage, `start`, `goal` and marks.

    `meta` carries provenance (generator, size, seed, options); it is written to JSON and ignored
    by the text format.
    """

    grid: np.ndarray
    start: Cell
    goal: Cell
    marks: Mapping[str, Cell] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        shape = np.shape(self.grid)
        if len(shape) != 2 or 0 in shape:
            raise MazeFormatError(f"grid must be a non-empty 2-D array, got shape {shape}")
        check_cells(shape, "grid")
        grid = np.array(self.grid, dtype=np.uint8)
        if grid.max() > WALL:
            raise MazeFormatError("grid values must be 0 (passage) or 1 (wall)")
        grid.flags.writeable = False
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "start", self._check_cell(self.start, "start"))
        object.__setattr__(self, "goal", self._check_cell(self.goal, "goal"))
        marks = {str(k): self._check_cell(v, f"mark {k}") for k, v in self.marks.items()}
        taken = {self.start: "S", self.goal: "G"}
        for name, cell in marks.items():
            if len(name) != 1 or not "A" <= name <= "Z" or name in "SG":
                raise MazeFormatError(
                    f"mark {name!r}: names are single capitals other than S and G")
            if cell in taken:
                raise MazeFormatError(f"mark {name}: {cell} already holds {taken[cell]}")
            taken[cell] = name
        object.__setattr__(self, "marks", MappingProxyType(marks))
        meta = dict(self.meta)
        if SEEN_AT_START in meta:
            meta[SEEN_AT_START] = self._seen_cells(meta[SEEN_AT_START], meta.get("name"))
        object.__setattr__(self, "meta", MappingProxyType(meta))

    def __reduce__(self):
        """Pickle as plain values (for worker processes); the mapping proxies do not pickle."""
        return (Maze, (self.grid, self.start, self.goal, dict(self.marks), dict(self.meta)))

    @property
    def shape(self) -> Size:
        """Grid size (rows, columns)."""
        return self.grid.shape  # type: ignore[return-value]

    def in_bounds(self, cell: Cell) -> bool:
        r, c = cell
        return 0 <= r < self.grid.shape[0] and 0 <= c < self.grid.shape[1]

    def is_passage(self, cell: Cell) -> bool:
        return self.in_bounds(cell) and self.grid[cell] == PASSAGE

    def passage_cell(self, cell: Any, name: str = "cell") -> Cell:
        """Validate that `cell` is a (row, col) passage of this maze and return it as ints."""
        return self._check_cell(cell, name)

    def open_directions(self, cell: Cell) -> list[int]:
        """Directions (UP, RIGHT, DOWN, LEFT order) whose neighbour of `cell` is a passage."""
        r, c = cell
        return [d for d in range(4) if self.is_passage((r + DELTAS[d, 0], c + DELTAS[d, 1]))]

    def _seen_cells(self, cells: Any, maze: Any) -> list[list[int]]:
        """`meta[SEEN_AT_START]` as [row, col] lists: a list of distinct passages, each a pair
        of integers (not booleans, floats or text); MazeFormatError naming the maze (its meta
        name, if any) and the first bad cell."""
        name = _seen_name(maze)
        if not isinstance(cells, (list, tuple)):
            raise MazeFormatError(f"{name}: {short(cells)} (allowed: a list of [row, col] "
                                  "passages)")
        _check_seen_count(len(cells), self.shape, name)
        out, taken = [], set()
        for k, cell in enumerate(cells):
            if not (isinstance(cell, (list, tuple)) and len(cell) == 2 and all(
                    isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                    for v in cell)):
                raise MazeFormatError(f"{name}[{k}]: {short(cell)} (allowed: a [row, col] "
                                      "pair of integers)")
            r, c = self._check_cell(cell, f"{name}[{k}]")
            if (r, c) in taken:
                raise MazeFormatError(f"{name}[{k}]: {(r, c)} is listed twice")
            taken.add((r, c))
            out.append([r, c])
        return out

    def _check_cell(self, cell: Any, name: str) -> Cell:
        try:
            r, c = cell
            r, c = int(r), int(c)
        except (TypeError, ValueError):
            raise MazeFormatError(f"{name}: {cell!r} is not a (row, col) pair") from None
        h, w = self.grid.shape
        if not (0 <= r < h and 0 <= c < w):
            raise MazeFormatError(f"{name}: {(r, c)} is outside the {h}x{w} grid")
        if self.grid[r, c] != PASSAGE:
            raise MazeFormatError(f"{name}: {(r, c)} is a wall")
        return (r, c)


def _seen_name(maze: Any) -> str:
    """How messages name `meta[SEEN_AT_START]` of the maze whose meta name is `maze`."""
    return f"{f'maze {short(maze)}: ' if maze else ''}meta {SEEN_AT_START}"


def _check_seen_count(count: int, shape: Size, name: str) -> None:
    """Raise MazeFormatError naming `name` when `count` cells shown at the start are more than
    the cells of a grid of `shape`."""
    h, w = shape
    if count > h * w:
        raise MazeFormatError(f"{name}: {count:,} cells (allowed: at most the {h * w:,} cells "
                              f"of the {h}x{w} grid)")


def check_cells(shape: tuple[int, int], name: str = "size") -> None:
    """Raise MazeFormatError unless a grid of `shape` has at most `limits.MAX_MAZE_CELLS`."""
    h, w = shape
    if h * w > MAX_MAZE_CELLS:
        given = (f"{h:,}x{w:,} is {h * w:,} cells" if max(h, w) < 10**12
                 else "more than 10^12 cells")
        raise MazeFormatError(f"{name}: {given} (allowed: at most {MAX_MAZE_CELLS:,}, e.g. "
                              "5,001x5,001)")


def parse_size(size: Any, name: str = "size") -> Size:
    """Read a grid size given as 31, "31", "31x31", (31, 31) or [31, 31] into (rows, columns);
    sides >= 1 and at most `limits.MAX_MAZE_CELLS` cells, else MazeFormatError."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        dims = [int(size), int(size)]
    elif isinstance(size, str):
        parts = size.lower().replace(" ", "").split("x")
        if len(parts) not in (1, 2) or not all(_DIMENSION.fullmatch(p) for p in parts):
            raise MazeFormatError(f"{name}: {short(size)} is not a size ({_SIZE_HELP})")
        dims = [int(p) for p in parts] * (2 if len(parts) == 1 else 1)
    elif isinstance(size, (tuple, list)) and len(size) == 2 and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size
    ):
        dims = [int(v) for v in size]
    else:
        raise MazeFormatError(f"{name}: {short(size)} is not a size ({_SIZE_HELP})")
    if min(dims) < 1:
        raise MazeFormatError(f"{name}: {short(size)} must be positive")
    check_cells((dims[0], dims[1]), name)
    return dims[0], dims[1]


def parse_maze(text: str, source: str = "<text>") -> Maze:
    """Parse the text format (DESIGN.md section 2); errors name `source:line:col`.

    The first fault in reading order is reported (a ragged row before the characters after
    it); the characters are read as one array, so a maze of `limits.MAX_MAZE_CELLS` takes a
    second, not a Python loop over every cell.
    """
    lines = text.splitlines()
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    rows = lines[first:last]
    if not rows:
        raise MazeFormatError(f"{source}: no maze rows")
    width = len(rows[0])
    even = next((i for i, row in enumerate(rows) if len(row) != width), len(rows))
    check_cells((even, width), source)
    chars = _characters(rows[:even], width)
    wall = chars == ord(WALL_CHAR)
    letter = (chars >= ord("A")) & (chars <= ord("Z"))
    unknown = ~(wall | letter | np.isin(chars, [ord(c) for c in _PASSAGE_READ]))
    fault = _first_fault(chars, unknown, letter, first + 1)
    if fault is not None:
        raise MazeFormatError(f"{source}:{fault}")
    if even < len(rows):
        row = rows[even]
        raise MazeFormatError(
            f"{source}:{first + even + 1}:{min(len(row), width) + 1}: row has {len(row)} "
            f"characters, expected {width} like line {first + 1}")
    found = {chr(chars[r, c]): (int(r), int(c)) for r, c in np.argwhere(letter)}
    for key, what in (("S", "start"), ("G", "goal")):
        if key not in found:
            raise MazeFormatError(f"{source}: no '{key}' ({what}) in the maze")
    start, goal = found.pop("S"), found.pop("G")
    return Maze(wall.astype(np.uint8), start, goal, dict(sorted(found.items())))


def _characters(rows: list[str], width: int) -> np.ndarray:
    """The code points of equally long rows as an (n, width) array."""
    joined = "".join(rows)
    if joined.isascii():
        codes = np.frombuffer(joined.encode("ascii"), np.uint8)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    return codes.reshape(len(rows), width)


def _first_fault(chars: np.ndarray, unknown: np.ndarray, letter: np.ndarray, line: int
                 ) -> str | None:
    """`line:col: message` of the first unknown character or repeated letter in reading order
    (row 0 is line `line`), or None."""
    width = chars.shape[1]
    faults: list[tuple[int, str]] = []
    if unknown.any():
        at = int(np.argmax(unknown.ravel()))
        faults.append((at, f"unknown character {chr(chars.flat[at])!r} (allowed: # . space S "
                           "G A-Z)"))
    places = np.flatnonzero(letter.ravel())
    codes = chars.ravel()[places]
    again = np.ones(len(places), bool)
    again[np.unique(codes, return_index=True)[1]] = False
    if again.any():
        at = int(places[again][0])
        r0, c0 = divmod(int(places[np.argmax(codes == chars.flat[at])]), width)
        faults.append((at, f"duplicate '{chr(chars.flat[at])}' (first at line {line + r0}, "
                           f"column {c0 + 1})"))
    if not faults:
        return None
    at, message = min(faults)
    return f"{line + at // width}:{at % width + 1}: {message}"


def format_maze(maze: Maze, overlay: Mapping[Cell, str] | None = None) -> str:
    """The text format of `maze`, one line per row ending in a newline.

    `overlay` maps cells to characters drawn over passages (e.g. the tutorial's `*` path); S, G and
    marks stay on top.
    """
    chars = np.where(maze.grid == WALL, WALL_CHAR, PASSAGE_CHAR).astype("<U1")
    for cell, ch in (overlay or {}).items():
        chars[cell] = ch
    for name, cell in maze.marks.items():
        chars[cell] = name
    chars[maze.start] = "S"
    chars[maze.goal] = "G"
    return "".join("".join(row) + "\n" for row in chars)


def maze_to_json(maze: Maze) -> dict[str, Any]:
    """A JSON-ready dict: the text rows plus metadata."""
    return {
        "format": "mazesim",
        "version": FORMAT_VERSION,
        "rows": format_maze(maze).splitlines(),
        "meta": dict(maze.meta),
    }


def maze_from_json(data: Any, source: str = "<json>") -> Maze:
    """Inverse of :func:`maze_to_json`; `meta` may nest at most `limits.MAX_NESTING` levels."""
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise MazeFormatError(f"{source}: JSON maze needs a 'rows' list of strings")
    if not all(isinstance(r, str) for r in data["rows"]):
        raise MazeFormatError(f"{source}: 'rows' must hold strings")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise MazeFormatError(f"{source}: 'meta' must be an object")
    maze = parse_maze("\n".join(data["rows"]), source)
    try:                    # before the nesting walk: the cells shown at the start are bounded
        maze = Maze(maze.grid, maze.start, maze.goal, maze.marks, meta)
    except MazeFormatError as err:
        raise MazeFormatError(f"{source}: {err}") from None
    if nesting(meta) > MAX_NESTING - 1:
        raise MazeFormatError(f"{source}: 'meta' nested deeper than {MAX_NESTING} levels")
    return maze


def read_maze(path: str | Path) -> Maze:
    """Read a maze file: JSON when the name ends in `.json`, the text format otherwise."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        return parse_maze(read_text(path, MazeFormatError), str(path))
    text = _json_text(read_bytes(path, MazeFormatError), str(path))
    return maze_from_json(load_json(text, str(path), MazeFormatError), str(path))


_SEEN_LIST = re.compile(rb'"%b"\s*:\s*\[' % SEEN_AT_START.encode())
_LIST_END = re.compile(rb"\]\s*\]")
_PAIRS_TEXT = re.compile(rb"[\[\]0-9,\s-]*")
_STAND_IN = "<seen_at_start>"


def _json_text(data: bytes, source: str) -> str:
    """The text of the JSON maze file `source`, whose bytes are `data`; refused before it is
    decoded and parsed when its `meta.seen_at_start` lists more cells than the rest of the file
    has bytes (every grid cell takes one): parsed, 64 MiB of duplicate [row, col] pairs took
    10-60 s and 1.4 GB (issue 33, point 17). The list is taken to end at the first '] ]' (where a
    list of integer pairs ends) and its pairs are counted as its '['; the rest is parsed with a
    stand-in in its place, to be sure the list is `meta.seen_at_start`. Anything else, a list
    that fits included, is left to the full parse."""
    found = _SEEN_LIST.search(data)
    close = _LIST_END.search(data, found.end()) if found else None
    if close:
        start, end = found.end() - 1, close.end()
        count = data.count(b"[", start + 1, end)
        if count > len(data) - (end - start) and _PAIRS_TEXT.fullmatch(data, start, end):
            _refuse_seen_count(data[:start] + f'"{_STAND_IN}"'.encode() + data[end:], count,
                               source)
    return utf8_text(data, source, MazeFormatError)


def _refuse_seen_count(rest: bytes, count: int, source: str) -> None:
    """Raise MazeFormatError naming `source` when `rest`, a JSON maze with `_STAND_IN` in the
    place of a list of `count` cells, has it as `meta.seen_at_start` and its grid has fewer
    cells; return when it is not such a maze (the full parse tells what is wrong)."""
    try:
        data = load_json(rest.decode("utf-8"), source, MazeFormatError)
    except (UnicodeDecodeError, MazeFormatError):
        return
    meta = data.get("meta") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or meta.get(SEEN_AT_START) != _STAND_IN:
        return
    others = {key: value for key, value in meta.items() if key != SEEN_AT_START}
    maze = maze_from_json({**data, "meta": others}, source)
    _check_seen_count(count, maze.shape, f"{source}: {_seen_name(meta.get('name'))}")


def write_maze(maze: Maze, path: str | Path) -> None:
    """Write `maze` as JSON when the name ends in `.json`, as text otherwise; a maze whose start
    is its goal is refused (S and G on one cell cannot be read back)."""
    path = Path(path)
    if maze.start == maze.goal:
        raise MazeFormatError(f"{path}: start and goal are both {maze.start}; the text format "
                              "needs two different cells")
    if path.suffix.lower() == ".json":
        text = json.dumps(maze_to_json(maze), indent=1) + "\n"
    else:
        text = format_maze(maze)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise MazeFormatError(f"{path}: cannot write ({err.strerror})") from None
