"""Benchmark of importing a large long CSV and of reading and fitting the run it makes: seconds
per million junction decisions, so that a fit at the ceilings (`humans.data.run.MAX_DECISIONS`, 10
million) can be told in advance.

Usage: python benchmarks/bench_import.py [--participants 5000] [--quick]

A simulated population (the choice model, window 2, on four 11x11 digging mazes) is written as
a long CSV (one row per visited cell), then:
1. `import_csv` of it (wall seconds, peak memory of the importing process);
2. `load_human_run` of the run (linear in the trials: it was quadratic);
3. `fit_models` of the random walk with 2-fold cross-validation.
Each figure is one run, wall clock and CPU; `--quick` uses 50 participants (a few seconds).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import medians
from mazesim import generate, make_agent
from mazesim.humans import fit_models, load_human_run
from mazesim.humans.data.run import MAX_DECISIONS
from mazesim.maze import write_maze
from mazesim.walks import simulate_many

MAZES = 4
SIZE = (11, 11)
CHUNK = 5000


def write_population(folder: Path, participants: int) -> tuple[Path, int]:
    """A long CSV of `participants` people on `MAZES` mazes (written to `folder/mazes`); the
    CSV's path and its number of rows."""
    import numpy as np

    (folder / "mazes").mkdir()
    agent = make_agent("choice-model")
    rows = 0
    path = folder / "walks.csv"
    with open(path, "w", encoding="utf-8") as out:
        out.write("participant,maze,trial,step,row,col\n")
        for m in range(MAZES):
            maze = generate("digging", SIZE, seed=m)
            write_maze(maze, folder / "mazes" / f"d{m}.txt")
            for first in range(0, participants, CHUNK):     # within the kept-moves ceiling
                batch = simulate_many(maze, agent, 2, min(CHUNK, participants - first),
                                      np.random.SeedSequence(m, spawn_key=(first,)),
                                      keep_positions=True)
                for i, walk in enumerate(batch.positions, first):
                    out.writelines(f"p{i},d{m},{m},{k},{r},{c}\n"
                                   for k, (r, c) in enumerate(walk.tolist()))
                    rows += len(walk)
    return path, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=5000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    participants = 50 if args.quick else args.participants
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, rows = write_population(folder, participants)
        run = folder / "run"
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mazesim", "import", "csv", str(path), "--mazes",
                        str(folder / "mazes"), "-o", str(run)], check=True,
                       stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"1. import of {participants * MAZES:,} trials ({rows:,} rows, "
              f"{path.stat().st_size / 2**20:.1f} MiB): {seconds:.1f} s wall, "
              f"{child.ru_utime + child.ru_stime:.1f} s CPU, peak {child.ru_maxrss / 1024:,.0f} "
              "MB")
        wall, cpu, people = medians(lambda: load_human_run(run), 1)
        millions = len(people.decisions) / 1e6
        print(f"2. load of {len(people.trials):,} trials, {len(people.decisions):,} decisions: "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / millions:.0f} s CPU per million "
              "decisions)")
        wall, cpu, _ = medians(lambda: fit_models(run, ["random-walk"], folds=2, seed=0,
                                                 starts=1), 1)
        print(f"3. fit of random-walk, 2 folds: {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"({cpu / millions:.0f} s CPU per million decisions; at the ceiling of "
              f"{MAX_DECISIONS / 1e6:.0f} million: about {cpu / millions * MAX_DECISIONS / 6e7:.0f}"
              " min)")


if __name__ == "__main__":
    main()
