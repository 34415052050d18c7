"""numba kernels of the Sokoban solvers: board primitives, deadlock tests, the matching bound and
the clock (STYLE.md, numba kernels).

Boards are numbered floor cells with a neighbour table ``nbr`` (n, 4) in the direction order of
`mazesim.maze.DELTAS` (up, right, down, left; -1 = wall); the opposite of ``d`` is ``(d + 2) % 4``.
"""

import time

import numpy as np
from numba import njit, objmode

__all__ = ["INF", "CLOCK_WORK", "NDIR", "HALF", "reach", "free_regions", "push_distances",
           "frozen_group",
           "frozen_off_goal", "goals_cut_off", "pi_corral", "matching_cost", "now", "new_clock",
           "charge", "late"]

INF = 1 << 20
"""Distance of a box that can never reach a goal; a matching at or above it is impossible."""
CLOCK_WORK = 1 << 15
"""Work (about one cell visited per unit) between two readings of the clock. numba has no clock
of its own: `now` calls back into Python (about 0.3 microseconds), so the searches count their work
and read the clock after this much, every few tens of microseconds."""
NDIR = 4
"""Directions of the neighbour table (up, right, down, left)."""
HALF = 2
"""``(d + HALF) % NDIR`` is the opposite direction of d."""
_WORK, _LATE, _CLOCK_SLOTS = 0, 1, 2


@njit(cache=True)
def now():
    """`time.perf_counter()` inside a kernel (the clock of every deadline)."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def new_clock():
    """The work counter of one search: work since the last reading, and whether it is late."""
    return np.zeros(_CLOCK_SLOTS, np.int64)


@njit(cache=True, inline="always")
def charge(clock, work):
    """Count `work` units on `clock` (read by the next `late`)."""
    clock[_WORK] += work


@njit(cache=True, inline="always")
def late(clock, deadline):
    """Whether `deadline` (a `now` time) has passed; the clock is read once `CLOCK_WORK` units have
    been charged since the last reading. Once late, always late."""
    if clock[_WORK] >= CLOCK_WORK:
        clock[_WORK] = 0
        if now() > deadline:
            clock[_LATE] = 1
    return clock[_LATE] != 0


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
        for d in range(NDIR):
            m = nbr[c, d]
            if m >= 0 and mark[m] != stamp and occupied[m] == 0:
                mark[m] = stamp
                queue[tail] = m
                tail += 1
                if m < low:
                    low = m
    return low


@njit(cache=True)
def free_regions(nbr, occupied):
    """One cell (the smallest) of each region of free cells left by the `occupied` ones."""
    n = nbr.shape[0]
    mark = np.zeros(n, np.int32)
    roots = np.empty(n, np.int32)
    count = 0
    for cell in range(n):
        if occupied[cell] == 0 and mark[cell] == 0:
            reach(nbr, occupied, cell, mark, 1)
            roots[count] = cell
            count += 1
    return roots[:count].copy()


@njit(cache=True)
def push_distances(nbr, goals, outward, clock, deadline):
    """Pushes needed to bring a lone box from each cell to each goal; (len(goals), n), INF if never.

    A push moves a box from p to p's neighbour in direction d and needs the player's cell on the
    other side of p to be floor; other boxes are ignored (so the distance is a lower bound). With
    `outward`, the pushes from each of `goals` to each cell instead (the pulls back to it). One
    unit of work per cell reached is charged to `clock`, and the clock is read between goals (a
    goal's search takes a millisecond or two at the size ceiling); returns (the table, whether
    it is complete: false when `deadline` passed first).
    """
    n = nbr.shape[0]
    dist = np.full((len(goals), n), INF, np.int32)
    queue = np.empty(n, np.int32)
    for k in range(len(goals)):
        if late(clock, deadline):
            return dist, False
        dist[k, goals[k]] = 0
        queue[0] = goals[k]
        head, tail = 0, 1
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(NDIR):
                back = (d + HALF) % NDIR
                if outward:                           # push the box from x to p
                    p = nbr[x, d]
                    player = nbr[x, back]
                else:                                 # the box came from p, pushed in direction d
                    p = nbr[x, back]
                    player = nbr[p, back] if p >= 0 else -1
                if p >= 0 and player >= 0 and dist[k, p] == INF:
                    dist[k, p] = dist[k, x] + 1
                    queue[tail] = p
                    tail += 1
        charge(clock, tail)
    return dist, True


@njit(cache=True)
def _axis_blocked(b, axis, nbr, dead, member):
    a, c = nbr[b, axis], nbr[b, axis + HALF]
    return a < 0 or c < 0 or member[a] != 0 or member[c] != 0 or (dead[a] != 0 and dead[c] != 0)


@njit(cache=True)
def frozen_group(t, nbr, box, dead, member, group):
    """The frozen boxes among those connected to `t`; their cells go to `group`, their count back.

    A group is frozen when every box in it is blocked on both axes, an axis being blocked by a wall,
    by dead squares on both sides or by a box of the group: no box of it can move first (the freeze
    test of the Sokoban wiki). The group is the largest such set among the boxes connected to `t`,
    found by peeling off boxes free on an axis (no recursion, which numba's cache cannot hold).
    `member` is a zeroed scratch array of the board size, zeroed again on return.
    """
    group[0] = t
    member[t] = 1
    size, head = 1, 0
    while head < size:
        c = group[head]
        head += 1
        for d in range(NDIR):
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
    count = 0
    for i in range(size):
        c = group[i]
        if member[c] != 0:
            group[count] = c
            count += 1
            member[c] = 0
    return count


@njit(cache=True)
def frozen_off_goal(t, nbr, box, dead, goal, member):
    """Whether the boxes around `t` hold a frozen group with a box off a goal (a deadlock)."""
    group = np.empty(nbr.shape[0], np.int32)
    count = frozen_group(t, nbr, box, dead, member, group)
    for i in range(count):
        if goal[group[i]] == 0:
            return True
    return False


@njit(cache=True)
def goals_cut_off(nbr, box, goal, fixed, count, clock):
    """Whether boxes frozen on goals (`fixed[:count]`) cut the other boxes off the other goals.

    Push distances are recomputed with the frozen boxes as walls (their work charged to `clock`,
    never cut short: a partial table would read as a deadlock); no perfect matching of the free
    boxes to the free goals at finite distance means a deadlock.
    """
    n = nbr.shape[0]
    wall = np.zeros(n, np.uint8)
    for i in range(count):
        wall[fixed[i]] = 1
    goals = np.array([c for c in range(n) if goal[c] and not wall[c]], np.int32)
    boxes = np.array([c for c in range(n) if box[c] and not wall[c]], np.int32)
    if len(goals) == 0:
        return False
    charge(clock, n)
    walled = nbr.copy()
    for c in range(n):
        for d in range(NDIR):
            if walled[c, d] >= 0 and (wall[walled[c, d]] or wall[c]):
                walled[c, d] = -1
    dist, _ = push_distances(walled, goals, False, clock, np.inf)
    cost = np.empty((len(boxes), len(goals)), np.int64)
    for r in range(len(boxes)):
        for c in range(len(goals)):
            cost[r, c] = dist[c, boxes[r]]
    return matching_cost(cost) >= INF


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
def _touches(x, nbr, area, label):
    for d in range(NDIR):
        m = nbr[x, d]
        if m >= 0 and area[m] == label:
            return True
    return False


@njit(cache=True)
def pi_corral(nbr, occ, mark, stamp, dead, goal, area):
    """The PI-corral with the fewest inward pushes, for PI-corral pruning (Sokoban wiki).

    A corral is a region of free cells the player (``mark == stamp``) cannot reach; its barrier are
    the boxes beside it. It is a PI-corral when every push of a barrier box either goes into it and
    can be made now, or stays impossible until a barrier box moves; if it is also unfinished (a
    barrier box off a goal or an empty goal inside), some solution pushes into it next, so only
    those pushes need expanding. Returns (its label in `area`, or -1; deadlock: an unfinished
    PI-corral that no push can enter). `area` (int32, board size) receives the corral labels.
    """
    n = nbr.shape[0]
    area[:] = -1
    queue = np.empty(n, np.int32)
    best, best_pushes, label, tail = -1, n * NDIR + 1, 0, 0
    for s in range(n):
        if occ[s] or mark[s] == stamp or area[s] >= 0:
            continue
        first = tail
        area[s] = label
        queue[tail] = s
        tail += 1
        head = first
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(NDIR):
                m = nbr[c, d]
                if m >= 0 and not occ[m] and mark[m] != stamp and area[m] < 0:
                    area[m] = label
                    queue[tail] = m
                    tail += 1
        unfinished, ok, pushes = False, True, 0
        for q in range(first, tail):
            c = queue[q]
            unfinished = unfinished or goal[c] != 0
            for d in range(NDIR):
                b = nbr[c, d]
                if b < 0 or not occ[b]:
                    continue
                unfinished = unfinished or goal[b] == 0
                for e in range(NDIR):
                    p, t = nbr[b, (e + HALF) % NDIR], nbr[b, e]
                    if t < 0 or p < 0 or area[p] == label or (occ[p] and _touches(
                            p, nbr, area, label)):
                        continue                       # never possible before the corral opens
                    if area[t] == label:
                        if mark[p] == stamp:
                            pushes += 0 if dead[t] else 1
                        else:
                            ok = False
                    elif not ((occ[t] and _touches(t, nbr, area, label)) or (
                            not occ[t] and dead[t])):
                        ok = False
        if ok and unfinished:
            if pushes == 0:
                return -1, True
            if pushes < best_pushes:
                best, best_pushes = label, pushes
        label += 1
    return best, False
