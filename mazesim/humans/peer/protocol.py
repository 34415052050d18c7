"""The Maze Search Task authors' protocol at the node level (`fitting.node.fit_nodes` with
protocol "peer"): every person separately, a grid search over the authors' grid with seeded folds
over the person's decisions (`grid`), the 1/tau prior, probabilities floored at 1e-5; score = the
test log-likelihood summed over the folds. `node-choice` gets its own per-person fit on the same
folds (`logit_peer_fit`): the person's weights are the MAP on the training folds under a Gaussian
population over weights estimated by empirical Bayes (`fitting.mixed_logit`) from other people
only: the people are dealt into `POPULATION_FOLDS` seeded groups, and a group's people get the
population of the other groups. Nothing of a person's decisions reaches their prior, and the
shrinkage is estimated, not chosen by hand. With `prior="population"` the planners get the same
treatment (`population`): a population over their grid points from the same groups, instead of
the 1/tau prior."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim.agents.node_models import NODE_MODELS, NodeLogit
from mazesim.errors import DataError
from mazesim.humans.data.run import bits
from mazesim.humans.fitting.crossval import bootstrap_samples, person_interval
from mazesim.humans.fitting.mixed_logit import (chosen_log_probabilities, grouped, map_weights,
                                                population)
from mazesim.humans.fitting.node_choices import NodeChoices, feature_scale, logit_inputs
from mazesim.humans.fitting.results import Estimate, ModelFit, ParticipantFit
from mazesim.humans.peer.grid import FLOOR, FOLDS, deal_folds, fit_node_model
from mazesim.humans.peer.population import POPULATION_FOLDS, PRIORS, population_groups

__all__ = ["POPULATION_FOLDS", "LogitPeerFit", "peer_model", "logit_peer_fit"]


@dataclass(frozen=True, eq=False)
class LogitPeerFit:
    """`node-choice` under the peer protocol, per person (sorted ids): decisions, the test
    log-likelihood summed over the folds (floored), the MAP weights on all the person's
    decisions (natural feature scale) and their in-sample log-likelihood; the population
    group of each person."""

    people: tuple[str, ...]
    decisions: np.ndarray
    test_ll: np.ndarray
    weights: np.ndarray
    full_ll: np.ndarray
    group: np.ndarray


def peer_model(name: str, choices: NodeChoices, *, folds: int, seed: int,
               prior: str = PRIORS[0], **_) -> ModelFit:
    """One model by the authors' protocol, as a `ModelFit`: the in-sample figures are the
    per-person choices on all their decisions, k counts every person's parameters; `prior`
    the planners' (`grid.fit_node_model`; node-choice always gets its population)."""
    model = NODE_MODELS[name]
    if isinstance(model, NodeLogit):
        fit = logit_peer_fit(model, choices, seed=seed, folds=folds)
        own = [dict(zip(model.features, map(float, w))) for w in fit.weights]
        test_ll, full_ll, k = fit.test_ll, fit.full_ll, len(model.features)
    else:
        grid = fit_node_model(model, choices.decisions, choices.rows, choices.people,
                              seed=seed, folds=folds, prior=prior)
        params = grid.full_params()
        own = [{p: float(v[i]) for p, v in params.items()} for i in range(len(grid.people))]
        test_ll, full_ll, k = grid.test_ll, grid.full_ll, len(model.params)
    counts = np.bincount(choices.participant, minlength=len(choices.participants))
    parts = tuple(ParticipantFit(p, int(c), bits(float(t), int(c)),
                                 Estimate(o, 0.0, float(f), int(c)))
                  for p, c, t, f, o in zip(choices.participants, counts, test_ll, full_ll, own))
    median = {p: float(np.median([o[p] for o in own])) for p in (own[0] if own else {})}
    pooled = Estimate(median, 0.0, float(full_ll.sum()), len(choices))
    return ModelFit(model=name, agent=name, estimate=pooled, k=k * len(counts),
                    cv_bits=bits(float(test_ll.sum()), len(choices)),
                    cv_bits_ci=person_interval(test_ll, counts,
                                               bootstrap_samples(len(counts), seed)),
                    participants=parts)


def logit_peer_fit(model: NodeLogit, choices: NodeChoices, *, seed: int, folds: int = FOLDS,
                   floor: float = FLOOR, groups: int = POPULATION_FOLDS) -> LogitPeerFit:
    """`model` fitted to every person by the peer protocol (module docstring): each person's
    folds as `grid_fit` deals them (the planners' folds at the same seed), the population of
    a person from the people of the other `groups`."""
    x, start, chosen = logit_inputs(model, choices)
    person, people = choices.participant, len(choices.participants)
    counts = np.bincount(person, minlength=people)
    if not 2 <= groups <= people:
        raise DataError(f"{model.name} under the peer protocol draws each person's population "
                        f"from {groups} groups of the others: {people} people (allowed: at "
                        f"least {max(groups, 2)})")
    fold = deal_folds(person, counts, folds, seed)
    group = population_groups(people, groups, seed)
    test_ll, full_ll = np.zeros(people), np.zeros(people)
    weights = np.zeros((people, x.shape[1]))
    for g in range(groups):
        inside = group == g
        train = ~inside[person]
        scale = feature_scale(x, start, train)
        z = x / scale
        local = np.cumsum(~inside) - 1
        pop = population(grouped(z, start, chosen, local[person], int((~inside).sum()), train))
        mine = np.flatnonzero(inside)
        local = np.full(people, -1)
        local[mine] = np.arange(len(mine))
        at, ask = local[person], inside[person]
        for f in range(folds):
            data = grouped(z, start, chosen, at, len(mine), ask & (fold != f))
            w = map_weights(data, pop.mean, pop.precision)[0]
            test = grouped(z, start, chosen, at, len(mine), ask & (fold == f))
            logs = np.log(np.maximum(np.exp(chosen_log_probabilities(test, w)), floor))
            test_ll[mine] += np.bincount(at[np.sort(test.index)], logs, minlength=len(mine))
        data = grouped(z, start, chosen, at, len(mine), ask)
        w = map_weights(data, pop.mean, pop.precision)[0]
        full_ll[mine] = np.bincount(at[np.sort(data.index)], chosen_log_probabilities(data, w),
                                    minlength=len(mine))
        weights[mine] = w / scale
    return LogitPeerFit(choices.participants, counts, test_ll, weights, full_ll, group)
