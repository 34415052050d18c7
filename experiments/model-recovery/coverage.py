"""Coverage of the 95 % intervals over seeds, with people who differ: does the interval hold the
generating population's value as often as it says?

Usage: python experiments/model-recovery/coverage.py [--seeds 20] [--people 30] [--mazes 6]
           [--size 11] [--lapse 0.4] [--spread 0.3] [--models bfs,dfs,...]

Each model generates, seed by seed, a population of people who differ
(`mazesim.humans.fitting.recovery.people`: each free value and the lapse is its centre times
exp(N(0, spread)); the centres are each agent's defaults, the choice model's the weights of
recover.py's `CHOICE`, and `--lapse`), who walk `--mazes` generated `digging` mazes of
`--size` once each under a window of 2; the model is fitted to them alone (no folds, one start,
each person's own fit too). The value to hold is the population's mean of each parameter
(`population_means`). Printed (Markdown): for each parameter, that value, then for the pooled
fit (`mazesim fit`'s estimate and interval: the larger of the cluster-robust and the observed
information's error), for the pooled fit counting each person once (`fit_run(...,
weigh="person")`: each decision weighted by one over its person's number, the interval of that
weighted likelihood) and for the mean of the people's own fits (`population_estimates`: a
t-interval over people) the mean estimate over seeds and how many of the seeds' intervals hold
the value.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from mazesim import generate
from mazesim.humans import default_models, fit_run, load_human_run
from mazesim.humans.fitting.recovery import (people, population_estimates, population_means,
                                     simulate_population)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recover import quick_values  # noqa: E402

_Z = 1.959963984540054


def pooled_holds(fit, name: str, value: float) -> bool | None:
    """Whether the fit's Wald interval (search scale) holds `value`; None without an error."""
    error = fit.errors.get(name, float("nan"))
    if not math.isfinite(error):
        return None
    estimate = fit.estimate.lapse if name == "lapse" else fit.estimate.params[name]
    scale = (lambda v: math.log10(v)) if fit.scales.get(name) == "log" else (lambda v: v)
    return abs(scale(estimate) - scale(value)) <= _Z * error


def one_seed(model: str, centres: dict, lapse: float, args, mazes: dict, seed: int,
             folder: Path) -> list[tuple]:
    """(parameter, population value, then estimate and whether its interval holds the value
    for the pooled fit, the pooled fit counting each person once, the mean of own fits)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, *model.encode()]))
    run_dir = folder / f"{model}-{seed}"
    simulate_population(mazes, people(model, centres, lapse, args.people, args.spread, rng),
                        {"window": 2}, args.people, seed, run_dir)
    run = load_human_run(run_dir)
    fit = fit_run(run, [model], folds=0, seed=seed, starts=1, by="participant").models[0]
    once = fit_run(run, [model], folds=0, seed=seed, starts=1, weigh="person").models[0]
    truth = population_means(model, centres, lapse, args.spread)
    own = population_estimates(fit)
    rows = []
    for name, value in truth.items():
        row = [name, value]
        for f in (fit, once):
            row += [f.estimate.lapse if name == "lapse" else f.estimate.params[name],
                    pooled_holds(f, name, value)]
        rows.append((*row, own[name].mean, own[name].holds(value)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--mazes", type=int, default=6)
    parser.add_argument("--size", type=int, default=11)
    parser.add_argument("--lapse", type=float, default=0.4)
    parser.add_argument("--spread", type=float, default=0.3)
    parser.add_argument("--models", default=",".join(default_models()))
    args = parser.parse_args()
    models = args.models.split(",")
    centres = quick_values(models)
    mazes = {f"digging-{i}": generate("digging", (args.size, args.size), seed=i)
             for i in range(args.mazes)}
    print(f"Coverage over {args.seeds} seeds: {args.people} people, {args.mazes} digging mazes "
          f"{args.size}x{args.size}, window 2, lapse {args.lapse}, spread {args.spread}\n")
    print("| model | parameter | population value | pooled estimate | its CI holds it | "
          "each person once | its CI holds it | own-fit mean | its CI holds it |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            rows = [one_seed(model, centres[model][0], args.lapse, args, mazes, seed,
                             Path(tmp)) for seed in range(args.seeds)]
            for i, (name, value, *_) in enumerate(rows[0]):
                mine = [r[i] for r in rows]
                cells = []
                for at in (2, 4, 6):
                    held = [r[at + 1] for r in mine if r[at + 1] is not None]
                    cells += [f"{np.mean([r[at] for r in mine]):.4g}",
                              f"{sum(held)}/{len(held)}"]
                print(f"| {model} | {name} | {value:.4g} | " + " | ".join(cells) + " |",
                      flush=True)


if __name__ == "__main__":
    main()
