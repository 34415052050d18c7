"""`shortest`: walks the shortest path, ignoring vision (the lower bound of the movement count)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim import _kernels as grid_kernels
from mazesim.agents._base import AgentBase
from mazesim.agents.vision import Vision
from mazesim.errors import AgentError
from mazesim.maze import Maze

__all__ = ["Shortest"]


@dataclass(frozen=True, kw_only=True)
class Shortest(AgentBase):
    """Walks the shortest path, ignoring vision: the lower bound of the movement count.

    The canonical BFS path of DESIGN section 4, truncated at `max_steps`; `goal_seeking` has no
    effect.
    """

    name = "shortest"

    def walk(self, maze: Maze, vision: Vision, rng: np.random.Generator,
             max_steps: int) -> np.ndarray:
        dist, parent = grid_kernels.bfs(maze.grid, *maze.start)
        path = grid_kernels.path_to(parent, dist, *maze.goal)
        if len(path) == 0:
            raise AgentError(f"{self.name}: the goal {maze.goal} is unreachable from the start")
        return path[: max_steps + 1].copy()
