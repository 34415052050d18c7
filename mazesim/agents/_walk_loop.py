"""The compiled walking loop every rule shares: perception, goal seeking, plans, drawing or
reading a move, the trail and the junction-choice records.

`walk_loop` is the loop's code; `mazesim.agents.rules.walk_kernel` binds a rule's hooks into it
(the rule protocol is documented there). Walking draws the move from the rule's probabilities;
reading takes the move of a recorded walk and returns the probabilities: the same code serves
both. Cells are flat indices into the padded grid (`mazesim._grid`); the hot loop keeps its
arrays in local variables and calls compiled helpers only for what is rare (plans, perception,
records), so that a blind random walk runs close to a bare loop. Only the hooks that need the
whole `WalkState` (`target`, `observe`) get it: passing that tuple in the hot loop would cost a
reference count per array per step.
"""

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit

from mazesim._grid import bfs
from mazesim.agents._streams import xoshiro_double
from mazesim.agents._vision_kernels import ISOVIST_CACHE_ENTRIES, look, look_cached, perceive
from mazesim.agents._vision_kernels import FULL_VIEW, ISOVIST_VIEW, SWEEP_VIEW, UNKNOWN, WINDOW_VIEW
from mazesim.maze import PASSAGE
from mazesim.records import (ARRIVAL, BRANCH_DEGREE, CHOSEN, COL, FIRST, N_COLUMNS, OPEN, ROW,
                             STEP, UNEXPLORED)

__all__ = ["WalkState", "LoopResult", "RULE_STATE", "walk_loop", "record_choices", "plan_to"]

RULE_STATE = 32           # floats of a rule's own state (`rs`)
_FIRST_ROWS = 256         # initial size of the growing choice and position buffers

WalkState = namedtuple("WalkState", [
    "cells", "width", "step", "start", "goal",   # the padded maze, neighbour offsets, S and G
    "layout", "known", "blank",  # what plans walk on (the known map, or the maze when its
                                 # layout is known), what has been seen, what is at the start
    "visits", "last", "came",   # the trail: visit counts, last visit time, first arrival
    "marks",                    # int16 (n, 4) marks of a rule (Tremaux)
    "plan",                     # the current plan (directions)
    "stamp", "dist", "queue", "stop", "gen",     # BFS scratch (`_grid.bfs`), stamp counter
    "row", "col",               # each cell's padded row and column (no division per step)
    "departed",                 # cells left before in this trial (first-departure flags)
    "rs", "om", "nv", "nlast", "probs",          # rule state; the four neighbours at a step
    "kind", "radius", "occlusion",   # the agent's sight (`Vision.kernel_args()`)
    "sight",                    # half-width of the box one look can change (-1: unbounded)
    "iso_len", "iso",           # each cell's isovist, computed once (`look_cached`; empty:
                                # not an isovist with memory over a known layout)
    "exit_hidden",              # the goal shows only on arrival (`Vision.exit_on_arrival`):
])                              # never seen from elsewhere, its cell plain floor


class LoopResult(NamedTuple):
    """What the walking loop returns: `LoopResult._make(kernel(...))` names the plain tuple of
    `walk_loop` (numba's boxing of a NamedTuple costs about 1.7 us a call, `_make` 0.5 us); the
    arrays a mode does not fill are empty."""

    moves: np.ndarray           # int64 (trials,): moves of each trial
    reached: np.ndarray         # bool (trials,): whether the trial ended at the goal
    rows: np.ndarray            # int64 (m, N_COLUMNS): junction-choice rows (`records`)
    row_trials: np.ndarray      # int64 (m,): the trial of each row
    positions: np.ndarray       # int64 (sum of moves + 1, 2): every trial's cells stacked (keep)
    probabilities: np.ndarray   # float (moves, 4): of each direction before each move (read)
    rule_states: np.ndarray     # float (moves, RULE_STATE): an observer's `rs` before each
                                # move (read)


@njit(cache=True)
def _workspace(cells, width, start, goal, full, known_map, seen, kind, radius, occlusion, sight,
               cached, exit_hidden):
    n = cells.shape[0]
    row_len = min((2 * radius + 1) ** 2, n) if cached else 0
    if n * row_len > ISOVIST_CACHE_ENTRIES:
        row_len = 0
    rows = n // width
    blank = cells.copy()
    if not full:
        for j in range(n):
            inside = 0 < j // width < rows - 1 and 0 < j % width < width - 1
            if inside and (seen.shape[0] == 0 or seen[j] == 0):
                blank[j] = UNKNOWN          # the padding ring and what the maze shows at the
    known = blank.copy()                    # start (`seen`, flat; empty: nothing) are known
    layout = cells if known_map else known
    iso_cells = n if row_len else 0
    return WalkState(                       # (no expression with a condition in this long call)
        cells, width, np.array([-width, 1, width, -1], np.int64), start, goal, layout, known,
        blank,
        np.zeros(n, np.int32), np.full(n, -1, np.int64), np.full(n, -1, np.int8),
        np.zeros((n, 4), np.int16), np.empty(n, np.int8),
        np.zeros(n, np.int64), np.zeros(n, np.int32), np.empty(n, np.int64),
        np.zeros(n, np.uint8), np.zeros(1, np.int64),
        np.arange(n, dtype=np.int64) // width, np.arange(n, dtype=np.int64) % width,
        np.zeros(n, np.uint8), np.zeros(RULE_STATE), np.zeros(4, np.int64),
        np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4), kind, radius, occlusion,
        sight,
        np.full(iso_cells, -1, np.int64), np.empty(n * row_len, np.int64), exit_hidden)


@njit(cache=True)
def _buffers(recording, keep, reading, n_max, trials):
    """The growing outputs of `walk_loop`: choice rows and their trials, kept cells (row, col),
    one trial's flat cells, and the step probabilities of a read walk; moves and reached."""
    rows = np.empty((_FIRST_ROWS if recording else 0, N_COLUMNS), np.int64)
    return (rows, np.empty(rows.shape[0], np.int64),
            np.empty((_FIRST_ROWS if keep else 0, 2), np.int64),
            np.empty(_FIRST_ROWS if keep else 0, np.int64),
            np.zeros((n_max if reading else 0, 4)), np.empty(trials, np.int64),
            np.zeros(trials, np.bool_))


@njit(cache=True)
def _begin(ws, reset_known):
    """Reset the trail and the departures (and the known map) for a new trial."""
    visits, last, came, departed = ws.visits, ws.last, ws.came, ws.departed
    for j in range(visits.shape[0]):
        visits[j] = 0
        last[j] = -1
        came[j] = -1
        departed[j] = 0
    if reset_known:
        known, blank = ws.known, ws.blank
        for j in range(known.shape[0]):
            known[j] = blank[j]
    visits[ws.start] = 1
    last[ws.start] = 0


@njit(cache=True)
def plan_to(ws, i, target):
    """Directions of a shortest path over `ws.layout` from i to `target` into `ws.plan`; its
    length, or -1 when there is none. The BFS runs from the target and stops at i (cheap while
    the target's known region is small); each step goes to the neighbour one closer to the target
    (canonical order on ties)."""
    if i == target:
        return 0
    ws.gen[0] += 1
    gen = ws.gen[0]
    ws.stop[i] = 1
    bfs(ws.layout, ws.step, np.full(1, target, np.int64), ws.stamp, gen, ws.dist,
        np.zeros(0, np.int8), ws.queue, ws.stop)
    ws.stop[i] = 0
    if ws.stamp[i] != gen:
        return -1
    n = ws.dist[i]
    for s in range(n):
        for d in range(4):
            j = i + ws.step[d]
            if ws.stamp[j] == gen and ws.dist[j] == n - s - 1:
                ws.plan[s] = d
                i = j
                break
    return n


@njit(cache=True)
def _recall(cells, width, step, row, col, known, visits, radius):
    """Fill `known` with everything seen from the trail (cells visited so far) through a plain
    window of `radius` with memory: what eager perception would hold now, for an agent that
    looked only once the goal came into view. (The window of every visited cell, written here:
    a call per cell would cost more than its window.)"""
    rows = cells.shape[0] // width
    for j in range(visits.shape[0]):
        if visits[j] > 0:
            r, c = row[j], col[j]
            for y in range(max(r - radius, 1), min(r + radius, rows - 2) + 1):
                for x in range(max(c - radius, 1), min(c + radius, width - 2) + 1):
                    known[y * width + x] = cells[y * width + x]
            for d in range(4):
                known[j + step[d]] = cells[j + step[d]]


@njit(cache=True)
def _goal_window(n, width, goal, radius):
    """Flags of the cells from which a window of `radius` shows the goal: those within the
    (2 radius + 1)-square around it, and its neighbours (always sensed)."""
    out = np.zeros(n, np.uint8)
    gr, gc = goal // width, goal % width
    for j in range(n):
        dr, dc = abs(j // width - gr), abs(j % width - gc)
        if max(dr, dc) <= radius or dr + dc == 1:
            out[j] = 1
    return out


@njit(cache=True)
def _grow_rows(rows, needed):
    bigger = np.empty((max(needed, 2 * rows.shape[0]), N_COLUMNS), np.int64)
    for r in range(rows.shape[0]):
        for c in range(N_COLUMNS):
            bigger[r, c] = rows[r, c]
    return bigger


@njit(cache=True)
def _grow_cells(cells, needed):
    bigger = np.empty(max(needed, 2 * cells.shape[0]), np.int64)
    for r in range(cells.shape[0]):
        bigger[r] = cells[r]
    return bigger


@njit(cache=True)
def _write_choice(rows, m, t, i, width, arrival, d, first, om, nv):
    """Row m of a junction-choice record (`mazesim.records.CHOICE_FIELDS`)."""
    open_mask, unexplored = 0, 0
    for e in range(4):
        if om[e] != 0:
            open_mask |= 1 << e
            if nv[e] == 0:
                unexplored |= 1 << e
    rows[m, STEP] = t
    rows[m, ROW] = i // width - 1
    rows[m, COL] = i % width - 1
    rows[m, ARRIVAL] = arrival
    rows[m, CHOSEN] = d
    rows[m, FIRST] = first
    rows[m, OPEN] = open_mask
    rows[m, UNEXPLORED] = unexplored


@njit(cache=True)
def _grow_pairs(pairs, needed):
    bigger = np.empty((max(needed, 2 * pairs.shape[0]), 2), np.int64)
    for r in range(pairs.shape[0]):
        bigger[r, 0], bigger[r, 1] = pairs[r, 0], pairs[r, 1]
    return bigger


@njit(cache=True)
def _keep_cells(kept, k, pos, t, width):
    """Append the trial's cells `pos[:t + 1]` (flat) to `kept[:k]` as (row, col) pairs: the grown
    buffer and its new length."""
    if k + t + 1 > kept.shape[0]:
        kept = _grow_pairs(kept, k + t + 1)
    _flat_to_cells(pos, t + 1, width, kept, k)
    return kept, k + t + 1


@njit(cache=True)
def _repeat_rows(rows, owner, first, m, trial):
    """Copy the choice rows `first..m` (the last trial's) as the rows of `trial`: the grown
    buffers, the copy's first row and the new count."""
    count = m - first
    if m + count > rows.shape[0]:
        rows, owner = _grow_rows(rows, m + count), _grow_cells(owner, m + count)
    for r in range(count):
        for c in range(N_COLUMNS):
            rows[m + r, c] = rows[first + r, c]
        owner[m + r] = trial
    return rows, owner, m, m + count


@njit(cache=True)
def _flat_to_cells(flat, count, width, out, at):
    """Write the first `count` flat padded cells as (row, col) pairs into `out` from row `at`."""
    for s in range(count):
        out[at + s, 0] = flat[s] // width - 1
        out[at + s, 1] = flat[s] % width - 1


# What `rules.walk_kernel` binds for each rule: `walk_loop` reads them as globals, so numba
# compiles them as constants (the values here only name them).
rule_probabilities = rule_update = rule_reset = rule_target = rule_observe = None
PLANNER = OBSERVER = READS_LAST = MAPPED = False


def walk_loop(p, cells, width, start, goal, view, goal_seeking, lapse, streams, max_steps, keep,
              record, walk, stop):
    """Walk a trial per row of `streams` (xoshiro256** words, `_streams`), or, when `walk` (flat
    cells from the start) is not empty, read that walk instead (the code of every
    `rules.walk_kernel`, never called itself); when `stop` (flat, padded) is not empty too,
    read `walk` as every trial's prefix and walk on from its end, drawing, until a move beyond
    it enters a cell set in `stop` (or the goal, or `max_steps` moves in all): rollouts from a
    recorded history.

    `view` is `Vision.kernel_args()`, the flat mask of the cells the maze shows at the start
    (empty: none) and `Vision.exit_on_arrival` (the goal is never seen: no plan goes to it, the
    walk ends on arrival); `record` (flat, padded; empty: none) marks the cells whose junction
    departures are recorded. Returns the fields of a `LoopResult`, in order: positions only
    when `keep`, probabilities only when reading, rule states only when an observer reads. A
    walk that drew no random number (a deterministic rule) is walked once: the trials after it
    would walk the same and copy it.
    """
    kind, radius, occlusion, memory, known_map = view[:5]
    seen, exit_hidden = view[5], view[6]
    seeks = goal_seeking and not exit_hidden    # (decided once: the hot loop is unchanged)
    limited = kind != FULL_VIEW and MAPPED
    reading = walk.shape[0] > 0
    rolling = reading and stop.shape[0] > 0
    trials = streams.shape[0]
    n_read = walk.shape[0] - 1 if reading else 0
    n_max = max_steps if rolling or not reading else n_read
    recording = record.shape[0] > 0
    sight = np.int64(-1) if kind == SWEEP_VIEW else np.int64(max(radius, 1))
    iso_cached = limited and kind == ISOVIST_VIEW and memory and known_map
    ws = _workspace(cells, width, start, goal, not limited, known_map and limited, seen, kind,
                    radius, occlusion, sight, iso_cached, exit_hidden)
    cached = ws.iso.shape[0] > 0        # isovists computed once per cell, not at every step
    iso_len, iso = ws.iso_len, ws.iso
    step, visits, last, came, known = ws.step, ws.visits, ws.last, ws.came, ws.known
    plan, departed, rs, marks = ws.plan, ws.departed, ws.rs, ws.marks
    om, nv, nlast, probs = ws.om, ws.nv, ws.nlast, ws.probs
    row, col = ws.row, ws.col
    shows_goal = _goal_window(cells.shape[0] if limited else 0, width, goal, radius)
    rows, owner, kept, pos, scores, moves, reached = _buffers(recording, keep, reading,
                                                              n_read, trials)
    traces = np.zeros((n_read if reading and OBSERVER else 0, RULE_STATE))
    m, k = np.int64(0), np.int64(0)     # (constants would compile helper variants)
    first, drew, i, t = np.int64(0), True, start, np.int64(0)
    for trial in range(trials):
        if not drew:            # the last walk drew no random number: this one is the same
            rows, owner, first, m = _repeat_rows(rows, owner, first, m, trial)
            moves[trial], reached[trial] = t, i == goal
            if keep:
                kept, k = _keep_cells(kept, k, pos, t, width)
            continue
        first, drew = m, False
        s0, s1, s2, s3 = (streams[trial, 0], streams[trial, 1], streams[trial, 2],
                          streams[trial, 3])
        _begin(ws, limited)
        rule_reset(p, rs, marks)
        i = start
        if keep:
            pos[0] = i
        dirty = True
        # Perception is lazy for a plain window (memory, no occlusion) that only looks for the
        # goal: nothing is scanned until the goal comes into view, then the trail's windows
        # are recalled at once (the same map) and every step looks again.
        eager = limited and not (kind == WINDOW_VIEW and memory and not occlusion
                                 and not PLANNER and not OBSERVER)
        if MAPPED:
            if eager and cached:    # from i to i: the first look
                look_cached(cells, width, step, known, i, radius, iso_len, iso)
            elif eager:
                look(cells, width, step, known, visits, i, row[i], col[i], np.int64(-1),
                     np.int64(-1), np.int64(-1), kind, radius, occlusion, memory)
            elif limited and shows_goal[i] != 0:
                _recall(cells, width, step, row, col, known, visits, radius)
                eager = True
        plan_len, plan_i, goal_plan = 0, 0, False
        arrival, t = np.int64(-1), np.int64(0)
        while True:             # steps, pausing only to grow a full buffer (so that no
            rows_free = rows.shape[0] if recording else n_max + 1    # array variable is
            cells_free = pos.shape[0] - 1 if keep else n_max         # reassigned in the
            while t < n_max and i != goal and m < rows_free and t < cells_free and not (
                    rolling and t > n_read and stop[i] != 0):                     # loop)
                degree = 0
                for d in range(4):
                    j = i + step[d]
                    if cells[j] == PASSAGE:
                        om[d], nv[d] = 1, visits[j]
                        degree += 1
                    else:
                        om[d], nv[d] = 0, 0
                    if READS_LAST:
                        nlast[d] = last[j] if cells[j] == PASSAGE else -1
                planned = False
                if MAPPED:
                    goal_seen = known[goal] == PASSAGE   # arrays are read outside conditions:
                    if seeks and not goal_plan and dirty and goal_seen:  # (refcounts)
                        length = plan_to(ws, i, goal)
                        if length >= 0:
                            plan_len, plan_i, goal_plan = length, 0, True
                    dirty = False
                    if PLANNER and plan_i >= plan_len:
                        aim = rule_target(p, ws, i)
                        plan_len, plan_i = 0, 0
                        if aim >= 0:
                            plan_len = max(plan_to(ws, i, aim), 0)
                    planned = plan_i < plan_len
                if planned:
                    for e in range(4):
                        probs[e] = 0.0
                    probs[plan[plan_i]] = 1.0
                else:
                    if OBSERVER:
                        rule_observe(p, rs, ws, i, arrival, t, om)
                    rule_probabilities(p, rs, marks, i, came[i], arrival, t, om, nv, nlast, probs)
                if lapse > 0.0:
                    for d in range(4):
                        probs[d] = (1.0 - lapse) * probs[d] + lapse * om[d] / degree
                if reading and t < n_read:
                    d = 0
                    while i + step[d] != walk[t + 1]:
                        d += 1
                    for e in range(4):
                        scores[t, e] = probs[e]
                    if OBSERVER:
                        for e in range(RULE_STATE):
                            traces[t, e] = rs[e]
                else:               # draw; no random number when only one is possible
                    n_open, total = 0, 0.0
                    for e in range(4):
                        n_open += probs[e] > 0.0
                        total += probs[e]
                    if n_open > 1:  # the first direction whose cumulative sum passes x
                        s0, s1, s2, s3, u = xoshiro_double(s0, s1, s2, s3)
                        drew = True
                        x = u * total
                        acc, d = 0.0, 0
                        for e in range(3):
                            acc += probs[e]
                            d += acc <= x
                        while probs[d] == 0.0:  # x rounded onto the sum: the last candidate
                            d -= 1
                    else:
                        d = 0
                        while probs[d] == 0.0:
                            d += 1
                if planned:
                    if d == plan[plan_i]:
                        plan_i += 1
                    else:                       # a recorded walk left the plan
                        plan_len, plan_i, goal_plan = 0, 0, False
                j = i + step[d]
                rule_update(p, rs, marks, i, j, d, arrival, om, visits[j] == 0)
                recorded = record[i] != 0 if recording else False
                if recorded and degree >= BRANCH_DEGREE:
                    _write_choice(rows, m, t, i, width, arrival, d, 1 - departed[i], om, nv)
                    owner[m] = trial
                    departed[i] = 1
                    m += 1
                if visits[j] == 0:
                    came[j] = d
                prev = i
                i = j
                t += 1
                visits[i] += 1
                if READS_LAST:
                    last[i] = t
                if keep:
                    pos[t] = i
                arrival = d
                if MAPPED:
                    if eager and cached:    # (with memory a second look from i sees nothing)
                        dirty = visits[i] == 1 and look_cached(cells, width, step, known, i,
                                                               radius, iso_len, iso) > 0
                    elif eager:
                        dirty = perceive(cells, width, step, known, visits, i, row[i],
                                         col[i], prev, row[prev], col[prev], kind, radius,
                                         occlusion, memory) > 0
                    elif limited and shows_goal[i] != 0:
                        _recall(cells, width, step, row, col, known, visits, radius)
                        eager, dirty = True, True
            if t == n_max or i == goal or (rolling and t > n_read and stop[i] != 0):
                break
            if m == rows_free:
                rows, owner = _grow_rows(rows, m + 1), _grow_cells(owner, m + 1)
            if t == cells_free:
                pos = _grow_cells(pos, t + 2)
        moves[trial], reached[trial] = t, i == goal
        if keep:
            kept, k = _keep_cells(kept, k, pos, t, width)
    return moves, reached, rows[:m], owner[:m], kept[:k], scores, traces     # a LoopResult


@njit(cache=True)
def record_choices(cells, width, walk, record):
    """Choice rows (m, N_COLUMNS) of a recorded walk (flat cells): one per departure from a
    junction whose `record` cell is set (the records the walking loop writes)."""
    n = cells.shape[0]
    step = np.array([-width, 1, width, -1], np.int64)
    visited = np.zeros(n, np.bool_)
    departed = np.zeros(n, np.uint8)
    rows = np.empty((walk.shape[0], N_COLUMNS), np.int64)
    om, nv = np.zeros(4, np.int64), np.zeros(4, np.int64)
    m, arrival = np.int64(0), np.int64(-1)
    visited[walk[0]] = True
    for t in range(walk.shape[0] - 1):
        i = walk[t]
        d = 0
        while d < 4 and i + step[d] != walk[t + 1]:
            d += 1
        if record[i] != 0:
            degree = 0
            for e in range(4):
                j = i + step[e]
                om[e] = 1 if cells[j] == PASSAGE else 0
                nv[e] = 1 if visited[j] else 0
                degree += om[e]
            if degree >= BRANCH_DEGREE:
                _write_choice(rows, m, t, i, width, arrival, d, 1 - departed[i], om, nv)
                departed[i] = 1
                m += 1
        visited[walk[t + 1]] = True
        arrival = d
    return rows[:m]
