"""Where the fitted human model's capped walks end: the cells of their last moves.

    python experiments/fitted-human/trap.py [--mazes 3] [--trials 20] [--tail 1000]

Walks the config's `fitted-human` agent at vision 2 on the first mazes of each generator (31x31,
maze seeds 0, 1, ...; trial seeds the same), and prints for every capped walk how many distinct
cells its last `--tail` moves visit and whether a dead end (one open neighbour) is among them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from mazesim.experiment.config import load_config
from mazesim.generators import generate
from mazesim.walks import simulate_many

ROOT = Path(__file__).resolve().parents[2]
VISION = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mazes", type=int, default=3, help="mazes per generator")
    parser.add_argument("--trials", type=int, default=20, help="trials per maze")
    parser.add_argument("--tail", type=int, default=1000, help="last moves looked at")
    args = parser.parse_args()
    config = load_config(ROOT / "configs" / "study-fitted-human.yaml")
    agent = next(a.agent for a in config.agents if a.label == "fitted-human")
    cells, dead_ends = [], 0
    for block in config.mazes:
        for seed in range(args.mazes):
            maze = generate(block.generator, block.size, seed=seed)
            batch = simulate_many(maze, agent, VISION, args.trials, np.random.SeedSequence(seed),
                                  keep_positions=True)
            for k in np.flatnonzero(batch.capped):
                tail = {tuple(c) for c in np.asarray(batch.positions[k])[-args.tail:].tolist()}
                cells.append(len(tail))
                dead_ends += any(len(maze.open_directions(c)) == 1 for c in tail)
    print(f"{len(cells)} capped walks of {args.trials * args.mazes * len(config.mazes)}: their "
          f"last {args.tail} moves visit {min(cells)} to {max(cells)} cells (median "
          f"{np.median(cells):.0f}); a dead end among them in {dead_ends}")


if __name__ == "__main__":
    main()
