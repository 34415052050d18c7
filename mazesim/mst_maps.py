"""Maze Search Task maps (Kryven et al. 2024): line 1 the width, line 2 the height, then rows of
digits: 3 wall, 0 floor not yet seen, 6 floor seen from the start, 5 start, 2 exit; cells beyond
a short row are outside the map, read as walls. A message never quotes a line of a file that is
not such a map (a maze path may be a link to any file)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from mazesim.errors import DataError, MazeFormatError, read_text
from mazesim.maze import PASSAGE, SEEN_AT_START, WALL, Maze, parse_maze, read_maze

__all__ = ["MST_WALL", "MST_FLOOR", "MST_SEEN", "MST_START", "MST_EXIT", "MAX_MAZE_SIDE",
           "SIDE_DIGITS", "read_mst_maze", "read_any_maze", "parse_mst_maze", "mst_cells"]

MST_WALL, MST_FLOOR, MST_SEEN, MST_START, MST_EXIT = "3", "0", "6", "5", "2"
_CODES = frozenset(MST_WALL + MST_FLOOR + MST_SEEN + MST_START + MST_EXIT)
MAX_MAZE_SIDE = 5_000
"""Largest width or height of a Maze Search Task map."""
SIDE_DIGITS = len(str(MAX_MAZE_SIDE))
_DIGITS = re.compile(r"[0-9]+")
_HEADER_BYTES = 64
"""Bytes of a map read for its declared width and height (`mst_cells`)."""


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
        text = read_text(path, MazeFormatError).removeprefix("\ufeff")
        if _DIGITS.fullmatch(text.split("\n", 1)[0].strip()):
            return parse_mst_maze(text, str(path), path.stem)
        maze = parse_maze(text, str(path))
    if maze.meta.get("name"):
        return maze
    return Maze(maze.grid, maze.start, maze.goal, maze.marks, {**maze.meta, "name": path.stem})


def parse_mst_maze(text: str, source: str = "<mst>", name: str = "") -> Maze:
    """Parse a Maze Search Task map (see the module docstring); errors name `source:line:col`."""
    lines = text.removeprefix("\ufeff").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2:
        raise DataError(f"{source}: expected the width and the height on lines 1 and 2")
    width, height = (_side(source, k + 1, lines[k]) for k in range(2))
    rows = lines[2:]
    if len(rows) > height:
        raise DataError(f"{source}:{height + 3}: more than the {height} rows the header gives")
    codes = np.full((height, width), ord(MST_WALL), np.uint8)
    for r, row in enumerate(rows):
        row = row.rstrip("\r")
        if len(row) > width:
            raise DataError(f"{source}:{r + 3}:{width + 1}: row longer than the width {width}")
        if not _CODES.issuperset(row):
            c, ch = next((c, ch) for c, ch in enumerate(row) if ch not in _CODES)
            raise DataError(f"{source}:{r + 3}:{c + 1}: unknown code {ch!r} (allowed: "
                            "3 wall, 0 floor, 6 floor seen, 5 start, 2 exit)")
        codes[r, :len(row)] = np.frombuffer(row.encode("ascii"), np.uint8)
    cells = {}
    for code, what in ((MST_START, "start"), (MST_EXIT, "exit")):
        found = np.argwhere(codes == ord(code))
        if len(found) != 1:
            raise DataError(f"{source}: {len(found)} cells coded {code} ({what}); expected one")
        cells[what] = (int(found[0, 0]), int(found[0, 1]))
    grid = np.where(codes == ord(MST_WALL), WALL, PASSAGE).astype(np.uint8)
    seen = np.argwhere(codes == ord(MST_SEEN)).tolist()
    return Maze(grid, cells["start"], cells["exit"],
                meta={"name": name or Path(source).stem, SEEN_AT_START: seen})


def _side(source: str, line: int, text: str) -> int:
    what = "width" if line == 1 else "height"
    text = text.strip()
    if not (_DIGITS.fullmatch(text) and len(text) <= SIDE_DIGITS
            and 1 <= int(text) <= MAX_MAZE_SIDE):
        raise DataError(f"{source}:{line}: not a {what} from 1 to {MAX_MAZE_SIDE:,} (line 1 "
                        "the width, line 2 the height of a Maze Search Task map)")
    return int(text)


def mst_cells(path: Path) -> int:
    """Width x height as the map's first lines declare them (0 when they do not within
    `_HEADER_BYTES`: `_mazes` counts the cells read as well)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEADER_BYTES).decode("utf-8", "replace").removeprefix("\ufeff")
    except OSError:
        return 0
    sides = head.splitlines()[:2]
    if len(sides) < 2 or not all(_DIGITS.fullmatch(v.strip()) for v in sides):
        return 0
    return int(sides[0]) * int(sides[1])
