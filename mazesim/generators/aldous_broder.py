"""The Aldous-Broder algorithm: a uniform spanning tree by one random walk."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["aldous_broder"]


@register("aldous-broder")
def aldous_broder(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Aldous-Broder: a random walk to any neighbour; every spanning tree equally likely.

    The walk steps to a uniformly random neighbouring room, visited or not, and opens the wall
    each time it enters a room for the first time, until all rooms are visited (cover time).
    """
    h, w = check_size(size)
    return _kernels.aldous_broder(h, w, rng)
