"""The node yardstick on the authors' own trees and decisions: every node model under their
protocol over several fold draws, beside their figures, and what each feature of node-choice
adds.

Usage: python experiments/maze-search-task/nodes.py PEER MAZES [--seeds 10] [--features 3]

PEER is the authors' folder (tree_builder.csv, subject_decisions_with_values.csv,
fit_models.csv), MAZES the maps. Prints Markdown tables: per model our bits per decision
(mean, min and max over the seeds 0..seeds-1) and our summed log-likelihood against theirs;
how many people each model fits best; node-choice against DU per person (paired); and
node-choice without each feature and each group of features (over the first `--features`
seeds: the paired difference in bits per decision with a 95 % bootstrap interval over
people).
"""

from __future__ import annotations

import math
import time

import numpy as np

from mazesim.agents.node_features import NODE_FEATURES
from mazesim.agents.node_models import NodeLogit
from mazesim.humans.fitting.node_choices import peer_node_choices
from mazesim.humans.peer.protocol import logit_peer_fit
from mazesim.humans.peer.reproduce import MAX_SEEDS, best_model_counts, compare_with_peers
from mazesim.humans.fitting.ranking import rank_models
from script_args import Parser, integers, run_script

BOOTSTRAP = 2000
OURS = "node-choice"
GROUPS = {"every du-G (the plan)": tuple(f for f in NODE_FEATURES if f.startswith("du-")),
          "log-steps and log-cells (the heuristics)": ("log-steps", "log-cells"),
          "revisit and reverse (the walk so far)": ("revisit", "reverse")}


def paired(gain_ll: np.ndarray, decisions: np.ndarray, seed: int = 0) -> tuple[float, float,
                                                                              float]:
    """Pooled bits per decision of a per-person LL difference (nats; > 0: the first is
    better) and its 95 % percentile interval by bootstrap over people."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    pick = rng.integers(0, len(decisions), size=(BOOTSTRAP, len(decisions)))
    boot = gain_ll[pick].sum(axis=1) / decisions[pick].sum(axis=1) / math.log(2)
    low, high = np.percentile(boot, [2.5, 97.5])
    return float(gain_ll.sum() / decisions.sum() / math.log(2)), float(low), float(high)


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("peer")
    parser.add_argument("mazes")
    parser.add_argument("--seeds", type=integers(1, MAX_SEEDS), default=10)
    parser.add_argument("--features", type=integers(1, MAX_SEEDS), default=3)
    args = parser.parse_args()
    seeds = list(range(args.seeds))
    began = time.perf_counter()
    theirs = compare_with_peers(args.peer, args.mazes, seeds=seeds)
    planners = time.perf_counter() - began
    choices = peer_node_choices(args.peer, args.mazes)
    n = len(choices)
    began = time.perf_counter()
    ours = [logit_peer_fit(NodeLogit(OURS), choices, seed=s) for s in seeds]
    logit = (time.perf_counter() - began) / len(seeds)
    print(f"{n:,} decisions of {len(choices.participants)} people; seeds 0-{seeds[-1]}; "
          f"planners {planners:.1f} s for all seeds, node-choice {logit:.1f} s a seed\n")
    print("| model | bits (mean) | min | max | theirs | our LL / their LL - 1 (mean, range) |")
    print("|---|---:|---:|---:|---:|---|")
    ours_bits = np.array([-f.test_ll.sum() / math.log(2) / n for f in ours])
    print(f"| {OURS} | {ours_bits.mean():.4f} | {ours_bits.min():.4f} | "
          f"{ours_bits.max():.4f} | | |")
    for row in theirs.summary():
        print(f"| {row['model']} | {row['bits']:.4f} | {row['bits_min']:.4f} | "
              f"{row['bits_max']:.4f} | {row['their_bits']:.4f} | {row['ll_gap']:+.4f} "
              f"({row['ll_gap_min']:+.4f} to {row['ll_gap_max']:+.4f}) |")
    decisions = ours[0].decisions
    for label, lls in (("ours, seed 0", {OURS: ours[0].test_ll, **{
            m: theirs.fits[m][0].test_ll for m in theirs.models}}),
                       ("theirs (their fit_models.csv)", dict(theirs.theirs))):
        print(f"\nBest model per person, {label}: "
              + ", ".join(f"{m} {c}" for m, c in best_model_counts(lls).items() if c))
    models = [OURS, *theirs.models]
    ll = np.array([[ours[0].test_ll[p], *(theirs.fits[m][0].test_ll[p] for m in theirs.models)]
                   for p in range(len(decisions))])
    ranking = rank_models(models, ll, decisions, seed=0)
    print("\nRandom-effects model selection (seed 0): "
          + ", ".join(f"{m} {e:.3f} (protected exceedance {x:.3f})" for m, e, x in
                      zip(models, ranking.frequencies.expected, ranking.frequencies.protected)))
    gains = np.array([[f.test_ll - theirs.fits["du"][i].test_ll] for i, f in enumerate(ours)])
    gain = gains[:, 0].mean(axis=0)
    bits, low, high = paired(gain, decisions)
    print(f"\n{OURS} against du per person (LL averaged over the seeds): {bits:.4f} bits per "
          f"decision better (95 % CI {low:.4f} to {high:.4f}); better for "
          f"{int((gain > 0).sum())} of {len(gain)} people, worse for {int((gain < 0).sum())}")
    print("\n| without | bits (mean over seeds) | lost against node-choice | 95 % CI |")
    print("|---|---:|---:|---|")
    full = np.mean([f.test_ll for f in ours[:args.features]], axis=0)
    for feature, gone in [*((f, (f,)) for f in NODE_FEATURES), *GROUPS.items()]:
        kept = tuple(f for f in NODE_FEATURES if f not in gone)
        fits = [logit_peer_fit(NodeLogit(OURS, kept), choices, seed=s)
                for s in seeds[:args.features]]
        mean = np.mean([f.test_ll for f in fits], axis=0)
        bits, low, high = paired(full - mean, decisions)
        print(f"| {feature} | {-mean.sum() / math.log(2) / n:.4f} | {bits:+.4f} | "
              f"{low:+.4f} to {high:+.4f} |")


if __name__ == "__main__":
    run_script(main)
