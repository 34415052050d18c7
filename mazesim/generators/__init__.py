"""Maze generators (DESIGN.md section 3): the registry, `generate`, `braid` and placements.

>>> from mazesim.generators import generate
>>> maze = generate("digging", "11x15", seed=1)
>>> maze.grid.shape, maze.start, maze.goal
((11, 15), (1, 1), (9, 13))
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from mazesim.errors import GeneratorError, check_seed
from mazesim.generators._registry import MIN_GRID, GeneratorSpec, check_fraction, check_size, lookup
from mazesim.generators._registry import REGISTRY as _REGISTRY
from mazesim.generators.braid import braid
from mazesim.generators.braid import braid as _braid_grid  # `generate` has a `braid` argument
from mazesim.generators.placement import PLACEMENTS, check_inside, check_placement, place
from mazesim.maze import FORMAT_VERSION, Maze

# The families: importing them fills the registry (in the order `mazesim generators` lists).
from mazesim.generators import stick_knocking, digging, wall_extending  # noqa: E402,F401
from mazesim.generators import prim, kruskal, wilson, aldous_broder  # noqa: E402,F401
from mazesim.generators import hunt_and_kill, binary_tree, sidewinder  # noqa: E402,F401
from mazesim.generators import eller, recursive_division  # noqa: E402,F401

__all__ = [
    "GENERATORS",
    "GeneratorSpec",
    "PLACEMENTS",
    "generate",
    "check",
    "braid",
    "check_size",
    "place",
]

GENERATORS: Mapping[str, GeneratorSpec] = MappingProxyType(_REGISTRY)


def generate(
    name: str,
    size: Any,
    *,
    seed: int,
    braid: float = 0.0,
    placement: Any = "corners",
    **options: Any,
) -> Maze:
    """Generate a maze: the family's perfect grid, then `braid`, then start and goal.

    One ``numpy.random.default_rng(seed)`` feeds, in this order, the family, the braid and the
    placement, so the same arguments always give the same maze and a braided maze is its perfect
    maze plus openings. Everything is validated before any work.

    Parameters
    ----------
    name : str
        A key of `GENERATORS` (`mazesim generators` lists them).
    size : int, str or pair
        Grid size as `mazesim.maze.parse_size` reads it (31, "31x41", (31, 41)); odd, >= 3,
        not 3x3 (one room cannot hold S and G apart).
    seed : int
        Root of the random stream, >= 0.
    braid : float
        Share of dead ends opened into loops, in [0, 1] (see `braid`).
    placement : str or pair of cells
        ``"corners"``, ``"random"``, ``"farthest"`` or ``((r, c), (r, c))`` (see `place`).
    **options
        The generator's own options (`GENERATORS[name].options`).

    Returns
    -------
    Maze
        With `meta` = generator, size [H, W], seed, braid, placement, options (defaults filled in)
        and the format version.
    """
    spec, (h, w), resolved, fraction, placement = _checked(name, size, seed, braid, placement,
                                                           options)
    rng = np.random.default_rng(seed)
    grid = spec.function((h, w), rng, **resolved)
    if fraction > 0:
        grid = _braid_grid(grid, fraction, rng)
    start, goal = place(grid, placement, rng)
    meta = {
        "generator": spec.name,
        "size": [h, w],
        "seed": int(seed),
        "braid": fraction,
        "placement": placement if isinstance(placement, str) else [list(start), list(goal)],
        "options": resolved,
        "version": FORMAT_VERSION,
    }
    return Maze(grid, start, goal, meta=meta)


def check(name: str, size: Any, *, seed: int, braid: float = 0.0, placement: Any = "corners",
          **options: Any) -> None:
    """Raise the GeneratorError that `generate` would raise for these arguments, without
    generating (a config is checked so, before any kernel is compiled): every one, except that
    an explicit start or goal inside the grid may be a wall of the maze generated."""
    _checked(name, size, seed, braid, placement, options)


def _checked(name: str, size: Any, seed: int, braid: float, placement: Any,
             options: Mapping[str, Any]) -> tuple:
    """(spec, (h, w), options resolved, braid fraction, placement) of valid arguments."""
    spec = lookup(name)
    h, w = check_size(size)
    if h == w == MIN_GRID:
        raise GeneratorError(f"size {h}x{w}: a single room, and S and G need two different "
                             "ones (allowed: odd sides >= 3 with at least two rooms, e.g. 3x5)")
    resolved = spec.resolve_options(options)
    fraction = check_fraction(braid, "braid")
    placement = check_placement(placement)
    check_seed(seed, GeneratorError)
    check_inside(placement, h, w)
    return spec, (h, w), resolved, fraction, placement
