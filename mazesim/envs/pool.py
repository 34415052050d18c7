"""The mazes an environment walks, as the compiled core takes them (`MazePool`): given mazes
(Maze objects, maze text, or mazesim JSON mazes) or generated ones, padded with walls to one
shape, with what each shows before the first look under the environment's vision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mazesim._grid import pad
from mazesim.agents.base import default_max_steps, flat_cells
from mazesim.agents.vision import UNKNOWN, Vision, parse_vision, seen_at_start
from mazesim.errors import ConfigError, check_integer
from mazesim.limits import MAX_MAZE_CELLS, MAX_STEPS
from mazesim.maze import WALL, Maze, maze_from_json, parse_maze

__all__ = ["MazePool", "as_maze", "generated", "MAX_POOL", "MAX_POOL_CELLS"]

MAX_POOL = 100_000
"""Most mazes in one pool."""
MAX_POOL_CELLS = 50_000_000
"""Most padded cells of a pool, summed over its mazes (its arrays: a few bytes a cell)."""


def as_maze(item: Any, name: str = "mazes") -> Maze:
    """A Maze from a Maze, its text, or its JSON form (`maze.maze_to_json`); ConfigError
    naming `name` otherwise."""
    if isinstance(item, Maze):
        return item
    if isinstance(item, str):
        return parse_maze(item, name)
    if isinstance(item, dict):
        return maze_from_json(item, name)
    raise ConfigError(f"{name}: {type(item).__name__} (allowed: a Maze, maze text or a JSON "
                      "maze)")


def generated(generator: str, size: Any, count: int, seed: int) -> list[Maze]:
    """`count` mazes of `generator` at `size`, each seeded from the root `seed` through numpy's
    SeedSequence (same arguments, same mazes)."""
    from mazesim.generators import generate

    check_integer(count, "count", 1, MAX_POOL, ConfigError)
    seeds = np.random.SeedSequence(seed).generate_state(int(count), np.uint32)
    return [generate(generator, size, seed=int(s)) for s in seeds]


@dataclass(frozen=True, eq=False)
class MazePool:
    """`mazes` padded with walls to `shape` (rows, cols; the largest), flat and padded once more
    (`mazesim._grid`): `cells` (M, P), `blank` (M, P: UNKNOWN where the vision has shown
    nothing yet; the walls too unless the map is known), `start`, `goal` and `cap` (M,: the
    truncation step, `max_steps` or mazesim's default of 50 moves per passage cell)."""

    mazes: tuple[Maze, ...]
    vision: Vision
    shape: tuple[int, int]
    cells: np.ndarray
    blank: np.ndarray
    start: np.ndarray
    goal: np.ndarray
    cap: np.ndarray

    @property
    def width(self) -> int:
        return self.shape[1] + 2

    @classmethod
    def build(cls, mazes: Sequence[Any], vision: Any = "full", max_steps: int | None = None
              ) -> MazePool:
        vision = parse_vision(vision)
        if vision.exit_on_arrival:      # the observation's `goal` shows it once seen
            raise ConfigError(f"vision: {str(vision)!r} (allowed: a vision that shows the goal "
                              "once seen; exit on arrival is for agents and trees)")
        mazes = tuple(as_maze(m, f"mazes[{k}]") for k, m in enumerate(mazes))
        if not 1 <= len(mazes) <= MAX_POOL:
            raise ConfigError(f"mazes: {len(mazes):,} (allowed: 1 to {MAX_POOL:,})")
        h = max(m.shape[0] for m in mazes)
        w = max(m.shape[1] for m in mazes)
        if h * w > MAX_MAZE_CELLS or len(mazes) * (h + 2) * (w + 2) > MAX_POOL_CELLS:
            raise ConfigError(f"mazes: {len(mazes):,} of {h}x{w} (at most "
                              f"{MAX_POOL_CELLS:,} cells in all)")
        if max_steps is not None:
            check_integer(max_steps, "max_steps", 1, MAX_STEPS, ConfigError)
        grids = np.ones((len(mazes), h, w), np.uint8)
        shown = np.zeros((len(mazes), h, w), np.bool_)
        for k, m in enumerate(mazes):
            grids[k, :m.shape[0], :m.shape[1]] = m.grid
            shown[k, :m.shape[0], :m.shape[1]] = seen_at_start(m)
        cells = np.stack([pad(g).ravel() for g in grids])
        blank = cells.copy()
        if not vision.full:
            hidden = np.zeros((len(mazes), h + 2, w + 2), np.bool_)
            hidden[:, 1:-1, 1:-1] = ~shown
            if vision.known_map:
                hidden[:, 1:-1, 1:-1] &= grids != WALL
            blank[hidden.reshape(len(mazes), -1)] = UNKNOWN
        cap = [max_steps or default_max_steps(m) for m in mazes]
        return cls(mazes, vision, (h, w), cells, blank,
                   flat_cells([m.start for m in mazes], w + 2).astype(np.int64),
                   flat_cells([m.goal for m in mazes], w + 2).astype(np.int64),
                   np.array(cap, np.int64))
