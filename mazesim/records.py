"""The walk record (DESIGN.md section 7): positions, and junction choices under one schema.

`CHOICE_FIELDS` is the one definition of a junction-choice record. Everything else is derived
from it: the column indices the agent kernels write (`COLUMN`), the structured `CHOICE_DTYPE` of
`Batch.choices`, the `Choice` objects of a `Trajectory`, and the `choices` table and
`choices.csv` of a run (`mazesim.experiment.storage`), for agents and humans alike. A field's
`kind` says how it is stored: numbers as they are, a direction by its name, a set of directions
(a bit mask, bit d for direction d) as names joined by `+`, a flag as 0 or 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mazesim.errors import AgentError
from mazesim.maze import DIRECTIONS, Cell, readonly

__all__ = [
    "Field",
    "CHOICE_FIELDS",
    "COLUMN",
    "N_COLUMNS",
    "CHOICE_DTYPE",
    "NO_MARK",
    "BRANCH_DEGREE",
    "Choice",
    "Trajectory",
    "Batch",
    "choice_array",
    "mask_directions",
    "directions_mask",
    "direction_name",
    "direction_index",
]

INT, DIRECTION, DIRECTIONS_SET, FLAG = "int", "direction", "directions", "flag"
BRANCH_DEGREE = 3
"""A junction (branch point) has at least this many open neighbours: its departures are
decisions, recorded as choices."""
NO_MARK = -1
"""`Batch.choices["mark"]` of a cell that is not a named mark."""
_SEPARATOR = "+"


@dataclass(frozen=True)
class Field:
    """One column of the junction-choice record.

    `name` is the kernel column and structured-array field, `stored` the column name in the
    results database and CSV exports, `kind` how the value is stored (see the module docstring).
    """

    name: str
    dtype: str
    stored: str
    kind: str
    doc: str

    @property
    def sql(self) -> str:
        """The SQLite column type."""
        return "INTEGER" if self.kind in (INT, FLAG) else "TEXT"

    def to_stored(self, value: Any) -> Any:
        """A kernel value as it is stored (a Python scalar sqlite and csv can write)."""
        value = int(value)
        if self.kind == DIRECTION:
            return direction_name(value)
        if self.kind == DIRECTIONS_SET:
            return _SEPARATOR.join(DIRECTIONS[d] for d in mask_directions(value))
        return value

    def from_stored(self, value: Any) -> int:
        """Inverse of `to_stored`: the kernel value."""
        if self.kind == DIRECTION:
            return direction_index(value)
        if self.kind == DIRECTIONS_SET:
            return directions_mask(value.split(_SEPARATOR) if value else ())
        return int(value)


CHOICE_FIELDS = (
    Field("step", "i8", "step", INT, "moves made before the departure: positions[step] is the "
          "cell left"),
    Field("row", "i4", "row", INT, "row of the cell left"),
    Field("col", "i4", "col", INT, "column of the cell left"),
    Field("arrival", "i1", "arrival", DIRECTION, "direction of the move into the cell; none at "
          "the start"),
    Field("chosen", "i1", "direction", DIRECTION, "direction of the move out of the cell"),
    Field("first", "?", "first", FLAG, "the walk's first departure from this cell"),
    Field("open", "u1", "open", DIRECTIONS_SET, "directions open from the cell"),
    Field("unexplored", "u1", "unexplored", DIRECTIONS_SET, "open directions into cells the walk "
          "had not yet visited"),
)
"""The junction-choice record: one per departure from a cell with >= BRANCH_DEGREE open
neighbours."""

COLUMN = {f.name: i for i, f in enumerate(CHOICE_FIELDS)}
"""Kernel column of each field: the agent kernels write int64 rows in this order."""
N_COLUMNS = len(CHOICE_FIELDS)
(STEP, ROW, COL, ARRIVAL, CHOSEN, FIRST, OPEN, UNEXPLORED) = (COLUMN[f.name]
                                                             for f in CHOICE_FIELDS)

CHOICE_DTYPE = np.dtype([("trial", "i8"), *((f.name, f.dtype) for f in CHOICE_FIELDS),
                         ("mark", "i2")])
"""`Batch.choices`: the trial index, the record's fields, and the mark (an index into
`Batch.mark_names`, NO_MARK for none)."""


def mask_directions(mask: int) -> tuple[int, ...]:
    """The directions whose bits are set in `mask`, in canonical order."""
    return tuple(d for d in range(len(DIRECTIONS)) if int(mask) >> d & 1)


def directions_mask(names: Any) -> int:
    """The bit mask of direction names (or indices)."""
    mask = 0
    for name in names:
        mask |= 1 << (name if isinstance(name, (int, np.integer)) else direction_index(name))
    return mask


def direction_name(value: int) -> str:
    """The canonical name of a direction index; "" for none (-1)."""
    return DIRECTIONS[value] if 0 <= value < len(DIRECTIONS) else ""


def direction_index(name: str) -> int:
    """Inverse of `direction_name`."""
    return DIRECTIONS.index(name) if name else -1


@dataclass(frozen=True)
class Choice:
    """One departure from a junction (`CHOICE_FIELDS`; the cell as a pair, directions as
    indices, the mark by name)."""

    step: int
    cell: Cell
    mark: str | None
    arrival: int                 # -1 at the start
    open: tuple[int, ...]
    unexplored: tuple[int, ...]  # open neighbours not yet visited at that moment
    chosen: int
    first: bool                  # the first departure from this cell

    @property
    def direction(self) -> str:
        """The chosen direction's name."""
        return DIRECTIONS[self.chosen]

    @classmethod
    def from_record(cls, row: np.void, mark_names: tuple[str, ...]) -> Choice:
        """The Choice of one `CHOICE_DTYPE` row."""
        return cls(int(row["step"]), (int(row["row"]), int(row["col"])),
                   mark_names[row["mark"]] if row["mark"] != NO_MARK else None,
                   int(row["arrival"]), mask_directions(row["open"]),
                   mask_directions(row["unexplored"]), int(row["chosen"]), bool(row["first"]))


@dataclass(frozen=True, eq=False)
class Trajectory:
    """One trial: `positions` (T+1, 2) read-only, from the start to the goal or the cap."""

    positions: np.ndarray
    reached: bool
    capped: bool
    choices: tuple[Choice, ...] = ()

    def __post_init__(self) -> None:
        positions = np.array(self.positions, dtype=np.int64).reshape(-1, 2)
        object.__setattr__(self, "positions", readonly(positions))
        object.__setattr__(self, "choices", tuple(self.choices))

    @property
    def moves(self) -> int:
        return len(self.positions) - 1


@dataclass(frozen=True, eq=False)
class Batch:
    """Trials of one (maze, agent, vision): per-trial arrays and all choice records.

    `choices` is a `CHOICE_DTYPE` array; `positions` holds each trial's positions when they were
    kept (`simulate_many(..., keep_positions=True)`), else is empty.
    """

    moves: np.ndarray
    reached: np.ndarray
    capped: np.ndarray
    choices: np.ndarray
    mark_names: tuple[str, ...] = ()
    positions: tuple[np.ndarray, ...] = ()

    @property
    def trials(self) -> int:
        return len(self.moves)

    def trajectory(self, i: int) -> Trajectory:
        """Trial i as a Trajectory (needs kept positions)."""
        if not self.positions:
            raise AgentError("this batch was simulated without keep_positions=True")
        rows = self.choices[self.choices["trial"] == i]
        return Trajectory(self.positions[i], bool(self.reached[i]), bool(self.capped[i]),
                          tuple(Choice.from_record(row, self.mark_names) for row in rows))


def choice_array(rows: np.ndarray, trial: np.ndarray, mark_grid: np.ndarray) -> np.ndarray:
    """Kernel rows (m, N_COLUMNS) with their trial indices as a `CHOICE_DTYPE` array; `mark_grid`
    holds the mark index of every cell (NO_MARK elsewhere)."""
    out = np.empty(len(rows), CHOICE_DTYPE)
    out["trial"] = trial
    for field in CHOICE_FIELDS:
        out[field.name] = rows[:, COLUMN[field.name]]
    out["mark"] = mark_grid[out["row"], out["col"]]
    return out
