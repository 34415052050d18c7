"""`random-walk`: uniform over the open neighbours at every move.

The rule's compiled hooks follow the protocol of `mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from mazesim.agents.base import KernelAgent
from mazesim.agents.rules import Rule, uniform

__all__ = ["RandomWalk"]


@njit(cache=True, inline="always")
def probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    uniform(out, om)


RULE = Rule("random-walk", probabilities)


@dataclass(frozen=True, kw_only=True)
class RandomWalk(KernelAgent):
    """Each move goes to one of the open neighbours with equal probability (no memory at all)."""

    name = "random-walk"
    rule = RULE
