"""numba kernels of the Sokoban solvers (STYLE.md, numba kernels).

Boards are numbered floor cells with a neighbour table ``nbr`` (n, 4) in the direction order of
`mazesim.maze.DELTAS` (up, right, down, left; -1 = wall); the opposite of ``d`` is ``(d + 2) % 4``.
"""

import time

import numpy as np
from numba import njit, objmode

__all__ = ["reach", "push_distances", "frozen_off_goal", "matching_cost", "push_search", "INF"]

INF = 1 << 20
"""Distance of a box that can never reach a goal; a matching at or above it is impossible."""
_NDIR = 4
_HALF = 2
_TIE_CAP = (1 << 12) - 1


@njit(cache=True)
def reach(nbr, occupied, start, mark, stamp):
    """Flood-fill from `start` over cells not `occupied`, setting ``mark[c] = stamp``.

    Returns the smallest reached cell number (the canonical player position of the region).
    """
    n = nbr.shape[0]
    queue = np.empty(n, np.int32)
    queue[0] = start
    mark[start] = stamp
    head, tail, low = 0, 1, start
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(_NDIR):
            m = nbr[c, d]
            if m >= 0 and mark[m] != stamp and occupied[m] == 0:
                mark[m] = stamp
                queue[tail] = m
                tail += 1
                if m < low:
                    low = m
    return low


@njit(cache=True)
def push_distances(nbr, goals):
    """Pushes needed to bring a lone box from each cell to each goal; (len(goals), n), INF if never.

    A push moves a box from p to p's neighbour in direction d and needs the player's cell on the
    other side of p to be floor; other boxes are ignored (so the distance is a lower bound).
    """
    n = nbr.shape[0]
    dist = np.full((len(goals), n), INF, np.int32)
    queue = np.empty(n, np.int32)
    for k in range(len(goals)):
        dist[k, goals[k]] = 0
        queue[0] = goals[k]
        head, tail = 0, 1
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(_NDIR):
                back = (d + _HALF) % _NDIR
                p = nbr[x, back]                      # the box came from p, pushed in direction d
                if p >= 0 and nbr[p, back] >= 0 and dist[k, p] == INF:
                    dist[k, p] = dist[k, x] + 1
                    queue[tail] = p
                    tail += 1
    return dist


@njit(cache=True)
def _axis_blocked(b, axis, nbr, dead, member):
    a, c = nbr[b, axis], nbr[b, axis + _HALF]
    return a < 0 or c < 0 or member[a] != 0 or member[c] != 0 or (dead[a] != 0 and dead[c] != 0)


@njit(cache=True)
def frozen_off_goal(t, nbr, box, dead, goal, member):
    """Whether the boxes around `t` hold a frozen group with a box off a goal (a deadlock).

    A group is frozen when every box in it is blocked on both axes, an axis being blocked by a wall,
    by dead squares on both sides or by a box of the group: no box of it can move first. The group
    is the largest such set among the boxes connected to `t` (found by peeling off boxes that are
    free on an axis; no recursion, which numba's cache cannot hold). `member` is a zeroed scratch
    array of the board size, zeroed again on return.
    """
    n = nbr.shape[0]
    group = np.empty(n, np.int32)
    group[0] = t
    member[t] = 1
    size, head = 1, 0
    while head < size:
        c = group[head]
        head += 1
        for d in range(_NDIR):
            m = nbr[c, d]
            if m >= 0 and box[m] != 0 and member[m] == 0:
                member[m] = 1
                group[size] = m
                size += 1
    changed = True
    while changed:
        changed = False
        for i in range(size):
            c = group[i]
            if member[c] != 0 and not (_axis_blocked(c, 0, nbr, dead, member)
                                       and _axis_blocked(c, 1, nbr, dead, member)):
                member[c] = 0
                changed = True
    deadlock = False
    for i in range(size):
        c = group[i]
        if member[c] != 0 and goal[c] == 0:
            deadlock = True
        member[c] = 0
    return deadlock


@njit(cache=True)
def matching_cost(cost):
    """Minimum-cost perfect matching of rows to columns (Hungarian method, square int matrix).

    The same value as ``scipy.optimize.linear_sum_assignment``; called once per generated state,
    where a call into scipy would cost more than the rest of the expansion.
    """
    n = cost.shape[0]
    u = np.zeros(n + 1, np.int64)
    v = np.zeros(n + 1, np.int64)
    p = np.zeros(n + 1, np.int64)
    way = np.zeros(n + 1, np.int64)
    minv = np.empty(n + 1, np.int64)
    used = np.empty(n + 1, np.bool_)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv[:] = 1 << 62
        used[:] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = 1 << 62
            j1 = 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0 != 0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return -v[0]


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _item(priority, h, node):
    """Heap entry: priority, then the smaller h (capped to its 12 bits), then the node number."""
    return (priority << 43) | (min(h, _TIE_CAP) << 31) | node


@njit(cache=True)
def _heap_push(heap, size, item):
    if size == len(heap):
        bigger = np.empty(2 * len(heap), np.int64)
        bigger[:size] = heap
        heap = bigger
    i = size
    heap[i] = item
    while i > 0:
        up = (i - 1) >> 1
        if heap[up] <= heap[i]:
            break
        heap[up], heap[i] = heap[i], heap[up]
        i = up
    return heap


@njit(cache=True)
def _heap_pop(heap, size):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        small = left
        if left + 1 < size and heap[left + 1] < heap[left]:
            small = left + 1
        if heap[i] <= heap[small]:
            break
        heap[i], heap[small] = heap[small], heap[i]
        i = small
    return top


@njit(cache=True)
def _grow(array, rows):
    bigger = np.empty((rows,) + array.shape[1:], array.dtype)
    bigger[:len(array)] = array
    return bigger


@njit(cache=True)
def _find(table, keys, pool, players, key, boxes, player):
    """Slot of the state (boxes, player) in the open-addressing `table`: its node or -1 there."""
    mask = len(table) - 1
    slot = key & mask
    while table[slot] >= 0:
        node = table[slot]
        if keys[node] == key and players[node] == player and np.all(pool[node] == boxes):
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _rehash(table_size, keys, count):
    table = np.full(table_size, -1, np.int32)
    mask = table_size - 1
    for node in range(count):
        slot = keys[node] & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = node
    return table


@njit(cache=True)
def push_search(nbr, goal, dead, dist, start_boxes, start_player, zbox, zplayer,
                weight_g, weight_h, freeze, time_limit, max_nodes):
    """Best-first search over pushes: A* with ``weight_g = weight_h = 1``, greedy with 0 and 1.

    States are (sorted boxes, smallest cell of the player's region); the priority is
    ``weight_g * pushes + weight_h * h`` with h the minimum-cost matching of boxes to goals on
    `dist`, ties to the smaller h. Returns (status 1 solved / 0 no solution / -1 time or node
    limit, pushes as (from cell, direction) rows, states seen, states expanded).
    """
    t0 = _now()
    n, k = nbr.shape[0], len(start_boxes)
    cap = 1 << 12
    pool = np.empty((cap, k), np.int16)
    players = np.empty(cap, np.int32)
    parent = np.empty(cap, np.int32)
    gcost = np.empty(cap, np.int32)
    hcost = np.empty(cap, np.int32)
    moved = np.empty((cap, 2), np.int16)
    keys = np.empty(cap, np.int64)
    closed = np.zeros(cap, np.uint8)
    table = np.full(2 * cap, -1, np.int32)
    heap = np.empty(cap, np.int64)
    occ = np.zeros(n, np.uint8)
    mark = np.zeros(n, np.int32)
    mark2 = np.zeros(n, np.int32)
    solid = np.zeros(n, np.uint8)
    boxes = np.empty(k, np.int16)
    cost = np.empty((k, k), np.int64)
    goals = np.nonzero(goal)[0]
    stamp, stamp2 = 0, 0

    boxes[:] = np.sort(start_boxes)
    for b in boxes:
        occ[b] = 1
    stamp += 1
    canon = reach(nbr, occ, start_player, mark, stamp)
    key = zplayer[canon]
    for b in boxes:
        key ^= zbox[b]
        occ[b] = 0
    for r in range(k):
        for c in range(k):
            cost[r, c] = dist[c, boxes[r]]
    h = matching_cost(cost)
    found = -1
    count, size, expanded = 1, 0, 0
    pool[0] = boxes
    players[0], parent[0], gcost[0], hcost[0], keys[0] = canon, -1, 0, h, key
    table[_find(table, keys, pool, players, key, boxes, canon)] = 0
    if h == 0:
        found = 0
    elif h < INF:
        heap = _heap_push(heap, size, _item(np.int64(weight_h * h), h, 0))
        size += 1
    status = 0
    while size > 0 and found < 0:
        item = _heap_pop(heap, size)
        size -= 1
        i = item & ((1 << 31) - 1)
        if closed[i]:
            continue
        closed[i] = 1
        expanded += 1
        if expanded & 1023 == 0 and _now() - t0 > time_limit:
            status = -1
            break
        for b in pool[i]:
            occ[b] = 1
        stamp += 1
        reach(nbr, occ, players[i], mark, stamp)
        for j in range(k):
            b = pool[i, j]
            for d in range(_NDIR):
                p, t = nbr[b, (d + _HALF) % _NDIR], nbr[b, d]
                if p < 0 or mark[p] != stamp or t < 0 or occ[t] or dead[t]:
                    continue
                occ[b], occ[t] = 0, 1
                if freeze and frozen_off_goal(t, nbr, occ, dead, goal, solid):
                    occ[b], occ[t] = 1, 0
                    continue
                boxes[:] = pool[i]
                boxes[j] = t
                boxes.sort()
                stamp2 += 1
                canon = reach(nbr, occ, b, mark2, stamp2)
                key = keys[i] ^ zbox[b] ^ zbox[t] ^ zplayer[players[i]] ^ zplayer[canon]
                occ[b], occ[t] = 1, 0
                slot = _find(table, keys, pool, players, key, boxes, canon)
                g = gcost[i] + 1
                node = table[slot]
                if node >= 0:
                    if not closed[node] and g < gcost[node]:
                        gcost[node], parent[node] = g, i
                        moved[node, 0], moved[node, 1] = b, d
                        hn = np.int64(hcost[node])
                        prio = np.int64(weight_g * g + weight_h * hn)
                        heap = _heap_push(heap, size, _item(prio, hn, node))
                        size += 1
                    continue
                for r in range(k):
                    for c in range(k):
                        cost[r, c] = dist[c, boxes[r]]
                h = matching_cost(cost)
                if h >= INF:
                    continue
                if count == cap:
                    if cap >= max_nodes:
                        status = -1
                        break
                    cap *= 2
                    pool, players, parent = _grow(pool, cap), _grow(players, cap), _grow(parent, cap)
                    gcost, hcost, moved = _grow(gcost, cap), _grow(hcost, cap), _grow(moved, cap)
                    keys, closed = _grow(keys, cap), _grow(closed, cap)
                    closed[count:] = 0
                    table = _rehash(2 * cap, keys, count)
                    slot = _find(table, keys, pool, players, key, boxes, canon)
                node = count
                count += 1
                pool[node], players[node], keys[node] = boxes, canon, key
                parent[node], gcost[node], hcost[node] = i, g, h
                moved[node, 0], moved[node, 1] = b, d
                table[slot] = node
                if h == 0:
                    found = node
                    break
                prio = np.int64(weight_g * g + weight_h * h)
                heap = _heap_push(heap, size, _item(prio, h, node))
                size += 1
            if found >= 0 or status < 0:
                break
        for b in pool[i]:
            occ[b] = 0
        if status < 0:
            break
    if found < 0:
        return status, np.empty((0, 2), np.int16), count, expanded
    steps = gcost[found]
    pushes = np.empty((steps, 2), np.int16)
    node = found
    for s in range(steps - 1, -1, -1):
        pushes[s] = moved[node]
        node = parent[node]
    return 1, pushes, count, expanded
