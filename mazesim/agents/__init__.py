"""Walking agents (DESIGN.md section 6): a registry of frozen dataclasses and `make_agent`.

An agent's fields are exactly its config keys, with DESIGN's defaults; every agent has
`goal_seeking` (default true; false for `weighted-walker`) and `max_steps` (default None: 50 x
passage cells). What an agent can see is a `Vision` (`mazesim.agents.vision`).
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any, Mapping

from mazesim.agents.base import (MAX_STEPS_PER_PASSAGE, Agent, AgentBase, KernelAgent, Param,
                                 Walks, default_max_steps)
from mazesim.agents.choice_model import ChoiceModel
from mazesim.agents.human_models import FiniteMemory, StraightBiased, TurnBias
from mazesim.agents.random_walk import RandomWalk
from mazesim.agents.route_choice import RouteChoice, ShortestMoves
from mazesim.agents.search_agents import BreadthFirst, DepthFirst
from mazesim.agents.shortest import Shortest
from mazesim.agents.tremaux import Tremaux
from mazesim.agents.tree_walkers import TREE_WALKERS, TreeWalker
from mazesim.agents.trees import DecisionTree, Node, decision_tree
from mazesim.agents.vision import (FULL, STUDY_VISION, SWEEP_VISION, Vision, isovist,
                                   parse_vision, seen_cells, sweep)
from mazesim.agents.wall_followers import LeftHand, RightHand
from mazesim.agents.weighted_walker import WeightedWalker
from mazesim.errors import AgentError, did_you_mean

__all__ = [
    "AGENTS",
    "Agent",
    "AgentBase",
    "KernelAgent",
    "Param",
    "Walks",
    "make_agent",
    "agent_keys",
    "Vision",
    "parse_vision",
    "seen_cells",
    "isovist",
    "sweep",
    "SWEEP_VISION",
    "DecisionTree",
    "Node",
    "decision_tree",
    "FULL",
    "STUDY_VISION",
    "MAX_STEPS_PER_PASSAGE",
    "default_max_steps",
    "Shortest",
    "BreadthFirst",
    "DepthFirst",
    "RightHand",
    "LeftHand",
    "Tremaux",
    "RandomWalk",
    "WeightedWalker",
    "StraightBiased",
    "TurnBias",
    "FiniteMemory",
    "ChoiceModel",
    "RouteChoice",
    "ShortestMoves",
    "TreeWalker",
    "TREE_WALKERS",
]

def _registered(*classes: type) -> Mapping[str, type]:
    """The registry; every fitted parameter an agent declares must be one of its keys."""
    for cls in classes:
        keys = {f.name for f in dataclasses.fields(cls)}
        for param in getattr(cls, "fitted", ()):
            if param.name not in keys:
                raise TypeError(f"{cls.name}: fitted parameter {param.name!r} is not one of "
                                f"its keys ({', '.join(sorted(keys))})")
    return MappingProxyType({cls.name: cls for cls in classes})


AGENTS: Mapping[str, type] = _registered(Shortest, BreadthFirst, DepthFirst, RightHand, LeftHand,
                                         Tremaux, RandomWalk, WeightedWalker, StraightBiased,
                                         TurnBias, FiniteMemory, ChoiceModel, ShortestMoves,
                                         RouteChoice, *TREE_WALKERS)
"""Every agent; the tree walkers (`TREE_WALKERS`: the Maze Search Task paper's planners and
heuristics, `mazesim.agents.tree_walkers`) walk only under full vision or a vision with the map
known and memory."""


def agent_keys(name: str) -> dict[str, Any]:
    """The config keys of a registered agent and their defaults."""
    cls = _lookup(name)
    return {f.name: f.default for f in dataclasses.fields(cls)}


def make_agent(name: str, **params: Any) -> AgentBase:
    """The agent registered as `name` with the given config keys; AgentError for an unknown name
    (with the closest name), an unknown key (listing the agent's keys) or a bad value.

    Examples
    --------
    >>> make_agent("dfs", order=["down", "right", "up", "left"], goal_seeking=False).order
    ('down', 'right', 'up', 'left')
    """
    cls = _lookup(name)
    keys = agent_keys(name)
    unknown = sorted(set(params) - set(keys))
    if unknown:
        raise AgentError(
            f"{name}: unknown parameter {unknown[0]!r} (allowed: {', '.join(keys)})"
        )
    return cls(**params)


def _lookup(name: str) -> type:
    if name in AGENTS:
        return AGENTS[name]
    raise AgentError(f"unknown agent {name!r} (known: {', '.join(AGENTS)})"
                     f"{did_you_mean(name, AGENTS)}")
