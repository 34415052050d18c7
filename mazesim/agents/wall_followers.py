"""`right-hand` and `left-hand`: wall followers, one kernel rule with a `hand` parameter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent

__all__ = ["WallFollower", "RightHand", "LeftHand"]

_RIGHT, _LEFT = 1, -1       # turn of the hand side, in quarter turns clockwise


@dataclass(frozen=True, kw_only=True)
class WallFollower(KernelAgent):
    """Keeps one hand on the wall: tries the hand side, straight on, the other side, then back.

    At the start, with no direction of arrival, it faces up. Solves every perfect maze.
    """

    kind = _kernels.WALL_FOLLOWER
    hand: ClassVar[int] = _RIGHT

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        _, floats, order = super().kernel_params()
        return np.array([self.hand, 0], np.int64), floats, order


@dataclass(frozen=True, kw_only=True)
class RightHand(WallFollower):
    """Wall follower with the right hand on the wall (see WallFollower)."""

    name = "right-hand"
    hand = _RIGHT


@dataclass(frozen=True, kw_only=True)
class LeftHand(WallFollower):
    """Wall follower with the left hand on the wall (see WallFollower)."""

    name = "left-hand"
    hand = _LEFT
