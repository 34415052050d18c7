"""`bfs` and `dfs`: the two search habits the study saw in its subjects (section 4.4).

The rule's compiled hooks follow the protocol of `mazesim.agents.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from mazesim.agents._vision_kernels import UNKNOWN
from mazesim.agents.base import KernelAgent
from mazesim.agents.rules import Rule, spread, uniform
from mazesim.maze import DIRECTIONS, PASSAGE, WALL

__all__ = ["BreadthFirst", "DepthFirst", "RANDOM"]

RANDOM = "random"
RANDOM_ORDER = -1.0     # parameter of a random neighbour order (else the four directions)


_FRUITLESS = 0           # slot of `rs`: the BFS stamp of the last search that found nothing


@njit(cache=True)
def bfs_target(p, ws, i):
    """The frontier cell (a known, unvisited passage next to a cell not yet seen) nearest the
    start, else the unvisited known passage nearest the start; -1 if none is left: the first in
    the order of a BFS from the start over known passages (canonical order on ties).

    Its own loop rather than `_grid.bfs`, because it stops on a test of the known map, not on a
    mask: a frontier mask kept current at every step, or a search run to the end, makes the agent
    1.3 to 2 times slower (measured). After a search that found nothing, the agent wanders over
    visited cells and asks again at every step: `_still_nothing` answers -1 from the box around
    it while that provably stays the answer (without it a forgetful agent searched its whole
    trail at every step, 15 s for one trial of a 201x201 maze).
    """
    rs = ws.rs
    if rs[_FRUITLESS] == ws.gen[0] and _still_nothing(ws, i):
        return -1
    ws.gen[0] += 1
    gen = ws.gen[0]
    stamp, queue, layout, step, visits, known = ws.stamp, ws.queue, ws.layout, ws.step, \
        ws.visits, ws.known
    stamp[ws.start] = gen
    queue[0] = ws.start
    head, tail, fallback = 0, 1, -1
    while head < tail:
        j = queue[head]
        head += 1
        if visits[j] == 0:
            for d in range(4):          # (under a known map, an unseen wall shows nothing)
                q = j + step[d]
                if known[q] == UNKNOWN and layout[q] != WALL:
                    rs[_FRUITLESS] = -1.0
                    return j
            if fallback < 0:
                fallback = j
        for d in range(4):
            q = j + step[d]
            if layout[q] == PASSAGE and stamp[q] != gen:
                stamp[q] = gen
                queue[tail] = q
                tail += 1
    rs[_FRUITLESS] = gen if fallback < 0 else -1.0
    return fallback


@njit(cache=True)
def _still_nothing(ws, i):
    """Whether a search from the start would again find nothing, the last search having found
    nothing and no other search having run since (the caller checks the stamp).

    That search's component of the start held visited cells only. The agent then stepped onto a
    cell visited before (else: False), so the visited cells are the same, and they stay known
    passages; a path from the start to an unvisited passage now leaves that component through a
    cell that has just become a passage next to a visited cell. Such cells lie within `ws.sight`
    of i (what one look changes); none there: nothing. Unbounded sight (the sweep): False.
    """
    if ws.visits[i] < 2 or ws.sight < 0:
        return False
    layout, visits, step, width = ws.layout, ws.visits, ws.step, ws.width
    rows = layout.shape[0] // width
    r, c, radius = ws.row[i], ws.col[i], ws.sight
    for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
        for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
            q = y * width + x
            if layout[q] == PASSAGE and visits[q] == 0:
                for d in range(4):
                    if visits[q + step[d]] > 0:
                        return False
    return True


@njit(cache=True, inline="always")
def wander(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Nothing known is left unvisited: uniform over the open neighbours."""
    uniform(out, om)


BFS_RULE = Rule("bfs", wander, target=bfs_target)


@njit(cache=True, inline="always")
def dfs_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """An unvisited neighbour (random or the first in the order), else back where the cell was
    entered from."""
    random_order = p[0] == RANDOM_ORDER
    n = 0
    for d in range(4):
        out[d] = 1.0 if (om[d] != 0 and nv[d] == 0) else 0.0
        n += out[d] != 0.0
    if n == 0:
        if came >= 0:
            out[(came + 2) % 4] = 1.0
        else:
            for d in range(4):              # nothing left to explore (cannot happen if G is
                out[d] = om[d]              # reachable): wander, the cap ends it
        spread(out)
    elif random_order:
        spread(out)
    else:
        for k in range(4):
            d = int(p[k])
            if out[d] != 0.0:
                out[:] = 0.0
                out[d] = 1.0
                break


DFS_RULE = Rule("dfs", dfs_probabilities)


@dataclass(frozen=True, kw_only=True)
class BreadthFirst(KernelAgent):
    """Explores the cells nearest the start first: the study's breadth-first subject.

    Targets the frontier cell nearest the start: a known, unvisited passage next to a cell not
    yet seen (BFS distance over known passages from the start; ties go to the cell that BFS,
    expanding up, right, down, left, reaches first), and walks there along a shortest known
    path; with nothing left to see, the nearest unvisited known passage. With vision 0 it
    visits every cell in order of distance from the start; with a wider window it need not walk
    into what it has already seen.
    """

    name = "bfs"
    rule = BFS_RULE


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
    rule = DFS_RULE
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

    def kernel_params(self) -> np.ndarray:
        """The order as four direction indices, or RANDOM_ORDER four times."""
        if self.order == RANDOM:
            return np.full(4, RANDOM_ORDER)
        return np.array([DIRECTIONS.index(d) for d in self.order], np.float64)
