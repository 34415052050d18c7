"""Excess moves (moves - solution length) per maze of each agent of a run, correlated with the
maze parameters (pooled, and within generators: each generator's means removed), issue 30 point 5.

    python experiments/value-guided-construal/excess.py results/study-route-choice/<run-id>
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

PARAMETERS = ("solution_length", "branch_points", "branch_points_on_path", "detour_depth",
              "solution_turns", "straight_wrong_branches")


def main(run: Path) -> None:
    trials, mazes = pd.read_csv(run / "trials.csv"), pd.read_csv(run / "mazes.csv")
    mazes = mazes.set_index("maze_id")
    means = trials.groupby(["agent", "maze_id"]).moves.mean().unstack(0)
    within = lambda s: s - s.groupby(mazes.generator).transform("mean")     # noqa: E731
    print("| agent | excess moves | " + " | ".join(PARAMETERS) + " |")
    print("|---|---:|" + "---:|" * len(PARAMETERS))
    for agent in means.columns:
        excess = means[agent] - mazes.solution_length
        if excess.std() == 0:
            continue                            # walks the shortest path every time
        cells = [f"{np.corrcoef(within(mazes[p]), within(excess))[0, 1]:.2f} "
                 f"({np.corrcoef(mazes[p], excess)[0, 1]:.2f})" for p in PARAMETERS]
        print(f"| {agent} | {excess.mean():.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
