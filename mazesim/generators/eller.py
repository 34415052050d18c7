"""Eller's algorithm: one row at a time."""

import numpy as np

from mazesim.generators import _row_kernels
from mazesim.generators._registry import check_fraction, check_size, register
from mazesim.maze import Size

__all__ = ["eller"]


@register("eller", checks={"join": check_fraction})
def eller(size: Size, rng: np.random.Generator, *, join: float = 0.5) -> np.ndarray:
    """Eller: row by row with sets; `join` = chance to join neighbours of different sets.

    Parameters
    ----------
    join : float
        Probability, in [0, 1], of opening the wall between two horizontally adjacent rooms of
        different sets. Each room then goes down with probability 1/2, and every set that chose
        none goes down from one uniformly random room of it; the last row joins all sets.
    """
    h, w = check_size(size)
    return _row_kernels.eller(h, w, float(join), rng)
