"""A Gymnasium policy walked and scored by mazesim: `PolicyAgent` through `walks.simulate` and
`simulate_many`, its step probabilities, and `score_policy` against a run of people."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from mazesim import generate, simulate, simulate_many  # noqa: E402
from mazesim.agents import parse_vision  # noqa: E402
from mazesim.envs.policy import PolicyAgent, score_policy  # noqa: E402
from mazesim.errors import AgentError  # noqa: E402
from mazesim.humans import load_human_run  # noqa: E402
from mazesim.maze import parse_maze  # noqa: E402

FORK = parse_maze("#######\n#S.A.G#\n###.###\n#######\n")


def uniform(obs):
    return np.full(4, 0.25)


def test_a_policy_walks_as_an_agent():
    right = PolicyAgent(policy=lambda obs: 1)
    walk = simulate(FORK, right, vision=1, seed=0)
    assert walk.reached and walk.positions.tolist() == [[1, c] for c in range(1, 6)]
    assert [(c.cell, c.open, c.chosen) for c in walk.choices] == [((1, 3), (1, 2, 3), 1)]


def test_the_same_seed_gives_the_same_walks_and_the_observation_is_the_env_s():
    maze = generate("digging", 11, seed=2)
    seen = []

    def policy(obs):
        seen.append(obs["view"].copy())
        return uniform(obs)
    agent = PolicyAgent(policy=policy)
    a = simulate_many(maze, agent, "2", trials=4, seed=5, keep_positions=True)
    b = simulate_many(maze, agent, "2", trials=4, seed=5, keep_positions=True)
    assert np.array_equal(a.moves, b.moves)
    assert all(np.array_equal(x, y) for x, y in zip(a.positions, b.positions))
    assert [len(p) - 1 for p in a.positions] == a.moves.tolist()
    assert all(tuple(p[0]) == maze.start and tuple(p[-1]) == maze.goal for p in a.positions)
    assert len(set(a.moves.tolist())) > 1
    assert seen[0].shape == (11, 11) and (seen[0] == 2).any()          # a window: not all seen


def test_probabilities_keep_to_open_directions():
    agent = PolicyAgent(policy=lambda obs: [1.0, 0.0, 0.0, 0.0])        # up: always a wall here
    probs = agent.step_probabilities(FORK, parse_vision("full"), np.array(
        [[1, 1], [1, 2], [1, 3], [2, 3]]))
    assert probs.tolist() == [[0, 1, 0, 0], [0, 0.5, 0, 0.5], [0, 1 / 3, 1 / 3, 1 / 3]]


def test_a_uniform_policy_scores_the_uniform_baseline(play_run):
    scored = score_policy(play_run, uniform)
    run = load_human_run(play_run)
    assert scored["decisions"] == len(run.decisions) > 0
    assert scored["bits"] == pytest.approx(scored["uniform_bits"], abs=1e-12)
    right = score_policy(play_run, lambda obs: [0.1, 0.6, 0.2, 0.1])
    assert right["bits"] != pytest.approx(scored["bits"])


def test_a_policy_by_its_import_path(tmp_path, monkeypatch):
    (tmp_path / "my_policies.py").write_text("def right(obs):\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = PolicyAgent(policy="my_policies:right")
    assert simulate(FORK, agent, vision="full", seed=0).moves == 4
    sys.modules.pop("my_policies", None)
    with pytest.raises(AgentError, match="gym-policy: policy: 'my_policies:left'"):
        PolicyAgent(policy="my_policies:left")
    with pytest.raises(AgentError, match="goal_seeking"):
        PolicyAgent(policy=uniform, goal_seeking=True)


@pytest.mark.slow
def test_the_maze_search_task_scored_for_a_uniform_policy(experiment_1_run):
    """The data README's figures: 9,927 junction decisions, 1.707 bits for a uniform choice."""
    scored = score_policy(experiment_1_run, uniform)
    assert scored["decisions"] == 9_927
    assert round(scored["bits"], 3) == round(scored["uniform_bits"], 3) == 1.707
