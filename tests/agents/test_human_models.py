"""straight-biased, turn-bias and finite-memory: junction probabilities and memory horizon."""

import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.maze import parse_maze
from mazesim.walks import simulate, simulate_many
from mazesim.walks.metrics import choice_log_likelihood

# A four-way crossing reached from below after two moves up: straight = up.
CROSS = parse_maze("""
#######
###.###
###.###
#..X..#
###.###
###S###
###G###
#######
""")


def _crossing_walk(first):
    """Positions S, up to X, then one move in direction `first`."""
    steps = {"up": (2, 3), "left": (3, 2), "right": (3, 4), "down": (4, 3)}
    return np.array([(5, 3), (4, 3), (3, 3), steps[first]])


@pytest.mark.parametrize("direction, p", [("up", 0.7), ("left", 0.15), ("right", 0.15),
                                          ("down", 0.0)])
def test_straight_biased_probabilities(direction, p):
    agent = make_agent("straight-biased", p_straight=0.7, goal_seeking=False)
    ll = choice_log_likelihood(_crossing_walk(direction), CROSS, agent, 0)
    assert ll.n_junctions == 1
    assert ll.junctions == pytest.approx(np.log(p) if p else -np.inf)


@pytest.mark.parametrize("direction, p", [
    ("down", 0.1), ("up", 0.9 * 0.4), ("left", 0.9 * 0.6 / 2), ("right", 0.9 * 0.6 / 2)])
def test_turn_bias_without_a_previous_turn(direction, p):
    agent = make_agent("turn-bias", p_straight=0.4, p_reverse=0.1, p_alternate=0.8,
                       goal_seeking=False)
    ll = choice_log_likelihood(_crossing_walk(direction), CROSS, agent, 0)
    assert ll.junctions == pytest.approx(np.log(p))


# Two T junctions reached from their stems: T1 (5, 5), then after a left turn T2 (3, 3).
TWO_TS = parse_maze("""
#########
#########
#########
##.B.G###
###.#####
###.A..##
#####.###
#####S###
#########
""")
TO_T2 = [(7, 5), (6, 5), (5, 5), (5, 4), (5, 3), (4, 3), (3, 3)]


@pytest.mark.parametrize("last, p", [((3, 4), 0.8), ((3, 2), 0.2)])
def test_turn_bias_alternates_the_previous_turn(last, p):
    agent = make_agent("turn-bias", p_straight=0.3, p_reverse=0.0, p_alternate=0.8)
    ll = choice_log_likelihood(np.array(TO_T2 + [last]), TWO_TS, agent, 0)
    # T1: no turn before, straight closed: left 1/2; T2 after a left turn: right = alternate
    assert ll.n_junctions == 2
    assert ll.junctions == pytest.approx(np.log(0.5 * p))
    assert ll.total == pytest.approx(ll.junctions)        # corridors are certain


def test_finite_memory_avoids_recent_cells():
    ring = parse_maze("""
#######
#S....#
#.###.#
#.....#
###.###
###G###
#######
""")
    walks = simulate_many(ring, make_agent("finite-memory", horizon=7), 0, 200, seed=3,
                          keep_positions=True)
    for pos in walks.positions:
        # never steps back onto the cell it just left unless that is the only way
        for t in range(1, len(pos) - 1):
            if tuple(pos[t + 1]) == tuple(pos[t - 1]):
                r, c = pos[t]
                assert len(ring.open_directions((int(r), int(c)))) == 1
    memoryless = simulate_many(ring, make_agent("finite-memory", horizon=0), 0, 200, seed=3)
    assert memoryless.moves.mean() > walks.moves.mean()


def test_random_walk_likelihood_is_uniform():
    walk = simulate(CROSS, make_agent("random-walk", goal_seeking=False), 0, seed=4)
    ll = choice_log_likelihood(walk, CROSS, make_agent("random-walk", goal_seeking=False), 0)
    degrees = [len(CROSS.open_directions(tuple(p))) for p in walk.positions[:-1].tolist()]
    assert ll.total == pytest.approx(-np.sum(np.log(degrees)))
