"""numba driver of the walking agents: a batch of trials or the replay of a walk (`run_trials`),
and the choice records of any walk (`branch_choices`).

Each move: sense the four neighbours, then either follow the current plan (goal seeking, or the
`bfs` agent's next target) or ask the agent's rule (`_rule_kernels`) for a probability
over the four directions; sample it (walk) or score the observed move (replay); then update the
trail and the known map (`_vision_kernels.perceive`).
"""

import numpy as np
from numba import njit

from mazesim.agents._rule_kernels import (BFS_AGENT, BRANCH_DEGREE, DFS, FINITE_MEMORY,
                                          LEFT_TURN, NO_TURN, RANDOM_ORDER, RANDOM_WALK,
                                          RIGHT_TURN, STRAIGHT_BIASED, TREMAUX,
                                          TREMAUX_MARK_CAP, TURN_BIAS, WALL_FOLLOWER, WEIGHTED,
                                          _uniform, dfs_rule, memory_rule, straight_rule,
                                          tremaux_rule, turn_rule, wall_follower_rule,
                                          weighted_rule)
from mazesim.agents._streams import next_double
from mazesim.agents._vision_kernels import UNKNOWN, bfs_target, perceive, plan_to
from mazesim.maze import DELTAS

__all__ = ["run_trials", "branch_choices", "CHOICE_COLUMNS", "RANDOM_WALK", "WEIGHTED",
           "DFS", "WALL_FOLLOWER", "TREMAUX", "STRAIGHT_BIASED", "TURN_BIAS", "FINITE_MEMORY",
           "BFS_AGENT", "RANDOM_ORDER", "BRANCH_DEGREE"]

_DR = np.array(DELTAS[:, 0])
_DC = np.array(DELTAS[:, 1])
CHOICE_COLUMNS = 8      # step, row, col, arrival, open mask, unexplored mask, chosen, first
_INITIAL_ROWS = 1024


@njit(cache=True, inline="always")
def _sample(probs, state):
    """A direction drawn from `probs`; no random number is used when only one is possible."""
    n, only, total = 0, -1, 0.0
    for d in range(4):
        if probs[d] > 0.0:
            n += 1
            only = d
            total += probs[d]
    if n == 1:
        return only
    x = next_double(state) * total
    acc = 0.0
    for d in range(4):
        acc += probs[d]
        if probs[d] > 0.0 and x < acc:
            return d
    return only


@njit(cache=True, inline="always")
def _direction(r, c, nr, nc):
    for d in range(4):
        if r + _DR[d] == nr and c + _DC[d] == nc:
            return d
    return -1


@njit(cache=True, inline="always")
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
def _workspace(h, w):
    """Arrays of one trial, reused across a batch: visits, last visit, first-entry direction,
    Tremaux marks, known map, plan, then BFS scratch: stamps, distances and a queue."""
    return (np.zeros((h, w), np.int32), np.full((h, w), -1, np.int64),
            np.full((h, w), -1, np.int8), np.zeros((h, w, 4), np.int16),
            np.full((h, w), UNKNOWN, np.int8), np.empty(h * w, np.int8),
            np.zeros((h, w), np.int32), np.zeros((h, w), np.int32), np.empty(h * w, np.int64))


@njit(cache=True)
def _run(kind, grid, sr, sc, gr, gc, ip, fp, order, k, occlusion, memory, goal_seeking, state,
         max_steps, pos, replay, ws):
    """Walk one trial into `pos` (replay < 0), or score the `replay` moves already in `pos`.

    Returns (moves, log-likelihood of every move, of the moves leaving branch points); the
    likelihoods are 0 when walking.
    """
    visits, last, came, marks, known, plan, stamp, dist, queue = ws
    h, w = grid.shape
    needs_map = goal_seeking or kind == BFS_AGENT
    visits[:, :] = 0
    last[:, :] = -1
    came[:, :] = -1
    if kind == TREMAUX:
        marks[:, :, :] = 0
    if k < 0:
        for y in range(h):
            for x in range(w):
                known[y, x] = grid[y, x]
    elif needs_map:
        known[:, :] = UNKNOWN
    if needs_map:
        stamp[:, :] = 0
    gen = 0
    counts = np.zeros(4)
    if kind == WEIGHTED:
        counts[:] = ip[0]
    probs, mask = np.zeros(4), np.zeros(4, np.int64)
    om, nv, nlast = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64)
    plan_len, plan_i, goal_plan, dirty = 0, 0, False, True
    r, c = sr, sc
    visits[r, c] = 1
    last[r, c] = 0
    if replay < 0:
        pos[0, 0], pos[0, 1] = r, c
    if k >= 0 and needs_map:
        perceive(grid, known, visits, r, c, k, occlusion, memory, -1, -1)
    arrival, last_turn = -1, NO_TURN
    n = max_steps if replay < 0 else replay
    t = 0
    ll_all, ll_branch = 0.0, 0.0
    while t < n and not (r == gr and c == gc):
        _sense(grid, visits, last, r, c, om, nv, nlast)
        branch = om[0] + om[1] + om[2] + om[3] >= BRANCH_DEGREE
        if goal_seeking and not goal_plan and dirty and known[gr, gc] == 0:
            gen += 1
            m = plan_to(known, r, c, gr, gc, plan, stamp, gen, dist, queue)
            if m >= 0:
                plan_len, plan_i, goal_plan = m, 0, True
        dirty = False
        if kind == BFS_AGENT and plan_i >= plan_len:
            gen += 1
            target = bfs_target(known, visits, sr, sc, stamp, gen, queue)
            plan_len, plan_i = 0, 0
            if target >= 0:
                gen += 1
                plan_len = max(plan_to(known, r, c, target // w, target % w, plan, stamp, gen,
                                       dist, queue), 0)
        if plan_i < plan_len:
            probs[:] = 0.0
            probs[plan[plan_i]] = 1.0
        elif kind == BFS_AGENT:
            _uniform(probs, om)             # nothing known is left unvisited: wander
        elif kind == RANDOM_WALK:
            _uniform(probs, om)
        elif kind == WEIGHTED:
            weighted_rule(probs, mask, om, nv, counts)
        elif kind == DFS:
            dfs_rule(probs, mask, om, nv, came[r, c], order)
        elif kind == WALL_FOLLOWER:
            wall_follower_rule(probs, om, arrival, ip[0])
        elif kind == TREMAUX:
            tremaux_rule(probs, mask, om, marks, r, c, arrival)
        elif kind == STRAIGHT_BIASED:
            straight_rule(probs, mask, om, arrival, fp[0])
        elif kind == TURN_BIAS:
            turn_rule(probs, mask, om, arrival, fp, last_turn)
        else:
            memory_rule(probs, mask, om, nlast, t, ip[0])
        if replay < 0:
            d = _sample(probs, state)
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
            marks[r, c, d] = min(marks[r, c, d] + 1, TREMAUX_MARK_CAP)
            marks[y, x, (d + 2) % 4] = min(marks[y, x, (d + 2) % 4] + 1, TREMAUX_MARK_CAP)
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


@njit(cache=True)
def _grow(rows, needed):
    bigger = np.empty((max(needed, 2 * rows.shape[0]), rows.shape[1]), rows.dtype)
    bigger[: rows.shape[0]] = rows
    return bigger


@njit(cache=True)
def run_trials(kind, grid, sr, sc, gr, gc, ip, fp, order, k, occlusion, memory, goal_seeking,
               states, max_steps, keep, record, replay):
    """Walk one trial per row of `states` (xoshiro256** words, see `_streams`), or, when
    `replay` holds a walk (T+1, 2), score it instead (one entry point: one compilation).

    Returns moves (trials,), reached (trials,), choice rows (m, 1 + CHOICE_COLUMNS) starting with
    the trial index (departures from branch points where `record` is set), all positions stacked
    if `keep` (sum of moves + 1 per trial, 2), and the log-likelihoods of a replay (every move,
    moves leaving branch points; zeros when walking).
    """
    h, w = grid.shape
    ws = _workspace(h, w)
    likelihood = np.zeros(2)
    if replay.shape[0] > 0:
        n = replay.shape[0] - 1
        moves, ll_all, ll_branch = _run(kind, grid, sr, sc, gr, gc, ip, fp, order, k, occlusion,
                                        memory, goal_seeking, states[0].copy(), n, replay, n, ws)
        likelihood[0], likelihood[1] = ll_all, ll_branch
        return (np.full(1, moves, np.int64), np.zeros(1, np.bool_),
                np.empty((0, CHOICE_COLUMNS + 1), np.int64), np.empty((0, 2), np.int64),
                likelihood)
    buf = np.empty((max_steps + 1, 2), np.int64)
    trials = states.shape[0]
    moves = np.empty(trials, np.int64)
    reached = np.zeros(trials, np.bool_)
    choices = np.empty((_INITIAL_ROWS, CHOICE_COLUMNS + 1), np.int64)
    flat = np.empty((_INITIAL_ROWS if keep else 0, 2), np.int64)
    nc, nf = 0, 0
    recording = record.any()
    no_rows = np.empty((0, CHOICE_COLUMNS), np.int64)
    for i in range(trials):
        state = states[i].copy()
        n, _, _ = _run(kind, grid, sr, sc, gr, gc, ip, fp, order, k, occlusion, memory,
                       goal_seeking, state, max_steps, buf, -1, ws)
        moves[i] = n
        reached[i] = buf[n, 0] == gr and buf[n, 1] == gc
        rows = branch_choices(grid, buf, n, record) if recording else no_rows
        m = rows.shape[0]
        if nc + m > choices.shape[0]:
            choices = _grow(choices, nc + m)
        choices[nc: nc + m, 0] = i
        choices[nc: nc + m, 1:] = rows
        nc += m
        if keep:
            if nf + n + 1 > flat.shape[0]:
                flat = _grow(flat, nf + n + 1)
            flat[nf: nf + n + 1] = buf[: n + 1]
            nf += n + 1
    return moves, reached, choices[:nc].copy(), flat[:nf].copy(), likelihood


@njit(cache=True)
def branch_choices(grid, pos, n, record):
    """Int64 (m, 8) choice records of a walk of `n` moves: one row per departure from a branch
    point whose `record` cell is set (step, row, col, arrival or -1, open mask, unexplored mask,
    chosen, first 0/1).

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
        if not record[r, c]:
            visited[pos[t + 1, 0], pos[t + 1, 1]] = True
            arrival = d
            continue
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
