"""numba kernels of the push-based Sokoban search: best-first over pushes, or over pulls backwards;
one box walking alone (goal macros) and the goal packing order.

Private to `mazesim.search.sokoban_solver`; the primitives it calls are in `_sokoban_kernels`.
"""

import numpy as np
from numba import njit

from mazesim.search.sokoban._kernels import (INF, find_slot, frozen_group,
                                             goals_cut_off, grow, heap_item, heap_pop, heap_push,
                                             matching_cost, now, pi_corral, reach, rehash)

__all__ = ["box_search", "box_walk", "packing_order"]

_NDIR = 4
_HALF = 2
_START_CAP = 1 << 12
_NODE_MASK = (1 << 31) - 1
_TIE_CAP = (1 << 12) - 1
_TIME_CHECK_MASK = 1023


@njit(cache=True)
def _lower_bound(dist, boxes, cost):
    k = len(boxes)
    for r in range(k):
        for c in range(k):
            cost[r, c] = dist[c, boxes[r]]
    return matching_cost(cost)


@njit(cache=True)
def _deadlocked(t, nbr, occ, dead, goal, member, group):
    """After a push to `t`: a frozen box off a goal, or boxes newly frozen on goals that cut the
    remaining boxes off the remaining goals."""
    count = frozen_group(t, nbr, occ, dead, member, group)
    if count == 0:
        return False
    fresh = False
    for i in range(count):
        if goal[group[i]] == 0:
            return True
        fresh = fresh or group[i] == t
    return fresh and goals_cut_off(nbr, occ, goal, group, count)


@njit(cache=True)
def _areas(nbr, occ, mark, stamp):
    """The number of separate free areas left by the boxes `occ`, and the last stamp used."""
    count = 0
    for c in range(nbr.shape[0]):
        if occ[c] == 0 and mark[c] <= stamp:
            count += 1
            reach(nbr, occ, c, mark, stamp + count)
    return count, stamp + count


@njit(cache=True)
def _next_goal(order, occ):
    for g in order:
        if not occ[g]:
            return g
    return -1


@njit(cache=True)
def _tie(weight_g, g, h):
    """Tie-break among equal priorities: the smaller h for A*, the deeper state for greedy."""
    return h if weight_g > 0 else max(_TIE_CAP - g, 0)


@njit(cache=True)
def box_search(nbr, targets, dead, dist, start_boxes, roots, final_player, zbox, zplayer,
               weight_g, weight_h, pull, freeze, order, time_limit, max_nodes, weight_c=0):
    """Best-first search moving boxes: A* with ``weight_g = weight_h = 1``, greedy with 0 and 1.

    Forward (``pull`` false) it pushes boxes from `start_boxes` onto the `targets` (goal mask);
    backward it pulls them from the goals (`start_boxes`) to the level's boxes (`targets`), from
    every player region in `roots`, until the player's region holds `final_player`. States are
    (sorted boxes, smallest cell of the player's region); the priority is ``weight_g * moves +
    weight_h * h + weight_c * areas`` with h the minimum-cost matching of boxes to `dist` rows and
    areas the number of separate free areas the boxes leave (connectivity, FESS-style; with
    ``weight_c > 0`` states are not reopened), ties to the smaller h (greedy: to the deeper state).

    With a goal packing `order` (forward only; empty: none), a push onto a goal other than the
    next empty one in that order also has a goal macro: the box pushed on, alone, to that goal
    (recorded with direction + 4) when it can get there.

    Returns (status 1 solved / 0 no solution / -1 time or node limit, the moves as (box cell,
    direction) rows in search order, states seen, states expanded).
    """
    t0 = now()
    n, k = nbr.shape[0], len(start_boxes)
    cap = _START_CAP
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
    mark3 = np.zeros(n, np.int32)
    stamp3 = 0
    solid = np.zeros(n, np.uint8)
    area = np.full(n, -1, np.int32)
    side = np.zeros(_NDIR, np.uint8)
    group = np.empty(n, np.int32)
    boxes = np.empty(k, np.int16)
    cost = np.empty((k, k), np.int64)
    stamp, stamp2 = 0, 0
    found, count, size, expanded, status = -1, 0, 0, 0, 0

    boxes[:] = np.sort(start_boxes)
    h = _lower_bound(dist, boxes, cost)
    for b in boxes:
        occ[b] = 1
    for root in roots:
        stamp2 += 1
        canon = reach(nbr, occ, root, mark2, stamp2)
        key = zplayer[canon]
        for b in boxes:
            key ^= zbox[b]
        slot = find_slot(table, keys, pool, players, key, boxes, canon)
        if table[slot] >= 0 or h >= INF:
            continue
        pool[count], players[count], keys[count] = boxes, canon, key
        parent[count], gcost[count], hcost[count] = -1, 0, h
        table[slot] = count
        if h == 0 and (final_player < 0 or mark2[final_player] == stamp2):
            found = count
        heap = heap_push(heap, size, heap_item(np.int64(weight_h * h), _tie(weight_g, 0, h), count))
        size += 1
        count += 1
    for b in boxes:
        occ[b] = 0

    while size > 0 and found < 0:
        i = heap_pop(heap, size) & _NODE_MASK
        size -= 1
        if closed[i]:
            continue
        closed[i] = 1
        expanded += 1
        if expanded & _TIME_CHECK_MASK == 0 and now() - t0 > time_limit:
            status = -1
            break
        for b in pool[i]:
            occ[b] = 1
        stamp += 1
        reach(nbr, occ, players[i], mark, stamp)
        corral, doomed = -1, False
        if freeze and not pull:
            corral, doomed = pi_corral(nbr, occ, mark, stamp, dead, targets, area)
        for j in range(k if not doomed else 0):
            b = pool[i, j]
            for variant in range(2 * _NDIR if len(order) > 0 else _NDIR):
                d = variant % _NDIR
                if pull:          # player at p beside the box steps on to q; the box follows to p
                    p = nbr[b, d]
                    if p < 0 or mark[p] != stamp:
                        continue
                    t, q, step, move = p, nbr[p, d], 1, d
                    if q < 0 or occ[q] or dead[t]:
                        continue
                else:             # player at p behind the box pushes it on to t and stands at b
                    p, t = nbr[b, (d + _HALF) % _NDIR], nbr[b, d]
                    if p < 0 or mark[p] != stamp or t < 0 or occ[t] or dead[t]:
                        continue
                    if corral >= 0 and area[t] != corral:
                        continue
                    q, step, move = b, 1, d
                    if variant >= _NDIR:      # a goal macro: on to the next goal of the order
                        t_goal = _next_goal(order, occ)
                        if not targets[t] or t == t_goal:
                            continue
                        occ[b] = 0
                        side[:] = 0
                        side[(d + _HALF) % _NDIR] = 1
                        walk = box_walk(nbr, occ, t, side, False, t_goal, targets)
                        occ[b] = 1
                        if len(walk) == 0:
                            continue
                        q, t, step, move = walk[-1, 0], t_goal, 1 + len(walk), d + _NDIR
                occ[b], occ[t] = 0, 1
                if freeze and _deadlocked(t, nbr, occ, dead, targets, solid, group):
                    occ[b], occ[t] = 1, 0
                    continue
                boxes[:] = pool[i]
                boxes[j] = t
                boxes.sort()
                stamp2 += 1
                canon = reach(nbr, occ, q, mark2, stamp2)
                areas = 0
                if weight_c > 0:
                    areas, stamp3 = _areas(nbr, occ, mark3, stamp3)
                occ[b], occ[t] = 1, 0
                key = keys[i] ^ zbox[b] ^ zbox[t] ^ zplayer[players[i]] ^ zplayer[canon]
                slot = find_slot(table, keys, pool, players, key, boxes, canon)
                g = gcost[i] + step
                node = table[slot]
                if node >= 0:
                    if not closed[node] and g < gcost[node] and weight_c == 0:
                        gcost[node], parent[node] = g, i
                        moved[node, 0], moved[node, 1] = b, move
                        hn = np.int64(hcost[node])
                        prio = np.int64(weight_g * g + weight_h * hn)
                        heap = heap_push(heap, size, heap_item(prio, _tie(weight_g, g, hn), node))
                        size += 1
                    continue
                h = _lower_bound(dist, boxes, cost)
                if h >= INF:
                    continue
                solved = h == 0 and (final_player < 0 or mark2[final_player] == stamp2)
                if count == cap:
                    if cap >= max_nodes:
                        status = -1
                        break
                    cap *= 2
                    pool, players, parent = grow(pool, cap), grow(players, cap), grow(parent, cap)
                    gcost, hcost, moved = grow(gcost, cap), grow(hcost, cap), grow(moved, cap)
                    keys, closed = grow(keys, cap), grow(closed, cap)
                    closed[count:] = 0
                    table = rehash(2 * cap, keys, count)
                    slot = find_slot(table, keys, pool, players, key, boxes, canon)
                node = count
                count += 1
                pool[node], players[node], keys[node] = boxes, canon, key
                parent[node], gcost[node], hcost[node] = i, g, h
                moved[node, 0], moved[node, 1] = b, move
                table[slot] = node
                if solved:
                    found = node
                    break
                prio = np.int64(weight_g * g + weight_h * h + weight_c * areas)
                heap = heap_push(heap, size, heap_item(prio, _tie(weight_g, g, h), node))
                size += 1
            if found >= 0 or status < 0:
                break
        for b in pool[i]:
            occ[b] = 0
        if status < 0:
            break
    if found < 0:
        return status, np.empty((0, 2), np.int16), count, expanded
    steps, node = 0, found
    while parent[node] >= 0:
        steps += 1
        node = parent[node]
    path = np.empty((steps, 2), np.int16)
    node = found
    for s in range(steps - 1, -1, -1):
        path[s] = moved[node]
        node = parent[node]
    return 1, path, count, expanded


@njit(cache=True)
def box_walk(nbr, occ, cell, sides, pull, target, goal):
    """Move one box alone (the other boxes `occ` stay) by pushes or pulls, breadth first.

    States are (box cell, side of the player); the walk starts at `cell` with the player on any of
    `sides` (a 4-mask of directions from the box) and ends when the box reaches `target`, or any
    non-goal cell when `target` is -1. Returns the moves as (box cell, direction) rows, empty if
    none; for pulls the direction is the side the box is pulled to.
    """
    n = nbr.shape[0]
    parent = np.full(n * _NDIR, -1, np.int32)
    queue = np.empty(n * _NDIR, np.int32)
    mark = np.zeros(n, np.int32)
    head, tail, stamp, found = 0, 0, 0, -1
    for s in range(_NDIR):
        if sides[s] and nbr[cell, s] >= 0 and not occ[nbr[cell, s]]:
            parent[cell * _NDIR + s] = cell * _NDIR + s
            queue[tail] = cell * _NDIR + s
            tail += 1
    while head < tail and found < 0:
        state = queue[head]
        head += 1
        c, s = state // _NDIR, state % _NDIR
        if (target >= 0 and c == target) or (target < 0 and goal[c] == 0):
            found = state
            break
        occ[c] = 1
        stamp += 1
        reach(nbr, occ, nbr[c, s], mark, stamp)
        occ[c] = 0
        for d in range(_NDIR):
            if pull:
                p = nbr[c, d]
                if p < 0 or mark[p] != stamp or nbr[p, d] < 0 or occ[nbr[p, d]]:
                    continue
                nxt = p * _NDIR + d
            else:
                p, t = nbr[c, (d + _HALF) % _NDIR], nbr[c, d]
                if p < 0 or mark[p] != stamp or t < 0 or occ[t]:
                    continue
                nxt = t * _NDIR + (d + _HALF) % _NDIR
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
        c, s = state // _NDIR, state % _NDIR
        path[i, 0] = prev // _NDIR
        path[i, 1] = s if pull else (s + _HALF) % _NDIR
        state = prev
    return path


@njit(cache=True)
def packing_order(nbr, goal):
    """Goals in an order they can be filled, by taking boxes off a full goal area one at a time.

    A box may leave its goal when it can be pulled to a non-goal cell with the boxes still on goals
    as obstacles; the reverse of the leaving order is the packing order. Empty if it gets stuck.
    """
    n = nbr.shape[0]
    occ = goal.copy()
    left = 0
    for g in range(n):
        left += goal[g] != 0
    order = np.empty(left, np.int32)
    sides = np.ones(_NDIR, np.uint8)
    while left > 0:
        moved = False
        for g in range(n):
            if occ[g]:
                occ[g] = 0
                if len(box_walk(nbr, occ, g, sides, True, -1, goal)) > 0:
                    left -= 1
                    order[left] = g
                    moved = True
                    break
                occ[g] = 1
        if not moved:
            return np.empty(0, np.int32)
    return order
