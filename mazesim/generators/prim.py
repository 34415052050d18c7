"""Prim's algorithm, randomized (frontier-cell form)."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["prim"]


@register("prim")
def prim(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Prim, frontier-cell variant: join a random frontier room to the tree.

    The variant Jamis Buck describes and Walter Pullen calls "modified Prim": the frontier is the
    set of rooms beside the tree; each step takes a uniformly random frontier room and opens the
    wall to a random neighbour already in the tree. Many short dead ends (about 36% of the rooms),
    unlike "true Prim" with random edge weights (about 30%, the same trees as Kruskal).
    """
    h, w = check_size(size)
    return _kernels.prim(h, w, rng)
