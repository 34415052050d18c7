"""Benchmark of `mazesim fit --level node` on the whole of experiment 1 of the Maze Search Task:
the trees and node decisions of every walk, and every node model fitted under both protocols
(issue 20's budget: 120 s on 2 cores for all of it).

Usage: python benchmarks/bench_node_fit.py [--repeats 3] [--quick]

1. The run (imported once beforehand, not timed in the budget) read, the 40 trees built and
   4,758 walks cut into node decisions (`run_node_choices`).
2. Every node model under `ml` (pooled, 5-fold cross-validation by participant).
3. Every node model under `peer` (each person, 5 folds; node-choice with its population
   groups).

Timings are medians of the repeats (wall clock and CPU of this process); the first repeat
includes compiling the kernels when their cache is cold. `--quick`: one repeat.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import experiment_1, medians
from mazesim.humans import import_mst, load_human_run
from mazesim.humans.data.run import excluded
from mazesim.humans.fitting.node_choices import run_node_choices
from mazesim.humans.fitting.node import fit_nodes
from mazesim.humans.peer.tables import EXCLUDED

BUDGET_S = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    folder = experiment_1()
    with tempfile.TemporaryDirectory() as tmp:
        w0 = time.perf_counter()
        import_mst(folder, Path(tmp) / "run")
        print(f"import of experiment 1 (not in the budget): {time.perf_counter() - w0:.1f} s")
        wall, cpu, choices = medians(lambda: run_node_choices(excluded(
            load_human_run(Path(tmp) / "run"), EXCLUDED)), repeats)
    total = [wall, cpu]
    print(f"1. trees and node decisions: {len(choices):,} decisions of "
          f"{len(choices.participants)} people: {wall:.1f} s wall, {cpu:.1f} s CPU")
    for label, protocol in (("2. ml", "ml"), ("3. peer", "peer")):
        wall, cpu, report = medians(lambda: fit_nodes(choices, protocol=protocol), repeats)
        total = [total[0] + wall, total[1] + cpu]
        bits = ", ".join(f"{m.model} {m.cv_bits:.3f}" for m in report.report.models)
        print(f"{label}: every node model: {wall:.1f} s wall, {cpu:.1f} s CPU ({bits})")
    verdict = "within" if total[0] <= BUDGET_S else "over"
    print(f"total: {total[0]:.1f} s wall, {total[1]:.1f} s CPU: {verdict} the budget of "
          f"{BUDGET_S:.0f} s")


if __name__ == "__main__":
    main()
