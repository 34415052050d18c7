"""Grid primitives shared by several layers: BFS distances and parents (numba, STYLE.md)."""

import numpy as np
from numba import njit

from mazesim.maze import DELTAS

__all__ = ["bfs", "path_to"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])


@njit(cache=True)
def bfs(grid, sr, sc):
    """BFS from (sr, sc) over passages (grid == 0), neighbours in the canonical order.

    Returns (dist int32 (H, W), -1 where unreachable; parent int8 (H, W): the direction of the move
    that first reached each cell, -1 at the source and unreached cells).
    """
    h, w = grid.shape
    dist = np.full((h, w), -1, np.int32)
    parent = np.full((h, w), -1, np.int8)
    queue = np.empty(h * w, np.int64)
    dist[sr, sc] = 0
    queue[0] = sr * w + sc
    head, tail = 0, 1
    while head < tail:
        cur = queue[head]
        head += 1
        r, c = cur // w, cur % w
        nd = dist[r, c] + 1
        for d in range(4):
            nr, nc = r + _DR[d], c + _DC[d]
            if 0 <= nr < h and 0 <= nc < w and grid[nr, nc] == 0 and dist[nr, nc] < 0:
                dist[nr, nc] = nd
                parent[nr, nc] = d
                queue[tail] = nr * w + nc
                tail += 1
    return dist, parent


@njit(cache=True)
def path_to(parent, dist, gr, gc):
    """Cells (n, 2) from the BFS source to (gr, gc) by walking parents back; empty if unreached."""
    n = dist[gr, gc]
    if n < 0:
        return np.empty((0, 2), np.int64)
    path = np.empty((n + 1, 2), np.int64)
    r, c = gr, gc
    for i in range(n, -1, -1):
        path[i, 0] = r
        path[i, 1] = c
        if i > 0:
            d = parent[r, c]
            r -= _DR[d]
            c -= _DC[d]
    return path
