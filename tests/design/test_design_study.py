"""The simulated people of a recovery walk as the tree walkers walk, and the study written out
runs in `mazesim play`."""

import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.agents.trees import decision_tree
from mazesim.agents.vision import SWEEP_VISION
from mazesim.design.candidates import MapSpec
from mazesim.design.information import maze_table, panel, score_maze
from mazesim.design.report import run_design, write_study
from mazesim.design.study import simulate_walks
from mazesim.maze import parse_maze
from mazesim.play.session import load_session
from mazesim.walks import simulate_many
from mazesim.walks.nodes import NodeCutter

ROOMS = parse_maze("###########\n#...#...#.#\n#...#.#.#.#\n##.##.#...#\n#S........#\n"
                   "####.####.#\n#G...#....#\n###########")
DU = {"tau": 0.547, "gamma": 0.6}
WALKS = 1000


def test_the_simulated_people_walk_as_the_du_tree_walker_walks():
    table = maze_table(ROOMS)
    pan = panel({"du": [(DU, 0.1)], "pw": [({"tau": 1.0, "beta": 1.0}, 0.0)]}, WALKS, 0)
    exact = score_maze(pan, table).decisions["du"][0]              # decisions per walk
    _, rows, person = simulate_walks(pan, "du", [table], np.random.default_rng(5))
    walker = make_agent("du", **DU, lapse=0.1)
    batch = simulate_many(ROOMS, walker, SWEEP_VISION, WALKS, np.random.SeedSequence(5),
                          keep_positions=True)
    cutter = NodeCutter(decision_tree(ROOMS))
    cuts = [[c for c in cutter.cut(p) if c.is_decision] for p in batch.positions]
    d = table.decisions
    first = d.decision_node.tolist().index(min(c[0].node for c in cuts if c))
    p_first = pan.people["du"].probabilities(d)[d.start[first]:d.start[first + 1], 0]
    ours = np.bincount(rows[np.isin(rows, range(d.start[first], d.start[first + 1]))]
                       - d.start[first], minlength=len(p_first)) / WALKS
    theirs = np.bincount([c[0].choice for c in cuts if c and c[0].node == d.decision_node[first]],
                         minlength=len(p_first)) / WALKS
    sigma = np.sqrt(p_first * (1 - p_first) / WALKS)
    assert np.all(np.abs(ours - p_first) < 4 * sigma + 1e-9)
    assert np.all(np.abs(theirs - p_first) < 4 * sigma + 1e-9)
    counts = np.bincount(person, minlength=WALKS)
    spread = np.std([len(c) for c in cuts]) / np.sqrt(WALKS)
    assert abs(counts.mean() - exact) < 4 * spread
    assert abs(np.mean([len(c) for c in cuts]) - exact) < 4 * spread


def test_the_study_folder_is_a_play_session_of_the_designed_mazes(tmp_path):
    fits = {"steps": [({"tau": 0.2}, 0.0)], "cells": [({"tau": 0.2}, 0.0)]}
    result = run_design(fits, mazes=2, seed=1, people=0, sample=1, candidates=20, edits=2,
                        spec=MapSpec(size=(9, 9)))
    write_study(result, tmp_path / "study")
    session = load_session(tmp_path / "study" / "session.yaml")
    assert [m.id for m in session.mazes] == ["design-01", "design-02"]
    assert all(str(m.vision) == str(SWEEP_VISION) for m in session.mazes)
    maze = session.mazes[0].maze
    assert maze.meta["seen_at_start"] == result.design.chosen[0].maze.meta["seen_at_start"]
    assert (maze.grid == result.design.chosen[0].maze.grid).all()
    with pytest.raises(Exception, match="people"):
        run_design(fits, mazes=2, seed=1, people=-1, sample=1, candidates=20, edits=2,
                   spec=MapSpec(size=(9, 9)))


def test_recovery_fits_people_in_groups_within_the_protocol_s_ceiling(monkeypatch):
    from mazesim.design import study

    tables = [maze_table(ROOMS)] * 3
    pan = panel({"du": [(DU, 0.0)], "steps": [({"tau": 0.2}, 0.0)]}, 8, 0)
    whole = study.recovery(pan, tables, 0)
    calls = []
    real = study.fit_node_model
    monkeypatch.setattr(study, "MAX_GRID_CELLS", 2 * 144 * 12)     # about one person a fit
    monkeypatch.setattr(study, "fit_node_model", lambda *a, **k: calls.append(1) or real(*a, **k))
    grouped = study.recovery(pan, tables, 0)
    assert len(calls) > 2 * 2
    for r in (whole, grouped):
        assert np.allclose(r.confusion.sum(axis=1) + r.unfit, 1.0)
    assert grouped.confusion[1, 1] == whole.confusion[1, 1] == 1.0   # steps at tau 0.2 is sure
