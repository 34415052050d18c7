"""The binary tree algorithm."""

import numpy as np

from mazesim.generators import _row_kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["binary_tree"]


@register("binary-tree")
def binary_tree(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Binary tree: every room opens up or left at random (top row and left column are corridors).

    Strongly biased: from any room, the way to the top-left room only goes up and left.
    """
    h, w = check_size(size)
    return _row_kernels.binary_tree(h, w, rng)
