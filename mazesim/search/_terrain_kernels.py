"""numba kernels of the search package: terrain Dijkstra over flat arrays and the table descent.

The Dijkstra orders cells by the pair (cost, hops): among equally cheap routes the one with fewer
moves wins, so a descent that only steps to a smaller pair cannot cycle even on zero-cost cells.
The heap is an indexed binary heap (each cell at most once, decrease-key in place).
"""

import numpy as np
from numba import njit

__all__ = ["terrain_dijkstra", "terrain_descent"]

# Descent order of the source (002): up, down, left, right; the first of equal neighbours wins.
_DESCENT_DR = np.array([-1, 1, 0, 0], dtype=np.int64)
_DESCENT_DC = np.array([0, 0, -1, 1], dtype=np.int64)
_NOT_IN_HEAP = -1
_SETTLED = -2


@njit(cache=True)
def _before(d1, h1, d2, h2):
    return d1 < d2 or (d1 == d2 and h1 < h2)


@njit(cache=True)
def _sift_up(hd, hh, hn, pos, i, d, nh, node):
    """Place entry (d, nh, node) at heap slot `i` or above (keys inline: fewer cache misses)."""
    while i > 0:
        up = (i - 1) >> 1
        if not _before(d, nh, hd[up], hh[up]):
            break
        hd[i], hh[i], hn[i] = hd[up], hh[up], hn[up]
        pos[hn[i]] = i
        i = up
    hd[i], hh[i], hn[i] = d, nh, node
    pos[node] = i


@njit(cache=True)
def _sift_down(hd, hh, hn, pos, size, d, nh, node):
    """Place entry (d, nh, node) at the root or below, in a heap of `size` entries."""
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(hd[child + 1], hh[child + 1], hd[child], hh[child]):
            child += 1
        if not _before(hd[child], hh[child], d, nh):
            break
        hd[i], hh[i], hn[i] = hd[child], hh[child], hn[child]
        pos[hn[i]] = i
        i = child
    hd[i], hh[i], hn[i] = d, nh, node
    pos[node] = i


@njit(cache=True)
def terrain_dijkstra(costs, gr, gc, leave, stop):
    """Least cost from every cell to (gr, gc) on a 4-neighbour grid of non-negative `costs`.

    `leave` true: a route pays the cells it leaves (the goal excluded); false: the cells it enters
    (the start excluded). Infinite costs are impassable. `stop` >= 0 is a flat cell index at which
    to stop once it is settled (cells not yet settled then hold upper bounds or inf), -1 for all.
    Returns (table float64 (H, W), inf where unreachable; hops int64 (H, W), moves of the cheapest
    route with fewest moves, -1 where unreachable).
    """
    h, w = costs.shape
    n = h * w
    flat = costs.ravel()
    dist = np.full(n, np.inf)
    hops = np.full(n, -1, np.int64)
    hd = np.empty(n, np.float64)
    hh = np.empty(n, np.int64)
    hn = np.empty(n, np.int64)
    pos = np.full(n, _NOT_IN_HEAP, np.int64)
    goal = gr * w + gc
    dist[goal] = 0.0
    hops[goal] = 0
    hd[0], hh[0], hn[0] = 0.0, 0, goal
    pos[goal] = 0
    size = 1
    while size > 0:
        u = hn[0]
        pos[u] = _SETTLED
        size -= 1
        if size > 0:
            _sift_down(hd, hh, hn, pos, size, hd[size], hh[size], hn[size])
        if u == stop:
            break
        r, c = u // w, u % w
        du = dist[u]
        nh = hops[u] + 1
        for d in range(4):
            nr, nc = r + _DESCENT_DR[d], c + _DESCENT_DC[d]
            if nr < 0 or nr >= h or nc < 0 or nc >= w:
                continue
            v = nr * w + nc
            if pos[v] == _SETTLED or flat[v] == np.inf:
                continue
            nd = du + (flat[v] if leave else flat[u])
            if nd < dist[v] or (nd == dist[v] and nh < hops[v]):
                dist[v] = nd
                hops[v] = nh
                if pos[v] == _NOT_IN_HEAP:
                    size += 1
                    _sift_up(hd, hh, hn, pos, size - 1, nd, nh, v)
                else:
                    _sift_up(hd, hh, hn, pos, pos[v], nd, nh, v)
    return dist.reshape(h, w), hops.reshape(h, w)


@njit(cache=True)
def terrain_descent(costs, table, hops, sr, sc, leave):
    """Cells (n, 2) from (sr, sc) down the table to its zero: the source's descent (002).

    At each cell the next one is the neighbour, among those with a smaller (cost, hops) pair,
    that minimises step cost plus table value; the first in the order up, down, left, right wins
    a tie. The (cost, hops) pair falls at every step, so the descent ends at the goal (hops 0).
    The start must have a finite table value.
    """
    h, w = table.shape
    route = np.empty((hops[sr, sc] + 1, 2), np.int64)   # grows if the descent takes more moves
    r, c = sr, sc
    route[0, 0], route[0, 1] = r, c
    n = 1
    while hops[r, c] > 0:
        best = np.inf
        br, bc = -1, -1
        for d in range(4):
            nr, nc = r + _DESCENT_DR[d], c + _DESCENT_DC[d]
            if nr < 0 or nr >= h or nc < 0 or nc >= w:
                continue
            t = table[nr, nc]
            if not (t < table[r, c] or (t == table[r, c] and 0 <= hops[nr, nc] < hops[r, c])):
                continue
            value = t + (costs[r, c] if leave else costs[nr, nc])
            if value < best:
                best, br, bc = value, nr, nc
        r, c = br, bc
        if n == route.shape[0]:
            bigger = np.empty((2 * n, 2), np.int64)
            bigger[:n] = route
            route = bigger
        route[n, 0], route[n, 1] = r, c
        n += 1
    return route[:n].copy()
