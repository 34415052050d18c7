"""The junction choice model pooled, per person and under an empirical-Bayes population,
compared by cross-validation within people (`mazesim.humans.fitting.shrinkage`).

Usage: python experiments/maze-search-task/shrinkage.py RUN [--folds 5] [--seed 0]
           [--model choice-model]

RUN is an imported run of people (e.g. `mazesim import mst ... -o results/mst-1`). Prints a
Markdown table: each fit's cross-validated bits per decision, the people it fits best and its
exceedance probability, then the paired differences against the best with 95 % intervals
over people (Holm-adjusted Wilcoxon p).
"""

from __future__ import annotations

import time

from mazesim.humans import load_human_run
from mazesim.humans.fitting.shrinkage import compare_shrinkage
from mazesim.limits import MAX_FOLDS
from script_args import SEED, Parser, integers, run_script


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--folds", type=integers(2, MAX_FOLDS), default=5)
    parser.add_argument("--seed", type=integers(*SEED), default=0)
    parser.add_argument("--model", default="choice-model")
    args = parser.parse_args()
    began = time.perf_counter()
    result = compare_shrinkage(load_human_run(args.run), folds=args.folds, seed=args.seed,
                               model=args.model)
    r = result.ranking
    print(f"{r.people} people, {r.decisions:,} junction decisions ({result.planned:,} on a plan "
          f"to the seen exit left out), {args.folds} folds within each person, seed "
          f"{args.seed}\n")
    print("| fit | bits per decision | best for (people) | exceedance |")
    print("|---|---|---|---|")
    for model, bits, count, x in zip(r.models, r.bits, r.best_counts, r.frequencies.exceedance):
        print(f"| {model} | {bits:.3f} | {count:g} | {x:.2f} |")
    print(f"\n| against {r.best} | bits lost per decision (95 % CI over people) | people "
          "worse / better | Holm p |")
    print("|---|---|---|---|")
    for d in r.paired:
        print(f"| {d.model} | {d.bits:.3f} ({d.ci[0]:.3f} to {d.ci[1]:.3f}) | {d.worse} / "
              f"{d.better} | {d.p_adjusted:.1g} |")
    print(f"\n({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    run_script(main)
