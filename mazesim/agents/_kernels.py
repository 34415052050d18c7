"""numba kernels of the walking agents: one driver, one perception layer, one rule per agent kind.

`run` walks (or replays) one trial. Each move: sense the four neighbours, update the known map
(`perceive`), then either follow the current plan (goal seeking, or the `bfs` agent's next
target) or ask the agent's rule (`explore`) for a probability over the four directions; sample
it (walk) or score the observed move (replay: log-likelihood). Sampling and scoring share the
same probabilities, so a likelihood is exactly the one of the walking agent.
"""

import numpy as np
from numba import njit

from mazesim._kernels import bfs
from mazesim.maze import DELTAS

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])

# agent kinds (the Python classes name theirs)
RANDOM_WALK, WEIGHTED, DFS, WALL_FOLLOWER, TREMAUX = 0, 1, 2, 3, 4
STRAIGHT_BIASED, TURN_BIAS, FINITE_MEMORY, BFS_AGENT = 5, 6, 7, 8

UNKNOWN = -1
NO_TURN, LEFT_TURN, RIGHT_TURN = -1, 0, 1
BRANCH_DEGREE = 3       # a branch point has at least this many open neighbours
RANDOM_ORDER = -1       # order[0] for a random neighbour order
_EPS = 1e-12


# ---------------------------------------------------------------- perception
@njit(cache=True)
def _visible(grid, r, c, tr, tc):
    """Whether (tr, tc) is in sight from (r, c): the Bresenham line crosses passages only."""
    dr, dc = abs(tr - r), abs(tc - c)
    sr = 1 if tr > r else -1
    sc = 1 if tc > c else -1
    err = dr - dc
    y, x = r, c
    while True:
        if y == tr and x == tc:
            return True
        if (y != r or x != c) and grid[y, x] != 0:
            return False
        e2 = 2 * err
        if e2 > -dc:
            err -= dc
            y += sr
        if e2 < dr:
            err += dr
            x += sc


@njit(cache=True)
def perceive(grid, known, visits, r, c, k, occlusion, memory, pr, pc):
    """Update `known` for an agent at (r, c) (previously at (pr, pc), or -1); return new cells.

    Full vision (k < 0) is set up once by the caller. Without memory the previous window is
    forgotten first, except the trail (cells with visits > 0).
    """
    h, w = grid.shape
    if not memory and pr >= 0:
        for y in range(max(pr - k, 0), min(pr + k + 1, h)):
            for x in range(max(pc - k, 0), min(pc + k + 1, w)):
                if visits[y, x] == 0:
                    known[y, x] = UNKNOWN
        for d in range(4):
            y, x = pr + _DR[d], pc + _DC[d]
            if 0 <= y < h and 0 <= x < w and visits[y, x] == 0:
                known[y, x] = UNKNOWN
    new = 0
    for y in range(max(r - k, 0), min(r + k + 1, h)):
        for x in range(max(c - k, 0), min(c + k + 1, w)):
            if known[y, x] == UNKNOWN and (not occlusion or _visible(grid, r, c, y, x)):
                known[y, x] = grid[y, x]
                new += 1
    for d in range(4):
        y, x = r + _DR[d], c + _DC[d]
        if 0 <= y < h and 0 <= x < w and known[y, x] == UNKNOWN:
            known[y, x] = grid[y, x]
            new += 1
    if known[r, c] == UNKNOWN:
        known[r, c] = grid[r, c]
        new += 1
    return new


@njit(cache=True)
def seen_along(grid, pos, k, occlusion):
    """Bool (H, W): cells perceived anywhere along `pos` (memory on; the union either way)."""
    h, w = grid.shape
    if k < 0:
        return np.ones((h, w), np.bool_)
    known = np.full((h, w), UNKNOWN, np.int8)
    visits = np.zeros((h, w), np.int32)
    for i in range(pos.shape[0]):
        perceive(grid, known, visits, pos[i, 0], pos[i, 1], k, occlusion, True, -1, -1)
    return known != UNKNOWN


# ---------------------------------------------------------------- plans over the known map
@njit(cache=True)
def _plan_to(known, r, c, tr, tc, plan):
    """Directions of a shortest path over known passages from (r, c) to (tr, tc) into `plan`.

    Returns its length, or -1 when no known path exists.
    """
    dist, parent = bfs(known, r, c)
    n = dist[tr, tc]
    if n < 0:
        return -1
    y, x = tr, tc
    for i in range(n - 1, -1, -1):
        d = parent[y, x]
        plan[i] = d
        y -= _DR[d]
        x -= _DC[d]
    return n


@njit(cache=True)
def _bfs_target_plan(known, visits, sr, sc, r, c, plan):
    """The `bfs` agent's next target: the unvisited known passage nearest the start (ties: row
    major), and the plan to walk there. Returns the plan length (-1 if none is left)."""
    dist, _ = bfs(known, sr, sc)
    h, w = known.shape
    best, ty, tx = -1, -1, -1
    for y in range(h):
        for x in range(w):
            if visits[y, x] == 0 and dist[y, x] > 0 and (best < 0 or dist[y, x] < best):
                best, ty, tx = dist[y, x], y, x
    if best < 0:
        return -1
    return _plan_to(known, r, c, ty, tx, plan)


# ---------------------------------------------------------------- agent rules
@njit(cache=True)
def _uniform(probs, mask):
    n = 0
    for d in range(4):
        n += mask[d]
    for d in range(4):
        probs[d] = mask[d] / n if n > 0 else 0.0
    return n


@njit(cache=True)
def _turn_probs(probs, om, arrival, fp, last_turn):
    """turn-bias at a branch point: reverse, straight, then the turns split by alternation."""
    p_straight, p_reverse, p_alternate = fp[0], fp[1], fp[2]
    back = (arrival + 2) % 4
    left, right = (arrival + 3) % 4, (arrival + 1) % 4
    probs[:] = 0.0
    probs[back] = p_reverse * om[back]
    go = 1.0 - p_reverse
    probs[arrival] = go * p_straight * om[arrival]
    turn = go * (1.0 - p_straight)
    if om[left] != 0 and om[right] != 0:
        if last_turn == NO_TURN:
            share_left = 0.5
        else:
            share_left = p_alternate if last_turn == RIGHT_TURN else 1.0 - p_alternate
        probs[left] = turn * share_left
        probs[right] = turn * (1.0 - share_left)
    elif om[left] != 0:
        probs[left] = turn
    elif om[right] != 0:
        probs[right] = turn
    total = probs.sum()
    if total <= _EPS:                       # every remaining option has probability 0
        mask = om.copy()
        mask[back] = 0
        _uniform(probs, mask)
    else:
        probs /= total


@njit(cache=True)
def explore(kind, probs, om, nv, nlast, r, c, t, arrival, ip, fp, order, counts, came,
            marks, last_turn):
    """The agent's rule: a probability over directions at (r, c), given the open mask `om`, the
    neighbours' visit counts `nv` and last visit times `nlast` (-1 never)."""
    back = (arrival + 2) % 4 if arrival >= 0 else -1
    n_open = om.sum()
    mask = np.zeros(4, np.int64)
    if kind == RANDOM_WALK:
        _uniform(probs, om)
    elif kind == WEIGHTED:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and nv[d] == 0) else 0
        if mask.sum() == 0:
            for d in range(4):
                mask[d] = 1 if (om[d] != 0 and nv[d] == 1) else 0
        if mask.sum() == 0:
            low = 1 << 30
            for d in range(4):
                if om[d] != 0 and nv[d] < low:
                    low = nv[d]
            for d in range(4):
                mask[d] = 1 if (om[d] != 0 and nv[d] == low) else 0
        total = 0.0
        for d in range(4):
            probs[d] = counts[d] * mask[d]
            total += probs[d]
        probs /= total
    elif kind == DFS:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and nv[d] == 0) else 0
        if mask.sum() == 0:
            if came[r, c] >= 0:
                mask[(came[r, c] + 2) % 4] = 1
            else:
                mask[:] = om                # nothing left to explore (cannot happen if G is
            _uniform(probs, mask)           # reachable): wander, the cap ends it
        elif order[0] == RANDOM_ORDER:
            _uniform(probs, mask)
        else:
            probs[:] = 0.0
            for i in range(4):
                if mask[order[i]] != 0:
                    probs[order[i]] = 1.0
                    break
    elif kind == WALL_FOLLOWER:
        hand = ip[0]
        heading = arrival if arrival >= 0 else 0
        probs[:] = 0.0
        for turn in (hand, 0, -hand, 2):
            d = (heading + turn) % 4
            if om[d] != 0:
                probs[d] = 1.0
                break
    elif kind == TREMAUX:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and d != back) else 0
        if mask.sum() == 0:
            mask[back] = 1                  # dead end
        elif back >= 0 and marks[r, c, back] == 1 and _marked(marks, r, c, om, back) > 0:
            mask[:] = 0                     # an old place reached by a new passage: turn back
            mask[back] = 1
        else:
            low = 3
            for d in range(4):
                if om[d] != 0 and marks[r, c, d] < low:
                    low = marks[r, c, d]
            for d in range(4):
                mask[d] = 1 if (om[d] != 0 and marks[r, c, d] == low) else 0
        _uniform(probs, mask)
    elif kind == STRAIGHT_BIASED:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and d != back) else 0
        n = mask.sum()
        if n == 0:
            probs[:] = 0.0
            probs[back] = 1.0
        elif arrival >= 0 and om[arrival] != 0 and n > 1:
            for d in range(4):
                probs[d] = (1.0 - fp[0]) / (n - 1) * mask[d]
            probs[arrival] = fp[0]
        else:
            _uniform(probs, mask)
    elif kind == TURN_BIAS:
        if arrival >= 0 and n_open >= BRANCH_DEGREE:
            _turn_probs(probs, om, arrival, fp, last_turn)
        else:
            for d in range(4):
                mask[d] = 1 if (om[d] != 0 and d != back) else 0
            if mask.sum() == 0:
                mask[back] = 1
            _uniform(probs, mask)
    elif kind == FINITE_MEMORY:
        memory = ip[0]
        oldest = t + 1
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and (nlast[d] < 0 or t - nlast[d] > memory)) else 0
            if om[d] != 0 and nlast[d] < oldest:
                oldest = nlast[d]
        if mask.sum() == 0:
            for d in range(4):
                mask[d] = 1 if (om[d] != 0 and nlast[d] == oldest) else 0
        _uniform(probs, mask)


@njit(cache=True)
def _marked(marks, r, c, om, back):
    """How many open passages of (r, c) other than `back` carry marks (0: a new place)."""
    n = 0
    for d in range(4):
        if om[d] != 0 and d != back and marks[r, c, d] > 0:
            n += 1
    return n


@njit(cache=True)
def _sample(probs, rng):
    """A direction drawn from `probs`; no random number is used when only one is possible."""
    n, only = 0, -1
    for d in range(4):
        if probs[d] > 0.0:
            n += 1
            only = d
    if n == 1:
        return only
    x = rng.random() * probs.sum()
    acc = 0.0
    for d in range(4):
        acc += probs[d]
        if probs[d] > 0.0 and x < acc:
            return d
    return only


@njit(cache=True)
def _direction(r, c, nr, nc):
    for d in range(4):
        if r + _DR[d] == nr and c + _DC[d] == nc:
            return d
    return -1


# ---------------------------------------------------------------- the driver
@njit(cache=True)
def _sense(grid, visits, last, r, c, om, nv, nlast):
    """The four neighbours: open mask, visit counts and last visit times (always sensed)."""
    h, w = grid.shape
    for d in range(4):
        y, x = r + _DR[d], c + _DC[d]
        if 0 <= y < h and 0 <= x < w and grid[y, x] == 0:
            om[d], nv[d], nlast[d] = 1, visits[y, x], last[y, x]
        else:
            om[d], nv[d], nlast[d] = 0, 0, -1


@njit(cache=True)
def run(kind, grid, sr, sc, gr, gc, ip, fp, order, k, occlusion, memory, goal_seeking, rng,
        max_steps, pos, replay):
    """Walk one trial into `pos` (replay < 0), or score the `replay` moves already in `pos`.

    `ip`, `fp`, `order`: the agent's integer and float parameters and neighbour order; `k` < 0
    for full vision. Returns (moves, log-likelihood of every move, log-likelihood of the moves
    leaving branch points); the likelihoods are 0 when walking.
    """
    h, w = grid.shape
    visits = np.zeros((h, w), np.int32)
    last = np.full((h, w), -1, np.int64)
    came = np.full((h, w), -1, np.int8)
    marks = np.zeros((h, w, 4), np.int16)
    known = np.full((h, w), UNKNOWN, np.int8)
    counts = np.zeros(4)
    if kind == WEIGHTED:
        counts[:] = ip[0]
    plan = np.empty(h * w, np.int8)
    plan_len, plan_i, goal_plan = 0, 0, False
    probs = np.zeros(4)
    om = np.zeros(4, np.int64)
    nv = np.zeros(4, np.int64)
    nlast = np.zeros(4, np.int64)
    needs_map = goal_seeking or kind == BFS_AGENT
    r, c = sr, sc
    visits[r, c] = 1
    last[r, c] = 0
    if replay < 0:
        pos[0, 0], pos[0, 1] = r, c
    if k < 0:
        for y in range(h):
            for x in range(w):
                known[y, x] = grid[y, x]
    elif needs_map:
        perceive(grid, known, visits, r, c, k, occlusion, memory, -1, -1)
    dirty = True
    arrival, last_turn = -1, NO_TURN
    n = max_steps if replay < 0 else replay
    t = 0
    ll_all, ll_branch = 0.0, 0.0
    while t < n and not (r == gr and c == gc):
        _sense(grid, visits, last, r, c, om, nv, nlast)
        branch = om.sum() >= BRANCH_DEGREE
        if goal_seeking and not goal_plan and dirty and known[gr, gc] == 0:
            m = _plan_to(known, r, c, gr, gc, plan)
            if m >= 0:
                plan_len, plan_i, goal_plan = m, 0, True
        dirty = False
        if kind == BFS_AGENT and plan_i >= plan_len:
            plan_len, plan_i = max(_bfs_target_plan(known, visits, sr, sc, r, c, plan), 0), 0
        if plan_i < plan_len:
            probs[:] = 0.0
            probs[plan[plan_i]] = 1.0
        elif kind == BFS_AGENT:
            _uniform(probs, om)             # nothing known is left unvisited: wander
        else:
            explore(kind, probs, om, nv, nlast, r, c, t, arrival, ip, fp, order, counts, came,
                    marks, last_turn)
        if replay < 0:
            d = _sample(probs, rng)
        else:
            d = _direction(r, c, pos[t + 1, 0], pos[t + 1, 1])
            lp = np.log(probs[d]) if probs[d] > 0.0 else -np.inf
            ll_all += lp
            if branch:
                ll_branch += lp
        if plan_i < plan_len:
            if d == plan[plan_i]:
                plan_i += 1
            else:                           # a replayed walk left the plan
                plan_len, plan_i, goal_plan = 0, 0, False
        y, x = r + _DR[d], c + _DC[d]
        if kind == WEIGHTED and (ip[1] != 0 or visits[y, x] == 0):
            counts[d] += 1.0
        elif kind == TREMAUX:
            marks[r, c, d] = min(marks[r, c, d] + 1, 2 * BRANCH_DEGREE)
            marks[y, x, (d + 2) % 4] = min(marks[y, x, (d + 2) % 4] + 1, 2 * BRANCH_DEGREE)
        elif kind == TURN_BIAS and branch and arrival >= 0:
            if d == (arrival + 3) % 4:
                last_turn = LEFT_TURN
            elif d == (arrival + 1) % 4:
                last_turn = RIGHT_TURN
        if visits[y, x] == 0:
            came[y, x] = d
        pr, pc = r, c
        r, c = y, x
        t += 1
        visits[r, c] += 1
        last[r, c] = t
        if replay < 0:
            pos[t, 0], pos[t, 1] = r, c
        arrival = d
        if needs_map and k >= 0:
            dirty = perceive(grid, known, visits, r, c, k, occlusion, memory, pr, pc) > 0
    return t, ll_all, ll_branch


# ---------------------------------------------------------------- choice records
CHOICE_COLUMNS = 8      # step, row, col, arrival, open mask, unexplored mask, chosen, first


@njit(cache=True)
def branch_choices(grid, pos, n):
    """Int64 (m, 8) choice records of a walk of `n` moves: one row per departure from a branch
    point (step, row, col, arrival or -1, open mask, unexplored mask, chosen, first 0/1).

    Masks are bit sets over directions (bit d for direction d); "unexplored" means not visited
    by the walk before that step.
    """
    h, w = grid.shape
    visited = np.zeros((h, w), np.bool_)
    departed = np.zeros((h, w), np.bool_)
    out = np.empty((n, CHOICE_COLUMNS), np.int64)
    m = 0
    visited[pos[0, 0], pos[0, 1]] = True
    arrival = -1
    for t in range(n):
        r, c = pos[t, 0], pos[t, 1]
        d = _direction(r, c, pos[t + 1, 0], pos[t + 1, 1])
        open_mask, unexplored, degree = 0, 0, 0
        for e in range(4):
            y, x = r + _DR[e], c + _DC[e]
            if 0 <= y < h and 0 <= x < w and grid[y, x] == 0:
                degree += 1
                open_mask |= 1 << e
                if not visited[y, x]:
                    unexplored |= 1 << e
        if degree >= BRANCH_DEGREE:
            out[m, 0], out[m, 1], out[m, 2], out[m, 3] = t, r, c, arrival
            out[m, 4], out[m, 5], out[m, 6] = open_mask, unexplored, d
            out[m, 7] = 0 if departed[r, c] else 1
            departed[r, c] = True
            m += 1
        visited[pos[t + 1, 0], pos[t + 1, 1]] = True
        arrival = d
    return out[:m].copy()
