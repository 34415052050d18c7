import csv

import pytest

from mazesim.errors import DataError
from mazesim.humans.fitting.node_choices import peer_node_choices
from mazesim.humans.fitting.node import fit_nodes
from mazesim.humans.fitting.node_output import format_node_fit, write_node_fit
from tests.humans.mst_data import mst_folder


@pytest.fixture(scope="module")
def report():
    authors = peer_node_choices(mst_folder() / "peer", mst_folder() / "mazes")
    few = authors.select(authors.participant < 12)
    return fit_nodes(few, ["du", "steps", "random"], protocol="peer", seed=0)


def test_the_text(report):
    text = format_node_fit(report)
    assert text.startswith("# Node models fitted to ")
    assert "the authors' protocol: each person separately, 5 folds" in text
    assert "| model | k | lapse | bits | cv bits | 95 % CI |" in text
    best = report.ranking.best
    assert f"Against the best ({best}), paired over {report.ranking.people} people" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + 3 + 1 + 2           # headers, models, the best, two against it


def test_the_files(report, tmp_path):
    paths = write_node_fit(report, tmp_path / "out")
    assert [p.name for p in paths] == ["fit.csv", "fit_participants.csv", "fit.png",
                                       "ranking.csv"]
    with open(tmp_path / "out" / "ranking.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["model"] for r in rows] == list(report.ranking.models)
    best = next(r for r in rows if r["model"] == report.ranking.best)
    assert best["bits_lost"] == "" and float(best["best_for"]) >= 0
    assert sum(float(r["best_for"]) for r in rows) == pytest.approx(12)
    (tmp_path / "file").write_text("")
    with pytest.raises(DataError, match="cannot write"):
        write_node_fit(report, tmp_path / "file")
