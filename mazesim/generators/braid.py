"""Braiding: open walls at dead ends so that a perfect maze gets loops (DESIGN.md section 3)."""

import math

import numpy as np

from mazesim.errors import GeneratorError
from mazesim import _grid
from mazesim.generators import _row_kernels
from mazesim.generators._registry import check_fraction
from mazesim.maze import PASSAGE, WALL

__all__ = ["braid", "dead_ends"]


def dead_ends(grid: np.ndarray) -> np.ndarray:
    """Cells (n, 2), row-major, of the passages with exactly one passage neighbour."""
    return np.argwhere(_grid.degrees(np.ascontiguousarray(grid, dtype=np.uint8)) == 1)


def braid(grid: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Open one wall at a share of the dead ends, creating loops; returns a new grid.

    Dead ends are visited in random order; each one still a dead end gets one wall opened that has
    a passage beyond it, preferring a wall toward another dead end (which removes both) and never
    a wall of the outer ring. It stops once ``ceil(fraction * dead ends)`` dead ends are gone (one
    more when the last opening removes two), or when the dead ends run out. Draws nothing from
    `rng` when there is nothing to do, so a braided maze is its perfect maze plus openings.

    Parameters
    ----------
    grid : ndarray
        (H, W) of 0 (passage) and 1 (wall), e.g. a generator's grid.
    fraction : float
        Share of dead ends removed, in [0, 1]; 0 keeps the maze perfect.
    """
    fraction = check_fraction(fraction, "braid")
    grid = np.asarray(grid)
    if grid.ndim != 2 or grid.size == 0 or not np.isin(grid, (PASSAGE, WALL)).all():
        raise GeneratorError("braid: grid must be a non-empty 2-D array of 0 and 1")
    ends = dead_ends(grid)
    quota = math.ceil(fraction * len(ends))
    if quota == 0:
        return grid.astype(np.uint8)
    padded = np.pad(grid.astype(np.uint8), 1, constant_values=WALL)
    order = rng.permutation(len(ends))
    _row_kernels.braid(padded, ends[order] + 1, quota, rng)
    return padded[1:-1, 1:-1].copy()
