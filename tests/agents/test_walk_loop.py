"""The walking loop (`mazesim.agents._walk_loop`) on hand-made mazes where every walk is known: a
rule that always takes the first open direction (up, right, down, left) that is not back, bound
by `walk_kernel` like any agent's rule, and the `LoopResult` it returns, field by field."""

import numpy as np
import pytest
from numba import njit

from mazesim._grid import pad
from mazesim.agents import make_agent, parse_vision
from mazesim.agents._walk_loop import RULE_STATE, LoopResult
from mazesim.agents.base import flat_cells, padded_maze, trial_streams
from mazesim.agents.rules import Rule, walk_kernel
from mazesim.maze import DOWN, LEFT, RIGHT, UP, parse_maze
from mazesim.records import ARRIVAL, CHOSEN, COL, FIRST, N_COLUMNS, OPEN, ROW, STEP, UNEXPLORED

# A T reached after two moves up; G at the end of the right arm.
T_RIGHT = parse_maze("""
#######
#....G#
###.###
###S###
#######
""")
T_RIGHT_WALK = [(3, 3), (2, 3), (1, 3), (1, 4), (1, 5)]
T_JUNCTION = (1, 3)

# A T at the top of a long stem, G at the end of the left arm: the rule turns right and, once
# back at the T, down the stem, so that it never reaches G; a window of 2 shows G from (3, 3).
T_LEFT = parse_maze("""
#######
#G....#
###.###
###.###
###.###
###S###
#######
""")


@njit(cache=True, inline="always")
def _first_open(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    back = (arrival + 2) % 4 if arrival >= 0 else -1
    chosen = back
    for d in range(3, -1, -1):
        if om[d] != 0 and d != back:
            chosen = d
    for d in range(4):
        out[d] = 1.0 if d == chosen else 0.0


FIRST_OPEN = Rule("test-first-open", _first_open)


def _loop(maze, *, rule=FIRST_OPEN, p=np.zeros(0), vision="full", goal_seeking=False,
          lapse=0.0, trials=1, max_steps=100, keep=True, record=True, walk=None, seed=0):
    """The loop of `rule` called as `KernelAgent` calls it; `record`: every cell or none."""
    cells, width, start, goal = padded_maze(maze)
    vision = parse_vision(vision)
    blind = not (goal_seeking or rule.mapped)
    flags = (pad(np.ones(maze.shape, np.uint8)).ravel() if record else np.zeros(0, np.uint8))
    path = (np.zeros(0, np.int64) if walk is None
            else flat_cells(np.array(walk, np.int64), width))
    return LoopResult._make(walk_kernel(rule, blind)(
        p, cells, width, start, goal, vision.kernel_args() + (np.zeros(0, np.uint8), False),
        goal_seeking, lapse, trial_streams(np.random.SeedSequence(seed), trials), max_steps,
        keep, flags, path, np.zeros(0, np.uint8)))


def test_a_corridor_is_walked_straight_and_records_nothing():
    corridor = parse_maze("#######\n#S...G#\n#######")
    out = _loop(corridor)
    assert out._fields == ("moves", "reached", "rows", "row_trials", "positions",
                           "probabilities", "rule_states")
    assert out.moves.tolist() == [4] and out.reached.tolist() == [True]
    assert out.positions.tolist() == [[1, c] for c in range(1, 6)]
    assert out.rows.shape == (0, N_COLUMNS) and out.row_trials.shape == (0,)
    assert out.probabilities.shape == (0, 4) and out.rule_states.shape == (0, RULE_STATE)


def test_the_t_junction_is_left_by_the_rule_s_direction_and_recorded():
    out = _loop(T_RIGHT)
    assert out.moves.tolist() == [4] and out.reached.tolist() == [True]
    assert out.positions.tolist() == [list(c) for c in T_RIGHT_WALK]
    assert out.row_trials.tolist() == [0]
    row = out.rows[0]
    assert (row[STEP], row[ROW], row[COL]) == (2, *T_JUNCTION)
    assert (row[ARRIVAL], row[CHOSEN], row[FIRST]) == (UP, RIGHT, 1)
    assert row[OPEN] == (1 << RIGHT) | (1 << DOWN) | (1 << LEFT)
    assert row[UNEXPLORED] == (1 << RIGHT) | (1 << LEFT)          # the stem was walked


def test_a_walk_that_draws_nothing_is_copied_to_every_trial():
    out = _loop(T_RIGHT, trials=3)
    assert out.moves.tolist() == [4, 4, 4] and out.reached.all()
    assert out.positions.tolist() == [list(c) for c in T_RIGHT_WALK] * 3
    assert out.row_trials.tolist() == [0, 1, 2]
    assert (out.rows == out.rows[0]).all()


def test_max_steps_cuts_a_walk_that_never_ends():
    out = _loop(T_LEFT, max_steps=20, record=False)
    assert out.moves.tolist() == [20] and out.reached.tolist() == [False]
    assert out.positions.shape == (21, 2)
    assert out.positions[:10].tolist() == [[5, 3], [4, 3], [3, 3], [2, 3], [1, 3], [1, 4],
                                           [1, 5], [1, 4], [1, 3], [2, 3]]
    assert out.rows.shape == (0, N_COLUMNS)                         # nothing recorded


def test_keep_false_keeps_no_positions():
    out = _loop(T_RIGHT, keep=False)
    assert out.moves.tolist() == [4] and out.positions.shape == (0, 2)


def test_goal_seeking_takes_the_goal_once_it_is_seen():
    to_goal = [[5, 3], [4, 3], [3, 3], [2, 3], [1, 3], [1, 2], [1, 1]]
    seen_at_3_3 = _loop(T_LEFT, vision="2", goal_seeking=True)         # against the rule
    assert seen_at_3_3.positions.tolist() == to_goal and seen_at_3_3.reached.tolist() == [True]
    never_seen = _loop(T_LEFT, vision="1", goal_seeking=True, max_steps=40)
    assert never_seen.positions[:6].tolist() == to_goal[:5] + [[1, 4]]
    assert never_seen.reached.tolist() == [False] and never_seen.moves.tolist() == [40]
    blind = _loop(T_LEFT, vision="2", goal_seeking=False, max_steps=40)
    assert blind.reached.tolist() == [False]


def test_reading_returns_the_rule_s_probabilities_with_the_lapse_mixed_in():
    lapse = 0.3
    out = _loop(T_RIGHT, lapse=lapse, walk=T_RIGHT_WALK, max_steps=4, record=False)
    assert out.moves.tolist() == [4] and out.reached.tolist() == [True]

    def mix(rule, open_):
        return (1 - lapse) * np.array(rule) + lapse * np.array(open_) / sum(open_)

    expected = [mix([1, 0, 0, 0], [1, 0, 0, 0]),     # S: only up is open
                mix([1, 0, 0, 0], [1, 0, 1, 0]),     # the stem
                mix([0, 1, 0, 0], [0, 1, 1, 1]),     # the T
                mix([0, 1, 0, 0], [0, 1, 0, 1])]     # the right arm
    np.testing.assert_allclose(out.probabilities, expected, rtol=0, atol=1e-15)
    assert out.rule_states.shape == (0, RULE_STATE)                  # not an observer


def test_the_lapse_mixes_in_uniform_choices_at_the_rate_it_says():
    """At the T (first departure, arriving up) the rule says right; a lapse of 0.3 sends a
    third of its share each to right, down and left: left and down 0.1 each."""
    trials, lapse = 4000, 0.3
    out = _loop(T_RIGHT, lapse=lapse, trials=trials, max_steps=200, seed=2026)
    at_t = (out.rows[:, ROW] == T_JUNCTION[0]) & (out.rows[:, COL] == T_JUNCTION[1]) & (
        out.rows[:, FIRST] == 1)
    chosen = out.rows[at_t, CHOSEN]
    assert len(chosen) == trials                       # every trial left the T once at least
    p, bound = lapse / 3, 4 * np.sqrt(lapse / 3 * (1 - lapse / 3) / trials)
    for d in (DOWN, LEFT):
        assert abs(np.mean(chosen == d) - p) < bound
    assert abs(np.mean(chosen == RIGHT) - (1 - 2 * p)) < 2 * bound
    assert not (chosen == UP).any()
    without = _loop(T_RIGHT, trials=50, max_steps=200, seed=2026)
    assert (without.rows[:, CHOSEN] == RIGHT).all()


def test_an_observer_s_reading_returns_its_state_before_each_move():
    agent = make_agent("choice-model")
    vision = parse_vision("2")
    cells, width, start, goal = padded_maze(T_RIGHT)
    walk = flat_cells(np.array(T_RIGHT_WALK, np.int64), width)
    out = LoopResult._make(agent.kernel()(
        agent.kernel_params(), cells, width, start, goal,
        vision.kernel_args() + (np.zeros(0, np.uint8), False), agent.goal_seeking, agent.lapse,
        np.zeros((1, 4), np.uint64), 4, False, np.zeros(0, np.uint8), walk,
        np.zeros(0, np.uint8)))
    assert out.probabilities.shape == (4, 4) and out.rule_states.shape == (4, RULE_STATE)
    np.testing.assert_array_equal(out.rule_states,
                                  agent.rule_states(T_RIGHT, vision, np.array(T_RIGHT_WALK)))
    np.testing.assert_allclose(out.probabilities.sum(axis=1), 1.0)
