"""`weighted-walker`: the study's direction-weighted walker (source 004, appendix A).

The rule's compiled hooks follow the protocol of `mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from mazesim.agents.base import LOG, KernelAgent, Param
from mazesim.agents.rules import Rule

__all__ = ["WeightedWalker", "BACKTRACKS"]

BACKTRACKS = ("retrace", "marks")
SLOTS = ("initial_count", "count_backtrack", "retrace")
INITIAL_COUNT, COUNT_BACKTRACK, RETRACE = range(len(SLOTS))
_MAX_INITIAL_COUNT = 1e12


@njit(cache=True, inline="always")
def reset(p, rs, marks):
    for d in range(4):
        rs[d] = p[INITIAL_COUNT]                # the direction counts


@njit(cache=True, inline="always")
def probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Unexplored neighbours; else back where the cell was first entered from (`retrace`), or
    the neighbours passed once, else the least passed (`marks`); count-weighted."""
    retrace = p[RETRACE] != 0.0     # parameters read first: an array read inside a condition
    n = 0                           # costs a reference count on every step
    for d in range(4):
        out[d] = rs[d] if (om[d] != 0 and nv[d] == 0) else 0.0
        n += om[d] != 0 and nv[d] == 0
    if n == 0 and retrace and came >= 0:
        out[(came + 2) % 4] = rs[(came + 2) % 4]
        n = 1
    if n == 0:
        for d in range(4):
            out[d] = rs[d] if (om[d] != 0 and nv[d] == 1) else 0.0
            n += om[d] != 0 and nv[d] == 1
    if n == 0:
        low = 1 << 30
        for d in range(4):
            if om[d] != 0 and nv[d] < low:
                low = nv[d]
        for d in range(4):
            out[d] = rs[d] if (om[d] != 0 and nv[d] == low) else 0.0
    total = out[0] + out[1] + out[2] + out[3]
    for d in range(4):
        out[d] /= total


@njit(cache=True, inline="always")
def update(p, rs, marks, i, j, d, arrival, om, new):
    count_backtrack = p[COUNT_BACKTRACK] != 0.0
    if count_backtrack or new:
        rs[d] += 1.0


RULE = Rule("weighted-walker", probabilities, update=update, reset=reset)


@dataclass(frozen=True, kw_only=True)
class WeightedWalker(KernelAgent):
    """The study's direction-weighted walker (the rule of its appendix A).

    As DESIGN section 6 states it.

    Cells are unexplored, passed once or passed twice or more; the start is passed once. With w
    unexplored open neighbours: w >= 1 step into an unexplored one; w = 0 go back the way it
    came (来た道を戻る): with `backtrack: retrace` (default) to the cell from which the current
    cell was first entered, a depth-first retreat; with `backtrack: marks` the literal mark
    reading, to a neighbour passed once, if none to the least-passed ones (which can step back
    into a dead-end tip). Among several candidates the draw is proportional to the direction
    counts, which start at `initial_count` and grow by one per step in that direction (only
    steps into unexplored cells if `count_backtrack` is false). `goal_seeking` defaults to
    false: the study's walker ignores what it sees.

    Parameters
    ----------
    initial_count : float
        Starting count of each direction (the study: 1), > 0; large values make the choices
        uniform.
    count_backtrack : bool
        Whether steps into already passed cells add to the counts (the study: yes).
    backtrack : "retrace" or "marks"
        How it steps back when no unexplored neighbour is left (see above).
    """

    name = "weighted-walker"
    rule = RULE
    slots = SLOTS
    fitted = (Param("initial_count", 1e-2, 1e3, LOG),)
    goal_seeking: bool = False
    initial_count: float = 1
    count_backtrack: bool = True
    backtrack: str = "retrace"

    @property
    def retrace(self) -> bool:
        return self.backtrack == "retrace"

    def _validate(self) -> None:
        value = self.initial_count
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                0 < value <= _MAX_INITIAL_COUNT):
            raise self._fail("initial_count", f"a number > 0 and <= {_MAX_INITIAL_COUNT:g}")
        self._check_bool("count_backtrack")
        if self.backtrack not in BACKTRACKS:
            raise self._fail("backtrack", ", ".join(BACKTRACKS))
