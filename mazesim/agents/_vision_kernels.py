"""numba kernels of perception (DESIGN.md section 5): windows, occlusion, isovists, forgetting.

Grids are padded and flat (`mazesim._grid`): `cells` the maze, `known` what the agent has seen,
UNKNOWN (2) where it has not, PASSAGE or WALL where it has (the padding ring reads WALL). Each
kernel that changes `known` appends the changed cells to `changed` and returns how many it
appended, so that callers keeping derived state (the `bfs` agent's frontier) update only those.
"""

import numpy as np
from numba import njit

from mazesim._grid import pad, steps, unpad
from mazesim.agents.vision import FULL_VIEW, ISOVIST_VIEW, UNKNOWN
from mazesim.maze import PASSAGE, WALL

__all__ = ["perceive", "seen_along", "isovist_clear", "unseen_in_view"]

ISOVIST_CORNERS = np.array([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]])
"""Offsets (x, y) inside a cell of the four segments of an isovist test (the task's code)."""
ISOVIST_STEPS_PER_CELL = 45
"""A segment to a cell at Chebyshev distance d is tested at 45 d points."""


@njit(cache=True)
def _bresenham_clear(cells, width, r, c, tr, tc):
    """Whether (tr, tc) is in sight from (r, c) (padded coordinates): the Bresenham line crosses
    passages only (the end cell itself may be a wall)."""
    dr, dc = abs(tr - r), abs(tc - c)
    sr = 1 if tr > r else -1
    sc = 1 if tc > c else -1
    err = dr - dc
    y, x = r, c
    while True:
        if y == tr and x == tc:
            return True
        if (y != r or x != c) and cells[y * width + x] != PASSAGE:
            return False
        e2 = 2 * err
        if e2 > -dc:
            err -= dc
            y += sr
        if e2 < dr:
            err += dr
            x += sc


@njit(cache=True)
def isovist_clear(cells, width, y, x, py, px):
    """Whether cell (py, px) is in line of sight of the agent at (y, x) (padded coordinates), by
    the Maze Search Task's rule: each of four segments between matching points of the two cells,
    walked from the target in 45 d steps, reaches the agent's cell before any wall."""
    d = max(abs(py - y), abs(px - x))
    if d == 0 or abs(py - y) + abs(px - x) == 1:
        return True
    n = ISOVIST_STEPS_PER_CELL * d
    for k in range(4):
        ox, oy = ISOVIST_CORNERS[k, 0], ISOVIST_CORNERS[k, 1]
        bx, by = px + ox, py + oy
        sx, sy = (x + ox - bx) / n, (y + oy - by) / n
        for m in range(1, n + 1):
            cy, cx = int(np.floor(by + m * sy)), int(np.floor(bx + m * sx))
            if cy == y and cx == x:
                break
            if cells[cy * width + cx] != PASSAGE:
                return False
    return True


@njit(cache=True)
def unseen_in_view(layout, known, width, j, kind, radius, occlusion):
    """How many cells not yet seen (`known` UNKNOWN, `layout` not WALL) would be in sight from
    flat cell j, sight judged on `layout` (the maze when its layout is known, else the known map,
    whose unseen cells block): the view an agent expects from a step to j."""
    if kind == FULL_VIEW:
        return 0
    rows = layout.shape[0] // width
    r, c = j // width, j % width
    reach = max(radius, 1)              # the four neighbours are sensed even with k = 0
    n = 0
    for y in range(max(r - reach, 1), min(r + reach, rows - 2) + 1):
        for x in range(max(c - reach, 1), min(c + reach, width - 2) + 1):
            q = y * width + x
            if known[q] != UNKNOWN or layout[q] == WALL:
                continue
            if abs(y - r) + abs(x - c) == 1:
                n += 1
            elif max(abs(y - r), abs(x - c)) <= radius:
                if kind == ISOVIST_VIEW:
                    n += isovist_clear(layout, width, r, c, y, x)
                else:
                    n += not occlusion or _bresenham_clear(layout, width, r, c, y, x)
    return n


@njit(cache=True)
def _see(cells, known, j, changed, n):
    """Mark cell j seen; append it to `changed` (at index n) when it was not; the new count."""
    if known[j] == UNKNOWN:
        known[j] = cells[j]
        changed[n] = j
        return n + 1
    return n


@njit(cache=True)
def _see_box(cells, width, known, r, c, y0, y1, x0, x1, occlusion, changed, n):
    """See the cells of padded rows y0..y1 and columns x0..x1 (clipped to the grid) from (r, c)."""
    rows = cells.shape[0] // width
    for y in range(max(y0, 1), min(y1, rows - 2) + 1):
        for x in range(max(x0, 1), min(x1, width - 2) + 1):
            j = y * width + x
            if known[j] == UNKNOWN and (not occlusion or _bresenham_clear(cells, width, r, c,
                                                                            y, x)):
                n = _see(cells, known, j, changed, n)
    return n


@njit(cache=True)
def _see_isovist(cells, width, known, r, c, radius, changed, n):
    rows = cells.shape[0] // width
    for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
        for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
            j = y * width + x
            if known[j] == UNKNOWN and isovist_clear(cells, width, r, c, y, x):
                n = _see(cells, known, j, changed, n)
    return n


@njit(cache=True)
def _forget(cells, width, known, visits, r, c, radius, step, changed, n):
    """Forget what was seen from padded (r, c) out of the trail: its box and its neighbours."""
    rows = cells.shape[0] // width
    for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
        for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
            j = y * width + x
            if visits[j] == 0 and known[j] != UNKNOWN:
                known[j] = UNKNOWN
                changed[n] = j
                n += 1
    i = r * width + c
    for d in range(4):
        j = i + step[d]
        inside = 0 < j // width < rows - 1 and 0 < j % width < width - 1
        if inside and visits[j] == 0 and known[j] != UNKNOWN:
            known[j] = UNKNOWN
            changed[n] = j
            n += 1
    return n


@njit(cache=True)
def perceive(cells, width, step, known, visits, i, prev, kind, radius, occlusion, memory,
             changed):
    """Update `known` for an agent now at flat cell i, before at `prev` (-1: just started).

    Returns (cells newly seen, cells changed: the first entries of `changed`, forgotten ones
    before seen ones). With memory and a window without occlusion only
    the strip entering the window is scanned. Without memory the previous view is forgotten
    first, except the trail (cells with visits > 0). Full vision is set up by the caller.
    """
    if kind == FULL_VIEW:
        return 0, 0
    r, c = i // width, i % width
    n = 0
    if not memory and prev >= 0:
        n = _forget(cells, width, known, visits, prev // width, prev % width, radius, step,
                    changed, n)
    forgotten = n
    if kind == ISOVIST_VIEW:
        n = _see_isovist(cells, width, known, r, c, radius, changed, n)
    elif memory and not occlusion and prev >= 0:
        pr = prev // width
        if pr != r:             # a vertical move: the row entering the window
            edge = r + radius * (r - pr)
            n = _see_box(cells, width, known, r, c, edge, edge, c - radius, c + radius, False,
                         changed, n)
        else:
            edge = c + radius * (c - prev % width)
            n = _see_box(cells, width, known, r, c, r - radius, r + radius, edge, edge, False,
                         changed, n)
    else:
        n = _see_box(cells, width, known, r, c, r - radius, r + radius, c - radius, c + radius,
                     occlusion, changed, n)
    if radius == 0 or occlusion or kind == ISOVIST_VIEW:   # else the window holds them
        for d in range(4):
            n = _see(cells, known, i + step[d], changed, n)
    return n - forgotten, n


@njit(cache=True)
def seen_along(grid, pos, kind, radius, occlusion):
    """Bool (H, W): cells seen anywhere along the walk `pos` (T+1, 2) (the union)."""
    h, w = grid.shape
    if kind == FULL_VIEW:
        return np.ones((h, w), np.bool_)
    cells = pad(grid).ravel()
    width = w + 2
    step = steps(width)
    known = np.full(cells.shape[0], UNKNOWN, np.uint8)
    visits = np.zeros(cells.shape[0], np.int32)
    changed = np.empty(cells.shape[0], np.int64)
    for t in range(pos.shape[0]):
        i = (pos[t, 0] + 1) * width + pos[t, 1] + 1
        perceive(cells, width, step, known, visits, i, -1, kind, radius, occlusion, True,
                 changed)
    return unpad(known, h, w) != UNKNOWN
