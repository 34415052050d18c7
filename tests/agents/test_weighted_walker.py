"""The study's direction-weighted walker (appendix A) on hand-made junctions."""

import numpy as np
import pytest

from agent_mazes import T_JUNCTION
from mazesim.agents import make_agent
from mazesim.maze import parse_maze
from mazesim.simulate import simulate, simulate_many
from mazesim.trajectory_metrics import choice_log_likelihood, first_choice_counts

TRIALS = 20_000
TOLERANCE_SD = 4.5


def _within(count, trials, p):
    sd = np.sqrt(trials * p * (1 - p))
    return abs(count - trials * p) <= TOLERANCE_SD * sd


def test_counts_up_5_right_1_choose_up_with_probability_5_6():
    batch = simulate_many(T_JUNCTION, make_agent("weighted-walker"), 2, TRIALS, seed=2017)
    counts = first_choice_counts(batch)["A"]
    assert counts["up"] + counts["right"] == TRIALS
    assert counts["down"] == counts["left"] == 0
    assert _within(counts["up"], TRIALS, 5 / 6)
    assert not _within(counts["up"], TRIALS, 4 / 5)   # the tolerance can tell 5/6 from 4/5


def test_likelihood_of_the_junction_choice():
    agent = make_agent("weighted-walker")
    walks = [simulate(T_JUNCTION, agent, 2, seed=seed) for seed in range(50)]
    right = next(w for w in walks if w.choices[0].direction == "right")
    assert right.moves == 8                                  # 4 up, 2 right, 2 up
    up = next(w for w in walks if w.choices[0].direction == "up")
    assert choice_log_likelihood(up, T_JUNCTION, agent, 2).junctions == pytest.approx(
        np.log(5 / 6))
    ll = choice_log_likelihood(right, T_JUNCTION, agent, 2)
    assert ll.n_junctions == 1
    assert ll.junctions == pytest.approx(np.log(1 / 6))
    assert ll.total == pytest.approx(np.log(1 / 6))          # every other move was certain


# From S the walker goes left into a two-cell dead end or right, then right to A, where up and
# right are unexplored. Back from the dead end at (3, 2), both (3, 1) and S are passed once:
# the count-weighted draw may re-enter the dead end once (left 3 : right 2 with count_backtrack,
# 3 : 1 without). Counts at A (up is always 1): right first 3; left first 5 (1 + 2 back + 2
# on) or 3 without count_backtrack; with the re-entry 7 or 3.
BACKTRACK = parse_maze("""
########
#####G##
#####.##
#..S.A.#
########
""")


@pytest.mark.parametrize("count_backtrack, p_again, p_right", [
    (True, 3 / 5, {2: 3 / 4, 6: 5 / 6, 8: 6 / 7}),
    (False, 3 / 4, {2: 3 / 4, 6: 3 / 4, 8: 3 / 4}),
])
def test_count_backtrack(count_backtrack, p_again, p_right):
    agent = make_agent("weighted-walker", count_backtrack=count_backtrack)
    batch = simulate_many(BACKTRACK, agent, 2, 6000, seed=9)
    at_a = batch.choices[batch.choices["first"] & (batch.choices["mark"] == 0)]
    assert len(at_a) == 6000 and set(at_a["step"].tolist()) == {2, 6, 8}
    for step, p in p_right.items():
        rows = at_a[at_a["step"] == step]
        assert _within(int((rows["chosen"] == 1).sum()), len(rows), p)
    left_first = int((at_a["step"] > 2).sum())
    assert _within(left_first, 6000, 1 / 2)
    assert _within(int((at_a["step"] == 8).sum()), left_first, p_again)


def test_initial_count_flattens_the_weights():
    agent = make_agent("weighted-walker", initial_count=5)      # up 9, right 5 at A
    counts = first_choice_counts(simulate_many(T_JUNCTION, agent, 2, 4000, seed=1))["A"]
    assert _within(counts["up"], 4000, 9 / 14)
