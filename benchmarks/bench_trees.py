"""Benchmark of decision trees and node decisions on the Maze Search Task's experiment 1.

Usage: python benchmarks/bench_trees.py [--repeats 5] [--quick]

1. The trees of the 40 maps (`decision_tree`, the authors' sweep): all 40, and the largest
   (4ways, 171 nodes) alone: targets a few seconds and <= 1 s.
2. Node decisions of experiment 1: every walk (4,758) cut on its map's tree (`NodeCutter`,
   the walks read with `read_mst`), and, without `--quick`, `humans.data.run.node_decisions` of the
   imported run (trees included).
3. A tree past the ceiling (a 9x9 room of pillars): how long the refusal takes.
4. The replication's 30 maps of 15x15, whose trees pass the ceiling: each map's merged graph
   (`decision_tree(..., merged=True)`), the largest and the median over the maps (issue 28's
   target: <= 2 s each), and, without `--quick`, the node fit of the whole replication
   (import not timed; `run_node_choices` and every node model under `ml`, 5 folds, seed 0:
   `mazesim fit RUN --level node --cv 5 --seed 0`; target <= 60 s on 2 cores).

Each figure is the median of the repeats, wall clock and CPU time of this process, after one
warm-up run (the numba cache compiled). `--quick`: one repeat, no import (a few seconds).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from _common import experiment_1, medians, replication
from mazesim.agents.trees import decision_tree
from mazesim.errors import AgentError
from mazesim.humans.data.sources import parse_mst_maze, read_any_maze, read_mst, read_mst_maze
from mazesim.walks.nodes import NodeCutter

SINGLE_TARGET_S = 1.0
GRAPH_TARGET_S = 2.0
REPLICATION_FIT_TARGET_S = 60.0
PILLARS = "9\n9\n" + "030303030\n000000000\n" * 4 + "000050002\n"


def refuse(maze) -> None:
    try:
        decision_tree(maze)
    except AgentError:
        return
    raise SystemExit("the room of pillars did not pass the ceiling")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    folder = experiment_1()
    maps = {p.stem: read_mst_maze(p) for p in sorted((folder / "mazes").glob("*.txt"))}
    wall, cpu, _ = medians(lambda: [decision_tree(m) for m in maps.values()], repeats,
                           warm_up=True)
    nodes = sum(len(decision_tree(m)) for m in maps.values())
    print(f"trees of the 40 maps ({nodes} nodes): median {wall:.3f} s wall, {cpu:.3f} s CPU")
    wall, cpu, _ = medians(lambda: decision_tree(maps["4ways"]), repeats, warm_up=True)
    print(f"the tree of 4ways (171 nodes): median {wall * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms "
          f"CPU (target <= {SINGLE_TARGET_S:g} s)")

    source = read_mst(folder)

    def cut_all() -> int:
        cutters = {name: NodeCutter(decision_tree(m)) for name, m in source.mazes.items()}
        return sum(len(cutters[r.maze].cut(r.positions)) for r in source.recordings)
    wall, cpu, _ = medians(cut_all, repeats, warm_up=True)
    print(f"node decisions of {len(source.recordings):,} walks ({cut_all():,} nodes passed, "
          f"trees included): median {wall:.3f} s wall, {cpu:.3f} s CPU")
    if not args.quick:
        from mazesim.humans import import_mst, load_human_run
        from mazesim.humans.data.run import node_decisions

        with tempfile.TemporaryDirectory() as tmp:
            import_mst(folder, Path(tmp) / "run")
            run = load_human_run(Path(tmp) / "run")
            wall, cpu, _ = medians(lambda: node_decisions(run), repeats, warm_up=True)
        print(f"node decisions of the imported run (node_decisions): median {wall:.3f} s "
              f"wall, {cpu:.3f} s CPU")
    pillars = parse_mst_maze(PILLARS, "pillars")
    wall, cpu, _ = medians(lambda: refuse(pillars), repeats, warm_up=True)
    print(f"refusing a tree past the ceiling (9x9 pillars): median {wall:.3f} s wall, "
          f"{cpu:.3f} s CPU")
    replication_graphs(repeats, args.quick)


def replication_graphs(repeats: int, quick: bool) -> None:
    """Section 4: the merged graphs of the replication's maps, and its node fit."""
    folder = replication()
    maps = {p.stem: read_any_maze(p) for p in sorted((folder / "mazes").glob("*.json"))}
    timed = {name: medians(lambda m=m: decision_tree(m, merged=True), repeats, warm_up=True)
             for name, m in maps.items()}
    largest = max(timed, key=lambda name: timed[name][0])
    print(f"merged graphs of the replication's {len(maps)} maps: largest {largest} "
          f"{timed[largest][0] * 1e3:.1f} ms wall, {timed[largest][1] * 1e3:.1f} ms CPU "
          f"({len(timed[largest][2]):,} nodes), median "
          f"{statistics.median(t[0] for t in timed.values()) * 1e3:.1f} ms (target <= "
          f"{GRAPH_TARGET_S:g} s each); nodes at most "
          f"{max(len(t[2]) for t in timed.values()):,}")
    if quick:
        return
    from mazesim.humans import import_csv, load_human_run
    from mazesim.humans.fitting.node_choices import run_node_choices
    from mazesim.humans.fitting.node import fit_nodes

    with tempfile.TemporaryDirectory() as tmp:
        import_csv(folder / "walks.csv", folder / "mazes", Path(tmp) / "run",
                   vision="sweep, map known")
        wall, cpu, report = medians(lambda: fit_nodes(run_node_choices(load_human_run(
            Path(tmp) / "run")), folds=5, seed=0), repeats)
    bits = ", ".join(f"{m.model} {m.cv_bits:.3f}" for m in report.report.models)
    print(f"node fit of the replication (every node model, ml, 5 folds): median {wall:.1f} s "
          f"wall, {cpu:.1f} s CPU (target <= {REPLICATION_FIT_TARGET_S:g} s; {bits})")


if __name__ == "__main__":
    main()
