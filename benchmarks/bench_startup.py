"""Benchmark of the command line's start-up: CPU seconds of whole `mazesim` processes.

Usage: python benchmarks/bench_startup.py [--repeats 7] [--quick]

1. `mazesim --help`: target <= 0.5 s of CPU (it imports click and the command table only).
2. `mazesim generate digging --size 15x15 --seed 1`, and aldous-broder (the slowest generator as
   Python): target <= 0.5 s of CPU. A grid of at most `mazesim.jit.PYTHON_MAX_CELLS` cells runs
   its kernels as Python and never imports numba (whose floor is the last row of 4.).
3. `mazesim generate digging --size 201x201`: above that ceiling, compiled (numba's floor plus
   the maze), for comparison.
4. The floors: `python -c pass` and one cached trivial numba kernel (importing numba and filling
   its target context, which imports scipy.linalg for BLAS: the same for any numba program).

Each figure is the median over the repeats of the child process's user + system CPU time
(`resource.getrusage(RUSAGE_CHILDREN)`; steadier than the wall clock on a shared machine), after
one run that fills the kernel cache. `--quick` runs each command twice.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5
_KERNEL = textwrap.dedent("""\
    from numba import njit
    @njit(cache=True)
    def one(x):
        return x + 1
    """)


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one child process running `argv` (it must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_cpu(argv: list[str], env: dict[str, str], repeats: int) -> float:
    cpu_of(argv, env)                                    # fills the kernel cache if cold
    return statistics.median(cpu_of(argv, env) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    mazesim = [sys.executable, "-m", "mazesim"]
    with tempfile.TemporaryDirectory() as tmp:
        maze = str(Path(tmp) / "maze.txt")
        kernel = Path(tmp) / "kernel.py"
        kernel.write_text(_KERNEL, encoding="utf-8")
        rows = [
            ("1. mazesim --help", mazesim + ["--help"], True),
            ("2. mazesim generate digging --size 15x15", mazesim + [
                "generate", "digging", "--size", "15x15", "--seed", "1", "-o", maze], True),
            ("2. mazesim generate aldous-broder --size 15x15", mazesim + [
                "generate", "aldous-broder", "--size", "15x15", "--seed", "1", "-o", maze], True),
            ("3. compiled: generate digging --size 201x201", mazesim + [
                "generate", "digging", "--size", "201x201", "--seed", "1", "-o", maze], False),
            ("4. floor: python -c pass", [sys.executable, "-c", "pass"], False),
            ("4. floor: one cached numba kernel", [
                sys.executable, "-c", f"import sys; sys.path.insert(0, {tmp!r}); "
                "import kernel; kernel.one(1)"], False),
        ]
        print(f"median CPU (user + system) of {repeats} runs, target <= {TARGET_S} s")
        for label, argv, targeted in rows:
            cpu = median_cpu(argv, env, repeats)
            verdict = ("" if not targeted else "  ok" if cpu <= TARGET_S else "  over target")
            print(f"{label:<48} {cpu:6.3f} s{verdict}")


if __name__ == "__main__":
    main()
