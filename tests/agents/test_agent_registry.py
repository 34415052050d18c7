"""The agent registry and make_agent: names, keys, defaults, errors."""

import dataclasses

import pytest

from mazesim.agents import AGENTS, MAX_STEPS_PER_PASSAGE, agent_keys, default_max_steps, make_agent
from mazesim.errors import AgentError
from mazesim.maze import parse_maze

REGISTERED = ("shortest", "bfs", "dfs", "right-hand", "left-hand", "tremaux", "random-walk",
              "weighted-walker", "straight-biased", "turn-bias", "finite-memory", "choice-model",
              "shortest-moves", "route-choice", "eu", "du", "pw", "pw-du", "steps", "cells", "steps-cells", "node-choice")


def test_registered_names():
    assert tuple(AGENTS) == REGISTERED


@pytest.mark.parametrize("name", REGISTERED)
def test_every_agent_is_a_frozen_dataclass_with_the_common_keys(name):
    agent = make_agent(name)
    assert dataclasses.is_dataclass(agent)
    with pytest.raises(dataclasses.FrozenInstanceError):
        agent.max_steps = 3
    keys = agent_keys(name)
    assert keys["max_steps"] is None
    assert keys["goal_seeking"] is (name not in ("weighted-walker", "choice-model",
                                                 "shortest-moves", "route-choice"))
    assert agent.params() == keys


def test_documented_defaults():
    assert agent_keys("weighted-walker") == {"goal_seeking": False, "max_steps": None,
                                             "lapse": 0.0, "initial_count": 1,
                                             "count_backtrack": True, "backtrack": "retrace"}
    assert agent_keys("shortest") == {"goal_seeking": True, "max_steps": None}
    assert agent_keys("finite-memory")["horizon"] == 7
    assert agent_keys("dfs")["order"] == "random"
    assert set(agent_keys("turn-bias")) >= {"p_straight", "p_reverse", "p_alternate"}
    assert "p_straight" in agent_keys("straight-biased")


def test_default_max_steps_is_50_per_passage_cell():
    maze = parse_maze("#####\n#S.G#\n#####")
    assert MAX_STEPS_PER_PASSAGE == 50
    assert default_max_steps(maze) == 150
    assert make_agent("dfs").resolved_max_steps(maze) == 150
    assert make_agent("dfs", max_steps=7).resolved_max_steps(maze) == 7


def test_unknown_name_suggests_the_closest():
    with pytest.raises(AgentError, match="unknown agent 'weighted-walk'.*did you mean "
                                         "'weighted-walker'"):
        make_agent("weighted-walk")


def test_unknown_key_lists_the_agents_keys():
    with pytest.raises(AgentError, match="dfs: unknown parameter 'depth' \\(allowed: "
                                         "goal_seeking, max_steps, lapse, order\\)"):
        make_agent("dfs", depth=3)


@pytest.mark.parametrize("name, params, where", [
    ("dfs", {"order": ["down", "down", "up", "left"]}, "dfs: order"),
    ("dfs", {"order": "sideways"}, "dfs: order"),
    ("weighted-walker", {"initial_count": 0}, "weighted-walker: initial_count: 0"),
    ("weighted-walker", {"count_backtrack": "yes"}, "weighted-walker: count_backtrack"),
    ("turn-bias", {"p_reverse": 1.5}, "turn-bias: p_reverse: 1.5"),
    ("straight-biased", {"p_straight": True}, "straight-biased: p_straight"),
    ("finite-memory", {"horizon": -1}, "finite-memory: horizon: -1"),
    ("random-walk", {"max_steps": 2.5}, "random-walk: max_steps: 2.5"),
    ("bfs", {"goal_seeking": 1}, "bfs: goal_seeking: 1"),
])
def test_bad_values_name_agent_and_key(name, params, where):
    with pytest.raises(AgentError, match=where):
        make_agent(name, **params)


def test_dfs_order_from_text_or_list():
    expected = ("down", "right", "up", "left")
    assert make_agent("dfs", order="down,right,up,left").order == expected
    assert make_agent("dfs", order=list(expected)).order == expected


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_fitted_parameters_are_keys_within_their_bounds(name):
    cls = AGENTS[name]
    keys = agent_keys(name)
    for param in getattr(cls, "fitted", ()):
        assert param.name in keys
        low, high = param.bounds()
        for x in (low, high, (low + high) / 2):          # every value a fit may try is valid
            make_agent(name, **{param.name: param.value(x)})


def test_the_registry_refuses_a_fitted_parameter_that_is_not_a_key():
    from mazesim.agents import Param, _registered
    from mazesim.agents.human_models import FiniteMemory

    stale = dataclasses.make_dataclass("Stale", [], bases=(FiniteMemory,), frozen=True)
    stale.fitted = (Param("memory", 0, 30, "integer"),)
    with pytest.raises(TypeError, match="finite-memory: fitted parameter 'memory' is not one of"):
        _registered(stale)
