"""Compiled measures of many stacked walks of one maze (`mazesim.humans.predict.walks`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def walk_measures(cells, moves, sees_goal, n_cells):
    """Per walk: revisits (moves into a cell entered before) and the first step at which the
    walker stands where it sees the goal (-1: never); and the visits of every cell, summed.

    `cells` holds the walks' flat cells (row * width + col) one walk after another, walk k
    `moves[k] + 1` of them; `sees_goal[c]` is set where the goal is in sight from cell c.
    """
    walks = moves.shape[0]
    revisits = np.zeros(walks, np.int64)
    exit_seen = np.full(walks, -1, np.int64)
    visits = np.zeros(n_cells, np.int64)
    stamp = np.zeros(n_cells, np.int64)
    at = 0
    for k in range(walks):
        for t in range(moves[k] + 1):
            c = cells[at + t]
            visits[c] += 1
            if stamp[c] == k + 1:
                revisits[k] += 1
            stamp[c] = k + 1
            if exit_seen[k] < 0 and sees_goal[c]:
                exit_seen[k] = t
        at += moves[k] + 1
    return revisits, exit_seen, visits
