"""Model and parameter recovery at the human sample's size, from the fitted human parameters,
with people who differ.

Usage: python experiments/model-recovery/recover.py [--seeds 1] [--spread 0.3]
           [--human-fit DIR] [--quick]

Every model of the fit (`mazesim.humans.default_models()`) generates people in turn. Its
parameters are those fitted to the people of the Maze Search Task's experiment 1 (pooled
maximum likelihood; imported and fitted here, or read from `--human-fit`, a folder `mazesim fit
-o` wrote), and each simulated person gets their own: every fitted value (the lapse included)
times exp(N(0, spread)), clipped to its bounds, integers rounded. As many people as the
experiment had (119) walk its 40 maps once each under its vision (line of sight over a known
layout, what each map shows at the start), stored as a run of people
(`mazesim.humans.fitting.recovery.simulate_population`), and every model is fitted to them
with 5-fold cross-validation by participant, exactly as people are fitted.

Printed (Markdown, the README's tables): the confusion matrix (rows: the generating model;
columns: the model with the fewest cross-validated bits, counted over seeds), and for each
generator its estimates against the values it was generated around (the human fit's): mean
(sd over seeds), how often the fit's 95 % Wald interval holds that value (the larger of the
cluster-robust and the observed-information error, as `mazesim fit` reports) and how often
the observed information's alone would, and the mean ratio of the cluster-robust error to the
observed information's.

`--quick`: 12 people on 4 generated 9x9 `digging` mazes under a window of 2, each agent's
default parameters (the choice model: the weights of `CHOICE`) with a lapse of 0.1, 2 folds,
one start (about half a minute).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from mazesim import generate, make_agent
from mazesim.agents.vision import MST_VISION
from mazesim.humans import (default_models, fit_run, import_mst, load_human_run, parse_model,
                            read_mst)
from mazesim.humans.fitting.output import read_fitted
from mazesim.humans.fitting.recovery import people, simulate_population

CHOICE = dict(reverse=-0.5, visited=-1.0, straight=0.7, view=0.3, frontier=2.0, closed=-1.0,
              goal=4.0, region=1.5)
QUICK_LAPSE = 0.1
SHARED = Path("shared") / "data" / "maze-search-task" / "experiment-1"
HUMANS = 119


def shared_folder() -> Path:
    folder = next((p / SHARED for p in Path(__file__).resolve().parents
                   if (p / SHARED / "plandata.csv").is_file()), None)
    if folder is None:
        raise SystemExit(f"no {SHARED} above {Path(__file__).parent}")
    return folder


def human_values(models: list[str], fit_dir: str | None, tmp: Path) -> dict:
    """Model -> (params, lapse) fitted to experiment 1's people (or read from `fit_dir`)."""
    if fit_dir:
        return {label: (e.params, e.lapse) for label, e in read_fitted(fit_dir)
                if label in models}
    import_mst(shared_folder(), tmp / "humans")
    report = fit_run(load_human_run(tmp / "humans"), models, folds=0)
    return {m.model: (m.estimate.params, m.estimate.lapse) for m in report.models}


def quick_values(models: list[str]) -> dict:
    out = {}
    for name in models:
        defaults = make_agent(name).params()
        out[name] = ({p.name: (CHOICE[p.name] if name == "choice-model" else defaults[p.name])
                      for p in parse_model(name).free}, QUICK_LAPSE)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--spread", type=float, default=0.3)
    parser.add_argument("--human-fit", default=None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    models = default_models()
    quick = args.quick
    n = 12 if quick else HUMANS
    folds, starts = (2, 1) if quick else (5, 3)
    confusion = {g: {m: 0 for m in models} for g in models}
    estimates: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if quick:
            truth = quick_values(models)
            mazes = {f"digging-{i}": generate("digging", (9, 9), seed=i) for i in range(4)}
            vision = {"window": 2}
        else:
            truth = human_values(models, args.human_fit, tmp)
            mazes, vision = read_mst(shared_folder()).mazes, MST_VISION
        for g in models:
            params, lapse = truth[g]
            for seed in range(args.seeds):
                rng = np.random.default_rng(np.random.SeedSequence([seed, *g.encode()]))
                run_dir = tmp / f"{g}-{seed}"
                simulate_population(mazes, people(g, params, lapse, n, args.spread, rng),
                                    vision, n, seed, run_dir)
                report = fit_run(load_human_run(run_dir), models, folds=folds, seed=seed,
                                 starts=starts)
                confusion[g][report.models[0].model] += 1
                print(f"{g} seed {seed}: best {report.models[0].model}", file=sys.stderr)
                fit = next(m for m in report.models if m.model == g)
                for p in [*fit.estimate.params, "lapse"]:
                    true = lapse if p == "lapse" else params[p]
                    value = fit.estimate.lapse if p == "lapse" else fit.estimate.params[p]
                    robust, naive = fit.errors[p], fit.model_errors[p]
                    ratio = fit.cluster_errors[p] / naive if naive > 0 else float("nan")
                    z = 1.959963984540054
                    search = (lambda v: math.log10(v)) if fit.scales.get(p) == "log" else \
                        (lambda v: v)
                    held = [abs(search(value) - search(true)) <= z * e
                            if math.isfinite(e) else None for e in (robust, naive)]
                    estimates.setdefault((g, p, true), []).append(
                        (value, *held, ratio))
    print_tables(models, confusion, estimates, args, n)


def print_tables(models, confusion, estimates, args, n) -> None:
    seeds = args.seeds
    print(f"Model recovery ({seeds} seed(s) x {n} simulated people, spread {args.spread}; "
          "rows: generating model; columns: fitted best by cross-validated bits):\n")
    print("| generated by | " + " | ".join(models) + " |")
    print("|---|" + "---:|" * len(models))
    for g in models:
        print(f"| {g} | " + " | ".join(str(confusion[g][m]) or "" for m in models) + " |")
    right = sum(confusion[g][g] for g in models)
    print(f"\nRecovered: {right} of {len(models) * seeds}.\n")
    print("| model | parameter | generated around | mean estimate (sd) | fit's CI holds it | "
          "observed-information CI holds it | cluster / observed error |")
    print("|---|---|---:|---:|---:|---:|---:|")

    def count(flags):
        known = [f for f in flags if f is not None]
        return f"{sum(known)}/{len(known)}" if known else "-"

    for (g, p, true), rows in estimates.items():
        values = np.array([r[0] for r in rows])
        ratios = np.array([r[3] for r in rows])
        ratio = f"{np.nanmean(ratios):.2f}" if np.isfinite(ratios).any() else "-"
        print(f"| {g} | {p} | {true:.4g} | {values.mean():.4g} ({values.std():.2g}) | "
              f"{count([r[1] for r in rows])} | {count([r[2] for r in rows])} | {ratio} |")


if __name__ == "__main__":
    main()
