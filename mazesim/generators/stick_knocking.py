"""The study's 棒倒し法 (stick-knocking, DESIGN.md section 3)."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["stick_knocking"]


@register("stick-knocking")
def stick_knocking(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Stick-knocking (棒倒し法): every pillar knocks one wall into a random free direction.

    Pillars stand at every interior (even, even) cell, taken row by row, left to right. Pillars of
    the first row may fall up, right, down or left, later rows only right, down or left, and never
    onto an existing wall: so every wall reaches the border and the maze is perfect (but biased).
    """
    h, w = check_size(size)
    return _kernels.knock(h, w, rng)
