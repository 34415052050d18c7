"""`tremaux`: Tremaux's algorithm, marking each passage end as it is walked.

The rule's compiled hooks follow the protocol of `mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from mazesim.agents.base import KernelAgent
from mazesim.agents.rules import Rule, spread

__all__ = ["Tremaux"]

MARK_CAP = 6    # marks saturate here (Tremaux itself never passes 2)


@njit(cache=True, inline="always")
def reset(p, rs, marks):
    marks[:, :] = 0


@njit(cache=True, inline="always")
def probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """A new place: any unmarked passage; an old place reached by a new passage: back; else the
    fewest marks."""
    back = (arrival + 2) % 4 if arrival >= 0 else -1
    n = 0
    for d in range(4):
        out[d] = 1.0 if (om[d] != 0 and d != back) else 0.0
        n += out[d] != 0.0
    if n == 0:
        out[back] = 1.0                     # dead end
    elif back >= 0 and marks[i, back] == 1 and _marked(marks, i, om, back) > 0:
        out[:] = 0.0                        # an old place reached by a new passage: turn back
        out[back] = 1.0
    else:
        low = MARK_CAP + 1
        for d in range(4):
            if om[d] != 0 and marks[i, d] < low:
                low = marks[i, d]
        for d in range(4):
            out[d] = 1.0 if (om[d] != 0 and marks[i, d] == low) else 0.0
    spread(out)


@njit(cache=True)
def _marked(marks, i, om, back):
    """How many open passages of cell i other than `back` carry marks (0: a new place)."""
    n = 0
    for d in range(4):
        if om[d] != 0 and d != back and marks[i, d] > 0:
            n += 1
    return n


@njit(cache=True, inline="always")
def update(p, rs, marks, i, j, d, arrival, om, new):
    """Mark both ends of the passage walked."""
    marks[i, d] = min(marks[i, d] + 1, MARK_CAP)
    marks[j, (d + 2) % 4] = min(marks[j, (d + 2) % 4] + 1, MARK_CAP)


RULE = Rule("tremaux", probabilities, update=update, reset=reset)


@dataclass(frozen=True, kw_only=True)
class Tremaux(KernelAgent):
    """Tremaux's algorithm: marks passages, never walks one twice the same way.

    Works on the cell graph: every passage between two cells gets a mark each time it
    is walked. At a new place take an unmarked passage (uniformly at random); at an old place
    reached by a new passage turn back; otherwise take a passage with the fewest marks, never
    one with two. Each passage is walked at most once in each direction."""

    name = "tremaux"
    rule = RULE
