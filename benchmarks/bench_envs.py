"""Benchmark of the Gymnasium environments (`mazesim.envs`, needs the `gym` extra).

Usage: python benchmarks/bench_envs.py [--repeats 3] [--quick]

1. The vector environment: 1,024 walkers on a pool of 100 31x31 mazes (stick-knocking), random
   actions drawn beforehand, 300 steps of all walkers per repeat, episodes truncated at 100
   steps (so that the automatic resets, a new maze drawn and looked at, count too),
   for each vision: full, the study's window 2, window 2 without memory, and the Maze Search
   Task's line of sight (isovist 10, map known). Target: >= 1,000,000 steps per CPU second
   (MiniGrid's FourRooms: about 8,800 through Gymnasium).
2. The single environment through `gymnasium.make` (its wrappers included), window 2: steps
   per CPU second.
3. Without `--quick`: every trial of the Maze Search Task's experiment 1 replayed through the
   environment (`mazesim.envs.people.replay`), its import included.

Each figure is the median of the repeats (CPU time of this process), after one warm-up run
(the numba cache compiled). `--quick`: 64 walkers, 20 steps, one repeat (a few seconds).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np

from _common import experiment_1, medians
from mazesim.envs import ENV_ID
from mazesim.envs.vector import MazeVectorEnv

TARGET = 1_000_000
MAX_STEPS = 100
VISIONS = ("full", "2", "2, no memory", "isovist 10, map known")


def vector(vision: str, walkers: int, steps: int, repeats: int) -> None:
    env = MazeVectorEnv(walkers, vision=vision, size=31, count=100, maze_seed=0,
                        max_steps=MAX_STEPS)
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, (steps, walkers))

    def run() -> int:
        ended = 0
        for a in actions:
            _, _, terminated, truncated, _ = env.step(a)
            ended += int(terminated.sum() + truncated.sum())
        return ended
    wall, cpu, ended = medians(run, repeats, warm_up=True)
    rate = steps * walkers / cpu
    mark = "" if vision not in VISIONS[:2] else f" (target >= {TARGET:,})"
    print(f"vector, vision {vision}: {rate:,.0f} steps per CPU second{mark}; median "
          f"{cpu:.3f} s CPU, {wall:.3f} s wall for {steps * walkers:,} steps, {ended:,} "
          "episodes ended")


def single(steps: int, repeats: int) -> None:
    env = gym.make(ENV_ID, vision="2", size=31, count=100)
    env.reset(seed=0)
    actions = np.random.default_rng(1).integers(0, 4, steps).tolist()

    def run() -> None:
        for a in actions:
            if any(env.step(a)[2:4]):
                env.reset()
    wall, cpu, _ = medians(run, repeats, warm_up=True)
    print(f"single, gymnasium.make, vision 2: {steps / cpu:,.0f} steps per CPU second "
          f"(median {cpu:.3f} s CPU for {steps:,} steps)")


def replay_experiment_1(repeats: int) -> None:
    from mazesim.envs.people import replay, run_env
    from mazesim.humans import import_mst, load_human_run

    with tempfile.TemporaryDirectory() as tmp:
        import_mst(experiment_1(), Path(tmp) / "run")
        run = load_human_run(Path(tmp) / "run")
    env, index = run_env(run)

    def run_all() -> int:
        return sum(len(replay(env, index[t.maze_id], t.positions)["actions"])
                   for t in run.trials)
    wall, cpu, steps = medians(run_all, repeats, warm_up=True)
    print(f"replay of {len(run.trials):,} trials ({steps:,} moves, isovist 10, map known): "
          f"median {cpu:.2f} s CPU, {wall:.2f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    walkers, steps = (64, 20) if args.quick else (1024, 300)
    print(f"1. the vector environment: {walkers:,} walkers, 31x31 mazes, {steps} steps")
    for vision in VISIONS:
        vector(vision, walkers, steps, repeats)
    print("2. the single environment")
    single(200 if args.quick else 20_000, repeats)
    if not args.quick:
        print("3. people through the environment")
        replay_experiment_1(repeats)


if __name__ == "__main__":
    main()
