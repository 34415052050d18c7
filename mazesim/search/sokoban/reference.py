"""Push-based A* for Sokoban on the generic search layer: the reference (and test oracle) of the
compiled search.

The same states (player normalised to the smallest cell of its region, sorted boxes), the same
pruning kernels (dead squares, freeze and cut-off goals, PI-corrals) and the same lower bound,
computed here with ``scipy.optimize.linear_sum_assignment``; only the loop is
`mazesim.search.generic.astar`. It finds the same push counts, about 10x more slowly on Microban
(``benchmarks/bench_sokoban.py --engine generic``), which is why `solver` runs its own compiled
loop.
"""

from __future__ import annotations

import math
import time

import numpy as np

from mazesim.search.sokoban import _kernels as _k
from mazesim.search import generic
from mazesim.search.sokoban._search import deadlocked
from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.deadlocks import dead_mask, push_distances

__all__ = ["push_astar"]


def push_astar(board: Board, prune: str, deadline: float = math.inf):
    """Push-optimal A* on `generic.astar` until the `time.perf_counter` time `deadline`.

    Returns (pushes as (box cell, direction) rows or None, states seen, timed out).

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> board = Board.of(parse_levels("#######\\n#@ $ .#\\n#######\\n")[0])
    >>> pushes, states, timed_out = push_astar(board, "full")
    >>> pushes.tolist(), states, timed_out
    ([[2, 1], [3, 1]], 3, False)
    """
    search = _PushSearch(board, prune)
    root = (search.canonical(board.player, board.boxes), tuple(sorted(board.boxes)))
    goals = tuple(int(g) for g in np.flatnonzero(board.goal))
    left = None if math.isinf(deadline) else max(deadline - time.perf_counter(), 0.0)
    result = generic.astar(root, search.pushes, lambda s: s[1] == goals, search.heuristic,
                           time_limit=left)
    if not result.found:
        return None, result.seen, result.truncated
    path = []
    for (_, before), (_, after) in zip(result.path, result.path[1:]):
        (b,) = set(before) - set(after)
        (t,) = set(after) - set(before)
        path.append((b, int(np.flatnonzero(board.nbr[b] == t)[0])))
    return np.array(path, np.int16).reshape(-1, 2), result.seen, False


class _PushSearch:
    """The states of `push_astar`: (the lowest cell the player reaches, sorted box cells), their
    children one push away (`pushes`) and the assignment lower bound (`heuristic`), with the
    scratch arrays the kernels share."""

    def __init__(self, board: Board, prune: str) -> None:
        # imported here: scipy.optimize takes 0.25 s to import, which every command would pay
        from scipy.optimize import linear_sum_assignment

        self.assign = linear_sum_assignment
        self.nbr, n = board.nbr, board.size
        self.dist = push_distances(board)
        self.dead = dead_mask(board, prune).astype(np.uint8)
        self.goal = board.goal.astype(np.uint8)
        self.full = prune == "full"
        self.occ, self.mark = np.zeros(n, np.uint8), np.zeros(n, np.int32)
        self.member, self.area = np.zeros(n, np.uint8), np.zeros(n, np.int32)
        self.group = np.zeros(n, np.int32)
        self.stamp = 0
        self.clock = _k.new_clock()     # the deadlock test charges it; generic.astar keeps time

    def canonical(self, player: int, boxes) -> int:
        self.occ[list(boxes)] = 1
        self.stamp += 1
        low = _k.reach(self.nbr, self.occ, player, self.mark, self.stamp)
        self.occ[list(boxes)] = 0
        return int(low)

    def heuristic(self, state) -> float:
        cost = self.dist[:, list(state[1])].T
        rows, cols = self.assign(np.minimum(cost, _k.INF))
        return float(cost[rows, cols].sum())

    def pushes(self, state):
        player, boxes = state
        nbr, occ, mark = self.nbr, self.occ, self.mark
        occ[list(boxes)] = 1
        self.stamp += 1
        _k.reach(nbr, occ, player, mark, self.stamp)
        corral, doomed = _k.pi_corral(nbr, occ, mark, self.stamp, self.dead, self.goal,
                                      self.area) if self.full else (-1, False)
        found = []
        for b in boxes if not doomed else ():
            for d in range(4):
                p, t = nbr[b, (d + 2) % 4], nbr[b, d]
                if p < 0 or mark[p] != self.stamp or t < 0 or occ[t] or self.dead[t]:
                    continue
                if corral >= 0 and self.area[t] != corral:
                    continue
                occ[b], occ[t] = 0, 1
                stuck = self.full and deadlocked(t, nbr, occ, self.dead, self.goal, self.member,
                                                 self.group, self.clock)
                occ[b], occ[t] = 1, 0
                if not stuck:
                    found.append((b, int(t)))
        occ[list(boxes)] = 0
        for b, t in found:
            moved = tuple(sorted(set(boxes) - {b} | {t}))
            child = (self.canonical(b, moved), moved)
            if self.heuristic(child) < _k.INF:
                yield child, 1
