"""numba kernels of perception (DESIGN.md section 5): windows, occlusion, isovists, the quadrant
sweep, forgetting.

Grids are padded and flat (`mazesim._grid`): `cells` the maze, `known` what the agent has seen,
UNKNOWN (2) where it has not, PASSAGE or WALL where it has (the padding ring reads WALL).
Perception returns how many cells became known (a plan over the known map is stale then).
"""

import numpy as np
from numba import njit

from mazesim._grid import pad, steps, unpad
from mazesim.maze import PASSAGE, WALL

__all__ = ["perceive", "look", "look_cached", "seen_along", "isovist_clear", "unseen_in_view",
           "unseen_in_isovist", "sweep_cells", "ISOVIST_CACHE_ENTRIES", "UNKNOWN", "FULL_VIEW",
           "WINDOW_VIEW", "ISOVIST_VIEW", "SWEEP_VIEW"]

UNKNOWN = 2
"""Known-map value of a cell not seen (beside PASSAGE 0 and WALL 1)."""
FULL_VIEW, WINDOW_VIEW, ISOVIST_VIEW, SWEEP_VIEW = 0, 1, 2, 3
"""The kinds of sight as the kernels take them (`Vision.kernel_args`)."""

ISOVIST_CACHE_ENTRIES = 4_000_000
"""Most entries (cells x cells in sight) of a walk batch's cache of isovists (32 MB of int64); a
bigger maze looks from scratch at every step."""

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
def sweep_cells(cells, width, r, c, out):
    """Write to `out` the flat cells the quadrant sweep from padded (r, c) meets (each once:
    the floor it scans and the cells, not PASSAGE, that end a row's scan); how many.

    The sweeps go up-left, up-right, down-left, down-right (the vision module docstring); the
    padding ring ends every row and every sweep, as the map's edge does. Row r is met by the
    upward sweeps and the agent's column by the leftward ones only, so nothing is written
    twice and `out` needs at most one place per cell.
    """
    rows = cells.shape[0] // width
    m = 0
    for quadrant in range(4):
        dr = -1 if quadrant < 2 else 1
        dc = -1 if quadrant % 2 == 0 else 1
        limit = 0 if dc < 0 else width - 1
        y = r
        while 0 <= y < rows:
            x, last = c, -1
            while (x - limit) * dc <= 0:
                j = y * width + x
                if (dr < 0 or y != r) and (dc < 0 or x != c):
                    out[m] = j
                    m += 1
                if cells[j] != PASSAGE:
                    break
                last = x
                x += dc
            if last < 0:
                break
            limit = last
            y += dr
    return m


@njit(cache=True)
def unseen_in_view(layout, known, width, j, kind, radius, occlusion):
    """How many cells not yet seen (`known` UNKNOWN, `layout` not WALL) would be in sight from
    flat cell j, sight judged on `layout` (the maze when its layout is known, else the known map,
    whose unseen cells block): the view an agent expects from a step to j."""
    if kind == FULL_VIEW:
        return 0
    r, c = j // width, j % width
    if kind == SWEEP_VIEW:
        met = np.empty(layout.shape[0], np.int64)
        n = 0
        for k in range(sweep_cells(layout, width, r, c, met)):
            n += known[met[k]] == UNKNOWN and layout[met[k]] != WALL
        return n
    rows = layout.shape[0] // width
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


@njit(cache=True, inline="always")
def _see(cells, known, j):
    """Mark cell j seen; 1 if it was not, else 0."""
    if known[j] == UNKNOWN:
        known[j] = cells[j]
        return 1
    return 0


@njit(cache=True, inline="always")
def _see_box(cells, width, rows, known, r, c, y0, y1, x0, x1, occlusion):
    """See the cells of padded rows y0..y1 and columns x0..x1 (clipped to the grid) from (r, c);
    how many were new."""
    n = 0
    for y in range(max(y0, 1), min(y1, rows - 2) + 1):
        for x in range(max(x0, 1), min(x1, width - 2) + 1):
            j = y * width + x
            if known[j] == UNKNOWN and (not occlusion or _bresenham_clear(cells, width, r, c,
                                                                            y, x)):
                known[j] = cells[j]
                n += 1
    return n


@njit(cache=True, inline="always")
def _see_isovist(cells, width, rows, known, r, c, radius):
    n = 0
    for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
        for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
            j = y * width + x
            if known[j] == UNKNOWN and isovist_clear(cells, width, r, c, y, x):
                known[j] = cells[j]
                n += 1
    return n


@njit(cache=True, inline="always")
def _forget(width, rows, known, visits, r, c, radius, step):
    """Forget what was seen from padded (r, c) out of the trail: its box and its neighbours."""
    for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
        for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
            j = y * width + x
            if visits[j] == 0:
                known[j] = UNKNOWN
    i = r * width + c
    for d in range(4):
        y, x = r + (d == 2) - (d == 0), c + (d == 1) - (d == 3)
        if 0 < y < rows - 1 and 0 < x < width - 1 and visits[i + step[d]] == 0:
            known[i + step[d]] = UNKNOWN


@njit(cache=True, inline="always")
def perceive(cells, width, step, known, visits, i, r, c, prev, pr, pc, kind, radius, occlusion,
             memory):
    """Update `known` for an agent now at flat cell i = padded (r, c), before at `prev` =
    (pr, pc) (prev -1: just started); the caller gives the rows and columns (a division per
    step would cost more than the rest). Returns how many cells became known.

    With memory and a window without occlusion only the strip entering the window is scanned,
    here, inline: a call passing these arrays would cost several times that step. Everything
    else is `look` (out of line). Full vision is set up by the caller.
    """
    if kind == FULL_VIEW:
        return 0
    if kind == WINDOW_VIEW and memory and not occlusion and prev >= 0 and radius > 0:
        rows = cells.shape[0] // width
        if pr != r:             # a vertical move: the row entering the window
            edge = r + radius * (r - pr)
            return _see_box(cells, width, rows, known, r, c, edge, edge, c - radius,
                            c + radius, False)
        edge = c + radius * (c - pc)
        return _see_box(cells, width, rows, known, r, c, r - radius, r + radius, edge, edge,
                        False)
    return look(cells, width, step, known, visits, i, r, c, np.int64(prev), np.int64(pr),
                np.int64(pc), kind, radius, np.bool_(occlusion), np.bool_(memory))  # (one
                                                               # variant, whatever the literals)


@njit(cache=True)
def look(cells, width, step, known, visits, i, r, c, prev, pr, pc, kind, radius, occlusion,
         memory):
    """`perceive` from scratch: a whole window (with occlusion), isovist or sweep, after
    forgetting the previous view when there is no memory; the four neighbours are always
    sensed."""
    rows = cells.shape[0] // width
    if not memory and prev >= 0:
        _forget(width, rows, known, visits, pr, pc, radius, step)
    if kind == ISOVIST_VIEW:
        n = _see_isovist(cells, width, rows, known, r, c, radius)
    elif kind == SWEEP_VIEW:
        met = np.empty(cells.shape[0], np.int64)
        n = 0
        for k in range(sweep_cells(cells, width, r, c, met)):
            n += _see(cells, known, met[k])
    else:
        n = _see_box(cells, width, rows, known, r, c, r - radius, r + radius, c - radius,
                     c + radius, occlusion)
    for d in range(4):
        n += _see(cells, known, i + step[d])
    return n


@njit(cache=True)
def _isovist_row(cells, width, i, radius, iso_len, iso):
    """The cells in line of sight of flat cell i (isovist of `radius`, the cell itself and the
    four neighbours included: `_see_isovist`'s set), computed once into row i of `iso`
    (`iso_len[i]` -1 until then): where the row starts and its length."""
    row_len = iso.shape[0] // cells.shape[0]
    if iso_len[i] < 0:
        rows = cells.shape[0] // width
        r, c = i // width, i % width
        n = 0
        for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
            for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
                if isovist_clear(cells, width, r, c, y, x):
                    iso[i * row_len + n] = y * width + x
                    n += 1
        iso_len[i] = n
    return i * row_len, iso_len[i]


@njit(cache=True)
def look_cached(cells, width, step, known, i, radius, iso_len, iso):
    """`look` of an isovist with memory over a known layout, each cell's isovist computed once
    per walk batch (`_isovist_row`): the same cells become known, the same count returned."""
    at, count = _isovist_row(cells, width, i, radius, iso_len, iso)
    n = 0
    for k in range(at, at + count):
        n += _see(cells, known, iso[k])
    for d in range(4):
        n += _see(cells, known, i + step[d])
    return n


@njit(cache=True)
def unseen_in_isovist(layout, known, width, j, radius, iso_len, iso):
    """`unseen_in_view` of an isovist over a known layout (`layout` is the maze), from the
    cache of `look_cached`."""
    at, count = _isovist_row(layout, width, j, radius, iso_len, iso)
    n = 0
    for k in range(at, at + count):
        q = iso[k]
        n += known[q] == UNKNOWN and layout[q] != WALL
    return n


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
    for t in range(pos.shape[0]):
        r, c = pos[t, 0] + 1, pos[t, 1] + 1
        perceive(cells, width, step, known, visits, r * width + c, r, c, -1, -1, -1, kind,
                 radius, occlusion, True)
    return unpad(known, h, w) != UNKNOWN
