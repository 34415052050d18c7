"""Sokoban levels (DESIGN.md section 10): XSB text, validation, size ceilings and solution checks.

XSB: ``#`` wall, ``@`` player, ``+`` player on goal, ``$`` box, ``*`` box on goal, ``.`` goal,
space, ``-`` or ``_`` floor. A file holds one or many levels separated by blank or ``;`` lines;
a ``;`` line directly after a level (or, failing that, directly before it) is its title. Solutions
are LURD strings: ``u d l r`` walk, ``U D L R`` push a box.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mazesim import _grid
from mazesim.errors import LevelError, read_text
from mazesim.maze import DELTAS, DOWN, LEFT, PASSAGE, RIGHT, UP, WALL, Cell

__all__ = [
    "Level",
    "LURD",
    "WALL_CHAR",
    "TUTORIAL_MOVE_ORDER",
    "MAX_LEVEL_CELLS",
    "MAX_BOXES",
    "MAX_LEVELS",
    "MAX_LEVEL_FILE_BYTES",
    "parse_levels",
    "read_levels",
    "read_level",
    "format_level",
    "check_size",
    "verify_solution",
]

LURD = {UP: "u", RIGHT: "r", DOWN: "d", LEFT: "l"}
"""Walk letter of each direction; the push letter is its capital."""
TUTORIAL_MOVE_ORDER = (UP, DOWN, LEFT, RIGHT)
"""Move order of the tutorial's BFS (source 001): up, down, left, right."""
MAX_LEVEL_CELLS = 1 << 15
"""Most cells (rows x columns of the text) of a level, read or solved: the compiled search
stores floor numbers as 16-bit integers (a 181 x 181 room fits), and the reader pads ragged rows
to a rectangle only below it."""
MAX_LEVELS = 10_000
"""Most levels of one text: the largest published collections hold a few thousand (reading
10,000 takes about a second)."""
MAX_LEVEL_FILE_BYTES = 4 << 20
"""Largest level file read (4 MiB, a tenth of a second per MiB): XSokoban's 90 levels are 22 kB,
a collection of thousands a megabyte or two."""
MAX_BOXES = 64
"""Most boxes of a level the solvers take: every state stores them all and the lower bound is a
matching of cubic cost in their number."""

WALL_CHAR = "#"
_PLAYER, _PLAYER_GOAL, _BOX, _BOX_GOAL, _GOAL = "@", "+", "$", "*", "."
_FLOOR = {" ", "-", "_"}
_ALLOWED = "# @ + $ * . space - _"
_LEVEL_CHARS = set("#@+$*.") | _FLOOR
_TO_SPACE = str.maketrans({ch: " " for ch in _FLOOR})
_COMMENT = ";"
_LETTER_DIR = {letter: d for d, letter in LURD.items()}
_PLAYER_MARK, _BOX_MARK, _GOAL_MARK = 1, 2, 4
_MARK_OF = {_PLAYER: _PLAYER_MARK, _PLAYER_GOAL: _PLAYER_MARK | _GOAL_MARK, _BOX: _BOX_MARK,
            _BOX_GOAL: _BOX_MARK | _GOAL_MARK, _GOAL: _GOAL_MARK}
_MARKS = np.array([_MARK_OF.get(chr(code), 0) for code in range(256)], np.uint8)
"""What each character code of a level holds: the sum of its marks above."""


@dataclass(frozen=True, eq=False)
class Level:
    """One Sokoban level as read: its rows (padded to a rectangle), boxes, goals, player and title.

    `source` names where it came from (``file`` or ``file: level N``) for messages.
    """

    rows: tuple[str, ...]
    player: Cell
    boxes: frozenset[Cell]
    goals: frozenset[Cell]
    title: str | None = None
    source: str = "<text>"

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    def is_wall(self, cell: Cell) -> bool:
        r, c = cell
        h, w = self.shape
        return not (0 <= r < h and 0 <= c < w) or self.rows[r][c] == WALL_CHAR

    def text(self) -> str:
        """The level as XSB text (floor as spaces, trailing spaces stripped)."""
        return format_level(self, self.player, self.boxes)


def parse_levels(text: str, source: str = "<text>") -> list[Level]:
    """Every level of an XSB text, validated; `source` names the file in messages.

    Examples
    --------
    >>> (level,) = parse_levels("#####\\n#@$.#\\n#####\\n")
    >>> level.player, sorted(level.boxes), sorted(level.goals)
    ((1, 1), [(1, 2)], [(1, 3)])
    """
    levels: list[Level] = []
    block: list[tuple[int, str]] = []                # (line number, row) of the level being read
    width = 0                                        # its widest row so far
    before = comment = None     # titles of the ; line just before the block, before this line
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(_COMMENT):
            row = line.rstrip()
            if not _LEVEL_CHARS.issuperset(row):
                col, ch = next((col, ch) for col, ch in enumerate(row, start=1)
                               if ch not in _LEVEL_CHARS)
                raise LevelError(f"{source}:{lineno}:{col}: unknown character {ch!r} "
                                 f"(allowed: {_ALLOWED})")
            if not block:
                before, width = comment, 0
            block.append((lineno, row))
            width = max(width, len(row))
            if len(block) * width > MAX_LEVEL_CELLS:         # refused before it is padded
                raise LevelError(f"{source}: level {len(levels) + 1} (line {block[0][0]}): "
                                 f"{len(block)}x{width} = {len(block) * width} cells by line "
                                 f"{lineno}, too large (at most {MAX_LEVEL_CELLS} cells)")
            comment = None
            continue
        note = (stripped[1:].strip() or None) if stripped else None      # a ; line's title
        if block:                                    # a ; line directly after is the title
            _add(levels, block, note or before, source)
            block, note = [], None                   # (then it is no title of the next)
        comment = note
    if block:
        _add(levels, block, before, source)
    if not levels:
        raise LevelError(f"{source}: no level found")
    return levels


def read_levels(path: str | Path) -> list[Level]:
    """Read an XSB level file (one or many levels, at most `MAX_LEVEL_FILE_BYTES`); errors name
    the file, line and column."""
    return parse_levels(read_text(path, LevelError, MAX_LEVEL_FILE_BYTES), str(path))


def read_level(path: str | Path, number: int = 1) -> Level:
    """Level `number` (1-based) of an XSB file."""
    levels = read_levels(path)
    if not 1 <= number <= len(levels):
        raise LevelError(f"{path}: no level {number} (the file has {len(levels)}: 1 to "
                         f"{len(levels)})")
    return levels[number - 1]


def _add(levels: list[Level], block: list[tuple[int, str]], title: str | None,
         source: str) -> None:
    """Append the level of `block` to `levels`, at most `MAX_LEVELS` of them."""
    number = len(levels) + 1
    if number > MAX_LEVELS:
        raise LevelError(f"{source}:{block[0][0]}: more than {MAX_LEVELS:,} levels (at most "
                         f"{MAX_LEVELS:,} in one text)")
    levels.append(_build(block, title, source, number))


def _build(block: list[tuple[int, str]], title: str | None, source: str, number: int) -> Level:
    where = f"{source}: level {number} (line {block[0][0]})"
    width = max(len(row) for _, row in block)
    rows = tuple(row.ljust(width) for _, row in block)
    text = np.frombuffer("".join(rows).encode("ascii"), np.uint8).reshape(len(rows), width)
    marks = _MARKS[text]
    players = np.argwhere(marks & _PLAYER_MARK).tolist()
    boxes = frozenset(map(tuple, np.argwhere(marks & _BOX_MARK).tolist()))
    goals = frozenset(map(tuple, np.argwhere(marks & _GOAL_MARK).tolist()))
    if not players:
        raise LevelError(f"{where}: no player (@ or +)")
    if len(players) > 1:
        (r0, c0), (r, c) = players[:2]
        raise LevelError(f"{source}:{block[r][0]}:{c + 1}: second player in level {number} "
                         f"(first at line {block[r0][0]}, column {c0 + 1})")
    if not boxes:
        raise LevelError(f"{where}: no boxes")
    if len(boxes) != len(goals):
        raise LevelError(f"{where}: {len(boxes)} boxes but {len(goals)} goals")
    player = tuple(players[0])
    _check_closed(block, text, player, source, number)
    rows = tuple(row.translate(_TO_SPACE) for row in rows)
    return Level(rows, player, boxes, goals, title, f"{source}: level {number}")


def _check_closed(block: list[tuple[int, str]], text: np.ndarray, player: Cell, source: str,
                  number: int) -> None:
    """Raise unless the player's region (boxes ignored) stays inside the rows of the level (its
    character codes `text`, ragged rows padded)."""
    h, w = text.shape
    grid = np.full((h + 2, w + 2), PASSAGE, np.uint8)  # outside the text: passage, one cell wide
    grid[1:-1, 1:-1][text == ord(WALL_CHAR)] = WALL
    inside = np.zeros_like(grid, dtype=bool)
    lengths = np.array([len(row) for _, row in block])
    inside[1:-1, 1:-1] = np.arange(w) < lengths[:, None]
    dist, parent = _grid.distances(grid, player[0] + 1, player[1] + 1)
    leaks = np.argwhere((dist >= 0) & ~inside)
    if len(leaks) == 0:
        return
    r, c = min(leaks.tolist(), key=lambda cell: dist[cell[0], cell[1]])
    d = parent[r, c]
    r, c = r - DELTAS[d, 0] - 1, c - DELTAS[d, 1] - 1       # the last cell inside the text
    raise LevelError(f"{source}:{block[r][0]}:{c + 1}: level {number} is not closed: the "
                     "player's region reaches the edge of the level here")


def format_level(level: Level, player: Cell, boxes: frozenset[Cell] | set[Cell]) -> str:
    """XSB text of `level` with the player and boxes at the given cells."""
    lines = []
    for r, row in enumerate(level.rows):
        chars = []
        for c, ch in enumerate(row):
            if ch == WALL_CHAR:
                chars.append(ch)
                continue
            goal = (r, c) in level.goals
            if (r, c) in boxes:
                chars.append(_BOX_GOAL if goal else _BOX)
            elif (r, c) == player:
                chars.append(_PLAYER_GOAL if goal else _PLAYER)
            else:
                chars.append(_GOAL if goal else " ")
        lines.append("".join(chars).rstrip())
    return "\n".join(lines) + "\n"


def check_size(level: Level) -> None:
    """Raise `LevelError` when `level` is above the solvers' ceilings (`MAX_LEVEL_CELLS`,
    `MAX_BOXES`); checked before any work (the reader refuses levels of more cells already)."""
    h, w = level.shape
    if h * w > MAX_LEVEL_CELLS:
        raise LevelError(f"{level.source}: {h}x{w} = {h * w} cells is too large to solve "
                         f"(at most {MAX_LEVEL_CELLS} cells)")
    if len(level.boxes) > MAX_BOXES:
        raise LevelError(f"{level.source}: {len(level.boxes)} boxes are too many to solve "
                         f"(at most {MAX_BOXES})")


def verify_solution(level: Level, solution: str) -> bool:
    """Play a LURD `solution`; True if it ends with every box on a goal, False if not solved.

    Raises `LevelError` naming the move at the first illegal step: a walk or push into a wall or a
    second box, a lower-case letter that would push or a capital that pushes nothing, or an unknown
    letter.

    Examples
    --------
    >>> (level,) = parse_levels("######\\n#@$ .#\\n######\\n")
    >>> verify_solution(level, "RR"), verify_solution(level, "R")
    (True, False)
    """
    player, boxes = level.player, set(level.boxes)
    for i, letter in enumerate(solution, start=1):
        d = _LETTER_DIR.get(letter.lower())
        if d is None:
            raise LevelError(f"move {i}: unknown letter {letter!r} (allowed: u d l r U D L R)")
        dr, dc = DELTAS[d]
        nxt = (player[0] + int(dr), player[1] + int(dc))
        if level.is_wall(nxt):
            raise LevelError(f"move {i} ({letter}): walks into a wall at {nxt}")
        pushes = nxt in boxes
        if pushes != letter.isupper():
            what = "pushes a box" if pushes else "pushes nothing"
            raise LevelError(f"move {i} ({letter}): {what} at {nxt} (push letters are capitals)")
        if pushes:
            ahead = (nxt[0] + int(dr), nxt[1] + int(dc))
            if level.is_wall(ahead) or ahead in boxes:
                raise LevelError(f"move {i} ({letter}): the box at {nxt} is blocked")
            boxes.remove(nxt)
            boxes.add(ahead)
        player = nxt
    return boxes == set(level.goals)
