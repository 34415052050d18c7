"""`MazeEnv`: one walker in mazesim mazes as a Gymnasium environment (`mazesim/Maze-v0`).

- **Observation** (a Dict): `view` uint8 (H, W), what the vision has shown: 0 passage, 1 wall,
  2 not seen (`UNKNOWN`; under `map known` every wall shows from the start, the dark floor
  does not); `position` (row, col); `goal` (row, col) once seen, else (-1, -1). Mazes smaller
  than the pool's shape are padded with walls at the bottom and right.
- **Actions**: 0 up, 1 right, 2 down, 3 left (the project's order); into a wall, the walker
  stays (a bump).
- **Reward** `goal_reward` on stepping onto the goal, `step_reward` every step, `bump_reward`
  on a bump. **Stop** `goal` (terminated on the goal) or `goal_seen` (once the goal has been
  seen); truncated after `max_steps` (default: mazesim's 50 moves per passage cell).
- **Mazes**: `mazes` (Maze objects, text or JSON mazes; `reset(options={"maze": k})` picks
  the k-th, else one is drawn), or `count` mazes of `generator` at `size` from `maze_seed`.

Perception is the agents' own kernel, so the view equals `mazesim.agents.seen_cells` along the
walk (with memory) for every vision; the compiled core is `_kernels`, shared with the vector
environment (`vector.MazeVectorEnv`).
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mazesim._grid import steps
from mazesim.envs import _kernels
from mazesim.envs.pool import MazePool, generated
from mazesim.errors import ConfigError, check_integer

__all__ = ["MazeEnv", "STOPS", "observation_space", "make_pool"]

STOPS = ("goal", "goal_seen")


def make_pool(mazes: Sequence[Any] | None, generator: str, size: Any, count: int,
              maze_seed: int, vision: Any, max_steps: int | None) -> MazePool:
    """The pool of an environment's keyword arguments (given mazes, else generated)."""
    items = list(mazes) if mazes is not None else generated(generator, size, count, maze_seed)
    return MazePool.build(items, vision, max_steps)


def observation_space(pool: MazePool) -> spaces.Dict:
    h, w = pool.shape
    high = np.array([h - 1, w - 1], np.int64)
    return spaces.Dict({
        "view": spaces.Box(0, 2, (h, w), np.uint8),
        "position": spaces.Box(np.zeros(2, np.int64), high, (2,), np.int64),
        "goal": spaces.Box(np.full(2, -1, np.int64), high, (2,), np.int64)})


def stop_code(stop: str) -> int:
    if stop not in STOPS:
        raise ConfigError(f"stop: {stop!r} (allowed: {', '.join(STOPS)})")
    return _kernels.STOP_GOAL if stop == STOPS[0] else _kernels.STOP_GOAL_SEEN


class MazeEnv(gym.Env):
    """One walker in a pool of mazes under a mazesim vision (the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, mazes: Sequence[Any] | None = None, *, vision: Any = "full",
                 generator: str = "stick-knocking", size: Any = 31, count: int = 1,
                 maze_seed: int = 0, stop: str = "goal", goal_reward: float = 1.0,
                 step_reward: float = 0.0, bump_reward: float = 0.0,
                 max_steps: int | None = None, render_mode: str | None = None) -> None:
        self.pool = make_pool(mazes, generator, size, count, maze_seed, vision, max_steps)
        self._core = _Core(self.pool, 1, stop_code(stop), (goal_reward, step_reward,
                                                             bump_reward))
        self.observation_space = observation_space(self.pool)
        self.action_space = spaces.Discrete(4)
        self.render_mode = render_mode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        k = (options or {}).get("maze")
        if k is None:
            k = int(self.np_random.integers(len(self.pool.mazes)))
        self._core.reset(0, _maze_index(k, len(self.pool.mazes)))
        return self._obs(), {"maze": self._core.maze[0].item()}

    def step(self, action):
        if not self.action_space.contains(action):
            raise ConfigError(f"action: {action!r} (allowed: 0 up, 1 right, 2 down, 3 left)")
        core = self._core
        core.step(np.array([action], np.int64), autoreset=False)
        return (self._obs(), float(core.reward[0]), bool(core.terminated[0]),
                bool(core.truncated[0]), {"maze": core.maze[0].item()})

    def render(self) -> str | None:
        """The view as text: `#` wall, `.` passage, space not seen, `@` the walker, `G` the
        goal once seen."""
        if self.render_mode != "ansi":
            return None
        view = np.array([".", "#", " "])[self._core.view[0]]
        view[tuple(self._core.position[0])] = "@"
        if self._core.goal_seen[0, 0] >= 0:
            view[tuple(self._core.goal_seen[0])] = "G"
        return "\n".join("".join(row) for row in view) + "\n"

    def _obs(self) -> dict[str, np.ndarray]:
        core = self._core
        return {"view": core.view[0].copy(), "position": core.position[0].copy(),
                "goal": core.goal_seen[0].copy()}


def _maze_index(k: Any, pool: int) -> int:
    return check_integer(k, "options.maze", 0, pool - 1, ConfigError)


class _Core:
    """The state of `n` walkers over a pool, and the compiled calls that move it."""

    def __init__(self, pool: MazePool, n: int, stop: int, rewards: tuple[float, ...]) -> None:
        p = pool.cells.shape[1]
        memory = pool.vision.memory
        self.pool, self.stop = pool, stop
        self.rewards = np.array(rewards, np.float64)
        self.kind, self.radius, self.occlusion, self.memory, self.known_map = (
            pool.vision.kernel_args())
        self.step_offsets = steps(pool.width)
        self.known = np.zeros((n, p), np.uint8)
        self.visits = np.zeros((n, 0 if memory else p), np.int32)
        self.pos, self.t, self.maze = (np.zeros(n, np.int64) for _ in range(3))
        self.done = np.zeros(n, np.bool_)
        self.rng = np.zeros(n, np.uint64)
        self.reward = np.zeros(n, np.float64)
        self.terminated, self.truncated = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
        self.position = np.zeros((n, 2), np.int64)
        self.goal_seen = np.zeros((n, 2), np.int64)
        h, w = pool.shape
        self.view = self.known.reshape(n, h + 2, w + 2)[:, 1:-1, 1:-1]   # a view, no copy

    def reset(self, i: int, m: int) -> None:
        pool = self.pool
        _kernels.reset_one(i, m, pool.cells, pool.blank, pool.start, self.known, self.visits,
                           self.pos, self.t, self.maze, pool.width, self.step_offsets,
                           self.kind, self.radius, self.occlusion, self.memory)
        self.done[i] = False
        _kernels.observe(i, pool.width, self.pos, pool.goal, self.maze, self.known,
                         self.position, self.goal_seen)

    def step(self, actions: np.ndarray, autoreset: bool) -> None:
        pool = self.pool
        _kernels.step_all(actions, autoreset, pool.cells, pool.blank, pool.start, pool.goal,
                          pool.cap, self.known, self.visits, self.pos, self.t, self.maze,
                          self.done, self.rng, pool.width, self.step_offsets, self.kind,
                          self.radius, self.occlusion, self.memory, self.known_map, self.stop,
                          self.rewards, self.reward, self.terminated, self.truncated,
                          self.position, self.goal_seen)
