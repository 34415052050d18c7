"""The junction choice model fitted three ways, compared by cross-validation within people:
one weight vector for everyone (pooled), one per person (no pooling), and one per person drawn
from a population estimated from the data (empirical Bayes, `mixed_logit`).

The decisions are the logit's own: a junction decision where the goal-seeking agent follows a
plan to the seen exit has a probability that no weight changes, so it is left out (and
counted); the lapse is not part of the comparison (all three are plain conditional logits over
the choice model's features). Each person's decisions are dealt into `folds` by the person's
own seeded stream (`grid_fit.deal_folds`); every fold's test decisions are scored by weights
fitted on everything else (for the empirical-Bayes fit: the population re-estimated on the
training decisions of everyone, then each person's posterior mode). A person's weights under
no pooling are the posterior mode under a weak N(0, `WEAK_PRIOR_SD`^2 I) prior on the
standardised features: without it, a person whose choices a feature separates has infinite
weights. The three are then ranked over people (`ranking.rank_models`: paired differences with
participant-bootstrap intervals, best-model counts, exceedance probabilities).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim.errors import DataError, check_integer
from mazesim.humans.data.run import HumanRun
from mazesim.humans.peer.grid import deal_folds
from mazesim.humans.fitting.mixed_logit import (chosen_log_probabilities, grouped, map_weights,
                                                population)
from mazesim.humans.fitting.models import LogitModel, PlanSteps, build_model, parse_model
from mazesim.humans.fitting.ranking import Ranking, rank_models

__all__ = ["FITS", "WEAK_PRIOR_SD", "Shrinkage", "compare_shrinkage"]

FITS = ("pooled", "per-person", "empirical-bayes")
WEAK_PRIOR_SD = 10.0     # standardised-feature units: a log-odds of 10 per standard deviation
MIN_FOLDS = 2


@dataclass(frozen=True)
class Shrinkage:
    """Cross-validated log-likelihood of each fit per person, the decisions scored and left
    out, and their ranking."""

    participants: tuple[str, ...]
    decisions: np.ndarray         # per person: scored decisions
    test_ll: np.ndarray           # (people, 3): summed natural-log likelihood, FITS' order
    planned: int                  # decisions left out (a plan to the seen exit)
    ranking: Ranking

    def to_json(self) -> dict:
        return {"fits": list(FITS), "decisions": int(self.decisions.sum()),
                "planned_left_out": self.planned, "people": len(self.participants),
                "ranking": self.ranking.to_json()}


def compare_shrinkage(run: HumanRun, *, folds: int = 5, seed: int = 0,
                      model: str = "choice-model") -> Shrinkage:
    """Pooled, per-person and empirical-Bayes weights of `model` (the choice model, or a
    variant such as `choice-model:goal=0`) on `run`, cross-validated within people."""
    check_integer(folds, "folds", MIN_FOLDS, error=DataError)
    spec = parse_model(model)
    logit = build_model(spec, run, PlanSteps(run))
    if not isinstance(logit, LogitModel):
        raise DataError(f"model: {model} is not the choice model (allowed: choice-model, "
                        "with keys fixed or not)")
    keep = np.ones(len(run.decisions), bool) if logit.plans is None else ~logit.plans.planned
    person = run.decisions.participant[keep]
    people = len(run.participants)
    counts = np.bincount(person, minlength=people)
    if (counts < folds).any():
        few = run.participants[int(np.argmax(counts < folds))]
        raise DataError(f"{run.path}: participant {few} has {int(counts.min())} scored "
                        f"decision(s), fewer than the {folds} folds")
    x, start, chosen = _rows(logit, keep)
    x = x / _spread(x)
    fold = deal_folds(person, counts, folds, seed)
    k = x.shape[1]
    weak = np.eye(k) / WEAK_PRIOR_SD ** 2
    test_ll = np.zeros((people, len(FITS)))
    for f in range(folds):
        train, test = fold != f, fold == f
        everyone = grouped(x, start, chosen, np.zeros_like(person), 1, train)
        one = map_weights(everyone, np.zeros(k), np.zeros((k, k)))[0][0]
        each = grouped(x, start, chosen, person, people, train)
        own = map_weights(each, np.zeros(k), weak)[0]
        pop = population(each)
        shrunk = map_weights(each, pop.mean, pop.precision, own)[0]
        scored = grouped(x, start, chosen, person, people, test)
        at = person[np.sort(scored.index)]
        for m, weights in enumerate((np.broadcast_to(one, (people, k)), own, shrunk)):
            test_ll[:, m] += np.bincount(at, chosen_log_probabilities(scored, weights),
                                         minlength=people)
    ranking = rank_models(FITS, test_ll, counts, seed=seed)
    return Shrinkage(run.participants, counts, test_ll, int((~keep).sum()), ranking)


def _rows(logit: LogitModel, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features of every open direction of the decisions `keep` (rows), each decision's
    first row and the chosen row."""
    open_ = logit.open[keep]
    counts = open_.sum(axis=1)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    x = logit.features[keep][open_]
    chosen_dir = logit.run.decisions.chosen[keep]
    before = np.cumsum(open_, axis=1) - 1          # rank of each direction among the open ones
    chosen = start[:-1] + before[np.arange(len(chosen_dir)), chosen_dir]
    return np.ascontiguousarray(x, dtype=np.float64), start, chosen.astype(np.int64)


def _spread(x: np.ndarray) -> np.ndarray:
    """Each feature's standard deviation over the rows (1 where it does not vary): the
    numerics only (the fits do not depend on the features' scale but for the weak prior)."""
    sd = x.std(axis=0)
    return np.where(sd > 0, sd, 1.0)
