"""`weighted-walker`: the study's direction-weighted walker (source 004, appendix A)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent

__all__ = ["WeightedWalker"]


@dataclass(frozen=True, kw_only=True)
class WeightedWalker(KernelAgent):
    """The study's direction-weighted walker (appendix A), as DESIGN section 6 states it.

    Cells are unexplored, passed once or passed twice or more; the start is passed once. With w
    unexplored open neighbours: w = 0 step back to a neighbour passed once (if none, to the
    least-passed ones); w >= 1 step into an unexplored one. Among several candidates the draw is
    proportional to the direction counts, which start at `initial_count` and grow by one per
    step in that direction (only steps into unexplored cells if `count_backtrack` is false).
    `goal_seeking` defaults to false: the study's walker ignores what it sees.

    Parameters
    ----------
    initial_count : int
        Starting count of each direction (the study: 1), >= 1.
    count_backtrack : bool
        Whether steps into already passed cells add to the counts (the study: yes).
    """

    name = "weighted-walker"
    kind = _kernels.WEIGHTED
    goal_seeking: bool = False
    initial_count: int = 1
    count_backtrack: bool = True

    def _validate(self) -> None:
        self._check_int("initial_count", low=1)
        self._check_bool("count_backtrack")

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        _, floats, order = super().kernel_params()
        ints = np.array([self.initial_count, int(self.count_backtrack)], np.int64)
        return ints, floats, order
