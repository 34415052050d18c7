"""`right-hand` and `left-hand`: wall followers, one rule with a `hand` parameter.

The rule's compiled hooks follow the protocol of `mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from numba import njit

from mazesim.agents.base import KernelAgent
from mazesim.agents.rules import Rule

__all__ = ["WallFollower", "RightHand", "LeftHand"]

SLOTS = ("hand",)
HAND = 0
_RIGHT, _LEFT = 1, -1       # turn of the hand side, in quarter turns clockwise


@njit(cache=True, inline="always")
def probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Hand side, straight on, other side, back; facing up at the start."""
    hand = int(p[HAND])
    heading = arrival if arrival >= 0 else 0
    out[:] = 0.0
    for turn in (hand, 0, -hand, 2):
        d = (heading + turn) % 4
        if om[d] != 0:
            out[d] = 1.0
            break


RULE = Rule("wall-follower", probabilities)


@dataclass(frozen=True, kw_only=True)
class WallFollower(KernelAgent):
    """Keeps one hand on the wall: tries the hand side, straight on, the other side, then back.

    At the start, with no direction of arrival, it faces up. Solves every perfect maze.
    """

    rule = RULE
    slots = SLOTS
    hand: ClassVar[int] = _RIGHT


@dataclass(frozen=True, kw_only=True)
class RightHand(WallFollower):
    """Keeps its right hand on the wall: at a junction right, else straight, else left."""

    name = "right-hand"
    hand = _RIGHT


@dataclass(frozen=True, kw_only=True)
class LeftHand(WallFollower):
    """Keeps its left hand on the wall: at a junction left, else straight, else right."""

    name = "left-hand"
    hand = _LEFT
