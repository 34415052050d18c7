"""The study's 穴掘り法 (digging), the recursive backtracker (DESIGN.md section 3)."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["digging"]


@register("digging")
def digging(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Recursive backtracker (穴掘り法): dig two cells at a time, back up when stuck.

    From a random room, dig through a wall to a random undug neighbour room while one exists;
    when stuck, resume from the most recently dug room that still has one (long corridors, about
    10% of the rooms are dead ends).
    """
    h, w = check_size(size)
    return _kernels.dig(h, w, rng.random(_kernels.dig_draws(h, w)))
