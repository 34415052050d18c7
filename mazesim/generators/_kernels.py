"""Numba loops of the generators (STYLE.md, Numba kernels; `@kernel`: run as Python for one small
maze, `mazesim.jit`).

Kernels take the grid size, options and `rng` and return a uint8 grid (1 wall, 0 passage) with
rooms at odd coordinates. Most work in room coordinates: room (i, j) is grid cell (2i+1, 2j+1);
`_link` opens the wall between a room and its neighbour in direction d (`mazesim.maze.UP`, ...).
Random choices use `rng.random()` (the fastest draw numba offers) scaled to a range.
"""

import numpy as np

from mazesim.jit import kernel
from mazesim.maze import DELTAS, DOWN, PASSAGE, RIGHT, UP, WALL

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])
_BUILDING = 2  # wall-extending: a wall cell laid by the wall still growing


@kernel
def _below(rng, k):
    """A uniform integer in [0, k)."""
    return int(rng.random() * k)


@kernel
def _solid(h, w):
    return np.full((h, w), WALL, np.uint8)


@kernel
def _rooms_open(h, w):
    """All walls but the rooms: the start of algorithms that only open walls between rooms."""
    grid = _solid(h, w)
    grid[1::2, 1::2] = PASSAGE
    return grid


@kernel
def _link(grid, i, j, d):
    """Open room (i, j), the wall in direction d and the room beyond."""
    r, c = 2 * i + 1, 2 * j + 1
    grid[r, c] = PASSAGE
    grid[r + _DR[d], c + _DC[d]] = PASSAGE
    grid[r + 2 * _DR[d], c + 2 * _DC[d]] = PASSAGE


@kernel
def _inside(i, j, d, rh, rw):
    """Whether the room beyond (i, j) in direction d exists."""
    ni, nj = i + _DR[d], j + _DC[d]
    return 0 <= ni < rh and 0 <= nj < rw


@kernel
def dig(h, w, uniforms):
    """Recursive backtracker: dig to a random undug neighbour room; back up the stack when stuck.

    `uniforms`: at least `dig_draws(h, w)` numbers from `rng.random`, drawn by the caller in one
    call (numba's unboxing of a Generator costs ~7 us a call, more than this whole kernel at 31x31).
    Works on the grid inside a ring of passages: a step past the border lands on a passage, which
    is never dug into, so no bounds checks are needed.
    """
    pw = w + 2
    padded = np.full((h + 2, pw), WALL, np.uint8)
    padded[0, :] = PASSAGE
    padded[h + 1, :] = PASSAGE
    padded[:, 0] = PASSAGE
    padded[:, pw - 1] = PASSAGE
    flat = padded.ravel()
    steps = np.array([-2 * pw, 2, 2 * pw, -2])  # two cells up, right, down, left
    rh, rw = (h - 1) // 2, (w - 1) // 2
    stack = np.empty(rh * rw, np.int64)
    choice = np.empty(4, np.int64)
    cell = (2 * int(uniforms[0] * rh) + 2) * pw + 2 * int(uniforms[1] * rw) + 2
    used = 2
    flat[cell] = PASSAGE
    stack[0] = cell
    top = 1
    while top > 0:
        cell = stack[top - 1]
        k = 0
        for d in range(4):
            if flat[cell + steps[d]] == WALL:
                choice[k] = steps[d]
                k += 1
        if k == 0:
            top -= 1
            continue
        step = choice[0]
        if k > 1:
            step = choice[int(uniforms[used] * k)]
            used += 1
        flat[cell + step // 2] = PASSAGE
        flat[cell + step] = PASSAGE
        stack[top] = cell + step
        top += 1
    return padded[1:-1, 1:-1].copy()


def dig_draws(h, w):
    """How many uniforms `dig` may use: two for the first room, at most one per room dug."""
    return 2 + ((h - 1) // 2) * ((w - 1) // 2)


@kernel
def knock(h, w, rng):
    """Stick-knocking: each interior pillar knocks one wall onto a free neighbour cell.

    Pillars of the first row may fall up, right, down or left; later rows right, down or left.
    """
    grid = np.zeros((h, w), np.uint8)
    grid[0, :] = WALL
    grid[h - 1, :] = WALL
    grid[:, 0] = WALL
    grid[:, w - 1] = WALL
    grid[2:h - 1:2, 2:w - 1:2] = WALL
    choice = np.empty(4, np.int64)
    for r in range(2, h - 2, 2):
        first = UP if r == 2 else RIGHT
        for c in range(2, w - 2, 2):
            k = 0
            for d in range(first, 4):
                if grid[r + _DR[d], c + _DC[d]] == PASSAGE:
                    choice[k] = d
                    k += 1
            d = choice[_below(rng, k)]
            grid[r + _DR[d], c + _DC[d]] = WALL
    return grid


@kernel
def extend(h, w, rng):
    """Wall-extending: grow walls from random free pillars two cells at a time until one joins.

    A growing wall may not step onto itself; when stuck it backs up along itself and grows on
    from an earlier pillar (its cells stay: they are a tree hanging on the one joining cell).
    """
    grid = np.zeros((h, w), np.uint8)
    grid[0, :] = WALL
    grid[h - 1, :] = WALL
    grid[:, 0] = WALL
    grid[:, w - 1] = WALL
    ph, pw = (h - 3) // 2, (w - 3) // 2
    order = np.arange(ph * pw)
    for i in range(ph * pw - 1, 0, -1):
        k = _below(rng, i + 1)
        order[i], order[k] = order[k], order[i]
    stack = np.empty((ph * pw, 2), np.int64)
    laid = np.empty((2 * ph * pw + 1, 2), np.int64)
    choice = np.empty(4, np.int64)
    for p in order:
        r, c = 2 * (p // pw) + 2, 2 * (p % pw) + 2
        if grid[r, c] != PASSAGE:
            continue
        grid[r, c] = _BUILDING
        stack[0, 0], stack[0, 1] = r, c
        laid[0, 0], laid[0, 1] = r, c
        top, n = 1, 1
        while True:
            r, c = stack[top - 1, 0], stack[top - 1, 1]
            k = 0
            for d in range(4):
                if grid[r + 2 * _DR[d], c + 2 * _DC[d]] != _BUILDING:
                    choice[k] = d
                    k += 1
            if k == 0:
                top -= 1
                continue
            d = choice[_below(rng, k)]
            tr, tc = r + 2 * _DR[d], c + 2 * _DC[d]
            joined = grid[tr, tc] == WALL
            grid[r + _DR[d], c + _DC[d]] = _BUILDING
            laid[n, 0], laid[n, 1] = r + _DR[d], c + _DC[d]
            n += 1
            if joined:
                break
            grid[tr, tc] = _BUILDING
            laid[n, 0], laid[n, 1] = tr, tc
            n += 1
            stack[top, 0], stack[top, 1] = tr, tc
            top += 1
        for m in range(n):
            grid[laid[m, 0], laid[m, 1]] = WALL
    return grid


_OUTSIDE, _FRONTIER, _IN_TREE = 0, 1, 2    # Prim's rooms


@kernel
def prim(h, w, rng):
    """Prim, frontier-cell form: join a random frontier room to a random neighbour in the tree."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _solid(h, w)
    state = np.full((rh, rw), _OUTSIDE, np.uint8)
    frontier = np.empty(rh * rw, np.int64)
    choice = np.empty(4, np.int64)
    cell = _below(rng, rh * rw)
    size = 0
    while True:
        i, j = cell // rw, cell % rw
        if state[i, j] == _FRONTIER:
            k = 0
            for d in range(4):
                if _inside(i, j, d, rh, rw) and state[i + _DR[d], j + _DC[d]] == _IN_TREE:
                    choice[k] = d
                    k += 1
            _link(grid, i, j, choice[_below(rng, k)])
        grid[2 * i + 1, 2 * j + 1] = PASSAGE
        state[i, j] = _IN_TREE
        for d in range(4):
            if _inside(i, j, d, rh, rw) and state[i + _DR[d], j + _DC[d]] == _OUTSIDE:
                state[i + _DR[d], j + _DC[d]] = _FRONTIER
                frontier[size] = (i + _DR[d]) * rw + j + _DC[d]
                size += 1
        if size == 0:
            return grid
        k = _below(rng, size)
        cell = frontier[k]
        size -= 1
        frontier[k] = frontier[size]


@kernel
def _find(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@kernel
def kruskal(h, w, rng):
    """Kruskal: walls between rooms in random order; open those joining two different trees."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _rooms_open(h, w)
    n_right = rh * (rw - 1)
    edges = np.arange(n_right + (rh - 1) * rw)  # right walls first, then down walls
    parent = np.arange(rh * rw)
    for e in range(len(edges) - 1, 0, -1):
        k = _below(rng, e + 1)
        edges[e], edges[k] = edges[k], edges[e]
    for e in edges:
        if e < n_right:
            i, j, d = e // (rw - 1), e % (rw - 1), RIGHT
        else:
            i, j, d = (e - n_right) // rw, (e - n_right) % rw, DOWN
        a = _find(parent, i * rw + j)
        b = _find(parent, (i + _DR[d]) * rw + j + _DC[d])
        if a != b:
            parent[a] = b
            _link(grid, i, j, d)
    return grid


@kernel
def _random_direction(i, j, rh, rw, rng):
    """A direction drawn uniformly among those leading to an existing room."""
    while True:
        d = _below(rng, 4)
        if _inside(i, j, d, rh, rw):
            return d


@kernel
def wilson(h, w, rng):
    """Wilson: loop-erased random walks from each room not yet in the tree until they hit it."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _solid(h, w)
    in_tree = np.zeros((rh, rw), np.bool_)
    exit_dir = np.zeros((rh, rw), np.int64)  # the last direction the walk left each room by
    root = _below(rng, rh * rw)
    in_tree[root // rw, root % rw] = True
    grid[2 * (root // rw) + 1, 2 * (root % rw) + 1] = PASSAGE
    for i0 in range(rh):
        for j0 in range(rw):
            i, j = i0, j0
            while not in_tree[i, j]:
                d = _random_direction(i, j, rh, rw, rng)
                exit_dir[i, j] = d
                i, j = i + _DR[d], j + _DC[d]
            i, j = i0, j0
            while not in_tree[i, j]:
                in_tree[i, j] = True
                d = exit_dir[i, j]
                _link(grid, i, j, d)
                i, j = i + _DR[d], j + _DC[d]
    return grid


@kernel
def aldous_broder(h, w, rng):
    """Aldous-Broder: a uniform random walk over all neighbours; enter each new room by a wall."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _solid(h, w)
    cell = _below(rng, rh * rw)
    i, j = cell // rw, cell % rw
    grid[2 * i + 1, 2 * j + 1] = PASSAGE
    remaining = rh * rw - 1
    while remaining > 0:
        d = _random_direction(i, j, rh, rw, rng)
        if grid[2 * (i + _DR[d]) + 1, 2 * (j + _DC[d]) + 1] == WALL:
            _link(grid, i, j, d)
            remaining -= 1
        i, j = i + _DR[d], j + _DC[d]
    return grid


@kernel
def hunt_and_kill(h, w, rng):
    """Hunt-and-kill: walk to random unvisited rooms; when stuck, scan rows for an unvisited room
    beside a visited one, join them and walk on from there."""
    rh, rw = (h - 1) // 2, (w - 1) // 2
    grid = _solid(h, w)
    seen = np.zeros((rh, rw), np.bool_)
    choice = np.empty(4, np.int64)
    cell = _below(rng, rh * rw)
    i, j = cell // rw, cell % rw
    seen[i, j] = True
    grid[2 * i + 1, 2 * j + 1] = PASSAGE
    remaining, first_row = rh * rw - 1, 0
    while remaining > 0:
        k = 0
        for d in range(4):
            if _inside(i, j, d, rh, rw) and not seen[i + _DR[d], j + _DC[d]]:
                choice[k] = d
                k += 1
        if k == 0:  # hunt: the first unvisited room, in row order, with a visited neighbour
            while seen[first_row].all():
                first_row += 1
            for cell in range(first_row * rw, rh * rw):
                i, j = cell // rw, cell % rw
                if seen[i, j]:
                    continue
                for d in range(4):
                    if _inside(i, j, d, rh, rw) and seen[i + _DR[d], j + _DC[d]]:
                        choice[k] = d
                        k += 1
                if k > 0:
                    break
            _link(grid, i, j, choice[_below(rng, k)])
        else:
            d = choice[_below(rng, k)]
            _link(grid, i, j, d)
            i, j = i + _DR[d], j + _DC[d]
        seen[i, j] = True
        remaining -= 1
    return grid
