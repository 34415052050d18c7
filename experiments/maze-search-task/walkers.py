"""The node models walk: each of the authors' planners and heuristics and node-choice, at its
pooled fit (the agents' defaults), walks the 40 maps of experiment 1, beside people's walks.

Usage: python experiments/maze-search-task/walkers.py RUN_DIR [--trials 200] [--seed 0]
           [--exclude-participants IDS]

RUN_DIR is an imported run (`mazesim import mst`, e.g. experiment 1) walked under one vision;
the people the authors left out of experiment 1 are left out where the run has them (or those
of `--exclude-participants`), and each person's first walk of each map is kept (as at the node
yardstick).
The walkers see as the trees do (the authors' sweep, the map known); choice-model (its defaults
are its fit to these people's junction decisions) walks with the people's own vision, for
reference. Prints a Markdown table: per agent its mean moves over the maps, the Pearson
correlation of its mean moves per map with people's, and the mean absolute difference per map.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import stats

from mazesim.agents import TREE_WALKERS, make_agent
from mazesim.agents.vision import SWEEP_VISION
from mazesim.humans import load_human_run
from mazesim.humans.data.run import excluded
from mazesim.limits import MAX_TRIALS
from mazesim.walks import simulate_many
from script_args import SEED, Parser, add_exclusions, exclusions, fail, integers, run_script


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--trials", type=integers(1, MAX_TRIALS), default=200)
    parser.add_argument("--seed", type=integers(*SEED), default=0)
    add_exclusions(parser)
    args = parser.parse_args()
    people = load_human_run(args.run)
    run = excluded(people, exclusions(people, args.exclude_participants))
    if len({str(t.vision) for t in run.trials}) != 1:
        fail(f"{args.run}: trials under several visions (one expected)")
    walked: dict[int, list[int]] = {}
    seen = set()
    for trial in run.trials:
        if (trial.participant, trial.maze_id) not in seen:
            seen.add((trial.participant, trial.maze_id))
            walked.setdefault(trial.maze_id, []).append(len(trial.positions) - 1)
    mazes = sorted(walked)
    people = np.array([np.mean(walked[m]) for m in mazes])
    print(f"{len(seen):,} first walks of {len(run.participants)} people on {len(mazes)} maps: "
          f"{people.mean():.2f} moves a walk (mean over maps); {args.trials} trials a map, "
          f"seed {args.seed}\n")
    print("| agent | vision | mean moves | r with people (per map) | mean abs. difference | "
          "time |")
    print("|---|---|---:|---:|---:|---:|")
    agents = [(cls.name, SWEEP_VISION) for cls in TREE_WALKERS]
    agents.append(("choice-model", run.trials[0].vision))
    for name, vision in agents:
        began = time.perf_counter()
        agent = make_agent(name)
        moves = np.array([simulate_many(run.mazes[m], agent, vision, args.trials,
                                        args.seed).moves.mean() for m in mazes])
        r = stats.pearsonr(people, moves)[0]
        print(f"| {name} | {vision} | {moves.mean():.2f} | {r:.3f} | "
              f"{np.abs(moves - people).mean():.2f} | {time.perf_counter() - began:.1f} s |")


if __name__ == "__main__":
    run_script(main)
