"""The compiled walks of the tree walkers (`mazesim.agents.tree_walkers`): from node to node of
a decision tree, a child drawn at each node, then the exit's path once a node shows the exit.

The tree comes flat. Cells are flat indices of the padded maze (`base.padded_maze`). Node k's
children are `children[first_child[k]:first_child[k + 1]]` (the tree's order); the cells walked
to reach child c from its parent are `path[first_cell[c]:first_cell[c + 1]]` (the parent's cell
left out); `shows[k]` whether the exit is seen at k, and then the cells of a shortest path on to
the exit are `exits[first_exit[k]:first_exit[k + 1]]`. A child slot s (an index into
`children`) has either a fixed probability `prob[s]` (the planners and heuristics: the lapse
mixed in) or, when `logit`, a utility `fixed[s]` to which the walk so far adds `weights[0] x
revisit + weights[1] x reverse` (node-choice, `mazesim.agents.node_features`), turned into
probabilities by a softmax with the lapse mixed in.

A draw takes the first child whose cumulative probability passes u x the total, among the
children of positive probability, and only where there are two or more (the compiled agents'
rule); u comes from the trial's xoshiro256** state.
"""

import numpy as np
from numba import njit

from mazesim.agents._streams import xoshiro_double
from mazesim.agents._walk_loop import record_choices
from mazesim.records import N_COLUMNS

__all__ = ["tree_walks"]


@njit(cache=True)
def tree_walks(states, first_child, children, prob, logit, fixed, weights, lapse, first_cell,
               path, shows, first_exit, exits, start, goal, max_steps, cells, width, record,
               recording):
    """(walk cells (flat, every trial's in turn), cells per trial, reached, choice rows, their
    trials) of one trial per state row (module docstring). A walk ends at the exit, when no
    child is left, or cut at `max_steps` moves; choice rows (`_walk.record_choices`) only when
    `recording`."""
    trials = states.shape[0]
    longest = 0
    for k in range(len(shows)):
        longest = max(longest, first_exit[k + 1] - first_exit[k])
    for c in range(len(first_cell) - 1):
        longest = max(longest, first_cell[c + 1] - first_cell[c])
    walk = np.empty(max_steps + 2 + 2 * longest, np.int64)
    seen = np.zeros(cells.shape[0], np.int64)
    q = np.empty(max(1, children.shape[0]), np.float64)
    out = np.empty(max(16, trials * 8), np.int64)
    count = np.zeros(trials, np.int64)
    reached = np.zeros(trials, np.bool_)
    rows = np.empty((16, N_COLUMNS), np.int64)
    row_trials = np.empty(16, np.int64)
    n_out, n_rows = 0, 0
    for t in range(trials):
        s0, s1, s2, s3 = states[t, 0], states[t, 1], states[t, 2], states[t, 3]
        stamp = t + 1
        walk[0] = start
        seen[start] = stamp
        n, node = 1, 0
        while not shows[node] and n <= max_steps:
            a, b = first_child[node], first_child[node + 1]
            if b == a:
                break
            pick = a
            if b - a > 1:
                if logit:
                    came = walk[n - 2] if n >= 2 else -1
                    top = -np.inf
                    for s in range(a, b):
                        c = children[s]
                        hit = 0
                        for e in range(first_cell[c], first_cell[c + 1]):
                            if seen[path[e]] == stamp:
                                hit += 1
                        revisit = hit / (first_cell[c + 1] - first_cell[c])
                        reverse = 1.0 if path[first_cell[c]] == came else 0.0
                        q[s] = fixed[s] + (revisit * weights[0] + reverse * weights[1])
                        top = max(top, q[s])
                    total = 0.0
                    for s in range(a, b):
                        q[s] = np.exp(q[s] - top)
                        total += q[s]
                    for s in range(a, b):
                        q[s] = (1.0 - lapse) * (q[s] / total) + lapse / (b - a)
                else:
                    for s in range(a, b):
                        q[s] = prob[s]
                live, total = 0, 0.0
                for s in range(a, b):
                    if q[s] > 0.0:
                        live += 1
                        total += q[s]
                if live == 0:
                    break
                if live > 1:
                    s0, s1, s2, s3, u = xoshiro_double(s0, s1, s2, s3)
                    x, running, passed = u * total, 0.0, 0
                    pick = -1
                    for s in range(a, b):
                        if q[s] > 0.0:
                            running += q[s]
                            if running <= x and passed < live - 1:
                                passed += 1
                            elif pick < 0:
                                pick = s
                else:
                    for s in range(a, b):
                        if q[s] > 0.0:
                            pick = s
            node = children[pick]
            for e in range(first_cell[node], first_cell[node + 1]):
                walk[n] = path[e]
                seen[path[e]] = stamp
                n += 1
        if shows[node]:
            for e in range(first_exit[node], first_exit[node + 1]):
                walk[n] = exits[e]
                n += 1
        for e in range(n):
            if walk[e] == goal:
                n = e + 1
                break
        n = min(n, max_steps + 1)
        reached[t] = walk[n - 1] == goal
        count[t] = n
        if n_out + n > out.shape[0]:
            grown = np.empty(max(2 * out.shape[0], n_out + n), np.int64)
            grown[:n_out] = out[:n_out]
            out = grown
        out[n_out:n_out + n] = walk[:n]
        n_out += n
        if recording:
            new = record_choices(cells, width, walk[:n], record)
            if n_rows + new.shape[0] > rows.shape[0]:
                size = max(2 * rows.shape[0], n_rows + new.shape[0])
                grown_rows = np.empty((size, N_COLUMNS), np.int64)
                grown_rows[:n_rows] = rows[:n_rows]
                rows = grown_rows
                grown_trials = np.empty(size, np.int64)
                grown_trials[:n_rows] = row_trials[:n_rows]
                row_trials = grown_trials
            rows[n_rows:n_rows + new.shape[0]] = new
            row_trials[n_rows:n_rows + new.shape[0]] = t
            n_rows += new.shape[0]
    return out[:n_out], count, reached, rows[:n_rows], row_trials[:n_rows]
