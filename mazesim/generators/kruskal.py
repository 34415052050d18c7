"""Kruskal's algorithm, randomized."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["kruskal"]


@register("kruskal")
def kruskal(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Kruskal: open walls in random order when they join two different trees (union-find).

    The minimum spanning tree for independent random wall weights.
    """
    h, w = check_size(size)
    return _kernels.kruskal(h, w, rng)
