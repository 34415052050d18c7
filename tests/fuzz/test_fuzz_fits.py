"""Fuzz the readers of a fit (`fit.csv`, `fit_participants.csv`, the JSON of `fit --json`: what
`predict --fit` and `fit --params` read) and a maze's `meta.seen_at_start`: any input gives a
result or one MazesimError line, in bounded time and memory; a fit read holds every parameter of
its model, and a maze read shows at the start only distinct passages of its grid.

Inputs: valid tables and documents with one cell or value replaced by a hostile one (other
digits, huge and long numbers, deep nesting, BOMs, quotes), and random text over the format's
alphabet.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.agents.vision import seen_at_start
from mazesim.humans.fitting.output import (FIT_CSV, PARTICIPANTS_CSV, declared_params, read_fitted)
from mazesim.humans.predict.run import read_fit
from mazesim.maze import Maze, read_maze

from fuzz_support import FUZZ, result_or_error

FIT_ROWS = [["model", "agent", "k", "lapse", "bits", "params", "converged"],
            ["finite-memory", "finite-memory", "2", "0.25", "1.2", '{"horizon": 7}', "True"],
            ["turn-bias", "turn-bias", "4", "0.1", "1.3",
             '{"p_straight": 0.5, "p_reverse": 0.1, "p_alternate": 0.6}', "True"],
            ["right-hand", "right-hand", "1", "0.3", "1.4", "{}", "True"]]
OWN_ROWS = [["model", "participant", "decisions", "lapse", "params", "fit"],
            ["finite-memory", "s1", "10", "0.2", '{"horizon": 5}', "own"],
            ["finite-memory", "s2", "12", "0.3", '{"horizon": 9}', "own"]]
FIT_JSON = {"level": "junction", "models": [
    {"model": "finite-memory", "lapse": 0.25, "params": {"horizon": 7}},
    {"model": "choice-model:region=0", "lapse": 0.1, "params": {
        "reverse": -1.0, "visited": -0.5, "straight": 0.2, "view": 0.1, "frontier": 0.3,
        "closed": -0.2, "goal": 1.0}}]}
HOSTILE = st.one_of(
    st.sampled_from(["", " ", "0_5", "\u0663", "\u00b2", "nan", "inf", "-inf", "1e400",
                     "9" * 400, "-" + "9" * 30, '{"horizon": ' + "9" * 400 + "}",
                     '{"horizon": ' + "[" * 60_000 + "]" * 60_000 + "}",
                     '{"horizon": ' + "[" * 70 + "]" * 70 + "}", "{}", "[]", "null",
                     '{"horizon": 1e308}', '{"horizon": true}', '{"x": 1}', '"', "x\"y",
                     "\ufeff", "\n", "\r\n", ",", "x" * 200_000, "du", "node-choice",
                     "choice-model:region=0", "nobody"]),
    st.text(max_size=20))
JSON_HOSTILE = st.one_of(
    st.sampled_from([2**63, 10**60, -1, 0, 1e308, float("nan"), float("inf"), True, None, "",
                     "0_5", "\u0663", [], {}, [[1, 1]], "x" * 5000]),
    st.integers(), st.floats(), st.text(max_size=20),
    st.recursive(st.one_of(st.integers(-5, 5), st.floats(-2, 2), st.text(max_size=3)),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.text(max_size=8), inner, max_size=3), max_leaves=12))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz-fits")


def _table(rows: list[list[str]]) -> str:
    return "".join(",".join('"' + cell.replace('"', '""') + '"' for cell in row) + "\n"
                   for row in rows)


@st.composite
def _mutated_table(draw, rows):
    rows = [list(row) for row in rows]
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(rows) - 1))
        c = draw(st.integers(0, len(rows[r])))
        value = draw(HOSTILE)
        if c == len(rows[r]):
            rows[r].append(value)
        else:
            rows[r][c] = value
    return draw(st.sampled_from(["", "\ufeff"])) + _table(rows)


_CSV_TEXT = st.text(alphabet=st.sampled_from(list('model,agentlps"{}:0123456789.e-\n ')),
                    max_size=200)


def _check_fitted(fitted) -> None:
    """Every model read holds exactly its declared parameters, a lapse in [0, 1]."""
    for label, estimate in fitted:
        assert set(estimate.params) == set(declared_params(label, "fuzz"))
        assert 0.0 <= estimate.lapse <= 1.0


@FUZZ
@given(fit=st.one_of(_mutated_table(FIT_ROWS), _CSV_TEXT),
       own=st.one_of(st.none(), _mutated_table(OWN_ROWS)))
def test_fit_folders(folder, fit, own):
    (folder / FIT_CSV).write_text(fit, encoding="utf-8", errors="surrogatepass")
    (folder / PARTICIPANTS_CSV).unlink(missing_ok=True)
    if own is not None:
        (folder / PARTICIPANTS_CSV).write_text(own, encoding="utf-8", errors="surrogatepass")
    models = result_or_error(lambda: read_fit(folder))
    if isinstance(models, list):
        _check_fitted([(m.label, m) for m in models])
    fitted = result_or_error(lambda: read_fitted(folder / FIT_CSV))
    if isinstance(fitted, list):
        _check_fitted([(label, e) for label, e in fitted])
    result_or_error(lambda: read_fitted(folder / PARTICIPANTS_CSV))


def _paths(data):
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        yield data, key
        if isinstance(value, (dict, list)):
            yield from _paths(value)


@st.composite
def _mutated_json(draw):
    data = copy.deepcopy(FIT_JSON)
    container, key = draw(st.sampled_from(list(_paths(data))))
    if draw(st.booleans()) and isinstance(container, dict):
        del container[key]
    else:
        container[key] = draw(JSON_HOSTILE)
    return json.dumps(data, allow_nan=True)


@FUZZ
@given(text=st.one_of(_mutated_json(), st.text(
    alphabet=st.sampled_from(list('{}[]",:0123456789e-.modelsparamlpsh ')), max_size=200)))
def test_fit_json(folder, text):
    (folder / "fit.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    fitted = result_or_error(lambda: read_fitted(folder / "fit.json"))
    if isinstance(fitted, list):
        _check_fitted(fitted)


ROWS = ["#######", "#S....#", "#.###.#", "#....G#", "#######"]
_CELL = st.one_of(st.tuples(st.integers(-2, 8), st.integers(-2, 8)).map(list),
                  st.lists(JSON_HOSTILE, max_size=3), JSON_HOSTILE)


@FUZZ
@given(seen=st.one_of(st.lists(_CELL, max_size=8), JSON_HOSTILE,
                      st.lists(st.just([1, 1]), min_size=30, max_size=40)))
def test_seen_at_start(folder, seen):
    (folder / "m.json").write_text(json.dumps({"rows": ROWS, "meta": {"seen_at_start": seen}},
                                              allow_nan=True))
    maze = result_or_error(lambda: read_maze(folder / "m.json"))
    if isinstance(maze, Maze):
        lit = seen_at_start(maze)
        cells = maze.meta["seen_at_start"]
        assert lit.sum() == len(cells) == len({tuple(c) for c in cells})
        assert not (lit & (maze.grid != 0)).any()
        assert all(type(v) is int for c in cells for v in c)
        assert np.array_equal(np.argwhere(lit), np.array(sorted(map(tuple, cells))).reshape(
            -1, 2))
