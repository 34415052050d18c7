"""`MazeVectorEnv`: `num_envs` walkers of `MazeEnv` stepped together in one compiled loop
(Gymnasium's vector API, next-step autoreset: a walker whose episode ended starts a maze drawn
from the pool at its next step, its action ignored).

The observations returned are views of the walkers' state, not copies (Gymnasium's
`copy=False`): keep one across steps with `.copy()`. `make_vec("mazesim/Maze-v0",
num_envs=..., vectorization_mode="vector_entry_point", **MazeEnv's keywords)` builds one.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mazesim.envs.maze_env import _Core, _maze_index, make_pool, observation_space, stop_code
from mazesim.errors import ConfigError, check_integer

__all__ = ["MazeVectorEnv", "MAX_ENVS"]

MAX_ENVS = 1 << 20
"""Most walkers of one vector environment."""


class MazeVectorEnv(VectorEnv):
    """`num_envs` walkers over one pool of mazes (keywords as `MazeEnv`)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, mazes: Sequence[Any] | None = None, *,
                 vision: Any = "full", generator: str = "stick-knocking", size: Any = 31,
                 count: int = 1, maze_seed: int = 0, stop: str = "goal",
                 goal_reward: float = 1.0, step_reward: float = 0.0, bump_reward: float = 0.0,
                 max_steps: int | None = None, render_mode: str | None = None) -> None:
        check_integer(num_envs, "num_envs", 1, MAX_ENVS, ConfigError)
        self.pool = make_pool(mazes, generator, size, count, maze_seed, vision, max_steps)
        self.num_envs = int(num_envs)
        self._core = _Core(self.pool, self.num_envs, stop_code(stop),
                           (goal_reward, step_reward, bump_reward))
        self.single_observation_space = observation_space(self.pool)
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = render_mode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Every walker starts a maze: `options["maze"]` (one index, or one per walker), else
        drawn; `seed` seeds the draws, now and at every automatic reset."""
        super().reset(seed=seed)
        core, pool = self._core, len(self.pool.mazes)
        core.rng[:] = self.np_random.integers(0, 2**63, self.num_envs, dtype=np.uint64)
        chosen = (options or {}).get("maze")
        if chosen is None:
            chosen = self.np_random.integers(pool, size=self.num_envs)
        chosen = np.broadcast_to(np.asarray(chosen), (self.num_envs,))
        for i, k in enumerate(chosen.tolist()):
            core.reset(i, _maze_index(k, pool))
        return self._obs(), {}

    def step(self, actions):
        core = self._core
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,) or actions.min() < 0 or actions.max() > 3:
            raise ConfigError(f"actions: shape {actions.shape} (allowed: {self.num_envs} "
                              "integers from 0 to 3)")
        core.step(actions, autoreset=True)
        return self._obs(), core.reward, core.terminated, core.truncated, {}

    def _obs(self) -> dict[str, np.ndarray]:
        core = self._core
        return {"view": core.view, "position": core.position, "goal": core.goal_seen}
