"""Benchmark of decision trees and node decisions on the Maze Search Task's experiment 1.

Usage: python benchmarks/bench_trees.py [--repeats 5] [--quick]

1. The trees of the 40 maps (`decision_tree`, the authors' sweep): all 40, and the largest
   (4ways, 171 nodes) alone: targets a few seconds and <= 1 s.
2. Node decisions of experiment 1: every walk (4,758) cut on its map's tree (`NodeCutter`,
   the walks read with `read_mst`), and, without `--quick`, `humans.data.node_decisions` of the
   imported run (trees included).
3. A tree past the ceiling (a 9x9 room of pillars): how long the refusal takes.

Each figure is the median of the repeats, wall clock and CPU time of this process, after one
warm-up run (the numba cache compiled). `--quick`: one repeat, no import (a few seconds).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import experiment_1, medians
from mazesim.agents.trees import decision_tree
from mazesim.errors import AgentError
from mazesim.humans.sources import parse_mst_maze, read_mst, read_mst_maze
from mazesim.walks.nodes import NodeCutter

SINGLE_TARGET_S = 1.0
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
        from mazesim.humans.data import node_decisions

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


if __name__ == "__main__":
    main()
