"""Benchmark of the walking agents against the targets of issue 3 (medians; ratios in one run).

Usage: python benchmarks/bench_agents.py [--mazes 3] [--trials 1000] [--repeats 3] [--quick]

1. Agent moves per second through `simulate_many` (1,000 trials per maze, 31x31 digging
   mazes) for weighted-walker, random-walk and dfs with their default parameters, vision 2 (the
   study's window) and full: target >= 10 million.
2. 100 trials of every agent with vision 2 on one 31x31 maze: target <= 0.5 s in total.
3. Side by side with mazelib's RandomMouse and Tremaux solvers (pure Python, if installed) on the
   same mazes, blind walkers against blind walkers (vision 0, no goal seeking): the ratio of
   moves per second. mazelib draws from Python's global `random`, seeded here per trial.

Each figure is the median of the repeats, wall clock and CPU time of this process (CPU is the
steadier one on a shared machine; targets are judged on it).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from mazesim.agents import AGENTS, STUDY_VISION, make_agent
from mazesim.generators import generate
from mazesim.maze import Maze
from mazesim.simulate import simulate_many

SIZE = 31
MOVES_TARGET = 10e6
BUDGET_TARGET_S = 0.5
FAST_AGENTS = ("weighted-walker", "random-walk", "dfs")


def timed(func) -> tuple[object, float, float]:
    """Result, wall seconds, CPU seconds of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - w0, time.process_time() - c0


def moves_per_second(mazes: list[Maze], agent, vision, trials: int, repeats: int,
                     choices: str) -> tuple[float, float, float]:
    """Median (wall, CPU) moves per second over repeats of all mazes; mean moves per trial."""
    wall, cpu, moves = [], [], 0
    for _ in range(repeats):
        total_w = total_c = 0.0
        moves = 0
        for i, maze in enumerate(mazes):
            batch, w, c = timed(lambda: simulate_many(maze, agent, vision, trials, i,
                                                      choices=choices))
            moves += int(batch.moves.sum())
            total_w, total_c = total_w + w, total_c + c
        wall.append(moves / total_w)
        cpu.append(moves / total_c)
    return statistics.median(wall), statistics.median(cpu), moves / (trials * len(mazes))


def mazelib_moves_per_second(mazes: list[Maze], solver_class, trials: int) -> float | None:
    """CPU moves per second of a mazelib solver (cells walked), None without mazelib."""
    moves, cpu = 0, 0.0
    for maze in mazes:
        grid = np.array(maze.grid, np.int8)
        for trial in range(trials):
            random.seed(trial)
            solution, _, c = timed(lambda: solver_class().solve(grid, maze.start, maze.goal))
            moves += len(solution[0]) - 1
            cpu += c
    return moves / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mazes", type=int, default=3)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100 trials, 1 repeat")
    args = parser.parse_args()
    trials, repeats = (100, 1) if args.quick else (args.trials, args.repeats)
    mazes = [generate("digging", SIZE, seed=s) for s in range(args.mazes)]

    _, warm, _ = timed(lambda: [simulate_many(mazes[0], make_agent(n), v, 2, 0)
                                for n in AGENTS for v in (STUDY_VISION, "full", 0)])
    print(f"warm-up (kernel cache load or compile): {warm:.1f} s")

    print(f"\n1. moves per second, simulate_many, {trials} trials x {len(mazes)} mazes "
          f"{SIZE}x{SIZE} (median of {repeats})")
    print("   choices: 'all' records every junction departure, 'marks' only those at marked cells"
          " (what experiments store)")
    print(f"{'agent':<17} {'vision':>6} {'choices':>7} {'moves/trial':>11} {'wall M/s':>9} "
          f"{'cpu M/s':>8}  target")
    for name in FAST_AGENTS:
        for vision in (STUDY_VISION, "full"):
            for choices in ("all", "marks"):
                wall, cpu, per_trial = moves_per_second(mazes, make_agent(name), vision, trials,
                                                        repeats, choices)
                verdict = "ok" if cpu >= MOVES_TARGET else "MISS"
                print(f"{name:<17} {vision!s:>6} {choices:>7} {per_trial:11.0f} "
                      f"{wall / 1e6:9.2f} {cpu / 1e6:8.2f}  >= {MOVES_TARGET / 1e6:g}: {verdict}")

    print(f"\n2. 100 trials of every agent, vision {STUDY_VISION}, one {SIZE}x{SIZE} maze")
    totals_w, totals_c, per_agent = [], [], {}
    for _ in range(max(repeats, 3)):
        sum_w = sum_c = 0.0
        for name in AGENTS:
            _, w, c = timed(lambda: simulate_many(mazes[0], make_agent(name), STUDY_VISION,
                                                  100, 1))
            sum_w, sum_c = sum_w + w, sum_c + c
            per_agent.setdefault(name, []).append(c)
        totals_w.append(sum_w)
        totals_c.append(sum_c)
    for name, cpus in per_agent.items():
        print(f"  {name:<17} {statistics.median(cpus) * 1e3:8.1f} ms cpu")
    total = statistics.median(totals_c)
    print(f"  total: {statistics.median(totals_w):.3f} s wall, {total:.3f} s cpu  "
          f"<= {BUDGET_TARGET_S:g} s: {'ok' if total <= BUDGET_TARGET_S else 'MISS'}")

    print("\n3. against mazelib (blind walkers: vision 0, no goal seeking; cpu moves per second)")
    try:
        from mazelib.solve.RandomMouse import RandomMouse
        from mazelib.solve.Tremaux import Tremaux
    except ImportError:
        print("  mazelib not installed (pip install mazelib): skipped")
        return
    peer_trials = max(trials // 50, 5)
    for ours, theirs in (("random-walk", RandomMouse), ("tremaux", Tremaux)):
        agent = make_agent(ours, goal_seeking=False)
        _, cpu, _ = moves_per_second(mazes, agent, 0, trials, repeats)
        peer = mazelib_moves_per_second(mazes, theirs, peer_trials)
        print(f"  {ours:<12} {cpu / 1e6:8.2f} M/s   mazelib {theirs.__name__:<11} "
              f"{peer / 1e6:8.3f} M/s   ratio {cpu / peer:7.0f}x")


if __name__ == "__main__":
    main()
