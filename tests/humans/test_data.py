"""A run of people as the fitting code reads it (`mazesim.humans.data.run`): its node decisions on a
small imported run worked out by hand, and on experiment 1 (the authors' counts)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mazesim.errors import AgentError, DataError
from mazesim.humans import import_mst
from mazesim.humans.data.run import excluded, load_human_run, node_decisions, participant_list
from mazesim.humans.peer.tables import EXCLUDED
from mazesim.walks.nodes import NodeCutter

from tests.humans.conftest import GOOD

# conftest's "fork": S (0, 2) above a T; its tree: 0 S, 1 (1, 2) (sees both arms' first cells),
# 2 (1, 4) and 3 (1, 0) (sees the exit (3, 0)); "line": S sees the exit, no nodes.
AGAIN = ("s1", "fork", 3, GOOD[2][3], GOOD[2][4])      # s1 walks the fork again, as s2 did


@pytest.fixture
def small_run(write_mst, tmp_path):
    run = tmp_path / "run"
    import_mst(write_mst(GOOD + [AGAIN]), run)
    return load_human_run(run)


def test_node_decisions_of_a_small_run(small_run):
    nodes = node_decisions(small_run)
    assert small_run.participants == ("s1", "s2")
    assert [small_run.mazes[m].meta["name"] for m in sorted(small_run.mazes)] == ["fork", "line"]
    table = {name: getattr(nodes, name).tolist() for name in (
        "trial", "participant", "maze", "node", "chosen", "choice", "children", "arrived",
        "reached", "first")}
    assert table == {"trial": [0, 0, 2, 2, 3, 3], "participant": [0, 0, 1, 1, 0, 0],
                     "maze": [0] * 6, "node": [0, 1] * 3, "chosen": [1, 3] * 3,
                     "choice": [0, 1] * 3, "children": [1, 2] * 3, "arrived": [0, 1] * 3,
                     "reached": [1, 3, 1, 5, 1, 5],
                     "first": [True, True, True, True, False, False]}
    assert [n.cell for n in nodes.trees[0].nodes] == [(0, 2), (1, 2), (1, 4), (1, 0), (1, 0),
                                                      (1, 4)]
    assert len(nodes.trees[1]) == 1
    decisions = nodes.decisions()
    assert decisions.node.tolist() == [1, 1, 1] and decisions.baseline_bits() == 1.0
    assert len(nodes.select(nodes.first)) == 4


def test_node_decisions_under_another_vision_and_ceiling(small_run):
    window = node_decisions(small_run, {"window": 1, "map": "known"})
    assert window.trees[0].vision == "1, map known"
    with pytest.raises(AgentError, match="decision graph of maze 'fork': the graph passes 2 "
                                         "nodes"):
        node_decisions(small_run, max_nodes=2)


def test_node_decisions_of_experiment_1(experiment_1_run):
    """The authors' counts: 8,309 nodes of 119 people on their first walk of each map (6,126
    decisions); 5,971 decisions of 116 once the 3 people they left out are left out, where a
    uniform choice among the children costs 1.223 bits (their Random model)."""
    run = load_human_run(experiment_1_run)
    nodes = node_decisions(run)
    # the trees with equal states merged: the authors' 690 nodes are 532 (4ways, 3ways_3 and
    # their mirrors merge); the cuts below are the authors' all the same
    assert len(nodes.trees) == 40 and sum(len(t) for t in nodes.trees.values()) == 532
    first = nodes.select(nodes.first)
    assert (len(nodes), len(first), len(first.decisions())) == (8_354, 8_309, 6_126)
    assert len(set(nodes.trial[~nodes.first].tolist())) == 22
    kept = np.array([run.participants[p] not in EXCLUDED for p in first.participant])
    authors = first.select(kept).decisions()
    assert (len(authors), len(set(authors.participant.tolist()))) == (5_971, 116)
    assert authors.baseline_bits() == pytest.approx(1.223, abs=5e-4)
    doc = re.sub(r"\s+", " ", (Path(__file__).parents[2] / "docs/human-data.md").read_text())
    assert "all 119 people gives 6,126 node decisions" in doc     # it said 5,971 of 116 only
    assert "5,971 decisions of 116 people" in doc
    named = re.search(r"--exclude-participants (S\d+(?:,S\d+)*)", doc).group(1).split(",")
    assert sorted(named) == sorted(EXCLUDED)
    for k in (0, 1_000, 4_757):                       # the rows are the walks' cuts
        trial = run.trials[k]
        cut = NodeCutter(nodes.trees[trial.maze_id]).cut(trial.positions)
        rows = nodes.trial == k
        assert nodes.node[rows].tolist() == [c.node for c in cut]
        assert nodes.chosen[rows].tolist() == [c.chosen for c in cut]
        assert nodes.reached[rows].tolist() == [c.reached for c in cut]


def test_exclusions(small_run):
    without = excluded(small_run, ["s2"])
    assert without.participants == ("s1",) and len(without.trials) == 3
    assert len(without.decisions) == 3                     # s1: 1 + 2 on the fork
    fork_only = excluded(small_run, mazes=["line"])
    assert {t.maze_id for t in fork_only.trials} == {0} and len(fork_only.decisions) == 5
    assert excluded(small_run) is small_run
    for args, message in [((["s9"],), "no participant 's9' to exclude (2 participants)"),
                          (((), ["maze"]), "no maze 'maze' to exclude (mazes: fork, line)"),
                          ((["s1", "s2"],), "the exclusions leave no trial")]:
        with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
            excluded(small_run, *args)


def test_participant_lists(tmp_path):
    assert participant_list("a,b, c,a") == ("a", "b", "c")
    (tmp_path / "ids.txt").write_text("# left out\nS1, S2\nS3 # quiz\n\n")
    assert participant_list(str(tmp_path / "ids.txt")) == ("S1", "S2", "S3")
    with pytest.raises(DataError, match=r"participants 'a,': an empty id"):
        participant_list("a,")
    # issue 33, point 12: a list longer than a file name (the authors' 27 exclusions of their
    # second experiment) was tried as a file first: OSError, exit 1
    ids = [f"A{k:02d}9F3C1D8E2B7A6{k:02d}" for k in range(27)]
    assert participant_list(",".join(ids)) == tuple(ids)
    assert participant_list("a\x00b") == ("a\x00b",)
