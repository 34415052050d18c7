"""People's trials through the environment: each trial replayed move by move in `MazeEnv`
(`replay`), and a run of people as a Minari dataset of those episodes (`minari_dataset`; needs
the `gym` extra's `minari`).

A replayed episode holds what the person's vision showed at every step (the observations),
their moves as actions, and the rewards and stops of the environment's settings; the person's
last move onto the goal ends it (terminated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mazesim.envs.maze_env import MazeEnv
from mazesim.errors import DataError
from mazesim.maze import DELTAS, maze_to_json

__all__ = ["Episode", "directions", "replay", "run_env", "minari_dataset"]

Episode = dict
"""One replayed trial: `observations` (a dict of arrays, T + 1 items each), `actions`,
`rewards`, `terminations`, `truncations` (T items each)."""


def directions(positions: np.ndarray) -> np.ndarray:
    """The direction (0 up, 1 right, 2 down, 3 left) of each move of a walk of unit steps."""
    moves = np.diff(np.asarray(positions, np.int64).reshape(-1, 2), axis=0)
    match = (moves[:, None, :] == DELTAS[None]).all(axis=2)
    if not match.any(axis=1).all():
        raise DataError(f"move {int(np.argmin(match.any(axis=1)))}: not a unit step")
    return match.argmax(axis=1)


def replay(env: MazeEnv, maze: int, positions: np.ndarray) -> Episode:
    """The walk `positions` (T + 1, 2) in the pool's maze `maze`, move by move."""
    obs, _ = env.reset(options={"maze": maze})
    seen = [obs]
    actions = directions(positions)
    rewards, terminations, truncations = [], [], []
    for a in actions.tolist():
        obs, reward, terminated, truncated, _ = env.step(a)
        seen.append(obs)
        rewards.append(reward)
        terminations.append(terminated)
        truncations.append(truncated)
    observations = {key: np.stack([o[key] for o in seen]) for key in seen[0]}
    return {"observations": observations, "actions": actions, "rewards": rewards,
            "terminations": terminations, "truncations": truncations}


def run_env(run, vision: Any = None, **settings: Any) -> tuple[MazeEnv, dict[int, int]]:
    """A `MazeEnv` over the mazes of the run of people `run` (`humans.load_human_run`) under
    `vision` (default: the trials' own, which must be one) and the pool index of each maze id.
    `settings`: MazeEnv's other keywords."""
    if vision is None:
        labels = sorted({str(t.vision) for t in run.trials})
        if len(labels) != 1:
            raise DataError(f"{run.path}: trials under {len(labels)} visions ({', '.join(labels)}"
                            "): give the vision to replay them under")
        vision = labels[0]
    ids = sorted(run.mazes)
    env = MazeEnv([maze_to_json(run.mazes[m]) for m in ids], vision=vision, **settings)
    return env, {m: k for k, m in enumerate(ids)}


def minari_dataset(run_dir: str | Path, dataset_id: str, vision: Any = None, **settings: Any):
    """Write the trials of the run of people `run_dir` as the Minari dataset `dataset_id` (in
    Minari's folder: `MINARI_DATASETS_PATH`, else ~/.minari), one episode per trial in trial
    order, replayed under `vision` (default: the trials' own); the dataset's environment is the
    run's (`minari.load_dataset(id).recover_environment()` rebuilds it)."""
    import minari
    from minari.data_collector import EpisodeBuffer

    from mazesim.humans.data.run import load_human_run

    run = load_human_run(run_dir)
    env, index = run_env(run, vision, **settings)
    trials = sorted(run.trials, key=lambda t: t.trial_id)
    buffers = [EpisodeBuffer(id=k, **replay(env, index[t.maze_id], t.positions))
               for k, t in enumerate(trials)]
    spec = _spec(env, settings)
    return minari.create_dataset_from_buffers(
        dataset_id, buffers, env=spec, eval_env=spec, algorithm_name="people",
        description=f"{len(trials):,} trials of {len(run.participants):,} people from the "
                    f"mazesim run {Path(run_dir).name}, under vision {env.pool.vision}.")


def _spec(env: MazeEnv, settings: dict):
    """The spec that rebuilds `env`: the registered id with its keywords (JSON-ready: the mazes
    as JSON mazes, the vision as its label)."""
    from gymnasium.envs.registration import EnvSpec

    from mazesim.envs import ENV_ID

    kwargs = {"mazes": [maze_to_json(m) for m in env.pool.mazes],
              "vision": str(env.pool.vision), **settings}
    return EnvSpec(ENV_ID, entry_point="mazesim.envs.maze_env:MazeEnv", kwargs=kwargs)
