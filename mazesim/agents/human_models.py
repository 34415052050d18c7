"""Human-behaviour models from the navigation literature: straight bias, turn biases, short memory.

All three walk corridors without reversing and turn back only at dead ends (except `turn-bias`,
which may reverse at a branch point). Their compiled hooks follow the protocol of
`mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from mazesim.agents.base import INTEGER, KernelAgent, Param
from mazesim.agents.rules import Rule, spread, uniform
from mazesim.records import BRANCH_DEGREE

__all__ = ["StraightBiased", "TurnBias", "FiniteMemory"]

STRAIGHT_SLOTS = ("p_straight",)
TURN_SLOTS = ("p_straight", "p_reverse", "p_alternate")
P_STRAIGHT, P_REVERSE, P_ALTERNATE = range(len(TURN_SLOTS))
MEMORY_SLOTS = ("horizon",)
HORIZON = 0
NO_TURN, LEFT_TURN, RIGHT_TURN = -1, 0, 1
LAST_TURN = 0           # slot of the rule state: the last turn made at a branch point
_EPS = 1e-12
MAX_HORIZON = 1_000_000_000    # moves; a horizon longer than any walk is a plain avoider
MAX_FIT_HORIZON = 30
"""Largest `finite-memory` horizon a fit tries (every integer from 0 is read)."""
_PROBABILITY = (0.0, 1.0)


@njit(cache=True, inline="always")
def _not_back(out, om, back):
    """Candidates (1.0) the open directions except `back`, at a dead end back alone; returns
    how many there are besides back (0: a dead end). (Integer flags summed, dead ends apart:
    the straight walker runs 1.3 to 1.8 times faster than with float flags counted back.)"""
    n = 0
    for d in range(4):
        flag = om[d] if d != back else 0
        out[d] = flag
        n += flag
    if n == 0:
        out[back] = 1.0
    return n


@njit(cache=True, inline="always")
def straight_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Straight on with p_straight at a branch point, else uniform over the other non-back."""
    p_straight = p[P_STRAIGHT]
    if arrival < 0:
        uniform(out, om)
        return
    n = _not_back(out, om, (arrival + 2) % 4)
    if n == 0:
        return
    if om[arrival] != 0 and n > 1:
        share = (1.0 - p_straight) / (n - 1)
        for d in range(4):
            out[d] *= share
        out[arrival] = p_straight
    else:
        spread(out)


STRAIGHT_RULE = Rule("straight-biased", straight_probabilities)


@njit(cache=True, inline="always")
def turn_reset(p, rs, marks):
    rs[LAST_TURN] = NO_TURN


@njit(cache=True, inline="always")
def turn_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Turn biases at branch points; corridors followed, dead ends reversed."""
    last_turn = rs[LAST_TURN]
    if arrival < 0:
        uniform(out, om)
    elif om[0] + om[1] + om[2] + om[3] >= BRANCH_DEGREE:
        _turn_probabilities(p, om, arrival, last_turn, out)
    else:
        _not_back(out, om, (arrival + 2) % 4)
        spread(out)


@njit(cache=True, inline="always")
def _turn_probabilities(p, om, arrival, last_turn, out):
    """At a branch point: reverse, straight, then the turns split by alternation."""
    back = (arrival + 2) % 4
    left, right = (arrival + 3) % 4, (arrival + 1) % 4
    out[:] = 0.0
    out[back] = p[P_REVERSE] * om[back]
    go = 1.0 - p[P_REVERSE]
    out[arrival] = go * p[P_STRAIGHT] * om[arrival]
    turn = go * (1.0 - p[P_STRAIGHT])
    if om[left] != 0 and om[right] != 0:
        if last_turn == NO_TURN:
            share_left = 0.5
        else:
            share_left = p[P_ALTERNATE] if last_turn == RIGHT_TURN else 1.0 - p[P_ALTERNATE]
        out[left] = turn * share_left
        out[right] = turn * (1.0 - share_left)
    elif om[left] != 0:
        out[left] = turn
    elif om[right] != 0:
        out[right] = turn
    if _normalise(out) <= _EPS:             # every remaining option has probability 0
        for d in range(4):
            out[d] = om[d] if d != back else 0
        _normalise(out)


@njit(cache=True, inline="always")
def _normalise(out):
    """Scale `out` to sum 1 in place; return the former sum."""
    total = out[0] + out[1] + out[2] + out[3]
    if total > 0.0:
        for d in range(4):
            out[d] /= total
    return total


@njit(cache=True, inline="always")
def turn_update(p, rs, marks, i, j, d, arrival, om, new):
    if arrival >= 0 and om[0] + om[1] + om[2] + om[3] >= BRANCH_DEGREE:
        if d == (arrival + 3) % 4:
            rs[LAST_TURN] = LEFT_TURN
        elif d == (arrival + 1) % 4:
            rs[LAST_TURN] = RIGHT_TURN


TURN_RULE = Rule("turn-bias", turn_probabilities, update=turn_update, reset=turn_reset)


@njit(cache=True, inline="always")
def memory_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Uniform over neighbours not occupied in the last `horizon` moves, else the oldest."""
    horizon = p[HORIZON]
    oldest = t + 1
    n = 0
    for d in range(4):
        out[d] = 1.0 if (om[d] != 0 and (nlast[d] < 0 or t - nlast[d] > horizon)) else 0.0
        n += out[d] != 0.0
        if om[d] != 0 and nlast[d] < oldest:
            oldest = nlast[d]
    if n == 0:
        for d in range(4):
            out[d] = 1.0 if (om[d] != 0 and nlast[d] == oldest) else 0.0
    spread(out)


MEMORY_RULE = Rule("finite-memory", memory_probabilities, reads_last=True)


@dataclass(frozen=True, kw_only=True)
class StraightBiased(KernelAgent):
    """Keeps its direction at branch points with probability `p_straight`.

    At a branch point keep the direction of arrival with probability `p_straight` (if open),
    otherwise pick uniformly among the other open directions except back. Where straight on is
    closed, uniform over the open directions except back; corridors are followed; dead ends
    reversed. At the start, uniform over the open directions.

    Parameters
    ----------
    p_straight : float
        In [0, 1]; 0.5 default.
    """

    name = "straight-biased"
    rule = STRAIGHT_RULE
    slots = STRAIGHT_SLOTS
    fitted = (Param("p_straight", *_PROBABILITY),)
    p_straight: float = 0.5

    def _validate(self) -> None:
        self._check_probability("p_straight")


@dataclass(frozen=True, kw_only=True)
class TurnBias(KernelAgent):
    """Local turning biases at branch points: straight on, reversal, alternation of turns.

    After Rosenberg et al. (2021, eLife 10:e66175, "Mice in a labyrinth").
    Their mice walk a binary-tree maze whose every junction is a T; their four biases are the
    probabilities of going forward rather than reversing, of alternating the previous turn, and
    two for arrivals from a branch. Adapted to grid branch points (3 or 4 open neighbours; straight
    on may exist): reverse with `p_reverse`; otherwise straight on with `p_straight`, otherwise
    turn; when both turns are open, take the turn opposite to the previous turn made at a branch
    point with probability `p_alternate` (left and right equally likely before any turn). Options
    that are closed drop out and the rest is renormalised. Corridors are followed, dead ends
    reversed; at the start, uniform over the open directions.

    Parameters
    ----------
    p_straight : float
        Straight on, given no reversal (0.5).
    p_reverse : float
        Turn back at a branch point (0.1).
    p_alternate : float
        Alternate the previous turn (0.7; Rosenberg et al. report alternation above chance).
    """

    name = "turn-bias"
    rule = TURN_RULE
    slots = TURN_SLOTS
    fitted = tuple(Param(key, *_PROBABILITY) for key in TURN_SLOTS)
    p_straight: float = 0.5
    p_reverse: float = 0.1
    p_alternate: float = 0.7

    def _validate(self) -> None:
        for key in TURN_SLOTS:
            self._check_probability(key)


@dataclass(frozen=True, kw_only=True)
class FiniteMemory(KernelAgent):
    """A random walker that avoids the cells of its last `horizon` moves.

    Uniform over open neighbours not visited within that horizon; if there are none, over those
    visited longest ago. Human studies put such a horizon at 6 to 8 steps.

    Parameters
    ----------
    horizon : int
        Recent moves avoided, >= 0 (7); 0 is a random walk. (Named apart from `Vision.memory`,
        which says whether out-of-view cells are remembered.)
    """

    name = "finite-memory"
    rule = MEMORY_RULE
    slots = MEMORY_SLOTS
    fitted = (Param("horizon", 0, MAX_FIT_HORIZON, INTEGER),)
    horizon: int = 7

    def _validate(self) -> None:
        self._check_int("horizon", low=0, high=MAX_HORIZON)
