"""The value-guided construal model (Ho et al. 2022) and a simple heuristic against people's
awareness answers, per grid and obstacle (issue 30, point 6; `mazesim.humans.compare.construal`).

    python experiments/value-guided-construal/construal.py RUN_DIR FOLDER [--json]

RUN_DIR: a run imported with `mazesim import vgc FOLDER`. Prints, for each inverse temperature of
a grid, the Pearson r over (grid, obstacle) of people's mean answer (1-8) with the model's
probability that the obstacle is kept, and with the heuristic (minus the mean distance of the
obstacle to the routes people took).
"""

import json
import sys

import numpy as np

from mazesim.agents.trees import maze_name
from mazesim.humans.compare.construal import (construal_values, obstacle_probabilities, read_probes,
                                      route_distances)
from mazesim.humans.data.run import load_human_run

BETAS = (0.1, 0.3, 1.0, 3.0, 10.0)


def main(run_dir: str, folder: str, as_json: bool) -> None:
    run = load_human_run(run_dir)
    probes = read_probes(folder)
    rows = []
    for maze_id, maze in sorted(run.mazes.items()):
        labels, construals, values = construal_values(maze)
        walks = [t.positions for t in run.trials if t.maze_id == maze_id]
        near = route_distances(maze, walks)
        kept = {b: obstacle_probabilities(labels, construals, values, b) for b in BETAS}
        for label in labels:
            answers = probes.get((maze_name(maze), label))
            if answers:
                rows.append([np.mean(answers), -near[label]] + [kept[b][label] for b in BETAS])
    table = np.array(rows)
    r = {"heuristic": float(np.corrcoef(table[:, 0], table[:, 1])[0, 1])}
    r.update({f"vgc beta={b:g}": float(np.corrcoef(table[:, 0], table[:, 2 + k])[0, 1])
              for k, b in enumerate(BETAS)})
    if as_json:
        print(json.dumps({"pairs": len(table), "r": r}))
        return
    print(f"{len(table)} (grid, obstacle) pairs with awareness answers")
    for name, value in r.items():
        print(f"  r(people's awareness, {name}) = {value:.3f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--json" in sys.argv[3:])
