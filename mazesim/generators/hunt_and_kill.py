"""The hunt-and-kill algorithm."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["hunt_and_kill"]


@register("hunt-and-kill")
def hunt_and_kill(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Hunt-and-kill: random walk to unvisited rooms; when stuck, hunt row by row.

    The hunt takes the first unvisited room (row-major order) beside a visited one, opens the wall
    to a random visited neighbour and walks on from there. Long corridors like the backtracker.
    """
    h, w = check_size(size)
    return _kernels.hunt_and_kill(h, w, rng)
