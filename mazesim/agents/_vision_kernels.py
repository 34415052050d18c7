"""numba kernels of perception (DESIGN.md section 5) and of plans over the known map.

The known map is int8 (H, W): UNKNOWN (-1), 0 passage, 1 wall. Agents decide from it, from the
four neighbours (always sensed) and from their own trail only.
"""

import numpy as np
from numba import njit

from mazesim.maze import DELTAS

__all__ = ["UNKNOWN", "perceive", "seen_along", "plan_to", "bfs_target"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])
UNKNOWN = -1


@njit(cache=True)
def _visible(grid, r, c, tr, tc):
    """Whether (tr, tc) is in sight from (r, c): the Bresenham line crosses passages only."""
    dr, dc = abs(tr - r), abs(tc - c)
    sr = 1 if tr > r else -1
    sc = 1 if tc > c else -1
    err = dr - dc
    y, x = r, c
    while True:
        if y == tr and x == tc:
            return True
        if (y != r or x != c) and grid[y, x] != 0:
            return False
        e2 = 2 * err
        if e2 > -dc:
            err -= dc
            y += sr
        if e2 < dr:
            err += dr
            x += sc


@njit(cache=True, inline="always")
def _see_box(grid, known, r, c, y0, y1, x0, x1, occlusion):
    """Reveal the cells of rows y0..y1, columns x0..x1 (clipped) seen from (r, c)."""
    h, w = grid.shape
    new = 0
    for y in range(max(y0, 0), min(y1 + 1, h)):
        for x in range(max(x0, 0), min(x1 + 1, w)):
            if known[y, x] == UNKNOWN and (not occlusion or _visible(grid, r, c, y, x)):
                known[y, x] = grid[y, x]
                new += 1
    return new


@njit(cache=True, inline="always")
def perceive(grid, known, visits, r, c, k, occlusion, memory, pr, pc):
    """Update `known` for an agent now at (r, c), before at (pr, pc) (-1: just started); return
    how many cells became known.

    With memory and no occlusion only the strip entering the window is scanned. Without memory
    the previous window is forgotten first, except the trail (cells with visits > 0). Full
    vision (k < 0) is set up once by the caller.
    """
    h, w = grid.shape
    if not memory and pr >= 0:
        for y in range(max(pr - k, 0), min(pr + k + 1, h)):
            for x in range(max(pc - k, 0), min(pc + k + 1, w)):
                if visits[y, x] == 0:
                    known[y, x] = UNKNOWN
        for d in range(4):
            y, x = pr + _DR[d], pc + _DC[d]
            if 0 <= y < h and 0 <= x < w and visits[y, x] == 0:
                known[y, x] = UNKNOWN
    if memory and not occlusion and pr >= 0:
        if pr != r:             # a vertical move: the row entering the window
            edge = r + k * (r - pr)
            new = _see_box(grid, known, r, c, edge, edge, c - k, c + k, False)
        else:
            edge = c + k * (c - pc)
            new = _see_box(grid, known, r, c, r - k, r + k, edge, edge, False)
    else:
        new = _see_box(grid, known, r, c, r - k, r + k, c - k, c + k, occlusion)
    if k == 0 or occlusion:             # otherwise the window holds the neighbours
        for d in range(4):
            y, x = r + _DR[d], c + _DC[d]
            if 0 <= y < h and 0 <= x < w and known[y, x] == UNKNOWN:
                known[y, x] = grid[y, x]
                new += 1
    return new


@njit(cache=True)
def seen_along(grid, pos, k, occlusion):
    """Bool (H, W): cells perceived anywhere along `pos` (the union, with or without memory)."""
    h, w = grid.shape
    if k < 0:
        return np.ones((h, w), np.bool_)
    known = np.full((h, w), UNKNOWN, np.int8)
    visits = np.zeros((h, w), np.int32)
    for i in range(pos.shape[0]):
        perceive(grid, known, visits, pos[i, 0], pos[i, 1], k, occlusion, True, -1, -1)
    return known != UNKNOWN


@njit(cache=True)
def _bfs(known, sr, sc, stop_r, stop_c, stamp, gen, value, queue):
    """BFS over known passages from (sr, sc) in the canonical direction order, stopping once
    (stop_r, stop_c) is reached (-1: never). Reached cells get stamp[y, x] = gen and their
    distance in `value`; `queue` (H*W) is scratch. Arrays are reused across calls, nothing is
    allocated or cleared: a new `gen` invalidates the previous call's marks.
    """
    h, w = known.shape
    stamp[sr, sc] = gen
    value[sr, sc] = 0
    queue[0] = sr * w + sc
    head, tail = 0, 1
    while head < tail:
        cur = queue[head]
        head += 1
        r, c = cur // w, cur % w
        if r == stop_r and c == stop_c:
            break
        for d in range(4):
            y, x = r + _DR[d], c + _DC[d]
            if 0 <= y < h and 0 <= x < w and known[y, x] == 0 and stamp[y, x] != gen:
                stamp[y, x] = gen
                value[y, x] = value[r, c] + 1
                queue[tail] = y * w + x
                tail += 1
    return tail


@njit(cache=True)
def plan_to(known, r, c, tr, tc, plan, stamp, gen, dist, queue):
    """Directions of a shortest path over known passages from (r, c) to (tr, tc) into `plan`;
    its length, or -1 when no known path exists.

    The BFS runs from the target and stops at (r, c), so it costs little while the target's
    known region is small (the goal just glimpsed) or the target is near (the `bfs` agent).
    Each step then goes to the neighbour one closer to the target (canonical order on ties).
    """
    if r == tr and c == tc:
        return 0
    _bfs(known, tr, tc, r, c, stamp, gen, dist, queue)
    if stamp[r, c] != gen:
        return -1
    n = dist[r, c]
    h, w = known.shape
    for i in range(n):
        for d in range(4):
            y, x = r + _DR[d], c + _DC[d]
            if 0 <= y < h and 0 <= x < w and stamp[y, x] == gen and dist[y, x] == n - i - 1:
                plan[i] = d
                r, c = y, x
                break
    return n


@njit(cache=True)
def _frontier(known, y, x):
    """Whether the known passage (y, x) has an unknown neighbour: going there shows more."""
    h, w = known.shape
    for d in range(4):
        ny, nx = y + _DR[d], x + _DC[d]
        if 0 <= ny < h and 0 <= nx < w and known[ny, nx] == UNKNOWN:
            return True
    return False


@njit(cache=True)
def bfs_target(known, visits, sr, sc, stamp, gen, queue):
    """The `bfs` agent's next target as a flat index (-1 if none is left): the frontier cell
    (a known, unvisited passage next to an unknown cell) nearest the start, else the unvisited
    known passage nearest the start. One BFS from the start over known passages (canonical
    order, so ties go to the cell it reaches first) that stops at the first frontier cell."""
    h, w = known.shape
    stamp[sr, sc] = gen
    queue[0] = sr * w + sc
    head, tail, fallback = 0, 1, -1
    while head < tail:
        cur = queue[head]
        head += 1
        r, c = cur // w, cur % w
        if visits[r, c] == 0:
            if _frontier(known, r, c):
                return cur
            if fallback < 0:
                fallback = cur
        for d in range(4):
            y, x = r + _DR[d], c + _DC[d]
            if 0 <= y < h and 0 <= x < w and known[y, x] == 0 and stamp[y, x] != gen:
                stamp[y, x] = gen
                queue[tail] = y * w + x
                tail += 1
    return fallback
