"""The node models under the authors' protocol with the planners' prior as the authors set it
(1/tau) and as node-choice's (a population estimated from the other groups' people), like for
like (`mazesim.humans.peer.population`).

Usage: python experiments/maze-search-task/priors.py RUN [--seeds 5]
           [--exclude-participants IDS]

RUN is an imported run of people (`mazesim import mst ... -o results/mst-1`; by default without
the people the authors left out of experiment 1). Prints a Markdown
table: each model's bits per node decision, mean over fold seeds 0 to SEEDS - 1, with the 1/tau
prior, with the population prior instead, and with both; then per model the paired difference
per person (population minus 1/tau, and node-choice against the model with the population
prior) with a 95 % bootstrap interval over people, each person's log-likelihood averaged over
the seeds.
"""

from __future__ import annotations

import math
import time

import numpy as np

from mazesim.agents.node_models import NODE_MODELS, NodeLogit
from mazesim.humans import excluded, load_human_run
from mazesim.humans.fitting.node_choices import run_node_choices
from mazesim.humans.fitting.ranking import rank_models
from mazesim.humans.peer.grid import grid_fit, prior_of
from mazesim.humans.peer.population import POPULATION_FOLDS
from mazesim.humans.peer.protocol import logit_peer_fit
from script_args import Parser, add_exclusions, exclusions, integers, run_script

PRIORS = ("1/tau", "population", "both")


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--seeds", type=integers(1, 100), default=5)
    add_exclusions(parser)
    args = parser.parse_args()
    began = time.perf_counter()
    run = load_human_run(args.run)
    run = excluded(run, exclusions(run, args.exclude_participants))
    choices = run_node_choices(run)
    seeds = range(args.seeds)
    ll = {}                                     # (model, prior) -> people x seeds
    for name, model in NODE_MODELS.items():
        if isinstance(model, NodeLogit):
            ll[name, "population"] = np.stack(
                [logit_peer_fit(model, choices, seed=s).test_ll for s in seeds], axis=1)
            continue
        points = model.points()
        chosen = model.grid_probabilities(choices.decisions, points)[choices.rows]
        tau = prior_of(points)
        for prior, kw in zip(PRIORS, ({"log_prior": tau}, {"groups": POPULATION_FOLDS},
                                      {"log_prior": tau, "groups": POPULATION_FOLDS})):
            ll[name, prior] = np.stack([grid_fit(chosen, choices.people, points, seed=s, **kw)
                                        .test_ll for s in seeds], axis=1)
    _print(ll, choices, args.seeds, time.perf_counter() - began)


def _print(ll: dict, choices, seeds: int, seconds: float) -> None:
    n = np.bincount(choices.participant, minlength=len(choices.participants))
    total = int(n.sum())

    def bits(key):
        return -ll[key].sum(axis=0).mean() / total / math.log(2)

    print(f"{len(n)} people, {total:,} node decisions, fold seeds 0-{seeds - 1} "
          f"({seconds:.0f} s)\n")
    print("| model | 1/tau (the authors') | population | population x 1/tau | "
          "population - 1/tau, 95 % CI | node-choice - model (population), 95 % CI |")
    print("|---|---:|---:|---:|---|---|")
    logit = ll["node-choice", "population"].mean(axis=1)
    for name in NODE_MODELS:
        if (name, "1/tau") not in ll:
            print(f"| {name} | | {bits((name, 'population')):.3f} | | | |")
            continue
        mean = {p: ll[name, p].mean(axis=1) for p in PRIORS}
        cells = [_paired(mean["1/tau"], mean["population"], n),
                 _paired(mean["population"], logit, n)]
        print(f"| {name} | " + " | ".join(f"{bits((name, p)):.3f}" for p in PRIORS)
              + " | " + " | ".join(cells) + " |")


def _paired(before: np.ndarray, after: np.ndarray, n: np.ndarray) -> str:
    """after - before in bits per decision (pooled) with its interval, people better."""
    r = rank_models(["before", "after"], np.stack([before, after], axis=1), n)
    d = r.paired[0]
    sign = 1 if d.model == "after" else -1      # paired: the worse against the best
    low, high = sorted(sign * x for x in d.ci)
    better = int(np.sum(after > before))
    return f"{sign * d.bits:+.4f} ({low:+.4f} to {high:+.4f}; {better} of {len(n)} better)"


if __name__ == "__main__":
    run_script(main)
