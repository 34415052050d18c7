"""Node decisions with the walks so far: ours (trees and cuts of a run) equal the authors'."""

import numpy as np
import pytest

from mazesim.agents.node_features import child_features
from mazesim.errors import DataError
from mazesim.humans import load_human_run
from mazesim.humans.data.run import excluded
from mazesim.humans.fitting.node_choices import peer_node_choices, run_node_choices
from mazesim.humans.peer.tables import EXCLUDED
from tests.humans.conftest import GOOD
from tests.humans.test_data import AGAIN
from tests.humans.mst_data import mst_folder


def by_cells(choices):
    """{(person, maze, node cell): (chosen child's cell, features sorted by child cell)}."""
    d, out = choices.decisions, {}
    x = child_features(d, choices.decision, choices.walks)
    first = np.concatenate([[0], np.cumsum(choices.children)])
    for i in range(len(choices)):
        t = d.decision_tree[choices.decision[i]]
        nodes = d.trees[t].nodes
        node = nodes[d.decision_node[choices.decision[i]]]
        order = np.argsort([str(nodes[c].cell) for c in node.children])
        out[choices.participants[choices.participant[i]], d.trees[t].maze.meta["name"],
            node.cell] = (nodes[d.row_node[choices.rows[i]] - d.base[t]].cell,
                          x[first[i]:first[i + 1]][order])
    return out


def test_ours_are_the_authors_decisions_on_experiment_1(experiment_1_run):
    """The same 5,971 decisions (person, map, node, child taken); the walk features agree at
    all but 14: the authors' `path` of a node sometimes starts before the previous node."""
    ours = run_node_choices(excluded(load_human_run(experiment_1_run), EXCLUDED))
    theirs = peer_node_choices(mst_folder() / "peer", mst_folder() / "mazes")
    a, b = by_cells(ours), by_cells(theirs)
    assert len(a) == len(b) == 5_971 and set(a) == set(b)
    assert all(a[k][0] == b[k][0] for k in a)
    assert sum(not np.allclose(a[k][1], b[k][1]) for k in a) == 14
    assert ours.participants == theirs.participants
    assert ours.baseline_bits() == pytest.approx(theirs.baseline_bits(), abs=1e-12)


@pytest.fixture
def small(write_mst, tmp_path):
    from mazesim.humans import import_mst

    import_mst(write_mst(GOOD + [AGAIN]), tmp_path / "run")
    return load_human_run(tmp_path / "run")


def test_a_small_run(small):
    """The fork's one decision, once per person: the second walk of s1 is left out."""
    choices = run_node_choices(small)
    assert (len(choices), choices.participants) == (2, ("s1", "s2"))
    assert choices.children.tolist() == [2, 2] and choices.baseline_bits() == 1.0
    assert [w.tolist() for w in choices.walks] == [[[0, 2], [1, 2]]] * 2
    assert choices.rows.tolist() == [1, 1]               # both went left, the second child
    one = choices.select(np.array([False, True]))
    assert (len(one), one.participants, one.participant.tolist()) == (1, ("s2",), [0])


def test_no_decision_is_an_error(small):
    line = excluded(small, mazes=["fork"])
    with pytest.raises(DataError, match=r"no node decision \(a node with two or more "
                                        r"children\): nothing to fit"):
        run_node_choices(line)


@pytest.mark.parametrize("vision, why", [("full", "sees everything from the start"),
                                         ({"window": 2}, "leaves the map unknown")])
def test_a_run_without_observation_nodes_has_no_node_decisions(tmp_path, vision, why):
    """Issue 33, point 2: a run walked under full vision, or a window without the map, was
    fitted on the sweep tree silently (and `predict` then walked it under full vision)."""
    from mazesim import generate, make_agent
    from mazesim.humans.fitting.recovery import simulate_population

    mazes = {"d0": generate("digging", (9, 9), seed=0)}
    simulate_population(mazes, make_agent("random-walk"), vision, 2, 0, tmp_path / "run")
    with pytest.raises(DataError, match=f"run: its people walked under vision .*; node models "
                                        f"need observation nodes \\(vision: .* {why}"):
        run_node_choices(load_human_run(tmp_path / "run"))


def test_too_few_people_for_the_peer_population_say_so(small):
    """Issue 33, point 18: the message was "groups 10", a value the user cannot set."""
    from mazesim.agents.node_models import node_model
    from mazesim.humans.peer.protocol import logit_peer_fit

    with pytest.raises(DataError, match=r"node-choice under the peer protocol draws each "
                                        r"person's population from 10 groups of the others: 2 "
                                        r"people \(allowed: at least 10\)"):
        logit_peer_fit(node_model("node-choice"), run_node_choices(small), seed=0)
