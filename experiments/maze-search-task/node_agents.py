"""The cell-level agents on the node yardstick: each fitted to people's junction decisions
(pooled maximum likelihood, lapse included), then scored on their node decisions by rollouts
(`mazesim.humans.fitting.node_rollouts`: the probability of reaching each child's observation first,
walking on from the person's own history).

Usage: python experiments/maze-search-task/node_agents.py RUN_DIR [--rollouts 200] [--seed 0]
           [--model NAME ...] [--every 1] [--quick] [--exclude-participants IDS]

RUN_DIR is an imported run walked under one vision with the map known (`mazesim import mst`,
e.g. experiment 1). The people the authors left out of experiment 1 are left out where the run
has them (as the node fit's commands do), or those of `--exclude-participants`; the decisions
are every remaining person's first walk of each map (on experiment 1, 5,971 decisions of 116
people). `--every N` scores every N-th decision only;
`--quick` is `--every 20 --rollouts 50` with random-walk and dfs (a check that runs in seconds).
Prints a Markdown table: per agent its pooled junction fit (in-sample bits per junction
decision, its parameters), its bits per node decision, the same from each half of the rollouts
(the Monte-Carlo noise at half the rollouts), the bits extrapolated to infinitely many rollouts
(the estimate's bias falls as 1 / rollouts: 2 x bits - the halves' mean), the rollouts that
reached no child, the mean steps walked beyond the node, and the time.
"""

from __future__ import annotations

import time

from mazesim.agents import make_agent
from mazesim.humans import load_human_run
from mazesim.humans.data.run import excluded
from mazesim.humans.fitting.junction import fit_run
from mazesim.humans.fitting.models import default_models, parse_model
from mazesim.humans.fitting.node_choices import run_node_choices
from mazesim.humans.fitting.node_rollouts import node_rollouts
from mazesim.limits import MAX_TRIALS
from script_args import SEED, Parser, add_exclusions, exclusions, fail, integers, run_script

QUICK = ("random-walk", "dfs")


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--rollouts", type=integers(1, MAX_TRIALS), default=200)
    parser.add_argument("--seed", type=integers(*SEED), default=0)
    parser.add_argument("--model", action="append", default=None)
    parser.add_argument("--every", type=integers(1, MAX_TRIALS), default=1)
    parser.add_argument("--quick", action="store_true")
    add_exclusions(parser)
    args = parser.parse_args()
    if args.quick:
        args.every, args.rollouts = 20, 50
        args.model = args.model or list(QUICK)
    began = time.perf_counter()
    people = load_human_run(args.run)
    run = excluded(people, exclusions(people, args.exclude_participants))
    visions = {str(t.vision) for t in run.trials}
    if len(visions) != 1:
        fail(f"{args.run}: trials under {len(visions)} visions (one expected)")
    choices = run_node_choices(run)
    picked = choices.select([i % args.every == 0 for i in range(len(choices))])
    vision = run.trials[0].vision
    models = args.model or default_models()
    fit = fit_run(run, models, folds=0, seed=args.seed)
    prepared = time.perf_counter() - began
    print(f"{len(picked):,} node decisions of {len(picked.participants)} people (every "
          f"{args.every}), uniform {picked.baseline_bits():.3f} bits; {args.rollouts} rollouts "
          f"a decision, seed {args.seed}; vision {vision}; junction fits on "
          f"{fit.decisions:,} junction decisions, imports and fits {prepared:.0f} s\n")
    print("| agent | junction bits | node bits | halves | extrapolated | unresolved | steps | "
          "time | parameters |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---|")
    for result in fit.models:
        params = {**result.estimate.params, "lapse": result.estimate.lapse}
        agent = make_agent(result.agent, **parse_model(result.model).fixed, **params)
        began = time.perf_counter()
        rolled = node_rollouts(agent, picked, vision=vision, rollouts=args.rollouts,
                               seed=args.seed)
        first, second = rolled.halves()
        shown = ", ".join(f"{k} {v:.3g}" for k, v in params.items())
        print(f"| {result.model} | {result.estimate.bits:.3f} | {rolled.bits():.3f} | "
              f"{first:.3f}, {second:.3f} | {2 * rolled.bits() - (first + second) / 2:.3f} | "
              f"{int(rolled.unresolved.sum()):,} | "
              f"{rolled.mean_steps:.1f} | {time.perf_counter() - began:.0f} s | {shown} |")


if __name__ == "__main__":
    run_script(main)
