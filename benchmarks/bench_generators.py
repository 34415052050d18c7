"""Generator benchmark: every generator at 1001x1001, digging at 31x31, peers side by side.

Run:  python benchmarks/bench_generators.py [--repeats 7] [--no-mazelib-large] [--quick]

Prints medians of repeats (milliseconds) against the targets of issue 2, the ratios to the peers
measured in the same run (`labmaze`, `mazelib` and a plain-Python backtracker; a peer that is not
installed is skipped with the reason), and the dead-end share of every generator (101x101, mean of
10 mazes). The machine is shared: trust the ratios more than the absolute figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Callable

import numpy as np

from mazesim.generators import GENERATORS, _kernels, generate
from mazesim.generators.braid import dead_ends
from mazesim.maze import Maze

LARGE, SMALL = 1001, 31
TARGET_MS = {"digging": 25.0, "wilson": 2000.0, "aldous-broder": 2000.0}
OTHER_TARGET_MS = 250.0
SMALL_TARGET_MS = 0.05
LABMAZE_MIN_RATIO = 3.0
SMALL_CALLS = 2000  # calls per repeat at 31x31 (one call is too short to time alone)
QUICK_SIDE = 101
"""--quick: 101x101, one repeat, no mazelib, so the script cannot rot unnoticed (seconds)."""


def median_ms(call: Callable[[], object], repeats: int, calls: int = 1) -> float:
    """Median over `repeats` of the mean time of `calls` calls, in ms (after one warm-up call)."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times.append((time.perf_counter() - start) / calls * 1e3)
    return statistics.median(times)


def plain_python_backtracker(h: int, w: int, rng: random.Random) -> list[list[int]]:
    """The recursive backtracker in plain Python (the issue's 'plain Python' peer)."""
    grid = [[1] * w for _ in range(h)]
    stack = [(rng.randrange(1, h, 2), rng.randrange(1, w, 2))]
    grid[stack[0][0]][stack[0][1]] = 0
    while stack:
        r, c = stack[-1]
        options = [(r + dr, c + dc) for dr, dc in ((-2, 0), (0, 2), (2, 0), (0, -2))
                   if 0 < r + dr < h - 1 and 0 < c + dc < w - 1 and grid[r + dr][c + dc]]
        if not options:
            stack.pop()
            continue
        nr, nc = rng.choice(options)
        grid[(r + nr) // 2][(c + nc) // 2] = 0
        grid[nr][nc] = 0
        stack.append((nr, nc))
    return grid


def peers(mazelib_large: bool) -> dict[str, tuple[Callable[[int], object] | None, str]]:
    """Peer backtrackers by name: (call taking the grid side, or None, and a note)."""
    found: dict[str, tuple[Callable[[int], object] | None, str]] = {}
    try:
        import labmaze

        found["labmaze (C++)"] = (
            lambda n: labmaze.RandomMaze(height=n, width=n, max_rooms=0, simplify=False,
                                         random_seed=1),
            "RandomMaze(max_rooms=0, simplify=False); simplify=True takes minutes at 1001",
        )
    except ImportError as err:
        found["labmaze (C++)"] = (None, f"skipped: not importable ({err})")
    try:
        from mazelib import Maze as MazelibMaze
        from mazelib.generate.BacktrackingGenerator import BacktrackingGenerator

        def mazelib_call(n: int) -> object:
            maze = MazelibMaze()
            maze.generator = BacktrackingGenerator((n - 1) // 2, (n - 1) // 2)
            maze.generate()
            return maze.grid

        note = "BacktrackingGenerator, 1 repeat at 1001 (about 10 s)"
        found["mazelib"] = (mazelib_call if mazelib_large else None,
                            note if mazelib_large else "skipped at 1001: --no-mazelib-large")
    except ImportError as err:
        found["mazelib"] = (None, f"skipped: not importable ({err})")
    found["plain Python"] = (lambda n: plain_python_backtracker(n, n, random.Random(1)),
                             "plain_python_backtracker in this file")
    return found


def dead_end_shares(size: int = 101, mazes: int = 10) -> dict[str, float]:
    """Percent of rooms that are dead ends, mean over `mazes` seeds."""
    rooms = ((size - 1) // 2) ** 2
    return {name: 100 * np.mean([len(dead_ends(generate(name, size, seed=s).grid)) / rooms
                                 for s in range(mazes)]) for name in GENERATORS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-mazelib-large", action="store_true",
                        help="skip mazelib at 1001x1001 (about 10 s a run)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SIDE}x{QUICK_SIDE}, "
                        "1 repeat, no mazelib: checks that the script runs")
    args = parser.parse_args()
    reps = 1 if args.quick else args.repeats
    side = QUICK_SIDE if args.quick else LARGE
    calls = 10 if args.quick else SMALL_CALLS

    print(f"Generators, {side}x{side} grid, through generate(), median of {reps} (ms)")
    print(f"{'generator':20} {'median':>9} {'target':>8}  ok")
    ours = {}
    for name in GENERATORS:
        ours[name] = median_ms(lambda: generate(name, side, seed=1), reps)
        target = TARGET_MS.get(name, OTHER_TARGET_MS)
        verdict = "yes" if ours[name] <= target else "NO"
        print(f"{name:20} {ours[name]:9.1f} {target:8.0f}  {verdict}")

    rng = np.random.default_rng(1)
    grid = generate("digging", SMALL, seed=1).grid
    uniforms = rng.random(_kernels.dig_draws(SMALL, SMALL))
    small = {
        "generate('digging', 31, seed=1)": lambda: generate("digging", SMALL, seed=1),
        "  numpy default_rng(seed)": lambda: np.random.default_rng(1),
        "  GENERATORS['digging'].function": lambda: GENERATORS["digging"].function(
            (SMALL, SMALL), rng),
        "  _kernels.dig (numba kernel)": lambda: _kernels.dig(SMALL, SMALL, uniforms),
        "  Maze(grid, start, goal, meta)": lambda: Maze(grid, (1, 1), (29, 29), meta={"a": 1}),
    }
    print(f"\ndigging {SMALL}x{SMALL}, median of {reps} x {calls} calls (us); target "
          f"{SMALL_TARGET_MS * 1e3:.0f} us through generate")
    for label, call in small.items():
        us = median_ms(call, reps, calls) * 1e3
        met = "  yes" if us <= SMALL_TARGET_MS * 1e3 else "  NO"
        verdict = "" if label.startswith(" ") else met
        print(f"{label:36} {us:8.2f}{verdict}")
    large_kernel = median_ms(lambda: GENERATORS["digging"].function((side, side), rng), reps)
    print(f"digging {side}x{side} family function without generate(): {large_kernel:.1f} ms")

    print(f"\nPeers: backtracker {side}x{side}, same run (ms; ratio = peer / our digging "
          f"{ours['digging']:.1f} ms)")
    for label, (call, note) in peers(not (args.no_mazelib_large or args.quick)).items():
        if call is None:
            print(f"{label:16} {'-':>9} {'-':>8}  {note}")
            continue
        ms = _once(call, side) if label == "mazelib" else median_ms(lambda: call(side), reps)
        ratio = ms / ours["digging"]
        goal = f" (target >= {LABMAZE_MIN_RATIO:.0f}x)" if label.startswith("labmaze") else ""
        print(f"{label:16} {ms:9.1f} {ratio:7.1f}x  {note}{goal}")

    print(f"\nDead-end share of rooms, 101x101, mean of {1 if args.quick else 10} mazes (%)")
    for name, share in dead_end_shares(mazes=1 if args.quick else 10).items():
        print(f"{name:20} {share:6.2f}")


def _once(call: Callable[[int], object], side: int) -> float:
    """One timed run (mazelib at 1001 takes seconds; no warm-up needed for plain Python)."""
    start = time.perf_counter()
    call(side)
    return (time.perf_counter() - start) * 1e3


if __name__ == "__main__":
    main()
