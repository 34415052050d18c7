"""`shortest`: walks the shortest path, ignoring vision (the lower bound of the movement count)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim import _grid
from mazesim.agents.base import AgentBase, Walks, choice_rows
from mazesim.agents.vision import Vision
from mazesim.errors import AgentError
from mazesim.maze import Maze
from mazesim.records import N_COLUMNS

__all__ = ["Shortest"]


@dataclass(frozen=True, kw_only=True)
class Shortest(AgentBase):
    """Walks the shortest path, ignoring vision: the lower bound of the movement count.

    The canonical BFS path of DESIGN section 4, truncated at `max_steps`; `goal_seeking` has no
    effect. It gives no step probabilities (it is not a model of choices).
    """

    name = "shortest"

    def run_trials(self, maze: Maze, vision: Vision, streams: np.ndarray, max_steps: int, *,
                   keep: bool, record: np.ndarray) -> Walks:
        dist, parent = _grid.distances(maze.grid, *maze.start)
        path = _grid.path_to(parent, dist, *maze.goal)
        if len(path) == 0:
            raise AgentError(f"{self.name}: the goal {maze.goal} is unreachable from the start")
        path = path[: max_steps + 1]
        trials = len(streams)
        rows = np.zeros((0, N_COLUMNS), np.int64)
        if record.any():
            rows = choice_rows(maze, path, record)
        moves = np.full(trials, len(path) - 1, np.int64)
        reached = np.full(trials, tuple(path[-1]) == maze.goal, np.bool_)
        return Walks(moves, reached, np.tile(rows, (trials, 1)),
                     np.repeat(np.arange(trials), len(rows)),
                     np.tile(path, (trials, 1)) if keep else np.zeros((0, 2), np.int64))

    def step_probabilities(self, maze: Maze, vision: Vision, positions: np.ndarray
                           ) -> np.ndarray:
        raise AgentError(f"{self.name}: gives no step probabilities (it is not a model of "
                         "choices)")
