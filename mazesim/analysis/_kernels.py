"""numba kernels of `mazesim.analysis`: every parameter in one pass, and the tutorial's DFS.

The slot constants below give the order of the values `measure` returns; `PARAMETERS` lists the
same names in the same order (DESIGN.md section 4). Breadth-first searches are `_grid.bfs` over
the padded grid (flat indices, `_grid.steps`).
"""

import numpy as np
from numba import njit

from mazesim._grid import bfs, degrees, pad, path_to, steps, unpad
from mazesim.maze import DELTAS, PASSAGE, WALL

__all__ = ["N_VALUES", "measure", "dfs_route"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])

N_VALUES = 14
(SOLUTION_LENGTH, MAX_DEPTH, BRANCH_POINTS, BRANCH_POINTS_ON_PATH, DETOUR_DEPTH, PASSAGE_CELLS,
 DEAD_ENDS, DEAD_END_RATIO, JUNCTIONS_3, JUNCTIONS_4, LOOPS, SOLUTION_TURNS,
 STRAIGHT_WRONG_BRANCHES, CORRIDOR_MEAN) = range(N_VALUES)
_DEAD_END, _CORRIDOR, _JUNCTION_3, _JUNCTION_4 = 1, 2, 3, 4


@njit(cache=True)
def _detour_depth(cells, width, path, forest):
    """DESIGN 4 `detour_depth` for any maze, loops included (`cells`: the padded grid, flat).

    With the path cells removed the other passages fall into components. From path cell p the
    cells it reaches are its neighbouring components, entered through its neighbours there, so
    the value is 1 + the largest multi-source eccentricity over the (p, component) pairs (0 when
    no path cell has an off-path neighbour). Pairs are grouped by component and measured by BFS,
    largest upper bound first; after a BFS from a single cell u, a pair entering at s is bounded
    by dist(s, u) + ecc(u) and skipped once that cannot beat the best so far. A perfect maze has
    one pair per component, entered through one edge: with `forest` (no loops in the maze) one
    BFS from all path cells at once gives every distance, O(cells).
    """
    n = cells.shape[0]
    step = steps(width)
    off = cells.copy()
    on_path = np.empty(path.shape[0], np.int64)
    for i in range(path.shape[0]):
        on_path[i] = (path[i, 0] + 1) * width + path[i, 1] + 1
        off[on_path[i]] = WALL
    no_stop = np.zeros(0, np.uint8)
    no_parent = np.zeros(0, np.int8)
    queue = np.empty(n, np.int32)              # int32 scratch: half the memory traffic
    stamp = np.full(n, -1, np.int32)  # components first (run = component id), BFS runs after
    dist = np.zeros(n, np.int32)
    if forest:
        reached, _ = bfs(off, step, on_path, stamp, np.int64(0), dist, no_parent, queue,
                         no_stop)
        return dist[queue[reached - 1]]
    n_comp = np.int64(0)
    for i in range(n):
        if off[i] == PASSAGE and stamp[i] < 0:
            bfs(off, step, np.full(1, i, np.int64), stamp, n_comp, dist, no_parent, queue,
                no_stop)
            n_comp += 1
    comp = stamp.copy()
    # (path cell, component) pairs with the path cell's neighbours in that component
    n_max = 4 * path.shape[0]
    pair_comp = np.empty(n_max, np.int64)
    pair_src = np.empty((n_max, 4), np.int64)
    pair_n = np.zeros(n_max, np.int64)
    n_pairs = 0
    for i in range(path.shape[0]):
        first = n_pairs
        for d in range(4):
            j = on_path[i] + step[d]
            if off[j] != PASSAGE:
                continue
            k = first
            while k < n_pairs and pair_comp[k] != comp[j]:
                k += 1
            if k == n_pairs:
                pair_comp[k] = comp[j]
                n_pairs += 1
            pair_src[k, pair_n[k]] = j
            pair_n[k] += 1
    order = _grouped(pair_comp[:n_pairs], n_comp)
    bound = np.empty(n_pairs, np.int64)
    best, run, a = 0, np.int64(n_comp), 0
    while a < n_pairs:
        b = a
        while b < n_pairs and pair_comp[order[b]] == pair_comp[order[a]]:
            bound[order[b]] = n  # no bound yet (a distance is < n)
            b += 1
        while True:
            top, pick = -1, -1
            for t in range(a, b):
                if bound[order[t]] > top:
                    top, pick = bound[order[t]], order[t]
            if pick < 0 or 1 + top <= best:
                break
            reached, _ = bfs(off, step, pair_src[pick, :pair_n[pick]], stamp, run, dist,
                             no_parent, queue, no_stop)
            ecc = dist[queue[reached - 1]]
            run += 1
            best = max(best, 1 + ecc)
            bound[pick] = -1  # measured
            if pair_n[pick] == 1:
                for t in range(a, b):
                    k = order[t]
                    for m in range(pair_n[k]):
                        if bound[k] >= 0:
                            bound[k] = min(bound[k], dist[pair_src[k, m]] + ecc)
        a = b
    return best


@njit(cache=True)
def _grouped(keys, n_keys):
    """Indices of `keys` (integers below `n_keys`) sorted by key, ties in index order: a stable
    counting sort (the same order as numba's mergesort argsort, which compiles for 0.7 s)."""
    start = np.zeros(n_keys + 1, np.int64)
    for k in keys:
        start[k + 1] += 1
    for k in range(n_keys):
        start[k + 1] += start[k]
    order = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        order[start[keys[i]]] = i
        start[keys[i]] += 1
    return order


@njit(cache=True)
def _path_values(grid, deg, cells, width, path, forest, out):
    """Fill the path-based slots of `out` from the canonical path (n + 1, 2)."""
    h, w = grid.shape
    n = path.shape[0] - 1
    on_path_branches = 0
    for i in range(n + 1):
        if deg[path[i, 0], path[i, 1]] >= _JUNCTION_3:
            on_path_branches += 1
    turns = 0
    straight = 0
    for i in range(1, n):
        ar, ac = path[i, 0] - path[i - 1, 0], path[i, 1] - path[i - 1, 1]
        br, bc = path[i + 1, 0] - path[i, 0], path[i + 1, 1] - path[i, 1]
        if ar != br or ac != bc:
            turns += 1
            sr, sc = path[i, 0] + ar, path[i, 1] + ac  # straight on: a wrong branch if open
            if 0 <= sr < h and 0 <= sc < w and grid[sr, sc] == PASSAGE:
                straight += 1
    out[SOLUTION_LENGTH] = n
    out[BRANCH_POINTS_ON_PATH] = on_path_branches
    out[SOLUTION_TURNS] = turns
    out[STRAIGHT_WRONG_BRANCHES] = straight
    out[DETOUR_DEPTH] = _detour_depth(cells, width, path, forest)


@njit(cache=True)
def measure(grid, sr, sc, gr, gc):
    """Every parameter of DESIGN.md section 4 as float64 in slot order; NaN where undefined.

    Path-based slots are NaN when the goal is unreachable from the start.
    """
    h, w = grid.shape
    width = w + 2
    cells = pad(grid).ravel()
    n = cells.shape[0]
    step = steps(width)
    out = np.full(N_VALUES, np.nan)
    stamp = np.zeros(n, np.int32)
    dist = np.full(n, -1, np.int32)
    parent = np.full(n, -1, np.int8)
    queue = np.empty(n, np.int32)              # int32 scratch: half the memory traffic
    no_stop = np.zeros(0, np.uint8)
    source = np.full(1, (sr + 1) * width + sc + 1, np.int64)
    reached, _ = bfs(cells, step, source, stamp, np.int64(1), dist, parent, queue, no_stop)
    deg = degrees(grid)
    cells_n = edges = dead = j3 = j4 = corridor = corridor_edges = 0
    max_depth = 0
    reached_corridor = 0
    for r in range(h):
        for c in range(w):
            k = deg[r, c]
            if k < 0:
                continue
            cells_n += 1
            edges += k
            if k == _DEAD_END:
                dead += 1
            elif k == _CORRIDOR:
                corridor += 1
                if r + 1 < h and deg[r + 1, c] == _CORRIDOR:
                    corridor_edges += 1
                if c + 1 < w and deg[r, c + 1] == _CORRIDOR:
                    corridor_edges += 1
            elif k == _JUNCTION_3:
                j3 += 1
            elif k == _JUNCTION_4:
                j4 += 1
            depth = dist[(r + 1) * width + c + 1]
            if depth >= 0:
                if k == _CORRIDOR:
                    reached_corridor += 1
                if depth > max_depth:
                    max_depth = depth
    dist_2d, parent_2d = unpad(dist, h, w), unpad(parent, h, w)
    # Components: the start's, plus one more per flood from a passage cell not yet reached. A
    # component whose cells all have degree 2 is a ring: a corridor run with no ends.
    components = 1
    rings = 1 if reached == reached_corridor else 0
    no_parent = np.zeros(0, np.int8)
    for i in range(n):
        if cells[i] == PASSAGE and stamp[i] != 1:
            components += 1
            size, _ = bfs(cells, step, np.full(1, i, np.int64), stamp, np.int64(1), dist, no_parent,
                          queue, no_stop)
            ring = True
            for q in range(size):
                if deg[queue[q] // width - 1, queue[q] % width - 1] != _CORRIDOR:
                    ring = False
                    break
            rings += ring
    edges //= 2
    runs = corridor - corridor_edges + rings  # runs of a max-degree-2 graph: paths + rings
    out[MAX_DEPTH] = max_depth
    out[BRANCH_POINTS] = j3 + j4
    out[PASSAGE_CELLS] = cells_n
    out[DEAD_ENDS] = dead
    out[DEAD_END_RATIO] = dead / cells_n
    out[JUNCTIONS_3] = j3
    out[JUNCTIONS_4] = j4
    out[LOOPS] = edges - cells_n + components
    out[CORRIDOR_MEAN] = corridor / runs if runs > 0 else 0.0
    if dist_2d[gr, gc] >= 0:
        _path_values(grid, deg, cells, width, path_to(parent_2d, dist_2d, gr, gc),
                     out[LOOPS] == 0, out)
    return out


@njit(cache=True)
def dfs_route(grid, sr, sc, gr, gc, order):
    """The tutorial's recursive DFS, iteratively: cells (n + 1, 2) of the route it returns.

    Tries neighbours in `order` (direction indices), never revisits a cell, and returns the
    recursion stack when it reaches the goal; empty (0, 2) if the goal is unreachable.
    """
    h, w = grid.shape
    visited = np.zeros((h, w), np.bool_)
    stack = np.empty((h * w, 2), np.int64)
    tried = np.zeros(h * w, np.int64)  # how many directions of `order` each stack entry tried
    stack[0, 0], stack[0, 1] = sr, sc
    top = 1
    if sr == gr and sc == gc:
        return stack[:1].copy()
    visited[sr, sc] = True
    while top > 0:
        i = top - 1
        if tried[i] == order.shape[0]:
            top -= 1
            continue
        d = order[tried[i]]
        tried[i] += 1
        nr, nc = stack[i, 0] + _DR[d], stack[i, 1] + _DC[d]
        if 0 <= nr < h and 0 <= nc < w and grid[nr, nc] == PASSAGE and not visited[nr, nc]:
            stack[top, 0], stack[top, 1] = nr, nc
            tried[top] = 0
            top += 1
            if nr == gr and nc == gc:
                return stack[:top].copy()
            visited[nr, nc] = True
    return np.empty((0, 2), np.int64)
