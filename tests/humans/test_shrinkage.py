"""Pooled, per-person and empirical-Bayes weights of the junction choice model
(`mazesim.humans.fitting.shrinkage`)."""

from __future__ import annotations

import numpy as np
import pytest

from mazesim import generate, make_agent
from mazesim.errors import DataError
from mazesim.humans import load_human_run
from mazesim.humans.fitting.recovery import simulate_population
from mazesim.humans.fitting.shrinkage import FITS, compare_shrinkage

WEIGHTS = dict(reverse=-0.5, visited=-1.0, straight=0.7, view=0.3, frontier=2.0, closed=-1.0,
               goal=4.0, region=1.5)


@pytest.fixture(scope="module")
def alike(tmp_path_factory):
    """30 simulated people who share one set of weights."""
    mazes = {f"digging-{i}": generate("digging", (11, 11), seed=i) for i in range(12)}
    folder = tmp_path_factory.mktemp("alike") / "people"
    simulate_population(mazes, make_agent("choice-model", **WEIGHTS), 2, 30, 5, folder)
    return load_human_run(folder)


def test_people_who_are_alike_gain_nothing_from_their_own_weights(alike):
    """With one true weight vector, the population shrinks everyone onto the pooled fit (at
    most 0.01 bits apart) and each person's own weights overfit (worse than both)."""
    result = compare_shrinkage(alike, folds=4, seed=1)
    bits = dict(zip(FITS, result.ranking.bits))
    assert abs(bits["empirical-bayes"] - bits["pooled"]) < 0.01, bits
    assert bits["per-person"] > max(bits["pooled"], bits["empirical-bayes"]) + 0.01, bits
    assert result.decisions.sum() + result.planned == len(alike.decisions)
    assert result.test_ll.shape == (30, 3) and np.all(result.test_ll < 0)


def test_same_seed_same_numbers_and_the_folds_matter(alike):
    one, two = (compare_shrinkage(alike, folds=2, seed=3) for _ in range(2))
    assert np.array_equal(one.test_ll, two.test_ll)
    assert not np.array_equal(one.test_ll, compare_shrinkage(alike, folds=2, seed=4).test_ll)


@pytest.mark.parametrize("keys, message", [
    (dict(folds=1), r"folds: 1 \(allowed: an integer from 2 to"),
    (dict(folds=True), r"folds: True"),
    (dict(folds=10**6), r"fewer than the 1000000 folds"),
    (dict(model="turn-bias"), r"model: turn-bias is not the choice model"),
])
def test_bad_requests_are_one_line(alike, keys, message):
    with pytest.raises(DataError, match=message):
        compare_shrinkage(alike, **keys)
