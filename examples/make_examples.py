"""Make the tutorial's example data (docs/tutorial.md): six small mazes and the walks of twelve
simulated people, written as a researcher's own files would be: `mazes/<name>.txt` and
`walks.csv` (one row per visited cell: participant, maze, trial, step, row, col).

The "people" are choice-model walkers under a +-2 window, each with their own weights (the
model's defaults moved by a seeded draw) and a lapse of 5 %, so that the tutorial's fit has
something to find. Seeded: running it again writes the same bytes (a test checks the committed
files against it).

    python examples/make_examples.py [FOLDER]     # default: this script's folder
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mazesim import generate, make_agent
from mazesim.maze import write_maze
from mazesim.walks import simulate_many

SEED = 20261204
MAZES = {f"maze-{i}": ("digging" if i % 2 else "wilson", i) for i in range(1, 7)}
SIZE = (13, 13)
BRAID = 0.2                        # a few loops: more than one way to the exit
PEOPLE = 12
VISION = 2
JITTER = 0.5                       # standard deviation of each person's weights around the defaults
LAPSE = 0.05


def people() -> list:
    """One choice-model walker per person, weights drawn around the model's defaults."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(0,)))
    defaults = make_agent("choice-model").params()
    weights = [k for k, v in defaults.items() if isinstance(v, float) and k != "lapse"]
    return [make_agent("choice-model", lapse=LAPSE, **{
        k: round(defaults[k] + float(rng.normal(0.0, JITTER)), 2) for k in weights})
        for _ in range(PEOPLE)]


def main(folder: Path) -> None:
    (folder / "mazes").mkdir(parents=True, exist_ok=True)
    mazes = {name: generate(algorithm, SIZE, seed=seed, braid=BRAID)
             for name, (algorithm, seed) in MAZES.items()}
    for name, maze in mazes.items():
        write_maze(maze, folder / "mazes" / f"{name}.txt")
    rows = ["participant,maze,trial,step,row,col"]
    for p, agent in enumerate(people(), 1):
        for m, (name, maze) in enumerate(mazes.items(), 1):
            walk = simulate_many(maze, agent, VISION, 1,
                                 np.random.SeedSequence(SEED, spawn_key=(1, p, m)),
                                 keep_positions=True).positions[0]
            rows += [f"p{p:02d},{name},{m},{step},{r},{c}" for step, (r, c) in enumerate(walk)]
    (folder / "walks.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
