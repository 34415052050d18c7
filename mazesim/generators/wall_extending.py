"""The study's 壁のばし法 (wall-extending, DESIGN.md section 3)."""

import numpy as np

from mazesim.generators import _kernels
from mazesim.generators._registry import check_size, register
from mazesim.maze import Size

__all__ = ["wall_extending"]


@register("wall-extending")
def wall_extending(size: Size, rng: np.random.Generator) -> np.ndarray:
    """Wall-extending (壁のばし法): grow walls from random pillars until they join a wall.

    Starts from all passages inside a wall border. Pillars (even, even cells) not yet wall are
    taken in random order; from each, a wall grows two cells at a time in a random direction that
    does not step onto itself, until it joins an existing wall; when stuck it backs up along itself.
    """
    h, w = check_size(size)
    return _kernels.extend(h, w, rng)
