"""Sokoban benchmark: solve a level set with a time limit per level (DESIGN.md section 10).

Usage::

    python benchmarks/bench_sokoban.py                      # Microban, 10 s per level
    python benchmarks/bench_sokoban.py --set xsokoban       # XSokoban, 60 s per level
    python benchmarks/bench_sokoban.py --levels FILE --time-limit 5 --only 1-20,144
    python benchmarks/bench_sokoban.py --engine generic --only 100-120   # the reference loop
    python benchmarks/bench_sokoban.py --quick              # Microban 1-3 at 2 s: a few seconds

Prints one line per level, then the solved count, how many of them optimal, total time and
states per second, and the solving stage of every level not solved by forward A*. The level sets
live in ``../shared/levels/`` beside the clone (not copied here; the nearest ``shared/levels``
folder above this script is used, so a worktree beside the clone finds it too).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mazesim.search.sokoban import ENGINES, METHODS, PRUNES, STAGES, read_levels, solve

SHARED_LEVELS = Path("shared") / "levels"
SETS = {"microban": ("microban.txt", 10.0), "xsokoban": ("xsokoban.txt", 60.0)}
"""Level set name -> (file in ../shared/levels, default seconds per level)."""
QUICK_LEVELS, QUICK_SECONDS = "1-3", 2.0
"""--quick: the first three levels at 2 s each, so the script cannot rot unnoticed."""


def _shared_file(name: str) -> Path:
    """`name` in the nearest ``shared/levels`` folder above this script."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SHARED_LEVELS / name).is_file():
            return folder / SHARED_LEVELS / name
    raise SystemExit(f"no {SHARED_LEVELS / name} above {Path(__file__).parent} (use --levels)")


def _selection(text: str | None, count: int) -> list[int]:
    if not text:
        return list(range(1, count + 1))
    numbers: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        numbers.extend(range(int(low), int(high or low) + 1))
    return [n for n in numbers if 1 <= n <= count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="microban")
    parser.add_argument("--levels", help="level file (default: the set's file in ../shared)")
    parser.add_argument("--time-limit", type=float, help="seconds per level (default per set)")
    parser.add_argument("--method", choices=METHODS, default="astar")
    parser.add_argument("--prune", choices=PRUNES, default=None)
    parser.add_argument("--only", help="level numbers, e.g. 1-20,144")
    parser.add_argument("--engine", choices=ENGINES, default="numba",
                        help="generic: plain A* on mazesim.search.generic (the reference)")
    parser.add_argument("--quick", action="store_true",
                        help=f"levels {QUICK_LEVELS} at {QUICK_SECONDS:g} s each")
    args = parser.parse_args()
    if args.quick:
        args.only, args.time_limit = args.only or QUICK_LEVELS, args.time_limit or QUICK_SECONDS
    name, default_limit = SETS[args.set]
    path = Path(args.levels) if args.levels else _shared_file(name)
    limit = args.time_limit or default_limit
    levels = read_levels(path)
    solve(levels[0], method=args.method, prune=args.prune)          # compile or load kernels
    solved = optimal = states = 0
    failed: list[int] = []
    total = 0.0
    for number in _selection(args.only, len(levels)):
        result = solve(levels[number - 1], method=args.method, prune=args.prune,
                       time_limit=limit, engine=args.engine)
        total += result.seconds
        states += result.states
        solved += result.solved
        optimal += result.optimal
        if not result.solved:
            failed.append(number)
        status = ("optimal" if result.optimal else "solved") if result.solved else \
            ("timeout" if result.timed_out else "unsolvable")
        stage = "" if result.stage in (None, STAGES[0].name) else f"  {result.stage}"
        print(f"{number:4d} {status:10s} pushes {result.pushes:4d} moves {result.moves:5d} "
              f"states {result.states:9d} {result.seconds:8.3f} s{stage}", flush=True)
    attempted = len(_selection(args.only, len(levels)))
    print(f"{path.name}: solved {solved}/{attempted} ({optimal} push-optimal) at {limit:g} s "
          f"each; total {total:.1f} s; {states / max(total, 1e-9):,.0f} states/s")
    if failed:
        print("unsolved:", " ".join(map(str, failed)))


if __name__ == "__main__":
    main()
