"""The choice model: its features from what it knows, and a softmax that walks and reads alike."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim import generate, make_agent, simulate
from mazesim.agents import AGENTS
from mazesim.agents.choice_model import CLOSED_DISTANCE, FEATURES, N_FEATURES
from mazesim.agents.vision import parse_vision
from mazesim.errors import AgentError
from mazesim.maze import parse_maze

# S (1, 4) on a T: a three-cell arm left, a one-cell dead end right, G two cells down.
T_MAZE = parse_maze("""\
#######
#...S.#
####.##
####G##
#######
""")
UP, RIGHT, DOWN, LEFT = range(4)
CLOSED = -math.log1p(CLOSED_DISTANCE)
L2, L3 = math.log(2), math.log(3)


def features(maze, vision, walk, **weights):
    states = make_agent("choice-model", **weights).rule_states(maze, parse_vision(vision),
                                                               np.array(walk))
    return states.reshape(len(walk) - 1, 4, N_FEATURES)


def named(row):
    return {f: round(float(v), 12) for f, v in zip(FEATURES, row)}


def test_features_of_each_direction_from_what_is_known():
    f = features(T_MAZE, {"window": 0, "map": "known"}, [(1, 4), (1, 3), (1, 2)])
    zero = dict.fromkeys(FEATURES, 0.0)
    assert named(f[0, UP]) == zero                                  # a wall
    assert named(f[0, RIGHT]) == {**zero, "frontier": round(CLOSED, 12), "closed": 1.0}
    assert named(f[0, DOWN]) == {**zero, "view": round(L2, 12), "frontier": round(-L2, 12),
                                 "region": round(L2, 12)}           # G unseen, one step on
    assert named(f[0, LEFT]) == {**zero, "view": round(L2, 12), "frontier": round(-L2, 12),
                                 "region": round(L3, 12)}           # two unseen cells
    # at (1, 3), having come left: back to S, or on along the arm
    assert named(f[1, RIGHT]) == {**zero, "reverse": 1.0, "visited": 1.0,
                                  "frontier": round(-L3, 12), "region": round(L2, 12)}
    assert named(f[1, LEFT]) == {**zero, "straight": 1.0, "view": round(L2, 12),
                                 "frontier": round(-L2, 12), "region": round(L2, 12)}


def test_the_goal_feature_points_along_a_shortest_path_once_the_goal_is_seen():
    f = features(T_MAZE, {"window": 1, "map": "known"}, [(1, 4), (2, 4), (3, 4)])
    assert f[0, :, FEATURES.index("goal")].tolist() == [0, 0, 0, 0]     # G out of the window
    assert f[1, :, FEATURES.index("goal")].tolist() == [0, 0, 1, 0]     # seen: down


def test_with_the_layout_unknown_unseen_cells_are_the_unknown_ones_beside_known_passages():
    f = features(T_MAZE, 0, [(1, 4), (1, 3)])
    # right: (1, 5) has three unknown neighbours (the agent does not know they are walls)
    assert named(f[0, RIGHT])["view"] == round(math.log(4), 12)
    assert named(f[0, RIGHT])["frontier"] == round(-L2, 12)
    assert named(f[0, RIGHT])["region"] == round(math.log(4), 12)


def test_probabilities_are_the_softmax_of_the_weighted_features():
    weights = dict(zip(FEATURES, (-0.9, -2.3, 0.6, 0.3, 1.5, -3.0, 8.0, 1.2)))
    walk = np.array([(1, 4), (1, 3), (1, 2), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)])
    agent = make_agent("choice-model", **weights)
    vision = parse_vision({"isovist": 10, "map": "known"})
    probs = agent.step_probabilities(T_MAZE, vision, walk)
    f = agent.rule_states(T_MAZE, vision, walk).reshape(len(walk) - 1, 4, N_FEATURES)
    u = f @ np.array(list(weights.values()))
    open_ = np.array([[T_MAZE.is_passage((r + dr, c + dc)) for dr, dc in
                       ((-1, 0), (0, 1), (1, 0), (0, -1))] for r, c in walk[:-1]])
    expected = np.where(open_, np.exp(u - np.where(open_, u, -np.inf).max(1, keepdims=True)), 0)
    expected /= expected.sum(1, keepdims=True)
    assert np.allclose(probs, expected, rtol=1e-12, atol=0)


@given(st.integers(0, 10_000), st.lists(st.floats(-3, 3), min_size=8, max_size=8))
def test_it_walks_only_open_directions_and_reads_its_own_walks(seed, weights):
    maze = generate("digging", (9, 9), seed=seed)
    agent = make_agent("choice-model", **dict(zip(FEATURES, weights)), max_steps=300)
    walk = simulate(maze, agent, {"window": 2}, seed=seed)
    steps = np.abs(np.diff(walk.positions, axis=0)).sum(axis=1)
    assert (steps == 1).all() and all(maze.is_passage(tuple(p)) for p in walk.positions)
    probs = agent.step_probabilities(maze, parse_vision({"window": 2}), walk.positions)
    moves = np.diff(walk.positions, axis=0)
    chosen = np.select([moves[:, 0] < 0, moves[:, 1] > 0, moves[:, 0] > 0], [0, 1, 2], 3)
    assert (probs[np.arange(len(moves)), chosen] > 0).all()
    assert np.allclose(probs.sum(axis=1), 1.0)


def test_the_fitted_weights_walk_like_people_to_the_goal():
    """With the weights fitted to experiment 1, a seen goal is walked to."""
    agent = make_agent("choice-model", max_steps=200)
    moves = [simulate(T_MAZE, agent, {"isovist": 10, "map": "known"}, seed=s).moves
             for s in range(20)]
    assert np.mean(moves) < 6                       # 2 moves when it goes down at once


def test_it_is_registered_with_weights_as_keys():
    assert "choice-model" in AGENTS
    agent = make_agent("choice-model", goal=2.5)
    assert agent.goal == 2.5 and not agent.goal_seeking
    with pytest.raises(AgentError, match=r"choice-model: visited: 'x' \(allowed: a number"):
        make_agent("choice-model", visited="x")
    with pytest.raises(AgentError, match="unknown parameter 'weight'"):
        make_agent("choice-model", weight=1)
