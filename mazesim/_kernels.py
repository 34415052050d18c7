"""Grid primitives shared by several layers: BFS distances and parents (numba, STYLE.md)."""

import numpy as np
from numba import njit

from mazesim.maze import DELTAS

__all__ = ["bfs", "path_to"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])


@njit(cache=True)
def _walled(grid):
    h, w = grid.shape
    for r in range(h):
        if grid[r, 0] == 0 or grid[r, w - 1] == 0:
            return False
    for c in range(w):
        if grid[0, c] == 0 or grid[h - 1, c] == 0:
            return False
    return True


@njit(cache=True)
def _bfs_walled(grid, sr, sc):
    h, w = grid.shape
    flat = grid.ravel()
    dist = np.full(h * w, -1, np.int32)
    parent = np.full(h * w, -1, np.int8)
    queue = np.empty(h * w, np.int32)
    step = _DR * w + _DC
    dist[sr * w + sc] = 0
    queue[0] = sr * w + sc
    head, tail = 0, 1
    while head < tail:
        i = queue[head]
        head += 1
        nd = dist[i] + 1
        for d in range(4):
            j = i + step[d]
            if flat[j] == 0 and dist[j] < 0:
                dist[j] = nd
                parent[j] = d
                queue[tail] = j
                tail += 1
    return dist.reshape(h, w), parent.reshape(h, w)


@njit(cache=True)
def bfs(grid, sr, sc):
    """BFS from (sr, sc) over passages (grid == 0), neighbours in the canonical order.

    Returns (dist int32 (H, W), -1 where unreachable; parent int8 (H, W): the direction of the move
    that first reached each cell, -1 at the source and unreached cells).
    """
    if _walled(grid):
        return _bfs_walled(np.ascontiguousarray(grid), sr, sc)
    h, w = grid.shape
    padded = np.ones((h + 2, w + 2), np.uint8)
    padded[1:-1, 1:-1] = grid
    dist, parent = _bfs_walled(padded, sr + 1, sc + 1)
    return dist[1:-1, 1:-1].copy(), parent[1:-1, 1:-1].copy()


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
