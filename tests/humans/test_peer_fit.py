"""The paper's model comparison reproduced (issue 20): our models on the authors' trees, our
protocol on their decisions, against their `fit_models.csv`."""

import dataclasses

import numpy as np
import pytest

from mazesim.errors import AgentError, DataError
from mazesim.humans.peer import reproduce as peer_fit
from mazesim.humans.peer.tables import PEER_MODELS, read_peer_fits
from mazesim.humans.peer.reproduce import (ROUNDING, best_model_counts, compare_with_peers,
                                      peer_choices)
from tests.humans.mst_data import mst_folder

PAPER_BITS = {"du": 0.946, "pw": 0.949, "pw-du": 0.951, "steps-cells": 0.964, "eu": 1.126,
              "steps": 1.095, "cells": 1.260, "random": 1.223}
BITS_TOLERANCE = 0.01          # the mean over fold draws
DRAW_TOLERANCE = 0.02          # any one draw (the folds alone move PW's bits by up to 0.017)
LL_TOLERANCE = 0.01             # our summed LL within 1 % of theirs, averaged over fold draws
SEEDS = range(10)


@pytest.fixture(scope="module")
def folders():
    return mst_folder() / "peer", mst_folder() / "mazes"


@pytest.fixture(scope="module")
def comparison(folders):
    return compare_with_peers(*folders, seeds=SEEDS)


def test_the_decisions_are_the_authors(folders):
    choices = peer_choices(*folders)
    assert len(choices.rows) == 5971 and len(set(choices.people)) == 116
    d = choices.decisions
    for r, world, chosen in list(zip(choices.rows, choices.worlds, choices.chosen))[::97]:
        t = d.names.index(world)
        assert d.trees[t].nodes[d.row_node[r] - d.base[t]].name == chosen


def test_their_figures_are_the_paper_s(folders):
    one = compare_with_peers(*folders, models=["random", "du"])
    assert one.n == 5971 and len(one.people) == 116 and one.seeds == (0,)
    for model in one.models:
        assert round(one.their_bits(model), 3) == PAPER_BITS[model]
    lls = {(f.model, f.subject): f.ll for f in read_peer_fits(folders[0])}
    for model, bits in PAPER_BITS.items():
        total = sum(lls[PEER_MODELS[model][1], p] for p in one.people)
        assert round(-total / np.log(2) / 5971, 3) == bits


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_our_bits_are_theirs_over_fold_draws(comparison):
    for model, bits in PAPER_BITS.items():
        assert abs(comparison.bits(model).mean() - bits) <= BITS_TOLERANCE, model
        assert np.all(np.abs(comparison.bits(model) - bits) <= DRAW_TOLERANCE), model


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_our_summed_log_likelihood_is_theirs_within_one_percent_over_fold_draws(comparison):
    for model in PAPER_BITS:
        assert abs(comparison.ll_gap(model).mean()) <= LL_TOLERANCE, model
    assert np.all(comparison.ll_gap("random") == pytest.approx(0.0, abs=1e-4))


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_where_the_folds_cannot_matter_each_person_is_theirs(comparison):
    """A person whose five folds all chose the same grid edge, in their fit (its fold mean is
    that edge) and in ours, has the whole data's LL there in both: equal to rounding."""
    fits = {(f.model, f.subject): f for f in read_peer_fits(mst_folder() / "peer")}
    pairs = 0
    for model in PAPER_BITS:
        fit, label = comparison.fits[model][0], PEER_MODELS[model][1]
        same = np.ones(len(comparison.people), dtype=bool)
        for name, values in fit.grid.items():
            theirs = np.array([getattr(fits[label, p], name) for p in comparison.people])
            edge = np.where(theirs == values.max(), values.max(),
                            np.where(theirs == values.min(), values.min(), np.nan))
            same &= np.all(values[fit.fold_choice] == edge[:, None], axis=1)
        gap = comparison.person_gap(model)[same]
        assert np.all(np.abs(gap) <= ROUNDING), model
        pairs += int(same.sum())
    assert pairs >= 200                      # 235 (person, model) pairs at the first seed


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_the_spread_of_people(comparison):
    rows = {row["model"]: row for row in comparison.person_summary()}
    assert rows["random"]["gap_max"] <= ROUNDING and rows["random"]["spread"] < 1e-12
    assert rows["random"]["inside"] == 1.0
    for model in PAPER_BITS:
        assert abs(rows[model]["gap_median"]) <= 0.5 and rows[model]["inside"] >= 0.6, model


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_the_authors_tables_in_our_protocol(folders, comparison):
    tables = compare_with_peers(*folders, seeds=(0,), tables=True)
    for model in PAPER_BITS:
        assert abs(tables.bits(model)[0] - comparison.bits(model)[0]) <= 0.005, model


def test_best_model_counts():
    lls = {"a": np.array([-1.0, -2.0, -3.0]), "b": np.array([-1.0, -1.0, -4.0]),
           "c": np.array([-2.0, -3.0, -3.0])}
    assert best_model_counts(lls) == {"a": 2, "b": 1, "c": 0}      # ties: the first


@pytest.mark.slow                       # ten fold draws of eight models: 5-10 s
def test_best_model_counts_cover_everyone(comparison):
    counts = best_model_counts({m: comparison.fits[m][0].test_ll for m in comparison.models})
    assert sum(counts.values()) == 116
    theirs = best_model_counts(dict(comparison.theirs))
    assert sum(theirs.values()) == 116 and theirs["du"] == 24      # among these eight models


def test_bad_requests(folders, monkeypatch):
    with pytest.raises(AgentError, match="unknown node model 'sampling'"):
        compare_with_peers(*folders, models=["sampling"])
    with pytest.raises(DataError, match=r"seeds: 0 \(allowed: 1 to 1000\)"):
        compare_with_peers(*folders, seeds=())
    nodes = peer_fit.read_peer_decisions(folders[0])
    wrong = dataclasses.replace(nodes[0], children=nodes[0].children[:1] + ("N0",))
    monkeypatch.setattr(peer_fit, "read_peer_decisions", lambda peer: [wrong])
    with pytest.raises(DataError, match=r"S8400090 Equal_2vs5_mirror N86472: children "):
        peer_choices(*folders)
