"""Benchmark of the Maze Search Task planners and the authors' fitting protocol, and the
reproduction of their model comparison (issue 20).

Usage: python benchmarks/bench_planners.py [--repeats 5] [--seeds 50] [--quick]

1. Values: every node model's probabilities at every child of the 40 trees of experiment 1
   over its whole grid (PW-DU: 1,440 points).
2. Protocol: every model fitted to the 5,971 decisions of 116 people by the authors'
   protocol (per person, grid search, 5 folds) for one seed. The issue's budget for trees,
   node decisions and every model under both protocols is 120 s on 2 cores; this is the
   planners' share.
3. Reproduction: our bits and summed log-likelihood against the authors' `fit_models.csv`
   over `--seeds` fold draws, per person, and the best-model counts.

Timings are medians of the repeats (wall clock and CPU of this process; CPU is the steadier
on a shared machine). `--quick`: one repeat, two seeds (the shared data beside the clone is
needed either way).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import experiment_1, medians
from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import NODE_MODELS, NodeModel
from mazesim.humans.peer.grid import grid_fit, prior_of
from mazesim.humans.peer.tables import read_peer_trees
from mazesim.humans.peer.reproduce import best_model_counts, compare_with_peers, peer_choices

BUDGET_S = 120.0
BITS_TOLERANCE, LL_TOLERANCE = 0.01, 0.01


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats, seeds = (1, 2) if args.quick else (args.repeats, args.seeds)
    folder = experiment_1()
    peer, mazes = folder / "peer", folder / "mazes"

    print("1. values of every model on the 40 trees")
    wall, cpu, _ = medians(lambda: decision_nodes(read_peer_trees(peer, mazes)), repeats)
    print(f"   trees read and laid out: {wall:.3f} s wall, {cpu:.3f} s CPU")
    decisions = decision_nodes(read_peer_trees(peer, mazes))
    values_s = 0.0
    grid_models = {n: m for n, m in NODE_MODELS.items() if isinstance(m, NodeModel)}
    for name, model in grid_models.items():
        wall, cpu, _ = medians(lambda: model.grid_probabilities(decisions), repeats)
        values_s += wall
        print(f"   {name:12s} {model.size:5d} points: {wall:.3f} s wall, {cpu:.3f} s CPU")
    print(f"   every model: {values_s:.3f} s wall")

    print("2. the protocol for every model over the experiment")
    choices = peer_choices(peer, mazes)
    protocol_s = 0.0
    for name, model in grid_models.items():
        points = model.points()
        chosen = model.grid_probabilities(decisions, points)[choices.rows]
        wall, cpu, _ = medians(lambda: grid_fit(chosen, choices.people, points, seed=0,
                                                log_prior=prior_of(points)), repeats)
        protocol_s += wall
        print(f"   {name:12s} {chosen.shape[0]} x {chosen.shape[1]:4d}: {wall:.3f} s wall, "
              f"{cpu:.3f} s CPU")
    print(f"   every model: {protocol_s:.3f} s wall; values and protocol together "
          f"{values_s + protocol_s:.2f} s of the {BUDGET_S:g} s budget")

    print(f"3. reproduction over {seeds} fold draws (ours: mean [min, max]; theirs)")
    w0 = time.perf_counter()
    comparison = compare_with_peers(peer, mazes, seeds=range(seeds))
    print(f"   {len(comparison.models)} models x {seeds} seeds in "
          f"{time.perf_counter() - w0:.1f} s; n = {comparison.n} decisions of "
          f"{len(comparison.people)} people")
    for row in comparison.summary():
        bits, gap = comparison.bits(row["model"]), comparison.ll_gap(row["model"])
        near = np.mean(np.abs(bits - row["their_bits"]) <= BITS_TOLERANCE)
        close = np.mean(np.abs(gap) <= LL_TOLERANCE)
        print(f"   {row['model']:12s} bits {row['bits']:.4f} [{row['bits_min']:.4f}, "
              f"{row['bits_max']:.4f}] (95 % over people {row['ci_low']:.3f}-"
              f"{row['ci_high']:.3f}) theirs {row['their_bits']:.4f}; LL gap "
              f"{100 * row['ll_gap']:+.2f} % [{100 * row['ll_gap_min']:+.2f}, "
              f"{100 * row['ll_gap_max']:+.2f}]; draws within 0.01 bits {100 * near:.0f} %, "
              f"within 1 % LL {100 * close:.0f} %")
    expected = (seeds - 1) / (seeds + 1)
    print(f"   per person (ours minus theirs at seed 0; their LL inside our range over the "
          f"seeds, {100 * expected:.0f} % if their draw is like ours):")
    for row in comparison.person_summary():
        print(f"   {row['model']:12s} median {row['gap_median']:+.2f} nats, quartiles "
              f"[{row['gap_q1']:+.2f}, {row['gap_q3']:+.2f}], largest {row['gap_max']:.2f}; "
              f"spread over seeds {row['spread']:.2f}; inside {100 * row['inside']:.0f} %")
    counts = np.array([list(best_model_counts(
        {m: comparison.fits[m][s].test_ll for m in comparison.models}).values())
        for s in range(seeds)])
    theirs = best_model_counts(dict(comparison.theirs))
    print("   people best fitted (ours: mean [min, max] over seeds; theirs among these "
          "models):")
    for i, model in enumerate(comparison.models):
        print(f"   {model:12s} {counts[:, i].mean():5.1f} [{counts[:, i].min()}, "
              f"{counts[:, i].max()}]  theirs {theirs[model]}")


if __name__ == "__main__":
    main()
