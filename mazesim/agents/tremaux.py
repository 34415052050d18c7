"""`tremaux`: Tremaux's algorithm, marking each passage end as it is walked."""

from __future__ import annotations

from dataclasses import dataclass

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent

__all__ = ["Tremaux"]


@dataclass(frozen=True, kw_only=True)
class Tremaux(KernelAgent):
    """Tremaux's algorithm: marks passages, never walks one twice the same way.

    Works on the cell graph: every passage between two cells gets a mark each time it
    is walked. At a new place take an unmarked passage (uniformly at random); at an old place
    reached by a new passage turn back; otherwise take a passage with the fewest marks, never
    one with two. Each passage is walked at most once in each direction."""

    name = "tremaux"
    kind = _kernels.TREMAUX
