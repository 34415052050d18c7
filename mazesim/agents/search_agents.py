"""`bfs` and `dfs`: the two search habits the study saw in its subjects (section 4.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mazesim.agents import _kernels
from mazesim.agents._base import KernelAgent
from mazesim.maze import DIRECTIONS

__all__ = ["BreadthFirst", "DepthFirst", "RANDOM", "TUTORIAL_ORDER"]

RANDOM = "random"
TUTORIAL_ORDER = ("down", "right", "up", "left")     # the tutorial's DFS (source 000)


@dataclass(frozen=True, kw_only=True)
class BreadthFirst(KernelAgent):
    """Explores the cells nearest the start first: the study's breadth-first subject.

    Targets the frontier cell nearest the start: a known, unvisited passage next to a cell not
    yet seen (BFS distance over known passages; ties row-major), and walks there along a shortest
    known path; with nothing left to see, the nearest unvisited known passage. With vision 0 it
    visits every cell in order of distance from the start; with a wider window it need not walk
    into what it has already seen.
    """

    name = "bfs"
    kind = _kernels.BFS_AGENT


@dataclass(frozen=True, kw_only=True)
class DepthFirst(KernelAgent):
    """Goes deeper while an unvisited neighbour exists, backtracks when stuck.

    Steps into an unvisited open neighbour whenever one exists, else steps back the way it first
    entered the cell: a depth-first search walked on foot.

    Parameters
    ----------
    order : "random" or a list of direction names
        `random` (default) picks uniformly among unvisited neighbours; a list such as
        `[down, right, up, left]` (the tutorial's) tries them in that order.
    """

    name = "dfs"
    kind = _kernels.DFS
    order: Any = RANDOM

    def _validate(self) -> None:
        order = self.order
        if isinstance(order, str) and order != RANDOM:
            order = [part.strip() for part in order.split(",")]
        if order != RANDOM:
            if not isinstance(order, (list, tuple)) or sorted(map(str, order)) != sorted(
                DIRECTIONS
            ):
                raise self._fail("order", "random or a list of up, right, down, left, each once")
            order = tuple(str(d) for d in order)
        object.__setattr__(self, "order", order)

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ints, floats, order = super().kernel_params()
        if self.order != RANDOM:
            order = np.array([DIRECTIONS.index(d) for d in self.order], np.int64)
        return ints, floats, order
