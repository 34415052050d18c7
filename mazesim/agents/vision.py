"""What an agent can see and remember (DESIGN.md section 5): `Vision`, read from any config form.

Every agent decides from what it knows: the four neighbours, always sensed (it could not move
otherwise), its own trail, and its *known map* (`UNKNOWN` where nothing has been seen), filled
by the perception kernel after every move (`mazesim.agents._vision_kernels`, which defines the
map's values and the kinds of sight it takes):

- `full`: the whole grid, goal included, is known from the start.
- window `k`: the (2k+1) x (2k+1) square centred on the agent is seen; with `occlusion` a cell is
  seen only if the straight line (Bresenham) from the agent to it crosses passages only.
- `isovist r`: line of sight up to Chebyshev distance r, the Maze Search Task's rule (DESIGN 5).
- `sweep`: the quadrant sweep of the Maze Search Task authors' decision trees (their
  `observation_made`, the vision of `mazesim.agents.trees`): four sweeps from the agent's cell
  (up-left, up-right, down-left, down-right), row by row away from its row; each row is scanned
  from the agent's column away from it until a wall, and never past the farthest column the
  same sweep reached in the row before; a sweep ends at the first row whose cell in the agent's
  column is a wall. The map's edge counts as wall. Every floor cell scanned is seen, and so is
  each wall that ends a row's scan (the walls looked at); sight has no radius.
- `map known` (with a window or an isovist): the layout is known from the start; sight only tells
  whether a cell holds the goal (and which floor has been seen).
- A maze may show some floor before the first step (the Maze Search Task's code-6 cells): the
  passages listed in its `meta["seen_at_start"]` count as seen under every limited vision.
- `memory` off: cells out of view are forgotten, except the cells the agent has stood on.
- `exit on arrival` (with any limited vision): the goal shows only to an agent standing on it;
  seen from elsewhere its cell looks like any floor (a page that draws an observed exit as
  path, as the Maze Search Task replication's does). The walk ends on arrival, so such an agent
  never plans to the goal: it searches until it steps on it.

Otherwise the goal is known once it has been seen. Agents whose rule reads only the neighbours
and their trail are unaffected by vision except through goal seeking.

`perceive` is the perception kernel itself (`_vision_kernels.perceive`), for compiled code
outside the agents that must see exactly as they do (the Gymnasium environment, `mazesim.envs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from mazesim.agents._vision_kernels import (FULL_VIEW, ISOVIST_VIEW, SWEEP_VIEW, UNKNOWN,
                                            WINDOW_VIEW, perceive, seen_along)
from mazesim.errors import AgentError, short
from mazesim.limits import MAX_VISION_RADIUS
from mazesim.maze import SEEN_AT_START, Cell, Maze

__all__ = ["Vision", "FULL", "STUDY_VISION", "ISOVIST_RADIUS", "MST_VISION", "SWEEP_VISION",
           "UNKNOWN", "SEEN_AT_START", "parse_vision", "seen_at_start", "seen_cells", "isovist",
           "sweep", "perceive"]

FULL = "full"
STUDY_VISION = 2          # the study's +-2 window (section 3.1)
SWEEP = "sweep"
_KINDS = ("window", "isovist", SWEEP)
_KEYS = _KINDS + ("occlusion", "memory", "map", "exit")
_MAPS = ("unknown", "known")
_EXITS = ("seen", "arrival")
"""When the goal shows: once seen (the default), or only on arrival."""
_FLAGS = ("occlusion", "no memory", "map known", "exit on arrival")
_ALLOWED = (f"full or an integer from 0 to {MAX_VISION_RADIUS:,}, a label such as 'isovist "
            "10, map known', key=value pairs such as isovist=10,map=known, or a mapping "
            "{window: k | isovist: r | sweep: true, occlusion, memory, map: known, exit: "
            "arrival}")
_DIGITS = re.compile(r"[0-9]{1,64}")
"""A radius as text: ASCII digits (int() takes "²"), at most 64 (int() refuses 4,300)."""


@dataclass(frozen=True)
class Vision:
    """Vision and memory of an agent: full (the default), a window of half-width `k`, an
    `isovist` of radius r, or the quadrant `sweep`; `known_map` when the layout is known from
    the start; `exit_on_arrival` when the goal shows only to an agent standing on it."""

    k: int | None = None
    occlusion: bool = False
    memory: bool = True
    isovist: int | None = None
    known_map: bool = False
    sweep: bool = False
    exit_on_arrival: bool = False

    def __post_init__(self) -> None:
        for key, low in (("k", 0), ("isovist", 1)):
            value = getattr(self, key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                    low <= value <= MAX_VISION_RADIUS):
                name, allowed = (("vision", "full or an integer") if key == "k" else
                                 ("vision.isovist", "an integer"))
                raise AgentError(f"{name}: {value!r} (allowed: {allowed} from {low} to "
                                 f"{MAX_VISION_RADIUS:,})")
            object.__setattr__(self, key, int(value))
        for key in ("occlusion", "memory", "known_map", "sweep", "exit_on_arrival"):
            if not isinstance(getattr(self, key), (bool, np.bool_)):
                raise AgentError(f"vision.{key}: {getattr(self, key)!r} (allowed: true, false)")
            object.__setattr__(self, key, bool(getattr(self, key)))
        kinds = [kind for kind, on in zip(_KINDS, (self.k is not None,
                                                    self.isovist is not None, self.sweep)) if on]
        if len(kinds) > 1:
            raise AgentError(f"vision: a {kinds[0]} and a {kinds[1]} at once (allowed: one of "
                             "them)")
        if self.full and (self.occlusion or self.known_map or not self.memory
                          or self.exit_on_arrival):
            raise AgentError("vision: full vision takes no occlusion, memory, map or exit "
                             "setting")
        if (self.isovist is not None or self.sweep) and self.occlusion:
            kind = "the sweep" if self.sweep else "an isovist"
            raise AgentError(f"vision.occlusion: {kind} is always occluded (leave it out)")

    @property
    def full(self) -> bool:
        return self.k is None and self.isovist is None and not self.sweep

    @property
    def radius(self) -> int:
        """How far sight reaches: the window half-width or the isovist radius (-1 for full;
        the sweep reaches the map's edges: `MAX_VISION_RADIUS`, wider than any maze)."""
        if self.full:
            return -1
        if self.sweep:
            return MAX_VISION_RADIUS
        return self.k if self.k is not None else self.isovist

    def kernel_args(self) -> tuple[int, int, bool, bool, bool]:
        """(kind, radius, occlusion, memory, known map) as the kernels take them."""
        kind = (FULL_VIEW if self.full else WINDOW_VIEW if self.k is not None
                else SWEEP_VIEW if self.sweep else ISOVIST_VIEW)
        return kind, self.radius, self.occlusion, self.memory, self.known_map

    def __str__(self) -> str:
        """The label stored in result tables: `full`, `2`, `2, occlusion, no memory`,
        `isovist 10, map known`, `sweep, map known`, `sweep, map known, exit on arrival`."""
        if self.full:
            return FULL
        text = (str(self.k) if self.k is not None else SWEEP if self.sweep
                else f"isovist {self.isovist}")
        if self.occlusion:
            text += ", occlusion"
        if not self.memory:
            text += ", no memory"
        if self.known_map:
            text += ", map known"
        if self.exit_on_arrival:
            text += ", exit on arrival"
        return text

    def to_config(self) -> str | int | dict[str, Any]:
        """The shortest config form that reads back as this vision."""
        if self.full:
            return FULL
        if self.k is not None and not (self.occlusion or self.known_map
                                       or self.exit_on_arrival) and self.memory:
            return self.k
        out: dict[str, Any] = ({"window": self.k} if self.k is not None
                               else {SWEEP: True} if self.sweep else {"isovist": self.isovist})
        if self.occlusion:
            out["occlusion"] = True
        if not self.memory:
            out["memory"] = False
        if self.known_map:
            out["map"] = "known"
        if self.exit_on_arrival:
            out["exit"] = "arrival"
        return out


ISOVIST_RADIUS = 10
"""The Maze Search Task's sight: line of sight up to Chebyshev distance 10 (DESIGN section 5)."""
MST_VISION = Vision(isovist=ISOVIST_RADIUS, known_map=True)
"""The Maze Search Task (Kryven et al. 2024): line of sight over a floor plan known from the
start; the vision of its imported runs."""
SWEEP_VISION = Vision(sweep=True, known_map=True)
"""The vision of the Maze Search Task authors' decision trees: the quadrant sweep over a floor
plan known from the start (their `observation_made`); the default of
`mazesim.agents.trees.decision_tree`."""


def parse_vision(value: Any, name: str = "vision") -> Vision:
    """A Vision from any form, the same everywhere (configs, command-line options, the vision
    column of imported trials): a Vision, `full`, an integer or its text, a mapping
    `{window: 2, occlusion: true, memory: false}`, `{isovist: 10, map: known}` or `{sweep: true,
    map: known, exit: arrival}`, that mapping as text (YAML) or as key=value pairs
    (`isovist=10,map=known,exit=arrival`), or a label (`sweep, map known, exit on arrival`); a
    MazesimError naming `name`."""
    if isinstance(value, Vision):
        return value
    if value is None:
        return Vision()
    if isinstance(value, Mapping):
        return _from_mapping(value, name)
    if isinstance(value, str):
        return _from_text(value, name)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return _built(name, k=value)
    raise AgentError(f"{name}: {value!r} (allowed: {_ALLOWED})")


def _from_text(text: str, name: str) -> Vision:
    from mazesim.schema import parse_pairs, parse_yaml

    if text.strip().startswith("{"):
        data = parse_yaml(text, name)
        if not isinstance(data, Mapping):
            raise AgentError(f"{name}: {short(text)} (allowed: {_ALLOWED})")
        return _from_mapping(data, name)
    if "=" in text:
        return _from_mapping(parse_pairs(text, name), name)
    words = [w.strip() for w in text.strip().lower().split(",")]
    head, flags = words[0], words[1:]
    if head == FULL and not flags:
        return Vision()
    parts = head.split()
    settings: dict[str, Any] = {}
    if len(parts) == 1 and _DIGITS.fullmatch(parts[0]):
        settings["k"] = int(parts[0])
    elif len(parts) == 2 and parts[0] == "isovist" and _DIGITS.fullmatch(parts[1]):
        settings["isovist"] = int(parts[1])
    elif parts == [SWEEP]:
        settings[SWEEP] = True
    else:
        raise AgentError(f"{name}: {short(text)} (allowed: {_ALLOWED})")
    for flag in flags:
        key = dict(zip(_FLAGS, ("occlusion", "memory", "known_map", "exit_on_arrival"))).get(flag)
        if key is None:
            raise AgentError(f"{name}: {short(text)}: unknown setting {short(flag)} (allowed: "
                             f"{', '.join(_FLAGS)})")
        settings[key] = key != "memory"
    return _built(name, **settings)


def _from_mapping(data: Mapping, name: str) -> Vision:
    for key in data:
        if key not in _KEYS:
            raise AgentError(f"{name}.{key}: unknown key (allowed: {', '.join(_KEYS)})")
    if sum(kind in data for kind in _KINDS) != 1:
        raise AgentError(f"{name}: give exactly one of 'window', 'isovist' or 'sweep'")
    if data.get(SWEEP, True) is not True:
        raise AgentError(f"{name}.sweep: {data[SWEEP]!r} (allowed: true; leave it out for "
                         "another kind of sight)")
    known = data.get("map", "unknown")
    if known not in _MAPS:
        raise AgentError(f"{name}.map: {known!r} (allowed: {', '.join(_MAPS)})")
    shows = data.get("exit", _EXITS[0])
    if shows not in _EXITS:
        raise AgentError(f"{name}.exit: {shows!r} (allowed: {', '.join(_EXITS)})")
    return _built(name, k=data.get("window"), isovist=data.get("isovist"), sweep=SWEEP in data,
                  occlusion=data.get("occlusion", False), memory=data.get("memory", True),
                  known_map=known == "known", exit_on_arrival=shows == "arrival")


def _built(name: str, **settings: Any) -> Vision:
    try:
        return Vision(**settings)
    except AgentError as err:
        raise AgentError(str(err).replace("vision", name, 1)) from None


def seen_at_start(maze: Maze) -> np.ndarray:
    """Bool (H, W): the passages `maze.meta[SEEN_AT_START]` lists as seen before the first step
    (none when the key is absent; `Maze` checked the list)."""
    out = np.zeros(maze.shape, np.bool_)
    cells = maze.meta.get(SEEN_AT_START)
    if cells:
        out[tuple(np.array(cells, np.int64).T)] = True
    return out


def seen_cells(maze: Maze, positions: np.ndarray, vision: Vision | str | int) -> np.ndarray:
    """Bool (H, W): every cell seen at some point of a walk along `positions`, what the maze
    shows at the start included.

    The same kernel as the agents' perception (memory does not matter: the union is kept); used
    to check that an agent's choices depend on seen cells only, and to draw what a walker saw.
    """
    vision = parse_vision(vision)
    positions = np.array(positions, dtype=np.int64).reshape(-1, 2)
    kind, radius, occlusion, _, _ = vision.kernel_args()
    return seen_along(maze.grid, positions, kind, radius, occlusion) | (
        seen_at_start(maze) & (kind != FULL_VIEW))


def isovist(grid: np.ndarray, cell: Cell, radius: int = ISOVIST_RADIUS) -> np.ndarray:
    """Bool (H, W): the cells in line of sight of `cell` within Chebyshev distance `radius` (the
    Maze Search Task's rule, DESIGN.md section 5), the cell itself included.

    Examples
    --------
    >>> grid = np.array([[0, 0, 0], [1, 1, 0], [0, 0, 0]], np.uint8)
    >>> isovist(grid, (0, 0), 2).astype(int)
    array([[1, 1, 1],
           [1, 0, 0],
           [0, 0, 0]])
    """
    vision = Vision(isovist=radius)
    grid, (r, c) = _grid_cell("isovist", grid, cell)
    return seen_along(grid, np.array([[r, c]], np.int64), ISOVIST_VIEW, vision.isovist, False)


def sweep(grid: np.ndarray, cell: Cell) -> np.ndarray:
    """Bool (H, W): the cells the quadrant sweep from `cell` sees (the module docstring; the
    Maze Search Task authors' `observation_made`), the cell itself included: the floor scanned
    and the walls that end a row's scan.

    Examples
    --------
    >>> grid = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], np.uint8)
    >>> sweep(grid, (0, 0)).astype(int)
    array([[1, 1, 1],
           [1, 1, 0],
           [1, 0, 0]])
    """
    grid, (r, c) = _grid_cell("sweep", grid, cell)
    return seen_along(grid, np.array([[r, c]], np.int64), SWEEP_VIEW, MAX_VISION_RADIUS, False)


def _grid_cell(name: str, grid: np.ndarray, cell: Cell) -> tuple[np.ndarray, Cell]:
    """`grid` as contiguous uint8 of 0 and 1, and `cell` inside it; AgentError naming `name`."""
    grid = np.ascontiguousarray(grid, dtype=np.uint8)
    if grid.ndim != 2 or grid.size == 0 or grid.max(initial=0) > 1:
        raise AgentError(f"{name}: grid must be a non-empty 2-D array of 0 and 1")
    r, c = (int(v) for v in cell)
    if not (0 <= r < grid.shape[0] and 0 <= c < grid.shape[1]):
        raise AgentError(f"{name}: cell {(r, c)} is outside the {grid.shape[0]}x"
                         f"{grid.shape[1]} grid")
    return grid, (r, c)
