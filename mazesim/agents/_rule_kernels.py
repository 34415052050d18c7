"""numba kernels of the agents' walking rules: each kind gives a probability over directions.

The driver (`mazesim.agents._kernels.run_trials`) samples it when walking and scores it when
replaying a walk, so likelihoods are those of the walking agent.
"""

from numba import njit

__all__ = ["weighted_rule", "dfs_rule", "wall_follower_rule", "tremaux_rule", "straight_rule",
           "turn_rule", "memory_rule", "BRANCH_DEGREE", "RANDOM_ORDER"]

# agent kinds (the Python classes name theirs)
RANDOM_WALK, WEIGHTED, DFS, WALL_FOLLOWER, TREMAUX = 0, 1, 2, 3, 4
STRAIGHT_BIASED, TURN_BIAS, FINITE_MEMORY, BFS_AGENT = 5, 6, 7, 8

NO_TURN, LEFT_TURN, RIGHT_TURN = -1, 0, 1
BRANCH_DEGREE = 3       # a branch point has at least this many open neighbours
RANDOM_ORDER = -1       # order[0] for a random neighbour order
TREMAUX_MARK_CAP = 6    # marks saturate here (Tremaux itself never passes 2)
_EPS = 1e-12


@njit(cache=True, inline="always")
def _normalise(probs):
    """Scale `probs` to sum 1 in place; return the former sum."""
    total = probs[0] + probs[1] + probs[2] + probs[3]
    if total > 0.0:
        for d in range(4):
            probs[d] /= total
    return total


@njit(cache=True, inline="always")
def _count(mask):
    return mask[0] + mask[1] + mask[2] + mask[3]


@njit(cache=True, inline="always")
def _uniform(probs, mask):
    n = 0
    for d in range(4):
        n += mask[d]
    for d in range(4):
        probs[d] = mask[d] / n if n > 0 else 0.0
    return n


@njit(cache=True, inline="always")
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
    if _normalise(probs) <= _EPS:           # every remaining option has probability 0
        for d in range(4):
            probs[d] = om[d] if d != back else 0
        _normalise(probs)


# One small function per kind, each taking only what it reads: the driver dispatches on the kind
# (an inlined function with many array arguments costs reference counting on every move).
# `probs` receives the probabilities, `om` is the open mask, `mask` scratch space.

@njit(cache=True, inline="always")
def _not_back(mask, om, back):
    """Mask of the open directions except `back`; if none, back alone (a dead end)."""
    for d in range(4):
        mask[d] = 1 if (om[d] != 0 and d != back) else 0
    if _count(mask) == 0:
        mask[back] = 1


@njit(cache=True, inline="always")
def weighted_rule(probs, mask, om, nv, counts):
    """Unexplored neighbours, else those passed once, else the least passed; count-weighted."""
    for d in range(4):
        mask[d] = 1 if (om[d] != 0 and nv[d] == 0) else 0
    if _count(mask) == 0:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and nv[d] == 1) else 0
    if _count(mask) == 0:
        low = 1 << 30
        for d in range(4):
            if om[d] != 0 and nv[d] < low:
                low = nv[d]
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and nv[d] == low) else 0
    for d in range(4):
        probs[d] = counts[d] * mask[d]
    _normalise(probs)


@njit(cache=True, inline="always")
def dfs_rule(probs, mask, om, nv, came_here, order):
    """An unvisited neighbour (random or in `order`), else back where the cell was entered from."""
    for d in range(4):
        mask[d] = 1 if (om[d] != 0 and nv[d] == 0) else 0
    if _count(mask) == 0:
        if came_here >= 0:
            mask[:] = 0
            mask[(came_here + 2) % 4] = 1
        else:
            mask[:] = om                    # nothing left to explore (cannot happen if G is
        _uniform(probs, mask)               # reachable): wander, the cap ends it
    elif order[0] == RANDOM_ORDER:
        _uniform(probs, mask)
    else:
        probs[:] = 0.0
        for i in range(4):
            if mask[order[i]] != 0:
                probs[order[i]] = 1.0
                break


@njit(cache=True, inline="always")
def wall_follower_rule(probs, om, arrival, hand):
    """Hand side, straight on, other side, back; facing up at the start."""
    heading = arrival if arrival >= 0 else 0
    probs[:] = 0.0
    for turn in (hand, 0, -hand, 2):
        d = (heading + turn) % 4
        if om[d] != 0:
            probs[d] = 1.0
            break


@njit(cache=True, inline="always")
def tremaux_rule(probs, mask, om, marks, r, c, arrival):
    """Tremaux: new place any unmarked passage; old place by a new passage back; else fewest
    marks."""
    back = (arrival + 2) % 4 if arrival >= 0 else -1
    for d in range(4):
        mask[d] = 1 if (om[d] != 0 and d != back) else 0
    if _count(mask) == 0:
        mask[back] = 1                      # dead end
    elif back >= 0 and marks[r, c, back] == 1 and _marked(marks, r, c, om, back) > 0:
        mask[:] = 0                         # an old place reached by a new passage: turn back
        mask[back] = 1
    else:
        low = TREMAUX_MARK_CAP + 1
        for d in range(4):
            if om[d] != 0 and marks[r, c, d] < low:
                low = marks[r, c, d]
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and marks[r, c, d] == low) else 0
    _uniform(probs, mask)


@njit(cache=True, inline="always")
def straight_rule(probs, mask, om, arrival, p_straight):
    """Straight on with p_straight at a branch point, else uniform over the other non-back."""
    if arrival < 0:
        _uniform(probs, om)
        return
    _not_back(mask, om, (arrival + 2) % 4)
    n = _count(mask)
    if om[arrival] != 0 and n > 1:
        for d in range(4):
            probs[d] = (1.0 - p_straight) / (n - 1) * mask[d]
        probs[arrival] = p_straight
    else:
        _uniform(probs, mask)


@njit(cache=True, inline="always")
def turn_rule(probs, mask, om, arrival, fp, last_turn):
    """Turn biases at branch points; corridors followed, dead ends reversed."""
    if arrival < 0:
        _uniform(probs, om)
    elif _count(om) >= BRANCH_DEGREE:
        _turn_probs(probs, om, arrival, fp, last_turn)
    else:
        _not_back(mask, om, (arrival + 2) % 4)
        _uniform(probs, mask)


@njit(cache=True, inline="always")
def memory_rule(probs, mask, om, nlast, t, memory):
    """Uniform over neighbours not occupied in the last `memory` moves, else the oldest."""
    oldest = t + 1
    for d in range(4):
        mask[d] = 1 if (om[d] != 0 and (nlast[d] < 0 or t - nlast[d] > memory)) else 0
        if om[d] != 0 and nlast[d] < oldest:
            oldest = nlast[d]
    if _count(mask) == 0:
        for d in range(4):
            mask[d] = 1 if (om[d] != 0 and nlast[d] == oldest) else 0
    _uniform(probs, mask)


@njit(cache=True, inline="always")
def _marked(marks, r, c, om, back):
    """How many open passages of (r, c) other than `back` carry marks (0: a new place)."""
    n = 0
    for d in range(4):
        if om[d] != 0 and d != back and marks[r, c, d] > 0:
            n += 1
    return n
