"""Human-behaviour models from the navigation literature: straight bias, turn biases, short memory.

All three walk corridors without reversing and turn back only at dead ends (except `turn-bias`,
which may reverse at a branch point).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent

__all__ = ["StraightBiased", "TurnBias", "FiniteMemory"]


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
    kind = _kernels.STRAIGHT_BIASED
    p_straight: float = 0.5

    def _validate(self) -> None:
        self._check_probability("p_straight")

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ints, _, order = super().kernel_params()
        return ints, np.array([self.p_straight, 0.0, 0.0]), order


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
    kind = _kernels.TURN_BIAS
    p_straight: float = 0.5
    p_reverse: float = 0.1
    p_alternate: float = 0.7

    def _validate(self) -> None:
        for key in ("p_straight", "p_reverse", "p_alternate"):
            self._check_probability(key)

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ints, _, order = super().kernel_params()
        return ints, np.array([self.p_straight, self.p_reverse, self.p_alternate]), order


@dataclass(frozen=True, kw_only=True)
class FiniteMemory(KernelAgent):
    """A random walker that avoids the cells of its last `memory` moves.

    Uniform over open neighbours not visited within that horizon; if there are none, over those
    visited longest ago. Human studies put such a horizon at 6 to 8 steps.

    Parameters
    ----------
    memory : int
        Recent moves avoided, >= 0 (7); 0 is a random walk.
    """

    name = "finite-memory"
    kind = _kernels.FINITE_MEMORY
    memory: int = 7

    def _validate(self) -> None:
        self._check_int("memory", low=0)

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        _, floats, order = super().kernel_params()
        return np.array([self.memory, 0], np.int64), floats, order
