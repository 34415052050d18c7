"""The grid primitives every layer shares, compiled: the one BFS and passage degrees.

Kernels work on *padded* grids: the grid inside one ring of walls (`pad`), flattened, so that the
neighbour of flat cell `i` in direction `d` is `i + steps[d]` (`steps(width)`) with no bounds
checks. `bfs` is the only breadth-first search of the package: several sources, scratch arrays
reused across calls (a cell is reached in this call when `stamp[i] == run`), an optional early
stop, and directions of arrival when asked for. Distance maps, routes, the parameters, the agents'
plans over their known maps and trajectory measures all call it.
"""

import numpy as np

from mazesim.jit import kernel
from mazesim.maze import DELTAS, PASSAGE, WALL

__all__ = ["pad", "steps", "unpad", "bfs", "distances", "path_to", "degree", "degrees"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])


@kernel
def pad(grid):
    """The grid inside one ring of walls, as a new uint8 array (H + 2, W + 2)."""
    h, w = grid.shape
    out = np.empty((h + 2, w + 2), np.uint8)
    for r in range(h + 2):
        for c in range(w + 2):
            out[r, c] = grid[r - 1, c - 1] if 0 < r <= h and 0 < c <= w else WALL
    return out


@kernel
def steps(width):
    """Flat offsets of the four neighbours (canonical order) in a padded grid `width` wide."""
    out = np.empty(4, np.int64)
    for d in range(4):
        out[d] = _DR[d] * width + _DC[d]
    return out


@kernel
def unpad(values, h, w):
    """The (H, W) interior of a flat array over a padded (H + 2, W + 2) grid, as a copy."""
    out = np.empty((h, w), values.dtype)
    for r in range(h):
        for c in range(w):
            out[r, c] = values[(r + 1) * (w + 2) + c + 1]
    return out


@kernel
def bfs(cells, step, sources, stamp, run, dist, parent, queue, stop):
    """Breadth-first search over the cells equal to PASSAGE of the flat padded array `cells`.

    Starts from every index in `sources` (distance 0) and expands neighbours in the canonical
    order. A reached cell gets `stamp[i] = run` (cells already stamped `run` count as reached;
    with `stamp` empty, cells whose `dist` is not -1 do, for a single search over a fresh `dist`),
    its distance in `dist` and, unless `parent` is empty, the direction of the move that first
    reached it (-1 at a source). `queue[:reached]` lists the reached cells in BFS order. With a
    non-empty `stop`, the search ends when it takes from the queue a cell whose `stop` is set.

    Returns (cells reached, the stop cell taken or -1).
    """
    record = parent.shape[0] > 0
    early = stop.shape[0] > 0
    stamped = stamp.shape[0] > 0
    tail = 0
    for s in sources:
        if stamp[s] != run if stamped else dist[s] < 0:
            if stamped:
                stamp[s] = run
            dist[s] = 0
            if record:
                parent[s] = -1
            queue[tail] = s
            tail += 1
    head = 0
    while head < tail:
        i = queue[head]
        head += 1
        if early and stop[i] != 0:
            return tail, i
        nd = dist[i] + 1
        for d in range(4):
            j = i + step[d]
            if cells[j] == PASSAGE and (stamp[j] != run if stamped else dist[j] < 0):
                if stamped:
                    stamp[j] = run
                dist[j] = nd
                if record:
                    parent[j] = d
                queue[tail] = j
                tail += 1
    return tail, -1


@kernel
def distances(grid, sr, sc):
    """BFS from (sr, sc) over the passages of an (H, W) grid: (dist int32, -1 where unreachable;
    parent int8, the direction of the move that first reached each cell, -1 at the source and
    unreached cells), both (H, W)."""
    h, w = grid.shape
    walled = _walled(grid)                      # most mazes: searched in place, no padding
    cells = np.ascontiguousarray(grid).ravel() if walled else pad(grid).ravel()
    width, at = (w, 0) if walled else (w + 2, 1)
    n = cells.shape[0]
    dist = np.full(n, -1, np.int32)
    parent = np.full(n, -1, np.int8)
    queue = np.empty(n, np.int32)               # int32: half the memory traffic of int64
    source = np.full(1, (sr + at) * width + sc + at, np.int64)
    bfs(cells, steps(width), source, np.zeros(0, np.int32), np.int64(1), dist, parent, queue,
        np.zeros(0, np.uint8))
    if walled:
        return dist.reshape(h, w), parent.reshape(h, w)
    return unpad(dist, h, w), unpad(parent, h, w)


@kernel
def _walled(grid):
    """Whether every border cell of `grid` is a wall (then no step from a passage leaves it)."""
    h, w = grid.shape
    for c in range(w):
        if grid[0, c] != WALL or grid[h - 1, c] != WALL:
            return False
    for r in range(h):
        if grid[r, 0] != WALL or grid[r, w - 1] != WALL:
            return False
    return True


@kernel
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


@kernel
def degree(grid, r, c):
    """Number of passage neighbours of (r, c) in an (H, W) grid (cells off the grid are walls)."""
    h, w = grid.shape
    n = 0
    for d in range(4):
        y, x = r + _DR[d], c + _DC[d]
        if 0 <= y < h and 0 <= x < w and grid[y, x] == PASSAGE:
            n += 1
    return n


@kernel
def degrees(grid):
    """Int8 (H, W): the passage degree of every passage cell (1 a dead end, 2 a corridor, 3 or 4
    a branch point); -1 on walls."""
    h, w = grid.shape
    out = np.full((h, w), -1, np.int8)
    for r in range(h):
        for c in range(w):
            if grid[r, c] == PASSAGE:
                out[r, c] = degree(grid, r, c)
    return out
