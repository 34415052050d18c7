"""mazesim mazes as Gymnasium environments (needs the `gym` extra: `pip install mazesim[gym]`).

- `Maze-v0` (`maze_env.MazeEnv`): one walker, observing what a mazesim vision shows (full,
  window k, isovist, sweep, with or without memory, map known); `gymnasium.make(
  "mazesim.envs:mazesim/Maze-v0", vision="isovist 10, map known")`.
- `MazeVectorEnv` (`vector`): many walkers stepped in one compiled loop;
  `gymnasium.make_vec("mazesim.envs:mazesim/Maze-v0", num_envs=1024,
  vectorization_mode="vector_entry_point")`.
- `minari_dataset` (`minari_export`): the trials of a run of people as a Minari dataset.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as err:                      # pragma: no cover (the extra is missing)
    raise ImportError("mazesim.envs needs Gymnasium: pip install 'mazesim[gym]'") from err

from mazesim.envs.maze_env import MazeEnv

__all__ = ["MazeEnv", "ENV_ID"]

ENV_ID = "mazesim/Maze-v0"
"""The registered id (`gymnasium.make("mazesim.envs:mazesim/Maze-v0")` imports this package
first)."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="mazesim.envs.maze_env:MazeEnv",
                       vector_entry_point="mazesim.envs.vector:MazeVectorEnv")
