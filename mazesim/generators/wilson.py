"""Wilson's algorithm: a uniform spanning tree."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["wilson"]


@register("wilson")
def wilson(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Wilson: loop-erased random walks; every spanning tree equally likely.

    One random room starts the tree; from each room not in it (row order) a random walk runs until
    it hits the tree, remembering only the last exit from each room (loop erasure); that path
    joins the tree.
    """
    h, w = check_size(size)
    return _kernels.wilson(h, w, rng)
