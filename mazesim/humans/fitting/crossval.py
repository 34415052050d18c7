"""One cross-validation driver for every fitter: folds over people (`person_folds`; folds over
groups of mazes are `folds.maze_folds`), each decision scored by the fit without its fold
(`cross_validate`), and a model's scores summed per person with a percentile interval by
bootstrap over people (`person_scores`).

A fitter is any callable `fit(rows, name) -> estimate` with `fit.score(estimate, rows)`: the
natural log of p(chosen) at `rows` (`likelihood.log_chosen`); the junction fitters
(`junction`) and the node fitters (`node`) both are."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from mazesim.experiment.statistics import BOOTSTRAP_RESAMPLES, CONFIDENCE
from mazesim.errors import DataError
from mazesim.humans.data.run import bits
from mazesim.humans.fitting.results import Estimate, ParticipantFit
from mazesim.limits import MAX_FOLDS

__all__ = ["check_person_folds", "person_folds", "cross_validate", "bootstrap_samples",
           "person_interval", "person_scores"]


def person_folds(people: int, folds: int, rng: np.random.Generator,
                 deciding: np.ndarray | None = None) -> np.ndarray:
    """The fold of each participant: a seeded shuffle of those `deciding` (default: everyone)
    dealt into `folds` near-equal parts; the others (no decision to train or test on) go to
    fold 0."""
    out = np.zeros(people, np.int64)
    if folds:
        who = np.arange(people) if deciding is None else np.flatnonzero(deciding)
        out[who[rng.permutation(len(who))]] = np.arange(len(who)) % folds
    return out


def check_person_folds(folds: int, deciding: int, people: int, decision: str) -> None:
    """DataError unless `folds` is 0 (none) or from 2 to the `deciding` participants with a
    `decision` (at most `MAX_FOLDS`): folds over people are dealt among those with one."""
    without = (f"; {people - deciding} of the {people} made none" if deciding < people
               else "")
    if folds and deciding < 2:
        raise DataError(f"folds: {folds}: cross-validation by participant needs two participants "
                        f"with a {decision} (the run has {deciding}{without}; folds 0 fits "
                        "without it)")
    if folds and not 2 <= folds <= min(deciding, MAX_FOLDS):
        raise DataError(f"folds: {folds} (allowed: 0 for none, or 2 to "
                        f"{min(deciding, MAX_FOLDS)}: the participants with a {decision}, at "
                        f"most {MAX_FOLDS}{without})")


def cross_validate(fit, fold_of: np.ndarray) -> np.ndarray:
    """The log-probability of each decision under the fit without its fold (`fold_of`: one
    per decision; `fit` a fitter, module docstring)."""
    out = np.empty(len(fold_of))
    for fold in range(int(fold_of.max()) + 1):
        test = fold_of == fold
        estimate = fit(np.flatnonzero(~test), f"fold {fold}")
        out[test] = fit.score(estimate, np.flatnonzero(test))
    return out


def bootstrap_samples(people: int, seed: int) -> np.ndarray:
    """The people of each bootstrap resample (`BOOTSTRAP_RESAMPLES` x `people`), drawn from the
    fit's seed (its stream 1: the same resamples for every model of a fit)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    return rng.integers(0, people, size=(BOOTSTRAP_RESAMPLES, people))


def person_interval(log_sums: np.ndarray, counts: np.ndarray, samples: np.ndarray
                    ) -> tuple[float, float]:
    """A percentile interval of the bits per decision over people (`log_sums`: each person's
    summed natural log-probability, `counts` their decisions) by the bootstrap `samples`."""
    boot = -log_sums[samples].sum(axis=1) / np.maximum(counts[samples].sum(axis=1), 1) / \
        math.log(2)
    tail = 100 * (1 - CONFIDENCE) / 2
    return float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail))


def person_scores(participants: Sequence[str], participant: np.ndarray, log_probs: np.ndarray,
                  cv_log: np.ndarray | None, own: Sequence[Estimate | None],
                  samples: np.ndarray
                  ) -> tuple[float | None, tuple[float, float] | None, tuple[ParticipantFit, ...]]:
    """A model's cross-validated bits (None without `cv_log`), their percentile interval by
    bootstrap over people (`samples`), and each person's decisions, cross-validated bits, own
    fit (`own`) and bits under the pooled fit (`log_probs`)."""
    people = len(participants)
    counts = np.bincount(participant, minlength=people)
    cv_bits = ci = None
    per_person: list[float | None] = [None] * people
    if cv_log is not None:
        sums = np.bincount(participant, weights=cv_log, minlength=people)
        cv_bits = bits(float(sums.sum()), len(participant))
        ci = person_interval(sums, counts, samples)
        per_person = [bits(float(s), int(c)) if c else None for s, c in zip(sums, counts)]
    in_sample = np.bincount(participant, weights=log_probs, minlength=people)
    parts = tuple(ParticipantFit(name, int(counts[i]), per_person[i], own[i],
                                 bits(float(in_sample[i]), int(counts[i])) if counts[i] else None)
                  for i, name in enumerate(participants))
    return cv_bits, ci, parts
