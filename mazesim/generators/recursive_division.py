"""The recursive division algorithm (a wall adder)."""

import numpy as np

from mazesim.generators import _row_kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["recursive_division"]


@register("recursive-division")
def recursive_division(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Recursive division: split chambers by walls with one random gap, across the longer side.

    Starts from one open chamber. A chamber taller than wide gets a horizontal wall, a wider one a
    vertical wall, a square one either at random; the wall position and its one gap are uniform.
    Chambers one room thick are left as corridors.
    """
    h, w = check_size(size)
    return _row_kernels.recursive_division(h, w, rng)
