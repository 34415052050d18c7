"""What an agent can see and remember (DESIGN.md section 5): one perception layer for all agents.

Every agent decides from its *known map* only: an int8 array of the grid's shape holding
`UNKNOWN` (-1), `PASSAGE` (0) or `WALL` (1). The map is filled by the perception kernel
(`mazesim.agents._vision_kernels.perceive`) after every move:

- `full` vision: the whole grid, goal included, is known from the start.
- vision `k`: the (2k+1) x (2k+1) square centred on the agent is seen; the four neighbours are
  always sensed (an agent could not move otherwise), even with k = 0.
- `occlusion`: a cell of the window is seen only if the straight line (Bresenham) from the agent
  to it crosses passages only; the cell itself may be a wall.
- `memory` off: cells out of view are forgotten, except the cells the agent has stood on (its own
  trail, which every agent keeps as its state: visit counts, Tremaux marks, the DFS stack).

Agents' walking rules that only use the four neighbours and their own trail (random walk, the
weighted walker, wall followers, ...) are unaffected by vision; vision matters for goal seeking
(walking a known path to a known goal) and for the `bfs` agent, which plans over the known map.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mazesim.errors import AgentError
from mazesim.maze import Maze

__all__ = ["Vision", "FULL", "STUDY_VISION", "UNKNOWN", "parse_vision", "seen_cells"]

FULL = "full"
STUDY_VISION = 2          # the study's +-2 window (section 3.1)
UNKNOWN = -1              # known-map value of a cell the agent has not seen
_FULL_K = -1              # how kernels receive `full`


@dataclass(frozen=True)
class Vision:
    """Vision and memory of an agent: `k` None for full vision, else the window half-width."""

    k: int | None = None
    occlusion: bool = False
    memory: bool = True

    def __post_init__(self) -> None:
        if self.k is not None and (
            isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 0
        ):
            raise AgentError(f"vision: {self.k!r} (allowed: full or an integer >= 0)")
        if self.k is not None:
            object.__setattr__(self, "k", int(self.k))
        for key in ("occlusion", "memory"):
            if not isinstance(getattr(self, key), (bool, np.bool_)):
                raise AgentError(f"vision.{key}: {getattr(self, key)!r} (allowed: true, false)")
            object.__setattr__(self, key, bool(getattr(self, key)))

    @property
    def full(self) -> bool:
        return self.k is None

    @property
    def kernel_k(self) -> int:
        """The window half-width as kernels take it (-1 for full vision)."""
        return _FULL_K if self.k is None else self.k

    def __str__(self) -> str:
        text = FULL if self.k is None else str(self.k)
        if self.occlusion:
            text += ", occlusion"
        if not self.memory:
            text += ", no memory"
        return text


def parse_vision(value: Any, name: str = "vision") -> Vision:
    """A Vision from a Vision, "full", an integer >= 0 or its text; AgentError naming `name`."""
    if isinstance(value, Vision):
        return value
    if value is None or (isinstance(value, str) and value.strip().lower() == FULL):
        return Vision()
    if isinstance(value, str) and value.strip().isdigit():
        return Vision(int(value.strip()))
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return Vision(int(value))
    raise AgentError(f"{name}: {value!r} (allowed: full or an integer >= 0)")


def seen_cells(maze: Maze, positions: np.ndarray, vision: Vision | str | int) -> np.ndarray:
    """Bool (H, W): every cell perceived at some point of a walk along `positions`.

    The same kernel as the agents' perception; used to check that an agent's choices depend on
    seen cells only, and to draw what a limited-vision walker saw.
    """
    from mazesim.agents import _vision_kernels

    vision = parse_vision(vision)
    positions = np.array(positions, dtype=np.int64).reshape(-1, 2)
    return _vision_kernels.seen_along(maze.grid, positions, vision.kernel_k, vision.occlusion)
