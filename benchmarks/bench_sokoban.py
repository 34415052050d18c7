"""Sokoban benchmark: solve a level set with a time limit per level (DESIGN.md section 10).

Usage::

    python benchmarks/bench_sokoban.py                      # Microban, 10 s per level
    python benchmarks/bench_sokoban.py --set xsokoban       # XSokoban, 60 s per level
    python benchmarks/bench_sokoban.py --levels FILE --time-limit 5 --only 1-20,144
    python benchmarks/bench_sokoban.py --engine generic --only 100-120   # the reference loop
    python benchmarks/bench_sokoban.py --quick              # Microban 1-3 at 2 s: a few seconds
    python benchmarks/bench_sokoban.py --deadline 7         # the command under a limit, 7 runs

Prints one line per level, then the solved count, how many of them optimal, total time and
states per second, and the solving stage of every level not solved by forward A*. The level sets
live in ``../shared/levels/`` beside the clone (not copied here; the nearest ``shared/levels``
folder above this script is used, so a worktree beside the clone finds it too).

``--deadline N`` times ``mazesim sokoban ROOM --time-limit 0.5`` on a 150 x 150 room with 40
boxes (the rooms of the time-limit tests), N runs of the command and N of a probe that times its
phases in a fresh process: Python's start, the imports, reading the level, the warm-up (kernels
loaded before the clock) and the solve; medians with the range.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mazesim.search.sokoban import ENGINES, METHODS, PRUNES, STAGES, read_levels, solve

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "search" / "sokoban"))
from sokoban_rooms import open_room  # noqa: E402  (the rooms of the time-limit tests)

SHARED_LEVELS = Path("shared") / "levels"
SETS = {"microban": ("microban.txt", 10.0), "xsokoban": ("xsokoban.txt", 60.0)}
"""Level set name -> (file in ../shared/levels, default seconds per level)."""
QUICK_LEVELS, QUICK_SECONDS = "1-3", 2.0
"""--quick: the first three levels at 2 s each, so the script cannot rot unnoticed."""
ROOM_SIZE, ROOM_BOXES, ROOM_LIMIT = 150, 40, 0.5
"""The room and time limit of ``--deadline`` (issue 23: it once took 4 s)."""
_PROBE = """\
import json, sys, time
t0 = time.perf_counter()
import mazesim.cli.sokoban_commands
from mazesim.search.sokoban import read_level, solve
t1 = time.perf_counter()
level = read_level(sys.argv[1])
t2 = time.perf_counter()
result = solve(level, time_limit=float(sys.argv[2]))
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "read": t2 - t1, "warm_up": t3 - t2 - result.seconds,
                  "solve": result.seconds, "inside": t3 - t0}))
"""
"""Times the phases of the command in a fresh process (the command's own imports first)."""


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
                        help=f"levels {QUICK_LEVELS} at {QUICK_SECONDS:g} s each, one deadline run")
    parser.add_argument("--deadline", type=int, metavar="N", default=0,
                        help="time the command on the big room, N runs (no level set)")
    args = parser.parse_args()
    if args.deadline:
        _deadline(args.deadline)
        return
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
    if args.quick:
        _deadline(1)


def _deadline(runs: int) -> None:
    """Print the command's wall time on the big room under its limit, and where it goes."""
    with tempfile.TemporaryDirectory() as folder:
        room = Path(folder) / "room.xsb"
        room.write_text(open_room(ROOM_SIZE, ROOM_BOXES))
        command = [sys.executable, "-m", "mazesim", "sokoban", str(room), "--time-limit",
                   str(ROOM_LIMIT), "--json"]
        subprocess.run(command, capture_output=True, check=True)     # compile or load first
        walls, cpus, reported, phases = [], [], [], []
        for _ in range(runs):                        # the command and the probe alternate
            began, cpu = time.perf_counter(), _children_cpu()
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            walls.append(time.perf_counter() - began)
            cpus.append(_children_cpu() - cpu)
            reported.append(json.loads(done.stdout)["seconds"])
            began = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", _PROBE, str(room), str(ROOM_LIMIT)],
                                  capture_output=True, text=True, check=True)
            phase = json.loads(done.stdout)
            phase["start_and_exit"] = time.perf_counter() - began - phase.pop("inside")
            phases.append(phase)
    print(f"deadline: {ROOM_SIZE}x{ROOM_SIZE} room, {ROOM_BOXES} boxes, --time-limit "
          f"{ROOM_LIMIT:g}, {runs} runs (medians, range)")
    print(f"  command wall {_spread(walls)}, CPU {_spread(cpus)}; its solve {_spread(reported)}")
    for name in ("start_and_exit", "imports", "read", "warm_up", "solve"):
        print(f"  {name:15s} {_spread([phase[name] for phase in phases])}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


if __name__ == "__main__":
    main()
