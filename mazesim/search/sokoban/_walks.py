"""numba kernels moving one box or the player alone: a box walk (goal macros), the goal packing
order, and the player's walks between the pushes of a solution."""

import numpy as np
from numba import njit

from mazesim.search.sokoban._kernels import HALF, NDIR, charge, late, reach

__all__ = ["box_walk", "packing_order", "player_moves", "PUSH"]

PUSH = NDIR
"""`player_moves` codes a push in direction d as ``d + PUSH`` (a walk is just d)."""
_FIRST_MOVES = 64


@njit(cache=True)
def box_walk(nbr, occ, cell, sides, pull, target, goal, clock, deadline):
    """Move one box alone (the other boxes `occ` stay) by pushes or pulls, breadth first.

    States are (box cell, side of the player); the walk starts at `cell` with the player on any of
    `sides` (a 4-mask of directions from the box) and ends when the box reaches `target`, or any
    non-goal cell when `target` is -1. Returns the moves as (box cell, direction) rows, empty if
    none or when `deadline` passes (then `clock` is late); for pulls the direction is the side the
    box is pulled to.
    """
    n = nbr.shape[0]
    parent = np.full(n * NDIR, -1, np.int32)
    queue = np.empty(n * NDIR, np.int32)
    mark = np.zeros(n, np.int32)
    head, tail, stamp, found = 0, 0, 0, -1
    for s in range(NDIR):
        if sides[s] and nbr[cell, s] >= 0 and not occ[nbr[cell, s]]:
            parent[cell * NDIR + s] = cell * NDIR + s
            queue[tail] = cell * NDIR + s
            tail += 1
    while head < tail and found < 0:
        charge(clock, n)
        if late(clock, deadline):
            break
        state = queue[head]
        head += 1
        c, s = state // NDIR, state % NDIR
        if (target >= 0 and c == target) or (target < 0 and goal[c] == 0):
            found = state
            break
        occ[c] = 1
        stamp += 1
        reach(nbr, occ, nbr[c, s], mark, stamp)
        occ[c] = 0
        for d in range(NDIR):
            if pull:
                p = nbr[c, d]
                if p < 0 or mark[p] != stamp or nbr[p, d] < 0 or occ[nbr[p, d]]:
                    continue
                nxt = p * NDIR + d
            else:
                p, t = nbr[c, (d + HALF) % NDIR], nbr[c, d]
                if p < 0 or mark[p] != stamp or t < 0 or occ[t]:
                    continue
                nxt = t * NDIR + (d + HALF) % NDIR
            if parent[nxt] < 0:
                parent[nxt] = state
                queue[tail] = nxt
                tail += 1
    if found < 0:
        return np.empty((0, 2), np.int16)
    steps = 0
    state = found
    while parent[state] != state:
        steps += 1
        state = parent[state]
    path = np.empty((steps, 2), np.int16)
    state = found
    for i in range(steps - 1, -1, -1):
        prev = parent[state]
        s = state % NDIR
        path[i, 0] = prev // NDIR
        path[i, 1] = s if pull else (s + HALF) % NDIR
        state = prev
    return path


@njit(cache=True)
def packing_order(nbr, goal, clock, deadline):
    """Goals in an order they can be filled, by taking boxes off a full goal area one at a time.

    A box may leave its goal when it can be pulled to a non-goal cell with the boxes still on goals
    as obstacles; the reverse of the leaving order is the packing order. Empty if it gets stuck
    or when `deadline` passes (then `clock` is late).
    """
    n = nbr.shape[0]
    occ = goal.copy()
    left = 0
    for g in range(n):
        left += goal[g] != 0
    order = np.empty(left, np.int32)
    sides = np.ones(NDIR, np.uint8)
    while left > 0:
        moved = False
        for g in range(n):
            if occ[g]:
                occ[g] = 0
                if len(box_walk(nbr, occ, g, sides, True, -1, goal, clock, deadline)) > 0:
                    left -= 1
                    order[left] = g
                    moved = True
                    break
                occ[g] = 1
        if not moved or late(clock, deadline):
            return np.empty(0, np.int32)
    return order


@njit(cache=True)
def player_moves(nbr, player, boxes, pushes):
    """Every player move that makes `pushes` ((box cell, direction) rows) from `player`, with the
    boxes at `boxes`: before each push a shortest walk (BFS, neighbours in direction order, the
    first found wins) to the cell behind the box. Walks are directions, pushes ``d + PUSH``;
    returns (moves, False) when a push cannot be reached (a bug of the caller)."""
    n = nbr.shape[0]
    occ = np.zeros(n, np.uint8)
    for b in boxes:
        occ[b] = 1
    entered = np.empty(n, np.int8)          # direction of the step that first reached each cell
    mark = np.zeros(n, np.int32)
    queue = np.empty(n, np.int32)
    moves = np.empty(_FIRST_MOVES, np.int8)
    count = 0
    for i in range(len(pushes)):
        b, d = pushes[i, 0], pushes[i, 1]
        behind = nbr[b, (d + HALF) % NDIR]
        if behind < 0:
            return moves[:count].copy(), False
        mark[player] = i + 1
        queue[0] = player
        head, tail = 0, 1
        while head < tail and mark[behind] != i + 1:
            c = queue[head]
            head += 1
            for e in range(NDIR):
                m = nbr[c, e]
                if m >= 0 and occ[m] == 0 and mark[m] != i + 1:
                    mark[m] = i + 1
                    entered[m] = e
                    queue[tail] = m
                    tail += 1
        if mark[behind] != i + 1:
            return moves[:count].copy(), False
        steps, c = 0, behind
        while c != player:
            steps += 1
            c = nbr[c, (entered[c] + HALF) % NDIR]
        while count + steps + 1 > len(moves):
            bigger = np.empty(2 * len(moves), np.int8)
            bigger[:count] = moves[:count]
            moves = bigger
        c = behind
        for s in range(count + steps - 1, count - 1, -1):
            moves[s] = entered[c]
            c = nbr[c, (entered[c] + HALF) % NDIR]
        count += steps
        moves[count] = d + PUSH
        count += 1
        occ[b] = 0
        occ[nbr[b, d]] = 1
        player = b
    return moves[:count].copy(), True
