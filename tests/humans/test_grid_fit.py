import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.node_models import node_model
from mazesim.errors import DataError
from mazesim.humans.peer import grid as protocol
from mazesim.humans.peer.grid import (FLOOR, GridFit, fit_node_model, folds_of, grid_fit,
                                     prior_of, tau_prior)
from mazesim.humans.peer.tables import read_peer_trees
from tests.humans.mst_data import mst_folder


NEAR = 1e-9             # sums this close are equal up to the order of the additions


def reference(chosen, people, seed, folds, floor, prior) -> list[dict]:
    """The protocol written out person by person and fold by fold: per person and fold the
    grid points whose training score is within rounding of the best, and the test LL of the
    fold at every point; the same for the whole data (`full`, `whole`)."""
    out = []
    for p, who in enumerate(sorted(set(people))):
        mine = [i for i, x in enumerate(people) if x == who]
        n, block = len(mine), len(mine) // folds
        perm = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(p,))).permutation(n)
        fold_of = {mine[i]: min(j // block, folds - 1) for j, i in enumerate(perm)}
        logs = {i: [math.log(max(v, floor)) for v in chosen[i]] for i in mine}
        size = len(chosen[0])

        def best(score):
            return [g for g in range(size) if score[g] >= max(score) - NEAR]

        near, test = [], []
        for k in range(folds):
            near.append(best([sum(logs[i][g] for i in mine if fold_of[i] != k) + prior[g]
                              for g in range(size)]))
            test.append([sum(logs[i][g] for i in mine if fold_of[i] == k) for g in range(size)])
        whole = [sum(logs[i][g] for i in mine) for g in range(size)]
        out.append({"near": near, "test": test, "whole": whole,
                    "full": best([whole[g] + prior[g] for g in range(size)])})
    return out


@st.composite
def problems(draw):
    """Probabilities of the chosen child (some 0, below the floor), a person of each decision
    (at least `folds` each, shuffled), the folds and a prior."""
    folds, size = draw(st.integers(2, 4)), draw(st.integers(1, 4))
    counts = draw(st.lists(st.integers(folds, 12), min_size=1, max_size=3))
    people = draw(st.permutations([f"p{i}" for i, n in enumerate(counts) for _ in range(n)]))
    value = st.sampled_from([0.0, 1e-6, 0.1, 0.25, 0.5, 0.9, 1.0])
    chosen = draw(st.lists(st.lists(value, min_size=size, max_size=size),
                           min_size=len(people), max_size=len(people)))
    prior = draw(st.lists(st.floats(-3, 3), min_size=size, max_size=size))
    return np.array(chosen), list(people), folds, prior


@given(problems(), st.integers(0, 2**32), st.booleans())
def test_the_protocol_matches_a_plain_reading(problem, seed, with_prior):
    chosen, people, folds, prior = problem
    prior = np.array(prior) if with_prior else np.zeros(chosen.shape[1])
    fit = grid_fit(chosen, people, seed=seed, folds=folds,
                   log_prior=prior if with_prior else None)
    ref = reference(chosen.tolist(), people, seed, folds, FLOOR, prior.tolist())
    assert fit.people == tuple(sorted(set(people)))
    for p, person in enumerate(ref):
        for k, near in enumerate(person["near"]):
            assert fit.fold_choice[p, k] in near           # the first unless rounding ties
            assert len(near) > 1 or fit.fold_choice[p, k] == near[0]
        scored = sum(person["test"][k][g] for k, g in enumerate(fit.fold_choice[p]))
        assert fit.test_ll[p] == pytest.approx(scored, rel=1e-12, abs=1e-9)
        assert fit.full_choice[p] in person["full"]
        assert fit.full_ll[p] == pytest.approx(person["whole"][fit.full_choice[p]], rel=1e-12)


def test_equal_training_scores_choose_the_first_point():
    chosen = np.tile(np.array([[0.3, 0.3, 0.3]]), (10, 1))
    chosen[:, 2] = 0.2
    fit = grid_fit(chosen, ["p"] * 10, seed=3)
    assert fit.fold_choice.tolist() == [[0] * 5] and fit.full_choice.tolist() == [0]


@given(st.integers(2, 300), st.integers(2, 10), st.integers(0, 2**32))
def test_folds_partition_the_decisions_in_the_authors_sizes(n, folds, seed):
    if n < folds:
        with pytest.raises(DataError, match=f"{n} decisions"):
            folds_of(n, folds, np.random.default_rng(seed))
        return
    fold = folds_of(n, folds, np.random.default_rng(seed))
    sizes = np.bincount(fold, minlength=folds).tolist()
    assert sizes == [n // folds] * (folds - 1) + [n - (folds - 1) * (n // folds)]


def test_folds_per_person_and_the_same_seed_the_same_bytes():
    rng = np.random.default_rng(5)
    chosen = rng.random((300, 7))
    people = rng.choice(["p", "q", "r"], 300).tolist()
    a, b = (grid_fit(chosen, people, {"x": np.arange(7.0)}, seed=11) for _ in range(2))
    for field in ("decisions", "test_ll", "fold_choice", "full_choice", "full_ll", "fold"):
        assert getattr(a, field).tobytes() == getattr(b, field).tobytes()
    c = grid_fit(chosen, people, seed=12)
    assert not np.array_equal(a.fold, c.fold)
    for p, who in enumerate(a.people):                    # each person's own partition
        mine = np.array(people) == who
        n = mine.sum()
        assert np.bincount(a.fold[mine]).tolist() == [n // 5] * 4 + [n - 4 * (n // 5)]
    assert a.decisions.tolist() == [people.count(w) for w in a.people]


def test_the_prior_and_the_floor():
    tau = np.array([0.2, 0.2, 1.0, 8.0])
    prior = tau_prior(tau)
    assert np.exp(prior[[0, 2, 3]]).sum() == pytest.approx(1.0)       # over distinct taus
    assert prior[0] - prior[2] == pytest.approx(math.log(5.0))       # proportional to 1 / tau
    flat = np.full((20, 4), 0.5)
    fit = grid_fit(flat, ["p"] * 20, {"tau": tau}, seed=0, log_prior=prior)
    assert fit.fold_choice.tolist() == [[0] * 5]                     # the prior decides: 0.2
    assert fit.full_choice.tolist() == [0]
    zero = np.zeros((10, 1))
    assert grid_fit(zero, ["p"] * 10, seed=0).test_ll == pytest.approx([10 * math.log(FLOOR)])
    assert grid_fit(zero, ["p"] * 10, seed=0, floor=0.01).test_ll == pytest.approx(
        [10 * math.log(0.01)])


def test_a_result_s_summaries():
    rng = np.random.default_rng(3)
    chosen = rng.random((150, 3)) * 0.5 + 0.25
    people = [f"p{i:02d}" for i in range(10) for _ in range(5 + i)]     # 5 to 14 decisions
    grid = {"tau": np.array([1.0, 2.0, 4.0]), "k": np.array([0.0, 0.5, 1.0])}
    fit = grid_fit(chosen[:len(people)], people, grid, seed=1)
    assert isinstance(fit, GridFit) and fit.n == len(people) == 95
    assert fit.ll == pytest.approx(fit.test_ll.sum())
    assert fit.pooled_bits == pytest.approx(-fit.ll / math.log(2) / 95)
    assert fit.bits == pytest.approx(-fit.test_ll / math.log(2) / np.arange(5, 15))
    assert fit.fold_means()["tau"] == pytest.approx(grid["tau"][fit.fold_choice].mean(axis=1))
    assert fit.full_params()["k"].tolist() == grid["k"][fit.full_choice].tolist()
    low, high = fit.bits_interval(seed=4)
    assert low < fit.pooled_bits < high
    assert fit.bits_interval(seed=4) == (low, high)
    narrow = fit.bits_interval(seed=4, confidence=0.5)
    assert low < narrow[0] < narrow[1] < high


@pytest.fixture(scope="module")
def authors():
    return decision_nodes(read_peer_trees(mst_folder() / "peer", mst_folder() / "mazes"))


@pytest.mark.parametrize("name, truth", [("du", {"tau": 0.547, "gamma": 0.8}),
                                         ("steps-cells", {"tau": 0.765, "k": 0.3}),
                                         ("pw", {"tau": 0.391, "beta": 0.528})])
def test_the_grid_search_recovers_the_parameters_that_made_the_choices(authors, name, truth):
    """Choices drawn from the model at a grid point, every decision of the authors' trees ten
    times over (1,710 decisions of one simulated person): the fit on the whole data finds
    that grid point, and every fold's choice lies within one grid step of it."""
    model = node_model(name)
    p = model.probabilities(authors, **truth)
    rng = np.random.default_rng(np.random.SeedSequence(2024))
    rows = []
    for _ in range(10):
        for d in range(authors.size):
            first, last = authors.start[d], authors.start[d + 1]
            rows.append(first + rng.choice(last - first, p=p[first:last] / p[first:last].sum()))
    fit = fit_node_model(model, authors, np.array(rows), ["sim"] * len(rows), seed=7)
    assert {k: float(v[0]) for k, v in fit.full_params().items()} == truth
    for axis, param in zip(model.grid, model.params):
        place = [axis.index(v) for v in fit.grid[param.name][fit.fold_choice[0]]]
        assert max(abs(i - axis.index(truth[param.name])) for i in place) <= 1


@pytest.mark.parametrize("args, kwargs, message", [
    ((np.zeros(5), ["p"] * 5), {}, r"chosen: shape \(5,\) \(allowed: decisions x grid"),
    ((np.zeros((0, 2)), []), {}, r"chosen: shape \(0, 2\)"),
    ((np.full((5, 2), 1.5), ["p"] * 5), {}, r"chosen: a value outside \[0, 1\] or NaN"),
    ((np.full((5, 2), np.nan), ["p"] * 5), {}, r"chosen: a value outside \[0, 1\] or NaN"),
    ((np.zeros((5, 2)), ["p"] * 4), {}, "people: 4 entries for 5 decisions"),
    ((np.zeros((5, 2)), ["p"] * 5), {"folds": 1}, r"folds: 1 \(allowed: an integer >= 2\)"),
    ((np.zeros((5, 2)), ["p"] * 5), {"folds": True}, r"folds: True"),
    ((np.zeros((5, 2)), ["p"] * 5), {"seed": -1}, r"seed: -1 \(allowed: an integer from 0"),
    ((np.zeros((5, 2)), ["p"] * 5), {"floor": 0.0}, r"floor: 0.0 \(allowed: between 0 and 1\)"),
    ((np.zeros((5, 2)), ["p"] * 5, {"tau": [1.0]}), {}, r"tau: shape \(1,\) \(allowed: \(2,\)"),
    ((np.zeros((5, 2)), ["p"] * 5), {"log_prior": np.zeros(3)}, r"log_prior: shape \(3,\)"),
    ((np.zeros((9, 2)), ["p"] * 5 + ["q"] * 4), {},
     r"people: 'q' has 4 decisions \(allowed: at least the 5 folds\)"),
])
def test_bad_input_is_named(args, kwargs, message):
    with pytest.raises(DataError, match=message):
        grid_fit(*args, **{"seed": 0, **kwargs})


def test_rows_of_a_node_model_fit_are_checked(authors):
    for rows in (np.array([0, 388]), np.array([0.5]), np.array([[1]])):
        with pytest.raises(DataError, match=r"rows: .* \(allowed: integers from 0 to 387"):
            fit_node_model(node_model("eu"), authors, rows, ["p"] * rows.size, seed=0)
    assert prior_of({"k": np.zeros(2)}) is None
    assert prior_of({"tau": np.array([1.0, 2.0])}) == pytest.approx(tau_prior([1.0, 2.0]))


def test_the_ceiling_is_checked_before_any_work(monkeypatch):
    monkeypatch.setattr(protocol, "MAX_GRID_CELLS", 100)
    with pytest.raises(DataError, match=r"chosen: 11 decisions x 10 grid points \(allowed: at "
                                        r"most 100 in all\)"):
        grid_fit(np.zeros((11, 10)), ["p"] * 11, seed=0)
