"""The tables of this folder's README from a run of `configs/study-first-experiment.yaml`.

    python experiments/first-experiment/tables.py results/study-first-experiment/<run-id>

Pearson r [95 % CI] at one vision (default 2) by stratum, from the run's `load_run` tables; bold
where Holm's adjusted p (over the run's whole correlation table) is below 0.05.
"""

from __future__ import annotations

import argparse

from mazesim import load_run

SIGNIFICANCE = 0.05


def cell(row) -> str:
    r = f"**{row.r:.2f}**" if row.p_adjusted < SIGNIFICANCE else f"{row.r:.2f}"
    return f"{r} [{row.ci_low:.2f}, {row.ci_high:.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--vision", default="2")
    parser.add_argument("--method", default="pearson")
    args = parser.parse_args()
    run = load_run(args.run_dir)
    table = run.correlations.query("vision == @args.vision and method == @args.method")
    parameters = list(run.settings.parameters)
    for stratum, rows in table.groupby("stratum", sort=False):
        n = rows.n.max()
        print(f"\n{args.method}, vision {args.vision}, {stratum} (n = {n} mazes)\n")
        print("| agent | " + " | ".join(parameters) + " |")
        print("|---|" + "---:|" * len(parameters))
        for agent, mine in rows.groupby("agent", sort=False):
            by = mine.set_index("parameter")
            print(f"| {agent} | " + " | ".join(cell(by.loc[p]) for p in parameters) + " |")


if __name__ == "__main__":
    main()
