"""Benchmark of importing and fitting people against the targets of the human-data issue.

Usage: python benchmarks/bench_fit.py [--repeats 3] [--quick]

1. Import of the Maze Search Task's experiment 1 (4,758 trials; the shared data beside the
   clone): target <= 5 s.
2. Fitting every model (every agent with step probabilities) to experiment 1 (9,927 decisions)
   with 5-fold cross-validation by participant: target <= 60 s on 2 cores.

Each figure is the median of the repeats, wall clock and CPU time of this process (CPU is the
steadier one on a shared machine), after one warm-up run (the numba cache compiled). `--quick`
imports and fits a small simulated population instead (a few seconds, no shared data needed).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import experiment_1, medians
from mazesim import generate, make_agent
from mazesim.humans import default_models, fit_models, import_mst
from mazesim.humans.fitting.recovery import simulate_population

IMPORT_TARGET_S = 5.0
FIT_TARGET_S = 60.0
FOLDS = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = iter(range(1_000_000))
        if args.quick:
            mazes = {f"d{i}": generate("digging", (9, 9), seed=i) for i in range(4)}

            def make_run() -> Path:
                out = Path(tmp) / f"run{next(runs)}"
                simulate_population(mazes, make_agent("choice-model"), {"window": 2}, 6, 1,
                                    out)
                return out
            what, models, repeats = "a simulated population (24 trials)", ["random-walk",
                                                                            "choice-model"], 1
        else:
            folder = experiment_1()

            def make_run() -> Path:
                out = Path(tmp) / f"run{next(runs)}"
                import_mst(folder, out)
                return out
            what, models, repeats = "experiment 1", default_models(), args.repeats
        wall, cpu, _ = medians(make_run, repeats, warm_up=True)
        print(f"import of {what}: median {wall:.2f} s wall, {cpu:.2f} s CPU (target <= "
              f"{IMPORT_TARGET_S:g} s)")
        run = make_run()
        wall, cpu, _ = medians(lambda: fit_models(run, models, folds=FOLDS, seed=0),
                               repeats, warm_up=True)
        print(f"fit of {len(models)} models with {FOLDS}-fold cross-validation: median "
              f"{wall:.2f} s wall, {cpu:.2f} s CPU (target <= {FIT_TARGET_S:g} s)")


if __name__ == "__main__":
    main()
