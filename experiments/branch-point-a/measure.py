"""The figures of this folder's README: the maze's branches at A, the walker's counts on arrival
at A, and its moves with `backtrack: retrace` against `backtrack: marks`.

    python experiments/branch-point-a/measure.py            # about a minute on 2 cores
    python experiments/branch-point-a/measure.py --quick    # fewer generated mazes
"""

from __future__ import annotations

import argparse
from collections import deque
from pathlib import Path

import numpy as np

from mazesim import generate, make_agent, parameters, read_maze, shortest_path, simulate_many
from mazesim.maze import DELTAS, DIRECTIONS, PASSAGE
from mazesim.walks import visit_counts

MAZE = Path(__file__).with_name("maze.txt")
SEED = 2017              # the config's root seed
VISION = 2               # the study's second experiment
TRIALS = 10_000
GENERATORS = ("digging", "wall-extending", "stick-knocking")
SIZE = (31, 31)
GENERATED_TRIALS = 100   # per maze, as in the first experiment


def branch(maze, a, first):
    """BFS distances from `a` over the cells reachable from `first` without passing `a`."""
    depth, queue = {first: 1}, deque([first])
    while queue:
        r, c = queue.popleft()
        for dr, dc in DELTAS:
            n = (r + dr, c + dc)
            if maze.grid[n] == PASSAGE and n != a and n not in depth:
                depth[n] = depth[(r, c)] + 1
                queue.append(n)
    return depth


def detour_by_path_cell(maze):
    """For each cell of the solution path: the deepest cell it reaches without the path."""
    path = [tuple(p) for p in shortest_path(maze).tolist()]
    others = set(path)
    out = {}
    for p in path:
        depth, queue = {p: 0}, deque([p])
        while queue:
            r, c = queue.popleft()
            for dr, dc in DELTAS:
                n = (r + dr, c + dc)
                if maze.grid[n] == PASSAGE and n not in others and n not in depth:
                    depth[n] = depth[(r, c)] + 1
                    queue.append(n)
        out[p] = max(depth.values())
    return out


def tips(maze):
    """Dead-end cells other than S and G."""
    open_ = maze.grid == PASSAGE
    padded = np.pad(open_, 1)
    degree = sum(np.roll(padded, (-dr, -dc), (0, 1)) for dr, dc in DELTAS)[1:-1, 1:-1]
    cells = open_ & (degree == 1)
    for cell in (maze.start, maze.goal):
        cells[cell] = False
    return cells


def walk_figures(maze, agent, trials, seed):
    """Mean moves and the share of entered dead-end tips that are entered again."""
    batch = simulate_many(maze, agent, VISION, trials, seed, keep_positions=True)
    tip = tips(maze)
    entered = again = 0
    for positions in batch.positions:
        counts = visit_counts(maze, positions)[tip]
        entered += int((counts >= 1).sum())
        again += int((counts >= 2).sum())
    return float(np.mean(batch.moves)), again / max(entered, 1), batch


def arrival_counts(maze, batch):
    """Mean up and right steps made before the first departure from A."""
    a = maze.marks["A"]
    up, right = [], []
    for positions in batch.positions:
        at = np.flatnonzero((positions[:-1] == a).all(axis=1))[0]
        steps = np.diff(positions[: at + 1], axis=0)
        up.append(int((steps[:, 0] == -1).sum()))
        right.append(int((steps[:, 1] == 1).sum()))
    return float(np.mean(up)), float(np.mean(right))


def first_up_share(maze, agent, trials, seed):
    batch = simulate_many(maze, agent, VISION, trials, seed)
    firsts = batch.choices[(batch.choices["mark"] == 0) & batch.choices["first"]]
    return float(np.mean(firsts["chosen"] == DIRECTIONS.index("up")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 mazes per generator")
    mazes_per_generator = 10 if parser.parse_args().quick else 100

    maze = read_maze(MAZE)
    a = maze.marks["A"]
    up = branch(maze, a, (a[0] - 1, a[1]))
    print(f"up branch at A: {len(up)} cells, depth {max(up.values())} from A")
    detours = detour_by_path_cell(maze)
    deepest = max(detours, key=detours.get)
    print(f"detour_depth {parameters(maze)['detour_depth']}: at path cell {deepest} "
          f"(A is {a}); at A: {detours[a]}")

    seed = np.random.SeedSequence(SEED)
    retrace, marks = make_agent("weighted-walker"), make_agent("weighted-walker",
                                                               backtrack="marks")
    moves_r, again_r, batch = walk_figures(maze, retrace, TRIALS, seed)
    moves_m, again_m, _ = walk_figures(maze, marks, TRIALS, seed)
    n_up, n_right = arrival_counts(maze, batch)
    print(f"branch-point maze, {TRIALS:,} trials: up steps {n_up:.1f}, right steps "
          f"{n_right:.1f} before leaving A (counts {1 + n_up:.1f} / {1 + n_right:.1f}: "
          f"{(1 + n_up) / (2 + n_up + n_right):.1%} up)")
    print(f"  moves retrace {moves_r:.1f}, marks {moves_m:.1f} "
          f"(+{moves_m / moves_r - 1:.1%}); tips entered again: retrace {again_r:.1%}, "
          f"marks {again_m:.1%}")
    print(f"  first departures up at A: retrace {first_up_share(maze, retrace, TRIALS, seed):.1%}"
          f", marks {first_up_share(maze, marks, TRIALS, seed):.1%}")
    flat = make_agent("weighted-walker", initial_count=1000)
    print(f"  initial_count 1000: {first_up_share(maze, flat, TRIALS, seed):.1%} up")

    for g, name in enumerate(GENERATORS):
        ratios, shares = [], []
        for i in range(mazes_per_generator):
            m = generate(name, SIZE, seed=i)
            trial_seed = np.random.SeedSequence(SEED, spawn_key=(g, i))
            r, _, _ = walk_figures(m, retrace, GENERATED_TRIALS, trial_seed)
            k, share, _ = walk_figures(m, marks, GENERATED_TRIALS, trial_seed)
            ratios.append(k / r)
            shares.append(share)
        print(f"{name} 31x31, {mazes_per_generator} mazes x {GENERATED_TRIALS} trials: marks / "
              f"retrace moves, mean {np.mean(ratios):.3f} (median {np.median(ratios):.3f}); "
              f"tips entered again with marks {np.mean(shares):.1%}")


if __name__ == "__main__":
    main()
