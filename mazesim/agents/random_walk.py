"""`random-walk`: uniform over the open neighbours at every move."""

from __future__ import annotations

from dataclasses import dataclass

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent

__all__ = ["RandomWalk"]


@dataclass(frozen=True, kw_only=True)
class RandomWalk(KernelAgent):
    """Each move goes to one of the open neighbours with equal probability (no memory at all)."""

    name = "random-walk"
    kind = _kernels.RANDOM_WALK
