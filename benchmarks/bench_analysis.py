"""Benchmark of mazesim.analysis against the targets of issue 2 (medians; ratios in one run).

Usage: python benchmarks/bench_analysis.py [--size 1001] [--repeats 15] [--seed 1] [--quick]

Times, on a perfect maze of the given size (digging when `mazesim.generators` exists, else a
binary-tree maze built here): the distance map, the shortest path, both, and scipy.sparse.csgraph
BFS including its graph build (the peer, when scipy is installed); then all parameters of that
maze and of a 31x31 maze. Each figure is the median of the repeats, wall clock and CPU time of
this process (the CPU figure is steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

from mazesim.analysis import distance_map, parameters, shortest_path
from mazesim.maze import Maze, WALL

TARGETS_MS = {
    "distance_map": 15.0,
    "shortest_path": 15.0,
    "parameters (large)": 150.0,
    "parameters (31x31)": 0.5,
}
SCIPY_RATIO_TARGET = 2.0
SMALL = 31


def perfect_maze(size: int, seed: int) -> Maze:
    """A perfect maze of `size` x `size`: digging if the generators exist, else a binary tree."""
    try:
        from mazesim.generators import generate
    except ImportError:
        return _binary_tree(size, np.random.default_rng(seed))
    return generate("digging", size, seed=seed)


def _binary_tree(size: int, rng: np.random.Generator) -> Maze:
    """Every room opens up or left (top row left, left column up): a perfect maze."""
    grid = np.full((size, size), WALL, np.uint8)
    grid[1::2, 1::2] = 0
    rooms = size // 2
    up = rng.random((rooms, rooms)) < 0.5
    up[0, :], up[:, 0] = False, True
    for i in range(rooms):
        for j in range(rooms):
            if i or j:
                r, c = 2 * i + 1, 2 * j + 1
                grid[(r - 1, c) if up[i, j] else (r, c - 1)] = 0
    return Maze(grid, (1, 1), (size - 2, size - 2))


def scipy_bfs(maze: Maze) -> np.ndarray:
    """Shortest path with scipy.sparse.csgraph: build the passage graph, BFS, walk predecessors."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    grid = maze.grid
    h, w = grid.shape
    open_ = grid == 0
    index = np.arange(h * w).reshape(h, w)
    right = open_[:, :-1] & open_[:, 1:]
    down = open_[:-1, :] & open_[1:, :]
    src = np.concatenate([index[:, :-1][right], index[:-1, :][down]])
    dst = np.concatenate([index[:, 1:][right], index[1:, :][down]])
    graph = csr_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(h * w, h * w))
    _, pred = breadth_first_order(graph, maze.start[0] * w + maze.start[1], directed=False)
    path = [maze.goal[0] * w + maze.goal[1]]
    while pred[path[-1]] >= 0:
        path.append(pred[path[-1]])
    return np.array(np.divmod(path[::-1], w)).T


def median_ms(func: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU milliseconds of `repeats` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        func()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1001)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="101x101, 2 repeats: checks that the script runs")
    args = parser.parse_args()
    if args.quick:
        args.size, args.repeats = 101, 2

    large, small = perfect_maze(args.size, args.seed), perfect_maze(SMALL, args.seed)
    w0 = time.perf_counter()
    for maze in (small, large):  # load (or compile) the kernels before timing
        distance_map(maze), shortest_path(maze), parameters(maze)
    print(f"warm-up (kernel cache load or compile): {(time.perf_counter() - w0) * 1e3:.0f} ms")
    print(f"large maze {args.size}x{args.size}: {int((large.grid == 0).sum())} passage cells, "
          f"solution {len(shortest_path(large)) - 1} moves")

    rows = {
        "distance_map": median_ms(lambda: distance_map(large), args.repeats),
        "shortest_path": median_ms(lambda: shortest_path(large), args.repeats),
        "distance_map + shortest_path": median_ms(
            lambda: (distance_map(large), shortest_path(large)), args.repeats),
    }
    try:
        assert len(scipy_bfs(large)) == len(shortest_path(large))
        rows["scipy csgraph BFS incl. graph build"] = median_ms(lambda: scipy_bfs(large),
                                                                args.repeats)
    except ImportError:
        print("scipy not installed: no peer figure")
    rows["parameters (large)"] = median_ms(lambda: parameters(large), args.repeats)
    rows["parameters (31x31)"] = median_ms(lambda: parameters(small), args.repeats * 200)

    print(f"\n{'figure':<40} {'wall ms':>9} {'cpu ms':>9}  target")
    for name, (wall, cpu) in rows.items():
        target = TARGETS_MS.get(name)
        verdict = "" if target is None else f"<= {target:g} ms: {'ok' if cpu <= target else 'MISS'}"
        print(f"{name:<40} {wall:9.3f} {cpu:9.3f}  {verdict}")
    peer = rows.get("scipy csgraph BFS incl. graph build")
    if peer:
        for name in ("shortest_path", "distance_map + shortest_path"):
            ratio = peer[1] / rows[name][1]
            print(f"scipy / {name}: {ratio:.1f}x faster (cpu; target >= "
                  f"{SCIPY_RATIO_TARGET:g}x): {'ok' if ratio >= SCIPY_RATIO_TARGET else 'MISS'}")


if __name__ == "__main__":
    main()
