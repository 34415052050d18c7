"""Benchmark of the walking agents against the targets of the redesign (medians; ratios in one run).

Usage: python benchmarks/bench_agents.py [--mazes 3] [--trials 1000] [--repeats 5] [--quick]

1. The walking loop against a bare compiled random walk (uniform over the open neighbours,
   xorshift, no bookkeeping) on the same 31x31 digging mazes, side by side: the ratio of moves per
   second of `simulate_many(maze, make_agent("random-walk", goal_seeking=False), "full",
   choices=...)` to the bare walk; targets >= 0.7 with choices "marks" (what experiments record)
   and >= 0.4 with every junction recorded; and the weighted walker at vision 2: >= 45 M moves/s.
2. Moves per second of weighted-walker, random-walk and dfs with their defaults, vision 2 and
   full, every junction or only marks recorded.
3. 100 trials of every agent with vision 2 on one 31x31 maze: target <= 0.5 s in total for the
   agents the target was set for; the choice model (five searches of its known map a step, for its
   features) is timed beside them, not in that total.
4. Side by side with mazelib's RandomMouse and Tremaux solvers (pure Python, if installed) on the
   same mazes, blind walkers against blind walkers (vision 0, no goal seeking): the ratio of
   moves per second. mazelib draws from Python's global `random`, seeded here per trial.
5. One trial of bfs with a forgetful window (vision 1, no memory) on a 201x201 digging maze
   (554,292 moves): target < 2 s. Before `bfs_target` stopped searching the whole trail at
   every step of its wandering (issue 23.17): 2.8 s of CPU (8 to 15 s of wall time on the
   shared machine); after: 0.31 s of CPU, 1.2 s of wall time.

Figures are CPU time of this process (steadier than wall time on a shared machine).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Callable

import numpy as np
from numba import njit

from mazesim import _grid
from mazesim.agents import AGENTS, STUDY_VISION, TREE_WALKERS, make_agent
from mazesim.generators import generate
from mazesim.maze import PASSAGE, Maze
from mazesim.walks import simulate_many

SIZE = 31
FORGETFUL_SIZE = 201
FORGETFUL_TARGET_S = 2.0
RATIO_TARGETS = {"marks": 0.7, "all": 0.4}
WALKER_TARGET = 45e6
LATER_AGENTS = ("choice-model",)  # added after the target: a logit over searched features
BUDGET_TARGET_S = 0.5
FAST_AGENTS = ("weighted-walker", "random-walk", "dfs")


@njit(cache=True)
def bare_random_walk(cells, width, start, goal, seeds, max_steps):
    """Moves of a bare random walk per seed: uniform over the open neighbours, xorshift64."""
    step = np.array([-width, 1, width, -1], np.int64)
    options = np.empty(4, np.int64)
    total = 0
    for k in range(seeds.shape[0]):
        s = seeds[k] | np.uint64(1)
        i, t = start, 0
        while t < max_steps and i != goal:
            n = 0
            for d in range(4):
                if cells[i + step[d]] == PASSAGE:
                    options[n] = d
                    n += 1
            s ^= s << np.uint64(13)
            s ^= s >> np.uint64(7)
            s ^= s << np.uint64(17)
            i += step[options[(s >> np.uint64(11)) % np.uint64(n)]]
            t += 1
        total += t
    return total


def cpu(call: Callable[[], int]) -> tuple[int, float]:
    """(moves, CPU seconds) of one call."""
    began = time.process_time()
    moves = call()
    return moves, time.process_time() - began


def rate(mazes: list[Maze], run: Callable[[Maze, int], int]) -> float:
    """Moves per CPU second over all mazes (maze i uses seed i)."""
    moves = seconds = 0.0
    for i, maze in enumerate(mazes):
        m, s = cpu(lambda: run(maze, i))
        moves, seconds = moves + m, seconds + s
    return moves / seconds


def ours(agent, vision, trials: int, choices: str) -> Callable[[Maze, int], int]:
    return lambda maze, seed: int(simulate_many(maze, agent, vision, trials, seed,
                                                choices=choices).moves.sum())


def bare(trials: int) -> Callable[[Maze, int], int]:
    def run(maze: Maze, seed: int) -> int:
        width = maze.shape[1] + 2
        flat = lambda c: (c[0] + 1) * width + c[1] + 1  # noqa: E731
        max_steps = 50 * int((maze.grid == PASSAGE).sum())
        seeds = np.random.SeedSequence(seed).generate_state(trials, np.uint64)
        return bare_random_walk(_grid.pad(maze.grid).ravel(), width, flat(maze.start),
                                flat(maze.goal), seeds, max_steps)
    return run


def medians(runs: dict[str, Callable[[], float]], repeats: int) -> dict[str, float]:
    """Median of each run over `repeats` rounds, the runs interleaved in every round."""
    for run in runs.values():
        run()                                            # compile or load the kernels
    values: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            values[name].append(run())
    return {name: statistics.median(v) for name, v in values.items()}


def mazelib_rate(mazes: list[Maze], solver_class, trials: int) -> float:
    """CPU moves per second of a mazelib solver (cells walked)."""
    moves, seconds = 0, 0.0
    for maze in mazes:
        grid = np.array(maze.grid, np.int8)
        for trial in range(trials):
            random.seed(trial)
            began = time.process_time()
            solution = solver_class().solve(grid, maze.start, maze.goal)
            seconds += time.process_time() - began
            moves += len(solution[0]) - 1
    return moves / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mazes", type=int, default=3)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1 maze, 50 trials, 1 repeat")
    args = parser.parse_args()
    n_mazes, trials, repeats = (1, 50, 1) if args.quick else (args.mazes, args.trials,
                                                              args.repeats)
    mazes = [generate("digging", SIZE, seed=s) for s in range(n_mazes)]
    blind = make_agent("random-walk", goal_seeking=False)

    print(f"1. the walking loop against a bare random walk, {trials} trials x {n_mazes} mazes "
          f"{SIZE}x{SIZE}, median of {repeats} (CPU M moves/s)")
    runs = {"bare": lambda: rate(mazes, bare(trials)),
            "marks": lambda: rate(mazes, ours(blind, "full", trials, "marks")),
            "all": lambda: rate(mazes, ours(blind, "full", trials, "all")),
            "walker": lambda: rate(mazes, ours(make_agent("weighted-walker"), STUDY_VISION,
                                                trials, "marks"))}
    m = medians(runs, repeats)
    print(f"  bare compiled random walk          {m['bare'] / 1e6:8.1f}")
    for choices in ("marks", "all"):
        ratio = m[choices] / m["bare"]
        verdict = "ok" if ratio >= RATIO_TARGETS[choices] else "MISS"
        print(f"  random-walk, choices {choices:<6}       {m[choices] / 1e6:8.1f}   ratio "
              f"{ratio:.2f} (target >= {RATIO_TARGETS[choices]}): {verdict}")
    print(f"  weighted-walker, vision 2          {m['walker'] / 1e6:8.1f}   (target >= "
          f"{WALKER_TARGET / 1e6:g}): {'ok' if m['walker'] >= WALKER_TARGET else 'MISS'}")

    print(f"\n2. moves per second, default agents, {trials} trials x {n_mazes} mazes")
    print(f"  {'agent':<17} {'vision':>6} {'choices':>7} {'M/s':>7}")
    conditions = [(name, vision, choices) for name in FAST_AGENTS
                  for vision in (STUDY_VISION, "full") for choices in ("all", "marks")]
    m = medians({c: (lambda c=c: rate(mazes, ours(make_agent(c[0]), c[1], trials, c[2])))
                 for c in conditions}, repeats)
    for (name, vision, choices), value in m.items():
        print(f"  {name:<17} {vision!s:>6} {choices:>7} {value / 1e6:7.2f}")

    print(f"\n3. 100 trials of every agent, vision {STUDY_VISION}, one {SIZE}x{SIZE} maze "
          "(the tree walkers need the map known: not here)")
    walkers = [name for name in AGENTS if name not in {c.name for c in TREE_WALKERS}
               and not getattr(AGENTS[name], "full_view_only", False)]
    totals, per_agent = [], {name: [] for name in walkers}
    for _ in range(1 if args.quick else max(repeats, 3)):
        total = 0.0
        for name in walkers:
            _, seconds = cpu(lambda: simulate_many(mazes[0], make_agent(name), STUDY_VISION,
                                                   100, 1).trials)
            per_agent[name].append(seconds)
            total += seconds
        totals.append(total)
    for name, seconds in per_agent.items():
        print(f"  {name:<17} {statistics.median(seconds) * 1e3:8.1f} ms")
    total = statistics.median(totals)
    classic = statistics.median([sum(s[i] for n, s in per_agent.items() if n not in LATER_AGENTS)
                                 for i in range(len(totals))])
    print(f"  total {total:.3f} s; without {', '.join(LATER_AGENTS)} {classic:.3f} s (target <= "
          f"{BUDGET_TARGET_S:g} s): {'ok' if classic <= BUDGET_TARGET_S else 'MISS'}")

    against_mazelib(mazes, trials, repeats)
    forgetful(repeats)


def against_mazelib(mazes: list[Maze], trials: int, repeats: int) -> None:
    """Section 4 (skipped without mazelib)."""
    print("\n4. against mazelib (blind walkers: vision 0, no goal seeking)")
    try:
        from mazelib.solve.RandomMouse import RandomMouse
        from mazelib.solve.Tremaux import Tremaux
    except ImportError:
        print("  mazelib not installed (pip install mazelib): skipped")
        return
    peer_trials = max(trials // 50, 2)
    for name, peer in (("random-walk", RandomMouse), ("tremaux", Tremaux)):
        blind_run = ours(make_agent(name, goal_seeking=False), 0, trials, "marks")
        value = medians({name: lambda: rate(mazes, blind_run)}, repeats)[name]
        theirs = mazelib_rate(mazes, peer, peer_trials)
        print(f"  {name:<12} {value / 1e6:8.2f} M/s   mazelib {peer.__name__:<11} "
              f"{theirs / 1e6:8.3f} M/s   ratio {value / theirs:7.0f}x")


def forgetful(repeats: int) -> None:
    """Section 5: one trial of bfs, vision 1 without memory, on a large maze."""
    from mazesim.agents import Vision

    maze = generate("digging", FORGETFUL_SIZE, seed=1)
    vision = Vision(1, memory=False)
    run = lambda: simulate_many(maze, make_agent("bfs"), vision, 1, 0).moves.sum()  # noqa: E731
    run()                                                # compile or load the kernels
    moves, _ = cpu(run)
    seconds = statistics.median(cpu(run)[1] for _ in range(max(repeats, 3)))
    print(f"\n5. bfs, vision 1, no memory, one trial of a {FORGETFUL_SIZE}x{FORGETFUL_SIZE} "
          f"digging maze ({moves:,} moves): {seconds:.2f} s CPU (target < "
          f"{FORGETFUL_TARGET_S:g} s): {'ok' if seconds < FORGETFUL_TARGET_S else 'MISS'}")


if __name__ == "__main__":
    main()
