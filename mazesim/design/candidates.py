"""Search-task maps to design with: the Maze Search Task's vocabulary (Kryven et al. 2024) of a
floor plan shown from the start, corridors in view and dark rooms of chosen sizes at chosen
distances behind them, one of which hides the exit.

A `Layout` is the map's description: its shape, the start, the rooms (rectangles of dark floor,
apart from each other by a wall), for each room which way its corridor bends, and the exit's
room and cell. `build` draws it: rooms first, then each room's corridor (seen floor) as an L from
the nearest floor already connected (the start, or a corridor of an earlier room) to the room's
nearest cell, rows first or columns first by its bend; a corridor may not cross another room.
`sample_layout` draws a layout from a `MapSpec` (sizes and counts as ranges); `edit` makes one
local change (move or resize a room, flip a corridor's bend so its walls move, move the exit or
the start), as a search over layouts needs. Every draw comes from the `rng` given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mazesim.agents.vision import SEEN_AT_START
from mazesim.errors import GeneratorError
from mazesim.maze import PASSAGE, WALL, Cell, Maze

__all__ = ["MapSpec", "Layout", "build", "sample_layout", "edit", "MAX_SIDE", "MAX_ROOMS",
           "EDITS"]

MAX_SIDE = 31
"""Largest side of a designed map (decision trees grow combinatorially with open floor)."""
MAX_ROOMS = 8
EDITS = ("move-room", "resize-room", "bend", "move-exit", "move-start")
_TRIES = 200
"""Draws of a layout (or an edit) before giving up: most draws that fail put rooms on each
other."""


@dataclass(frozen=True)
class MapSpec:
    """The ranges a layout is drawn from: `size` (rows, cols) of the map, `rooms` (fewest,
    most) dark rooms, `room_cells` (fewest, most) cells of a room."""

    size: tuple[int, int] = (13, 13)
    rooms: tuple[int, int] = (3, 6)
    room_cells: tuple[int, int] = (2, 12)

    def __post_init__(self) -> None:
        h, w = self.size
        if not (5 <= h <= MAX_SIDE and 5 <= w <= MAX_SIDE):
            raise GeneratorError(f"size {h}x{w} (allowed: sides from 5 to {MAX_SIDE})")
        if not 2 <= self.rooms[0] <= self.rooms[1] <= MAX_ROOMS:
            raise GeneratorError(f"rooms {self.rooms[0]}-{self.rooms[1]} (allowed: a range "
                                 f"within 2 to {MAX_ROOMS})")
        largest = (h - 2) * (w - 2) // 4
        if not 1 <= self.room_cells[0] <= self.room_cells[1] <= largest:
            raise GeneratorError(f"room_cells {self.room_cells[0]}-{self.room_cells[1]} "
                                 f"(allowed: a range within 1 to {largest} on a {h}x{w} map)")


@dataclass(frozen=True)
class Layout:
    """A search-task map (module docstring): rooms as (top, left, height, width), one bend per
    room (True: the corridor goes along rows first), the exit as (room, cell index in the
    room's cells, row-major)."""

    shape: tuple[int, int]
    start: Cell
    rooms: tuple[tuple[int, int, int, int], ...]
    bends: tuple[bool, ...]
    exit: tuple[int, int]

    def room_cells(self, k: int) -> list[Cell]:
        top, left, h, w = self.rooms[k]
        return [(top + i, left + j) for i in range(h) for j in range(w)]


def build(layout: Layout, name: str = "designed") -> Maze | None:
    """The map of `layout` (`meta`: its name and the corridors as `seen_at_start`), or None if
    the layout is not a map: a room outside the border or touching another, the start in a
    room, a corridor across another room, the exit cell outside its room."""
    h, w = layout.shape
    room_of = np.full((h, w), -1, np.int64)
    for k, (top, left, rh, rw) in enumerate(layout.rooms):
        if rh < 1 or rw < 1 or top < 1 or left < 1 or top + rh > h - 1 or left + rw > w - 1:
            return None
        if (room_of[max(top - 1, 0):top + rh + 1, max(left - 1, 0):left + rw + 1] >= 0).any():
            return None
        room_of[top:top + rh, left:left + rw] = k
    start = layout.start
    if not (0 < start[0] < h - 1 and 0 < start[1] < w - 1) or room_of[start] >= 0:
        return None
    room, cell = layout.exit
    if not (0 <= room < len(layout.rooms) and 0 <= cell < len(layout.room_cells(room))):
        return None
    seen = np.zeros((h, w), bool)
    seen[start] = True
    for k in range(len(layout.rooms)):
        path = _corridor(seen, layout.room_cells(k), layout.bends[k])
        if any(room_of[c] >= 0 and room_of[c] != k for c in path):
            return None
        for c in path:
            seen[c] = room_of[c] < 0
    grid = np.where(seen | (room_of >= 0), PASSAGE, WALL).astype(np.uint8)
    shown = [[int(r), int(c)] for r, c in np.argwhere(seen) if (r, c) != start]
    return Maze(grid, start, layout.room_cells(room)[cell],
                meta={"name": name, SEEN_AT_START: shown})


def _corridor(seen: np.ndarray, cells: list[Cell], rows_first: bool) -> list[Cell]:
    """The L from the connected floor cell nearest the room to the room's nearest cell (the
    first of equals, row-major), both ends included."""
    floor = np.argwhere(seen)
    target = np.array(cells)
    gap = np.abs(floor[:, None, :] - target[None, :, :]).sum(axis=2)
    i, j = np.unravel_index(int(np.argmin(gap)), gap.shape)
    (r0, c0), (r1, c1) = map(tuple, (floor[i].tolist(), target[j].tolist()))
    step_r, step_c = (1 if r1 >= r0 else -1), (1 if c1 >= c0 else -1)
    if rows_first:
        bend = (r1, c0)
    else:
        bend = (r0, c1)
    first = [(r, bend[1]) for r in range(r0, bend[0] + step_r, step_r)] if rows_first else \
        [(bend[0], c) for c in range(c0, bend[1] + step_c, step_c)]
    second = [(bend[0], c) for c in range(bend[1], c1 + step_c, step_c)] if rows_first else \
        [(r, bend[1]) for r in range(bend[0], r1 + step_r, step_r)]
    return first + second[1:]


def sample_layout(spec: MapSpec, rng: np.random.Generator) -> Layout:
    """A layout drawn from `spec` that `build` accepts (GeneratorError after `_TRIES`
    draws: the ranges leave no room for the rooms)."""
    h, w = spec.size
    for _ in range(_TRIES):
        count = int(rng.integers(spec.rooms[0], spec.rooms[1] + 1))
        rooms = tuple(_room(spec, rng) for _ in range(count))
        rooms = tuple((int(rng.integers(1, h - rh)), int(rng.integers(1, w - rw)), rh, rw)
                      for rh, rw in rooms)
        room = int(rng.integers(count))
        layout = Layout((h, w), (int(rng.integers(1, h - 1)), int(rng.integers(1, w - 1))),
                        rooms, tuple(bool(b) for b in rng.integers(0, 2, count)),
                        (room, int(rng.integers(rooms[room][2] * rooms[room][3]))))
        if build(layout) is not None:
            return layout
    raise GeneratorError(f"no search-task map in {_TRIES} draws of {spec} (allowed: fewer or "
                         "smaller rooms, or a larger size)")


def _room(spec: MapSpec, rng: np.random.Generator) -> tuple[int, int]:
    """(height, width) of a room of a size within `spec.room_cells`, no side past a third of
    the map."""
    h, w = spec.size
    cells = int(rng.integers(spec.room_cells[0], spec.room_cells[1] + 1))
    fits = [(a, cells // a) for a in range(1, cells + 1)
            if cells % a == 0 and a <= max(h // 3, 1) and cells // a <= max(w // 3, 1)]
    return fits[int(rng.integers(len(fits)))] if fits else (1, 1)


def edit(layout: Layout, rng: np.random.Generator) -> Layout:
    """One local change `build` accepts (`EDITS`, drawn uniformly); the layout itself if no
    draw in `_TRIES` gives a map."""
    for _ in range(_TRIES):
        kind = EDITS[int(rng.integers(len(EDITS)))]
        k = int(rng.integers(len(layout.rooms)))
        top, left, rh, rw = layout.rooms[k]
        d = int(rng.choice([-1, 1]))
        new = layout
        if kind == "move-room":
            moved = (top + d, left, rh, rw) if rng.integers(2) else (top, left + d, rh, rw)
            new = _with_room(layout, k, moved)
        elif kind == "resize-room":
            size = (rh + d, rw) if rng.integers(2) else (rh, rw + d)
            new = _with_room(layout, k, (top, left, *size))
        elif kind == "bend":
            new = replace(layout, bends=tuple(b != (i == k) for i, b in enumerate(layout.bends)))
        elif kind == "move-exit":
            new = replace(layout, exit=(k, int(rng.integers(rh * rw))))
        else:
            r, c = layout.start
            new = replace(layout, start=(r + d, c) if rng.integers(2) else (r, c + d))
        if new != layout and build(new) is not None:
            return new
    return layout


def _with_room(layout: Layout, k: int, room: tuple[int, int, int, int]) -> Layout:
    """`layout` with room k replaced; the exit kept in its room, on a cell that still exists."""
    rooms = layout.rooms[:k] + (room,) + layout.rooms[k + 1:]
    which, cell = layout.exit
    if which == k:
        cell = min(cell, max(room[2] * room[3] - 1, 0))
    return replace(layout, rooms=rooms, exit=(which, cell))
