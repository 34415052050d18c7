"""Benchmark of the predictive check against the target of issue 21: every model walking every
maze of the Maze Search Task's experiment 1, 100 walks per person and maze, <= 60 s on 2 cores.

Usage: python benchmarks/bench_predict.py [--repeats 1] [--walks 100] [--workers 2]
                                        [--level junction|node] [--quick]

Experiment 1 is imported and every model of the level fitted once (pooled, no cross-validation;
not timed: the junction models of `mazesim fit`, or the node models of `mazesim fit --level
node`, which walk as their tree walkers),
then `predict_run` is timed: wall clock, and CPU of this process and its workers (the steadier
figure on a shared machine), median of the repeats after one warm-up (kernels compiled).
`--quick` checks a small simulated population instead (a few seconds, no shared data needed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from mazesim import generate, make_agent
from mazesim.agents.node_models import NODE_MODELS
from mazesim.humans import default_models, fit_run, import_mst, load_human_run
from mazesim.humans.fitting.output import write_fit
from mazesim.humans.fitting.node_choices import run_node_choices
from mazesim.humans.fitting.node import fit_nodes
from mazesim.humans.fitting.node_output import write_node_fit
from mazesim.humans.predict.run import predict_run
from mazesim.humans.fitting.recovery import simulate_population

TARGET_S = 60.0
SHARED = Path("shared") / "data" / "maze-search-task" / "experiment-1"


def timed(func) -> tuple[float, float]:
    """Wall and CPU seconds (this process and its finished children) of one call."""
    t0, w0 = os.times(), time.perf_counter()
    func()
    t1 = os.times()
    cpu = (t1.user + t1.system + t1.children_user + t1.children_system
           - t0.user - t0.system - t0.children_user - t0.children_system)
    return time.perf_counter() - w0, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--walks", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--level", choices=("junction", "node"), default="junction")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir, fit_dir = Path(tmp) / "run", Path(tmp) / "fit"
        if args.quick and args.level == "node":
            raise SystemExit("--quick: the junction level only")
        if args.quick:
            mazes = {f"d{i}": generate("digging", (9, 9), seed=i) for i in range(4)}
            simulate_population(mazes, make_agent("choice-model"), {"window": 2}, 6, 1, run_dir)
            models, walks, repeats = ["random-walk", "choice-model"], 5, 1
        else:
            folder = next((p / SHARED for p in Path(__file__).resolve().parents
                           if (p / SHARED / "plandata.csv").is_file()), None)
            if folder is None:
                raise SystemExit(f"no {SHARED} above {Path(__file__).parent}")
            import_mst(folder, run_dir)
            models, walks, repeats = default_models(), args.walks, args.repeats
        run = load_human_run(run_dir)
        if args.level == "node":
            models = list(NODE_MODELS)
            write_node_fit(fit_nodes(run_node_choices(run), models, folds=0, seed=0), fit_dir)
        else:
            write_fit(fit_run(run, models, folds=0, seed=0), fit_dir)

        def check():
            return predict_run(run, fit_dir, walks=walks, seed=0, workers=args.workers)
        report = check()                                    # warm-up: compiled kernels
        runs = [timed(check) for _ in range(repeats)]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        people = sum(len(u.people) for u in report.units)
        print(f"predictive check of {len(models)} models, {walks} walks per person and maze "
              f"({len(models) * walks * people:,} walks, {args.workers} workers): median "
              f"{wall:.2f} s wall, {cpu:.2f} s CPU (target <= {TARGET_S:g} s on 2 cores)")
        for m in report.models:
            print(f"  {m.name}: maze r {m.maze_r:.3f}, steps differ on {len(m.differ())} of "
                  f"{len(m.mazes)} mazes")


if __name__ == "__main__":
    main()
