"""A policy written for the Gymnasium environment, walked and scored by mazesim like an agent.

`PolicyAgent(policy=...)` is an agent (`mazesim.agents.AgentBase`): `walks.simulate` and
`simulate_many` walk it, its `step_probabilities` read a recorded walk, and `score_policy` gives
its bits per junction decision on a run of people (the measure of `mazesim fit`). The policy
is a callable, or its import path `module:name`, that takes `MazeEnv`'s observation (a dict:
`view`, `position`, `goal`) and returns an action (0 up, 1 right, 2 down, 3 left) or the four
probabilities of the actions. As mazesim's agents, it moves only through open directions: the
probabilities are restricted to the open ones and normalised (uniform among them when the
policy gives them none); a policy that names a wall as its action makes a uniform choice.
Each trial draws from its own random stream, so the same seed gives the same walks.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mazesim.agents.base import AgentBase, Walks, choice_rows
from mazesim.agents.vision import Vision
from mazesim.envs.maze_env import MazeEnv
from mazesim.envs.people import directions
from mazesim.errors import AgentError
from mazesim.maze import Maze
from mazesim.records import N_COLUMNS

__all__ = ["PolicyAgent", "score_policy"]


@dataclass(frozen=True, kw_only=True)
class PolicyAgent(AgentBase):
    """An agent that asks `policy` (a callable, or `module:name`) for every step."""

    name = "gym-policy"
    policy: Any = None
    goal_seeking: bool = False

    def _validate(self) -> None:
        if self.goal_seeking:
            raise self._fail("goal_seeking", "false: the policy decides every step")
        if isinstance(self.policy, str):
            module, _, attr = self.policy.partition(":")
            try:
                found = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError, ValueError):
                raise self._fail("policy", "a callable or its import path module:name") from None
            object.__setattr__(self, "policy", found)
        if not callable(self.policy):
            raise self._fail("policy", "a callable or its import path module:name")

    def run_trials(self, maze: Maze, vision: Vision, streams: np.ndarray, max_steps: int, *,
                   keep: bool, record: np.ndarray) -> Walks:
        env = MazeEnv([maze], vision=vision, max_steps=max(max_steps, 1))
        moves, reached, rows, row_trials, kept = [], [], [], [], []
        for k, words in enumerate(np.asarray(streams, np.uint64)):
            rng = np.random.default_rng(np.random.SeedSequence(words.tolist()))
            positions = self._walk(env, maze, rng, max_steps)
            moves.append(len(positions) - 1)
            reached.append(tuple(positions[-1]) == maze.goal)
            if record.any():                      # none set: nothing recorded
                found = choice_rows(maze, positions, record)
                rows.append(found)
                row_trials.append(np.full(len(found), k, np.int64))
            if keep:
                kept.append(positions)
        return Walks(np.array(moves, np.int64), np.array(reached, np.bool_),
                     np.concatenate(rows) if rows else np.zeros((0, N_COLUMNS), np.int64),
                     np.concatenate(row_trials) if rows else np.zeros(0, np.int64),
                     np.concatenate(kept) if keep else np.zeros((0, 2), np.int64))

    def _walk(self, env: MazeEnv, maze: Maze, rng: np.random.Generator, max_steps: int
              ) -> np.ndarray:
        obs, _ = env.reset(options={"maze": 0})
        cells = [obs["position"].copy()]
        for _ in range(max_steps):
            if tuple(cells[-1]) == maze.goal:
                break
            probs = self._probabilities(maze, obs)
            obs, *_ = env.step(int(rng.choice(4, p=probs)))
            cells.append(obs["position"].copy())
        return np.array(cells, np.int64)

    def _probabilities(self, maze: Maze, obs: dict) -> np.ndarray:
        """The policy's action probabilities, restricted to the open directions."""
        open_ = np.zeros(4)
        open_[maze.open_directions(tuple(obs["position"]))] = 1.0
        answer = self.policy(obs)
        if np.ndim(answer) == 0:
            probs = np.zeros(4)
            probs[int(answer) % 4] = 1.0
        else:
            probs = np.clip(np.asarray(answer, np.float64).reshape(4), 0.0, None)
        probs = np.nan_to_num(probs) * open_
        total = probs.sum()
        return probs / total if total > 0 else open_ / open_.sum()

    def step_probabilities(self, maze: Maze, vision: Vision, positions: np.ndarray
                           ) -> np.ndarray:
        env = MazeEnv([maze], vision=vision, max_steps=max(len(positions), 2))
        obs, _ = env.reset(options={"maze": 0})
        out = []
        for a in directions(positions).tolist():
            out.append(self._probabilities(maze, obs))
            obs, *_ = env.step(a)
        return np.array(out).reshape(-1, 4)


def score_policy(run_dir: str | Path, agent: PolicyAgent | Callable | str) -> dict[str, Any]:
    """Bits per junction decision of the policy on the people of `run_dir` (each trial read
    under its own vision), beside the uniform choice's: `decisions`, `bits`, `uniform_bits`."""
    from mazesim.humans.data.run import bits, load_human_run

    if not isinstance(agent, PolicyAgent):
        agent = PolicyAgent(policy=agent)
    run = load_human_run(run_dir)
    d = run.decisions
    log_p = 0.0
    for k in np.unique(d.trial).tolist():
        trial = run.trials[k]
        probs = agent.step_probabilities(run.mazes[trial.maze_id], trial.vision,
                                         trial.positions)
        rows = d.trial == k
        with np.errstate(divide="ignore"):
            log_p += float(np.log(probs[d.step[rows], d.chosen[rows]]).sum())
    if not len(d):
        raise AgentError(f"{run.path}: no junction decision to score")
    return {"decisions": len(d), "bits": bits(log_p, len(d)), "uniform_bits": d.baseline_bits()}
