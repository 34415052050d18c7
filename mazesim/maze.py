"""The maze model (DESIGN.md section 2): grid, start, goal, named marks; text and JSON I/O."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from mazesim.errors import MazeFormatError, read_text

__all__ = [
    "Cell",
    "Size",
    "WALL",
    "PASSAGE",
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
_WALL_CHAR, _PASSAGE_CHAR = "#", "."
_PASSAGE_CHARS = {".", " "}


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
        grid = np.array(self.grid, dtype=np.uint8)
        if grid.ndim != 2 or grid.size == 0:
            raise MazeFormatError(f"grid must be a non-empty 2-D array, got shape {grid.shape}")
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
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))

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


def parse_size(size: Any, name: str = "size") -> Size:
    """Read a grid size given as 31, "31", "31x31", (31, 31) or [31, 31] into (rows, columns)."""
    if isinstance(size, bool):
        raise MazeFormatError(f"{name}: {size!r} is not a size (use 31, '31x31' or [31, 31])")
    if isinstance(size, (int, np.integer)):
        dims = [int(size), int(size)]
    elif isinstance(size, str):
        parts = size.lower().replace(" ", "").split("x")
        if not all(p.isdigit() for p in parts) or len(parts) not in (1, 2):
            raise MazeFormatError(f"{name}: {size!r} is not a size (use 31, '31x31' or [31, 31])")
        dims = [int(p) for p in parts] * (2 if len(parts) == 1 else 1)
    elif isinstance(size, (tuple, list)) and len(size) == 2 and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size
    ):
        dims = [int(v) for v in size]
    else:
        raise MazeFormatError(f"{name}: {size!r} is not a size (use 31, '31x31' or [31, 31])")
    if min(dims) < 1:
        raise MazeFormatError(f"{name}: {size!r} must be positive")
    return dims[0], dims[1]


def parse_maze(text: str, source: str = "<text>") -> Maze:
    """Parse the text format (DESIGN.md section 2); errors name `source:line:col`."""
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
    grid = np.zeros((len(rows), width), dtype=np.uint8)
    found: dict[str, Cell] = {}
    for i, row in enumerate(rows):
        lineno = first + i + 1
        if len(row) != width:
            raise MazeFormatError(
                f"{source}:{lineno}:{min(len(row), width) + 1}: row has {len(row)} characters, "
                f"expected {width} like line {first + 1}"
            )
        for j, ch in enumerate(row):
            if ch == _WALL_CHAR:
                grid[i, j] = WALL
            elif ch in _PASSAGE_CHARS:
                continue
            elif "A" <= ch <= "Z":
                if ch in found:
                    r0, c0 = found[ch]
                    raise MazeFormatError(
                        f"{source}:{lineno}:{j + 1}: duplicate '{ch}' "
                        f"(first at line {first + r0 + 1}, column {c0 + 1})"
                    )
                found[ch] = (i, j)
            else:
                raise MazeFormatError(f"{source}:{lineno}:{j + 1}: unknown character {ch!r} "
                                      "(allowed: # . space S G A-Z)")
    for key, what in (("S", "start"), ("G", "goal")):
        if key not in found:
            raise MazeFormatError(f"{source}: no '{key}' ({what}) in the maze")
    start, goal = found.pop("S"), found.pop("G")
    return Maze(grid, start, goal, dict(sorted(found.items())))


def format_maze(maze: Maze, overlay: Mapping[Cell, str] | None = None) -> str:
    """The text format of `maze`, one line per row ending in a newline.

    `overlay` maps cells to characters drawn over passages (e.g. the tutorial's `*` path); S, G and
    marks stay on top.
    """
    chars = np.where(maze.grid == WALL, _WALL_CHAR, _PASSAGE_CHAR).astype("<U1")
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
    """Inverse of :func:`maze_to_json`."""
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise MazeFormatError(f"{source}: JSON maze needs a 'rows' list of strings")
    if not all(isinstance(r, str) for r in data["rows"]):
        raise MazeFormatError(f"{source}: 'rows' must hold strings")
    maze = parse_maze("\n".join(data["rows"]), source)
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise MazeFormatError(f"{source}: 'meta' must be an object")
    return Maze(maze.grid, maze.start, maze.goal, maze.marks, meta)


def read_maze(path: str | Path) -> Maze:
    """Read a maze file: JSON when the name ends in `.json`, the text format otherwise."""
    path = Path(path)
    text = read_text(path, MazeFormatError)
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise MazeFormatError(f"{path}:{err.lineno}:{err.colno}: {err.msg}") from None
        return maze_from_json(data, str(path))
    return parse_maze(text, str(path))


def write_maze(maze: Maze, path: str | Path) -> None:
    """Write `maze` as JSON when the name ends in `.json`, as text otherwise."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        text = json.dumps(maze_to_json(maze), indent=1) + "\n"
    else:
        text = format_maze(maze)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise MazeFormatError(f"{path}: cannot write ({err.strerror})") from None
