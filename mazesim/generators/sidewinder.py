"""The sidewinder algorithm."""

import numpy as np

from mazesim.generators import _row_kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["sidewinder"]


@register("sidewinder")
def sidewinder(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Sidewinder: rows of random runs, each run opened upward from one of its rooms.

    The top row is one corridor. In later rows a run grows right with probability 1/2 (the last
    room always closes it); a closed run opens up from a uniformly random room of the run.
    """
    h, w = check_size(size)
    return _row_kernels.sidewinder(h, w, rng)
