"""Numba loops of the row-by-row and chamber generators, and of the braid.

Same conventions as `_kernels.py` (room (i, j) is grid cell (2i+1, 2j+1)), whose helpers they
share; split off only to keep each file short.
"""

import numpy as np

from mazesim._grid import degree
from mazesim.generators._kernels import _DC, _DR, _below, _find, _link, _rooms_open
from mazesim.jit import kernel
from mazesim.maze import DOWN, LEFT, PASSAGE, RIGHT, UP, WALL



@kernel
def binary_tree(h, w, rng):
    """Binary tree: every room opens up or left, at random where both exist."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _rooms_open(h, w)
    for i in range(rh):
        for j in range(rw):
            if i > 0 and (j == 0 or rng.random() < 0.5):
                _link(grid, i, j, UP)
            elif j > 0:
                _link(grid, i, j, LEFT)
    return grid


@kernel
def sidewinder(h, w, rng):
    """Sidewinder: runs of rooms along each row, each run opened up from one random room."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _rooms_open(h, w)
    for j in range(rw - 1):
        _link(grid, 0, j, RIGHT)
    for i in range(1, rh):
        run = 0
        for j in range(rw):
            if j < rw - 1 and rng.random() < 0.5:
                _link(grid, i, j, RIGHT)
            else:
                _link(grid, i, run + _below(rng, j - run + 1), UP)
                run = j + 1
    return grid


@kernel
def eller(h, w, join, rng):
    """Eller: one row at a time, joining neighbours of different sets with probability `join`;
    every set then goes down from a random half of its rooms (at least one); the last row joins
    all sets."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _rooms_open(h, w)
    parent = np.arange(rh * rw)  # union-find over all rooms
    roots = np.empty(rw, np.int64)
    count = np.zeros(rh * rw, np.int64)
    pick = np.empty(rh * rw, np.int64)
    down = np.zeros(rh * rw, np.bool_)
    for i in range(rh):
        last = i == rh - 1
        for j in range(rw - 1):
            a, b = _find(parent, i * rw + j), _find(parent, i * rw + j + 1)
            if a != b and (last or rng.random() < join):
                parent[a] = b
                _link(grid, i, j, RIGHT)
        if last:
            break
        for j in range(rw):
            root = _find(parent, i * rw + j)
            roots[j] = root
            count[root] = 0
            down[root] = False
        for j in range(rw):
            root = roots[j]
            count[root] += 1
            if _below(rng, count[root]) == 0:  # reservoir: a uniform room of the set
                pick[root] = j
            if rng.random() < 0.5:
                down[root] = True
                parent[(i + 1) * rw + j] = root
                _link(grid, i, j, DOWN)
        for j in range(rw):
            root = roots[j]
            if not down[root] and pick[root] == j:
                parent[(i + 1) * rw + j] = root
                _link(grid, i, j, DOWN)
    return grid


@kernel
def recursive_division(h, w, rng):
    """Recursive division: split each chamber by a wall with one gap, across its longer side."""
    grid = np.zeros((h, w), np.uint8)
    grid[0, :] = WALL
    grid[h - 1, :] = WALL
    grid[:, 0] = WALL
    grid[:, w - 1] = WALL
    # chambers (first room row, first room col, rows, cols), depth first: the stack holds the
    # pending sibling of each split on the current path, at most one per split of a room side
    stack = np.empty(((h + w) // 2 + 2, 4), np.int64)
    stack[0] = (0, 0, (h - 1) // 2, (w - 1) // 2)
    top = 1
    while top > 0:
        top -= 1
        i0, j0, nh, nw = stack[top]
        if nh < 2 or nw < 2:
            continue
        if nh > nw or (nh == nw and rng.random() < 0.5):  # a horizontal wall
            k = _below(rng, nh - 1) + 1
            r = 2 * (i0 + k)
            grid[r, 2 * j0:2 * (j0 + nw) + 1] = WALL
            grid[r, 2 * (j0 + _below(rng, nw)) + 1] = PASSAGE
            stack[top] = (i0, j0, k, nw)
            stack[top + 1] = (i0 + k, j0, nh - k, nw)
        else:
            k = _below(rng, nw - 1) + 1
            c = 2 * (j0 + k)
            grid[2 * i0:2 * (i0 + nh) + 1, c] = WALL
            grid[2 * (i0 + _below(rng, nh)) + 1, c] = PASSAGE
            stack[top] = (i0, j0, nh, k)
            stack[top + 1] = (i0, j0 + k, nh, nw - k)
        top += 2
    return grid


@kernel
def braid(grid, ends, quota, rng):
    """Open one wall at dead ends taken in the order `ends` (rows of (r, c)) until `quota` dead
    ends are gone; prefer a wall toward another dead end, else any wall with a passage beyond.

    Dead ends must not touch the grid's edge (the caller pads the grid); the outer ring of the
    original grid is never opened: `grid` here is the original padded by one wall ring.
    """
    h, w = grid.shape
    choice = np.empty(4, np.int64)
    removed = 0
    for e in range(len(ends)):
        if removed >= quota:
            break
        r, c = ends[e, 0], ends[e, 1]
        if degree(grid, r, c) != 1:
            continue
        k, best = 0, 0
        for d in range(4):
            wr, wc = r + _DR[d], c + _DC[d]
            tr, tc = wr + _DR[d], wc + _DC[d]
            if grid[wr, wc] != WALL or not (1 < wr < h - 2 and 1 < wc < w - 2):
                continue
            if grid[tr, tc] != PASSAGE:
                continue
            rank = 2 if degree(grid, tr, tc) == 1 else 1
            if rank > best:
                k, best = 0, rank
            if rank == best:
                choice[k] = d
                k += 1
        if k == 0:
            continue
        d = choice[_below(rng, k)]
        removed += best
        grid[r + _DR[d], c + _DC[d]] = PASSAGE
    return removed
