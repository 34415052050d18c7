"""numba kernel of the push-based Sokoban search: best-first over pushes, or over pulls backwards.

Private to `mazesim.search.sokoban.stages`. One run is `box_search(problem, start_boxes, roots)`:
the roots are set up (`_add_roots`), then each node taken from the heap is expanded: its moves are
listed by `_push_moves` or `_pull_moves` and each becomes a child by `_add_child` (deadlock
tests, the canonical player cell, the hash lookup, the lower bound). The clock (`_kernels.late`)
is charged with the work done and read every `CLOCK_WORK` units (a few tens of microseconds), so
a deadline holds on a board of any size.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from mazesim.search.sokoban._kernels import (HALF, INF, NDIR, charge, frozen_group,
                                             goals_cut_off, late, matching_cost, new_clock,
                                             pi_corral, reach)
from mazesim.search.sokoban._tables import (COUNT, QUEUED, TIE_CAP, add_node, find_slot, grown,
                                            is_full, new_nodes, queue, take)
from mazesim.search.sokoban._walks import box_walk

__all__ = ["Problem", "box_search", "deadlocked", "free_areas"]

Problem = namedtuple("Problem", ["nbr", "targets", "dead", "dist", "zbox", "zplayer", "order",
                                 "final_player", "weight_g", "weight_h", "weight_c", "freeze",
                                 "pull", "max_nodes", "deadline"])
"""One search run. ``nbr`` the board's neighbour table; ``targets`` (n,) uint8 where the boxes must
end (the goals forward, the level's boxes backward); ``dead`` (n,) uint8 squares a box may not
enter; ``dist`` (targets, n) int32 push distances for the bound; ``zbox``/``zplayer`` Zobrist keys;
``order`` the goal packing order for goal macros (forward only; empty: none); ``final_player`` a
cell the player's region must hold at the end (backward) or -1; the priority ``weight_g * moves
+ weight_h * bound + weight_c * free areas``; ``freeze`` freeze, cut-off and PI-corral pruning
(forward); ``pull`` backward; ``max_nodes`` the most states kept; ``deadline`` a `now` time."""

_START_CAP = 1 << 12
_SKIP, _FULL = -1, -2
_EXPAND, _CHILD, _AREA, _STAMPS = 0, 1, 2, 3
_BOX, _TO, _PLAYER, _STEP, _MOVE, _MOVE_FIELDS = 0, 1, 2, 3, 4, 5

Scratch = namedtuple("Scratch", ["occ", "mark", "reached", "area_mark", "member", "corral",
                                 "side", "group", "boxes", "cost", "moves", "stamps", "clock"])
"""Work arrays of one run, made once by `_scratch`: ``occ`` the boxes of the node in hand;
``mark``/``reached``/``area_mark`` flood-fill stamps of the expanded node's player, of a child's
player and of the free areas (``stamps`` holds their last values); ``member``/``group`` for the
freeze test; ``corral`` PI-corral labels; ``side`` a box walk's start side; ``boxes`` a child's
sorted boxes; ``cost`` the matching matrix; ``moves`` (box index, box target, player cell, steps,
move) rows of the node in hand; ``clock`` the work counter."""


@njit(cache=True)
def box_search(problem, start_boxes, roots):
    """Best-first search moving boxes: A* with ``weight_g = weight_h = 1``, greedy with 0 and 1.

    Forward (``pull`` false) it pushes boxes from `start_boxes` onto the targets; backward it
    pulls them from the goals (`start_boxes`) to the level's boxes, from every player region in
    `roots` (forward: the player's cell), until the player's region holds ``final_player``.
    States are (sorted boxes, smallest cell of the player's region); ties go to the smaller bound
    (greedy: to the deeper state); with ``weight_c > 0`` states are not reopened. With a goal
    packing ``order``, a push onto a goal other than the next empty one in that order also has a
    goal macro: the box pushed on, alone, to that goal (recorded as direction + 4).

    Returns (status 1 solved / 0 no solution / -1 deadline or node limit, the moves as (box cell,
    direction) rows in search order, states seen).
    """
    p, s = problem, _scratch(problem.nbr.shape[0], len(start_boxes))
    nodes = new_nodes(_START_CAP, len(start_boxes))
    nodes, found = _add_roots(p, s, nodes, start_boxes, roots)
    status = 0
    while found < 0 and status == 0 and nodes.sizes[QUEUED] > 0:
        i = take(nodes)
        if nodes.closed[i]:
            continue
        nodes.closed[i] = 1
        if late(s.clock, p.deadline):
            status = -1
            break
        _occupy(s.occ, nodes.pool[i], 1)
        count = _pull_moves(p, s, nodes, i) if p.pull else _push_moves(p, s, nodes, i)
        for m in range(count):
            nodes, outcome = _add_child(p, s, nodes, i, m)
            if outcome >= 0:
                found = outcome
                break
            if outcome == _FULL or late(s.clock, p.deadline):
                status = -1
                break
        _occupy(s.occ, nodes.pool[i], 0)
    if found < 0:
        return status, np.empty((0, 2), np.int16), nodes.sizes[COUNT]
    return 1, _path(nodes, found), nodes.sizes[COUNT]


@njit(cache=True)
def _scratch(n, k):
    return Scratch(np.zeros(n, np.uint8), np.zeros(n, np.int32), np.zeros(n, np.int32),
                   np.zeros(n, np.int32), np.zeros(n, np.uint8), np.full(n, -1, np.int32),
                   np.zeros(NDIR, np.uint8), np.empty(n, np.int32), np.empty(k, np.int16),
                   np.empty((k, k), np.int64), np.empty((2 * NDIR * k, _MOVE_FIELDS), np.int32),
                   np.zeros(_STAMPS, np.int64), new_clock())


@njit(cache=True)
def _add_roots(p, s, nodes, start_boxes, roots):
    """Queue the start state of every root region; returns (nodes, a solved root or -1)."""
    boxes, found = s.boxes, -1
    boxes[:] = np.sort(start_boxes)
    h = _lower_bound(p.dist, boxes, s.cost)
    if h >= INF:
        return nodes, found
    _occupy(s.occ, boxes, 1)
    for root in roots:
        charge(s.clock, p.nbr.shape[0])
        s.stamps[_CHILD] += 1
        canon = reach(p.nbr, s.occ, root, s.reached, s.stamps[_CHILD])
        key = p.zplayer[canon]
        for b in boxes:
            key ^= p.zbox[b]
        slot = find_slot(nodes, key, boxes, canon)
        if nodes.table[slot] >= 0:
            continue
        if is_full(nodes):
            nodes = grown(nodes)
            slot = find_slot(nodes, key, boxes, canon)
        node = add_node(nodes, slot, boxes, canon, key, -1, 0, h, -1, -1)
        if h == 0 and _final_reached(p, s):
            found = node
        nodes = queue(nodes, p.weight_h * h, _tie(p.weight_g, 0, h), node)
    _occupy(s.occ, boxes, 0)
    return nodes, found


@njit(cache=True, inline="always")
def _push_moves(p, s, nodes, i):
    """List the pushes (and goal macros) of node `i` in `s.moves`; returns how many."""
    nbr, occ, mark = p.nbr, s.occ, s.mark
    s.stamps[_EXPAND] += 1
    stamp = s.stamps[_EXPAND]
    reach(nbr, occ, nodes.players[i], mark, stamp)
    charge(s.clock, 2 * nbr.shape[0])
    corral, doomed = -1, False
    if p.freeze:
        corral, doomed = pi_corral(nbr, occ, mark, stamp, p.dead, p.targets, s.corral)
    if doomed:
        return 0
    macro_goal = _next_goal(p.order, occ)
    variants = 2 * NDIR if macro_goal >= 0 else NDIR
    count = 0
    for j in range(nodes.pool.shape[1]):
        b = nodes.pool[i, j]
        for variant in range(variants):
            d = variant % NDIR
            back = (d + HALF) % NDIR
            behind, t = nbr[b, back], nbr[b, d]
            if behind < 0 or mark[behind] != stamp or t < 0 or occ[t] or p.dead[t]:
                continue
            if corral >= 0 and s.corral[t] != corral:
                continue
            if variant < NDIR:                 # the player behind the box pushes it on to t
                _record(s.moves, count, j, t, b, 1, d)
                count += 1
                continue
            if not p.targets[t] or t == macro_goal:     # a goal macro: on to the next goal
                continue
            occ[b] = 0
            s.side[:] = 0
            s.side[back] = 1
            walk = box_walk(nbr, occ, t, s.side, False, macro_goal, p.targets, s.clock,
                            p.deadline)
            occ[b] = 1
            if len(walk) > 0:
                _record(s.moves, count, j, macro_goal, walk[-1, 0], 1 + len(walk), d + NDIR)
                count += 1
    return count


@njit(cache=True, inline="always")
def _pull_moves(p, s, nodes, i):
    """List the pulls of node `i` in `s.moves`; returns how many."""
    nbr, occ, mark = p.nbr, s.occ, s.mark
    s.stamps[_EXPAND] += 1
    stamp = s.stamps[_EXPAND]
    reach(nbr, occ, nodes.players[i], mark, stamp)
    charge(s.clock, nbr.shape[0])
    count = 0
    for j in range(nodes.pool.shape[1]):
        b = nodes.pool[i, j]
        for d in range(NDIR):      # the player beside the box steps on to q; the box follows
            here = nbr[b, d]
            if here < 0 or mark[here] != stamp:
                continue
            q = nbr[here, d]
            if q < 0 or occ[q] or p.dead[here]:
                continue
            _record(s.moves, count, j, here, q, 1, d)
            count += 1
    return count


@njit(cache=True, inline="always")
def _add_child(p, s, nodes, i, m):
    """Make move `m` of node `i`: returns (nodes, the new node if it is solved, else `_SKIP`, or
    `_FULL` at the node limit). A known state reached more cheaply is reopened (A* only)."""
    nbr, occ, boxes, row = p.nbr, s.occ, s.boxes, s.moves[m]
    j, t = row[_BOX], row[_TO]
    b = nodes.pool[i, j]
    occ[b], occ[t] = 0, 1
    charge(s.clock, nbr.shape[0] + len(boxes) * len(boxes))
    if p.freeze and deadlocked(t, nbr, occ, p.dead, p.targets, s.member, s.group, s.clock):
        occ[b], occ[t] = 1, 0
        return nodes, _SKIP
    boxes[:] = nodes.pool[i]
    boxes[j] = t
    boxes.sort()
    s.stamps[_CHILD] += 1
    canon = reach(nbr, occ, row[_PLAYER], s.reached, s.stamps[_CHILD])
    areas = 0
    if p.weight_c > 0:
        charge(s.clock, nbr.shape[0])
        areas, s.stamps[_AREA] = free_areas(nbr, occ, s.area_mark, s.stamps[_AREA])
    occ[b], occ[t] = 1, 0
    key = nodes.keys[i] ^ p.zbox[b] ^ p.zbox[t] ^ p.zplayer[nodes.players[i]] ^ p.zplayer[canon]
    slot = find_slot(nodes, key, boxes, canon)
    g = nodes.gcost[i] + row[_STEP]
    node = nodes.table[slot]
    if node >= 0:
        if not nodes.closed[node] and g < nodes.gcost[node] and p.weight_c == 0:
            nodes.gcost[node], nodes.parent[node] = g, i
            nodes.moved[node, 0], nodes.moved[node, 1] = b, row[_MOVE]
            h = nodes.hcost[node]
            nodes = queue(nodes, p.weight_g * g + p.weight_h * h, _tie(p.weight_g, g, h), node)
        return nodes, _SKIP
    h = _lower_bound(p.dist, boxes, s.cost)
    if h >= INF:
        return nodes, _SKIP
    if is_full(nodes):
        if len(nodes.keys) >= p.max_nodes:
            return nodes, _FULL
        nodes = grown(nodes)
        slot = find_slot(nodes, key, boxes, canon)
    node = add_node(nodes, slot, boxes, canon, key, i, g, h, b, row[_MOVE])
    if h == 0 and _final_reached(p, s):
        return nodes, node
    priority = p.weight_g * g + p.weight_h * h + p.weight_c * areas
    nodes = queue(nodes, priority, _tie(p.weight_g, g, h), node)
    return nodes, _SKIP


@njit(cache=True)
def deadlocked(t, nbr, occ, dead, goal, member, group, clock):
    """After a push to `t`: a frozen box off a goal, or boxes newly frozen on goals that cut the
    remaining boxes off the remaining goals (that test charges its work to `clock`)."""
    count = frozen_group(t, nbr, occ, dead, member, group)
    if count == 0:
        return False
    fresh = False
    for i in range(count):
        if goal[group[i]] == 0:
            return True
        fresh = fresh or group[i] == t
    if not fresh:
        return False
    return goals_cut_off(nbr, occ, goal, group, count, clock)


@njit(cache=True)
def free_areas(nbr, occ, mark, stamp):
    """The number of separate free areas left by the boxes `occ`, and the last stamp used."""
    count = 0
    for c in range(nbr.shape[0]):
        if occ[c] == 0 and mark[c] <= stamp:
            count += 1
            reach(nbr, occ, c, mark, stamp + count)
    return count, stamp + count


@njit(cache=True, inline="always")
def _lower_bound(dist, boxes, cost):
    k = len(boxes)
    for r in range(k):
        for c in range(k):
            cost[r, c] = dist[c, boxes[r]]
    return matching_cost(cost)


@njit(cache=True, inline="always")
def _final_reached(p, s):
    """Whether the last child's player region holds ``final_player`` (always, forward)."""
    return p.final_player < 0 or s.reached[p.final_player] == s.stamps[_CHILD]


@njit(cache=True, inline="always")
def _next_goal(order, occ):
    for g in order:
        if not occ[g]:
            return g
    return -1


@njit(cache=True, inline="always")
def _tie(weight_g, g, h):
    """Tie-break among equal priorities: the smaller h for A*, the deeper state for greedy."""
    return h if weight_g > 0 else max(TIE_CAP - g, 0)


@njit(cache=True, inline="always")
def _record(moves, m, j, t, q, step, move):
    moves[m, _BOX], moves[m, _TO], moves[m, _PLAYER] = j, t, q
    moves[m, _STEP], moves[m, _MOVE] = step, move


@njit(cache=True, inline="always")
def _occupy(occ, boxes, value):
    for b in boxes:
        occ[b] = value


@njit(cache=True)
def _path(nodes, found):
    """The (box cell, direction) moves from the root to node `found`."""
    steps, node = 0, found
    while nodes.parent[node] >= 0:
        steps += 1
        node = nodes.parent[node]
    path = np.empty((steps, 2), np.int16)
    node = found
    for s in range(steps - 1, -1, -1):
        path[s] = nodes.moved[node]
        node = nodes.parent[node]
    return path
