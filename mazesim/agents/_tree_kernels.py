"""numba kernels of decision trees (`mazesim.agents.trees`): what each floor cell sees, and the
tree (or its graph of states, merged) grown breadth-first from the start.

Floor cells are numbered 0..F-1 (row-major) and dark cells 0..D-1 (row-major). `neighbours`
(F, 4) lists each floor cell's floor neighbours in the authors' order right, left, down, up (-1:
none). Sight is a table in CSR form: the dark cells floor cell f sees are
`seen[first[f]:first[f + 1]]` (in the order met; the caller sorts what it keeps). Each kernel
counts its work and stops at a ceiling with a status instead of running on; the caller raises.
"""

import numpy as np
from numba import njit

from mazesim._grid import pad, steps
from mazesim.agents._vision_kernels import (ISOVIST_STEPS_PER_CELL, ISOVIST_VIEW, UNKNOWN, look,
                                            sweep_cells)

__all__ = ["OK", "TOO_MANY_NODES", "TOO_MANY_CELLS", "TOO_MUCH_WORK", "sweep_table",
           "view_table", "grow"]

OK, TOO_MANY_NODES, TOO_MANY_CELLS, TOO_MUCH_WORK = 0, 1, 2, 3
_START_NODES = 64


@njit(cache=True)
def sweep_table(grid, floor, dark_id, max_work):
    """(first (F + 1,), seen, status): the dark cells the quadrant sweep from each floor cell
    (`floor` (F, 2) rows and columns) sees (`dark_id` (H, W): the dark cell's number, -1
    elsewhere). Work: the cells the sweeps meet. Two passes: the first counts (and stops at
    `max_work` having allocated nothing of the size of the work), the second fills a table of
    exactly that size (int32: dark ids are below `limits.MAX_MAZE_CELLS`)."""
    cells = pad(grid).ravel()
    width = grid.shape[1] + 2
    met = np.empty(cells.shape[0], np.int64)
    first = np.zeros(floor.shape[0] + 1, np.int64)
    seen = np.empty(0, np.int32)
    work = 0
    for fill in range(2):
        if fill:
            seen = np.empty(first[-1], np.int32)
        for f in range(floor.shape[0]):
            n_met = sweep_cells(cells, width, floor[f, 0] + 1, floor[f, 1] + 1, met)
            work += n_met
            if work > max_work and not fill:
                return first, seen, TOO_MUCH_WORK
            n = _put_dark(seen, first[f], met, n_met, dark_id, width, fill == 1)
            first[f + 1] = first[f] + n
    return first, seen, OK


@njit(cache=True)
def _put_dark(seen, m, met, n_met, dark_id, width, store):
    """The number of dark cells among the padded flat cells `met[:n_met]`; with `store`,
    written to `seen[m:]` too."""
    h, w = dark_id.shape
    n = 0
    for k in range(n_met):
        y, x = met[k] // width - 1, met[k] % width - 1
        if 0 <= y < h and 0 <= x < w and dark_id[y, x] >= 0:
            if store:
                seen[m + n] = dark_id[y, x]
            n += 1
    return n


@njit(cache=True)
def view_table(grid, floor, dark_id, kind, radius, occlusion, max_work):
    """`sweep_table` for a window or an isovist: what the perception kernel (`look`) sees
    from each floor cell. Work: the cells of the view's square (clipped to the grid), for an
    isovist times the points one of its segments tests at most (45 r); all counted before the
    first look."""
    h, w = grid.shape
    cells = pad(grid).ravel()
    width = w + 2
    step = steps(width)
    known = np.full(cells.shape[0], UNKNOWN, np.uint8)
    visits = np.zeros(cells.shape[0], np.int32)
    met = np.empty(cells.shape[0], np.int64)
    first = np.zeros(floor.shape[0] + 1, np.int64)
    seen = np.empty(max(floor.shape[0], 1), np.int32)
    radius = min(radius, max(h, w))     # a wider view sees no more of the grid
    reach = max(radius, 1)
    work = 0
    for f in range(floor.shape[0]):     # the work, counted before anything is looked at
        r, c = floor[f, 0] + 1, floor[f, 1] + 1
        y0, y1, x0, x1 = max(r - reach, 1), min(r + reach, h), max(c - reach, 1), min(c + reach, w)
        work += (y1 - y0 + 1) * (x1 - x0 + 1) * (
            ISOVIST_STEPS_PER_CELL * reach if kind == ISOVIST_VIEW else 1)
        if work > max_work:
            return first, seen[:0], TOO_MUCH_WORK
    m = 0
    for f in range(floor.shape[0]):
        r, c = floor[f, 0] + 1, floor[f, 1] + 1
        i = r * width + c
        y0, y1, x0, x1 = max(r - reach, 1), min(r + reach, h), max(c - reach, 1), min(c + reach, w)
        look(cells, width, step, known, visits, i, r, c, np.int64(-1), np.int64(-1),
             np.int64(-1), kind, radius, occlusion, True)
        n_met = 0                   # the view's square and the four neighbours, then forgotten
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                if known[y * width + x] != UNKNOWN:
                    met[n_met] = y * width + x
                    n_met += 1
                known[y * width + x] = UNKNOWN
        for d in range(4):
            known[i + step[d]] = UNKNOWN
        seen, m = _add_dark(seen, m, met, n_met, dark_id, width)
        first[f + 1] = m
    return first, seen[:m], OK


@njit(cache=True)
def _add_dark(seen, m, met, n_met, dark_id, width):
    """Append the dark cells among the padded flat cells `met[:n_met]` to `seen[:m]`; (seen,
    new m)."""
    h, w = dark_id.shape
    if m + n_met > seen.shape[0]:
        seen = _grown(seen, m + n_met)
    for k in range(n_met):
        y, x = met[k] // width - 1, met[k] % width - 1
        if 0 <= y < h and 0 <= x < w and dark_id[y, x] >= 0:
            seen[m] = dark_id[y, x]
            m += 1
    return seen, m


@njit(cache=True)
def grow(neighbours, first, seen, root, n_dark, max_nodes, max_cells, max_work, merge):
    """The tree from floor cell `root`, breadth-first, or with `merge` the graph of its states:
    (cell, parent, depth, steps from the root, path_first, path, revealed_first, revealed,
    state, status), one item per node (paths: floor cells from the parent's cell to the
    node's, both included; revealed: dark cells; state: the number of the node's state, in the
    order first met).

    A node's **state** is its cell and the dark cells still dark there (every dark cell not
    revealed on the way from the root). Its children are found by a breadth-first search from
    its cell over floor, neighbours in the order right, left, down, up: a cell first reached
    from which something still dark would be seen is a child, reached by the search's path,
    and the search does not go on through it; cells that would see nothing new are searched
    on. This is the authors' search over simple paths (`tree_builder.next_path`) with its rule
    that a cell seen again with the same new cells is dropped: the first path to reach a cell
    is a shortest one, found in the same order. (Not `_grid.bfs`: the authors' neighbour order,
    not the canonical one, decides which shortest path and which child come first, and where
    the search stops changes from node to node.)

    Without `merge` every node is a state of its own: the tree. With `merge`, a node whose
    state an earlier node has is not searched again: its children are that node's (the
    caller shares them), so the nodes are the edges between states (and the root). Stops at
    `max_nodes` nodes, `max_cells` path and revealed cells and dark-set words in all, or
    `max_work` cells searched (status).
    """
    n_floor = neighbours.shape[0]
    words = n_dark // 64 + 1
    cap, state_cap = _START_NODES, _START_NODES
    cell = np.empty(cap, np.int64)
    parent = np.empty(cap, np.int64)
    depth = np.empty(cap, np.int64)
    walked = np.empty(cap, np.int64)
    state = np.empty(cap, np.int64)
    path_first = np.zeros(cap + 1, np.int64)
    path = np.empty(cap, np.int64)
    revealed_first = np.zeros(cap + 1, np.int64)
    revealed = np.empty(max(cap, first[root + 1] - first[root]), np.int64)
    dark = np.zeros((state_cap, words), np.uint64)     # each state's dark cells, as bits
    owner = np.empty(state_cap, np.int64)              # the first node of each state
    table = np.full(2 * state_cap, -1, np.int64)       # open addressing: state numbers
    for d in range(n_dark):
        dark[0, d >> 6] |= np.uint64(1) << np.uint64(d & 63)
    n_seen = first[root + 1] - first[root]
    for q in range(n_seen):
        revealed[q] = seen[first[root] + q]
        _clear(dark[0], seen[first[root] + q])
    revealed_first[1] = n_seen
    cell[0], parent[0], depth[0], walked[0], state[0], owner[0] = root, -1, 0, 0, 0, 0
    if merge:
        _insert(table, dark, cell, owner, 0)
    stamp = np.zeros(n_floor, np.int64)
    came = np.empty(n_floor, np.int64)
    queue = np.empty(n_floor, np.int64)
    here = np.empty(words, np.uint64)
    n, n_states, k, work, status = 1, 1, 0, 0, OK
    held = n_seen + words
    while k < n and status == OK:
        s = state[k]
        if owner[s] != k:               # merged: the state's first node holds the children
            k += 1
            continue
        head, tail = 0, 1
        queue[0] = cell[k]
        stamp[cell[k]] = k + 1
        while head < tail and status == OK:
            x = queue[head]
            head += 1
            for e in range(4):
                y = neighbours[x, e]
                if y < 0 or stamp[y] == k + 1:
                    continue
                stamp[y] = k + 1
                came[y] = x
                work += 1
                new = 0
                for q in range(first[y], first[y + 1]):
                    new += _is_dark(dark[s], seen[q])
                if new == 0:
                    queue[tail] = y
                    tail += 1
                    continue
                if n == max_nodes:
                    status = TOO_MANY_NODES
                    break
                length, z = 1, y
                while z != cell[k]:
                    z = came[z]
                    length += 1
                held += length + new
                if held > max_cells:
                    status = TOO_MANY_CELLS
                    break
                if n == cap:
                    cap *= 2
                    cell, parent = _grown(cell, cap), _grown(parent, cap)
                    depth, walked = _grown(depth, cap), _grown(walked, cap)
                    state = _grown(state, cap)
                    path_first = _grown(path_first, cap + 1)
                    revealed_first = _grown(revealed_first, cap + 1)
                p0 = path_first[n]
                if p0 + length > path.shape[0]:
                    path = _grown(path, p0 + length)
                z = y
                for t in range(length - 1, -1, -1):
                    path[p0 + t] = z
                    if t > 0:
                        z = came[z]
                path_first[n + 1] = p0 + length
                r0 = revealed_first[n]
                if r0 + new > revealed.shape[0]:
                    revealed = _grown(revealed, r0 + new)
                for w in range(words):
                    here[w] = dark[s, w]
                for q in range(first[y], first[y + 1]):
                    if _is_dark(dark[s], seen[q]):
                        revealed[r0] = seen[q]
                        r0 += 1
                        _clear(here, seen[q])
                revealed_first[n + 1] = r0
                cell[n], parent[n], depth[n] = y, k, depth[k] + 1
                walked[n] = walked[k] + length - 1
                found = _find(table, dark, cell, owner, y, here) if merge else -1
                if found < 0:
                    if n_states == state_cap:
                        state_cap *= 2
                        dark, owner = _grown_rows(dark, state_cap), _grown(owner, state_cap)
                        if merge:
                            table = _rehashed(table, dark, cell, owner, n_states,
                                              2 * state_cap)
                    for w in range(words):
                        dark[n_states, w] = here[w]
                    owner[n_states] = n
                    if merge:
                        _insert(table, dark, cell, owner, n_states)
                    found = n_states
                    n_states += 1
                    held += words
                state[n] = found
                n += 1
        if work > max_work and status == OK:
            status = TOO_MUCH_WORK
        k += 1
    return (cell[:n], parent[:n], depth[:n], walked[:n], path_first[:n + 1],
            path[:path_first[n]], revealed_first[:n + 1], revealed[:revealed_first[n]],
            state[:n], status)


@njit(cache=True)
def _is_dark(bits, d):
    return (bits[d >> 6] >> np.uint64(d & 63)) & np.uint64(1) != 0


@njit(cache=True)
def _clear(bits, d):
    bits[d >> 6] &= ~(np.uint64(1) << np.uint64(d & 63))


@njit(cache=True)
def _hash(at, bits):
    """FNV-1a over a state's cell and dark-set words."""
    h = np.uint64(14695981039346656037) ^ np.uint64(at)
    for w in range(bits.shape[0]):
        h = (h ^ bits[w]) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _find(table, dark, cell, owner, at, bits):
    """The number of the state (cell `at`, dark cells `bits`) in `table`, -1 if none."""
    mask = np.uint64(table.shape[0] - 1)
    i = _hash(at, bits) & mask
    while table[i] >= 0:
        s = table[i]
        if cell[owner[s]] == at and np.array_equal(dark[s], bits):
            return s
        i = (i + np.uint64(1)) & mask
    return -1


@njit(cache=True)
def _insert(table, dark, cell, owner, s):
    mask = np.uint64(table.shape[0] - 1)
    i = _hash(cell[owner[s]], dark[s]) & mask
    while table[i] >= 0:
        i = (i + np.uint64(1)) & mask
    table[i] = s


@njit(cache=True)
def _rehashed(table, dark, cell, owner, n_states, size):
    out = np.full(size, -1, np.int64)
    for s in range(n_states):
        _insert(out, dark, cell, owner, s)
    return out


@njit(cache=True)
def _grown_rows(values, needed):
    """`_grown` for a 2-D array (rows)."""
    out = np.empty((max(needed, 2 * values.shape[0]), values.shape[1]), values.dtype)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            out[i, j] = values[i, j]
    return out


@njit(cache=True)
def _grown(values, needed):
    """A copy of `values` at least `needed` long (doubled), its head copied (by a loop: numba
    compiles a slice assignment for seconds)."""
    out = np.empty(max(needed, 2 * values.shape[0]), values.dtype)
    for i in range(values.shape[0]):
        out[i] = values[i]
    return out
