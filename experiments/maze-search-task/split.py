"""Bits per decision of each fitted model, split by whether the exit was already in view.

Usage: python experiments/maze-search-task/split.py RUN [--model NAME ...] [--cv 5] [--seed 0]

A decision is "searching" while the exit has not been seen (what the person saw up to and at the
decision, by the run's vision and the cells the map showed at the start), else "exit in view".
Prints a Markdown table: decisions, the uniform baseline and each model's in-sample and
cross-validated bits per decision in both parts.
"""

from __future__ import annotations

import math

import numpy as np

from mazesim.agents import seen_cells
from mazesim.humans import default_models, fit_run, load_human_run
from mazesim.limits import MAX_FOLDS
from script_args import SEED, Parser, integers, run_script


def exit_in_view(run) -> np.ndarray:
    """Per decision: whether the exit had been seen before the move."""
    d = run.decisions
    out = np.zeros(len(d), bool)
    for k, trial in enumerate(run.trials):
        maze = run.mazes[trial.maze_id]
        rows = np.flatnonzero(d.trial == k)
        for row in rows:
            out[row] = seen_cells(maze, trial.positions[: d.step[row] + 1],
                                  trial.vision)[maze.goal]
    return out


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--model", action="append")
    parser.add_argument("--cv", type=integers(0, MAX_FOLDS), default=5)
    parser.add_argument("--seed", type=integers(*SEED), default=0)
    args = parser.parse_args()
    run = load_human_run(args.run)
    seen = exit_in_view(run)
    report = fit_run(run, args.model or default_models(), folds=args.cv, seed=args.seed)
    parts = (("searching", ~seen), ("exit in view", seen))
    n_open = run.decisions.n_open
    print("| model | " + " | ".join(f"{name}: bits | cv bits" for name, _ in parts) + " |")
    print("|---|" + "---:|---:|" * len(parts))
    print("| uniform | " + " | ".join(f"{np.log2(n_open[m]).mean():.3f} | "
                                       for _, m in parts) + " |")
    for m in report.models:
        cells = []
        for _, mask in parts:
            cv = ("" if m.cv_log_probs is None
                  else f"{-m.cv_log_probs[mask].mean() / math.log(2):.3f}")
            cells.append(f"{-m.log_probs[mask].mean() / math.log(2):.3f} | {cv}")
        print(f"| {m.model} | " + " | ".join(cells) + " |")
    print(f"\n{len(seen):,} decisions: {int((~seen).sum()):,} searching, {int(seen.sum()):,} "
          "with the exit in view.")


if __name__ == "__main__":
    run_script(main)
