import math

import numpy as np
import pytest

from mazesim.errors import DataError
from mazesim.humans.peer.tables import PEER_MODELS, PeerFit, read_peer_fits, read_peer_values
from tests.humans.mst_data import mst_folder

# --- the authors' value tables and fits ---------------------------------------------------


@pytest.mark.parametrize("model, columns, grid", [
    ("eu", 12, {"tau": 12, "gamma": 1, "beta": 1}), ("du", 144, {"tau": 12, "gamma": 12,
                                                                 "beta": 1}),
    ("pw", 120, {"tau": 12, "gamma": 1, "beta": 10}),
    ("pw-du", 1440, {"tau": 12, "gamma": 12, "beta": 10}),
    ("steps", 12, {"tau": 12, "k": 1}), ("cells", 12, {"tau": 12, "k": 1}),
    ("steps-cells", 132, {"tau": 12, "k": 11}), ("random", 1, {"tau": 1})])
def test_every_value_table(model, columns, grid):
    table = read_peer_values(mst_folder() / "peer", model)
    assert table.probabilities.shape == (388, columns)
    assert {k: len(set(v.tolist())) for k, v in table.grid.items()} == grid
    assert (table.world[0], table.node[0], table.child[0]) == ("Equal_2vs5_mirror", "N86472",
                                                               "N73070")


def test_a_row_and_a_header_as_printed():
    eu = read_peer_values(mst_folder() / "peer", "eu")
    assert (eu.world[2], eu.node[2], eu.child[2]) == ("3ways_2_mirror", "N20537", "N61048")
    assert eu.probabilities[2, :3].tolist() == [0.0135, 0.044, 0.0958]
    assert eu.grid["tau"][:3].tolist() == [0.2, 0.28, 0.391]
    cells = read_peer_values(mst_folder() / "peer", "cells")
    assert cells.probabilities[1, -1] == 0.5927 and cells.grid["k"].tolist() == [0.0] * 12
    assert read_peer_values(mst_folder() / "peer", "random").grid["tau"].tolist() == [1.0]


def test_the_fits():
    fits = read_peer_fits(mst_folder() / "peer")
    assert len(fits) == 1624 and len({f.subject for f in fits}) == 116
    first, du = fits[0], fits[2]          # "Cells",-47.0466463564909,8,NA,NA,0,...,"S8400090"
    assert isinstance(first, PeerFit)
    assert (first.model, first.subject, first.ll, first.tau, first.k) == (
        "Cells", "S8400090", -47.0466463564909, 8.0, 0.0)
    assert math.isnan(first.gamma) and math.isnan(first.beta)
    assert (du.model, du.tau, du.gamma, du.beta) == ("DU", 1.9728, 0.68, 1.0) and np.isnan(du.k)
    labels = {label for _, label in PEER_MODELS.values()}
    assert labels <= {f.model for f in fits}


@pytest.mark.parametrize("text, message", [
    ("world,node,kid,value_1\n", r"Random.csv:1: header world,node,kid,value_1,\.\.\."),
    ("world,node,child,value_1_2_3_4\n", r"Random.csv:1: value columns of 4 parameters"),
    ("world,node,child,value_1,value_1_2\n", r"value columns of 1 parameters"),
    ("world,node,child,value_1\nw,n,c\n", r"Random.csv:2: 3 fields \(the header has 4\)"),
    ("world,node,child,value_1\nw,n,c,half\n", r"Random.csv:2: 'half' is not a number"),
    ("", r"Random.csv: empty file"),
])
def test_a_bad_value_table_is_named(tmp_path, text, message):
    (tmp_path / "values").mkdir()
    (tmp_path / "values" / "Random.csv").write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        read_peer_values(tmp_path, "random")


def test_unknown_models_and_missing_files(tmp_path):
    with pytest.raises(DataError, match=r"no table of the authors for model 'sampling' \(they "
                                        r"have: eu, du,"):
        read_peer_values(tmp_path, "sampling")
    with pytest.raises(DataError, match="Expected_Utility.csv: cannot read"):
        read_peer_values(tmp_path, "eu")
    (tmp_path / "fit_models.csv").write_text('"model","LL","subject"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"fit_models.csv:1: no column 'tau'"):
        read_peer_fits(tmp_path)
