"""The loop closed: a designed study runs in `mazesim play`, simulated people walk it through
the recorder (each by its model's tree walker), and `mazesim fit --level node` on the recorded
run recovers the models that walked; `mazesim predict` checks them."""

import csv

import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.cli import main
from mazesim.design.candidates import MapSpec
from mazesim.design.report import run_design, write_study
from mazesim.maze import DELTAS, DIRECTIONS
from mazesim.play.run import open_run
from mazesim.play.session import load_session
from mazesim.walks import simulate_many

PEOPLE = {"steps": {"tau": 0.2}, "cells": {"tau": 0.2}}
EACH = 6


def _directions(positions):
    steps = np.diff(np.asarray(positions), axis=0).tolist()
    return [DIRECTIONS[[list(d) for d in DELTAS.tolist()].index(s)] for s in steps]


def _walk_everyone(session):
    rec = open_run(session)
    try:
        for m, (model, params) in enumerate(PEOPLE.items()):
            for i in range(EACH):
                pid = f"{model}-{i}"
                state = rec.join(pid)
                while state["phase"] in ("ready", "playing"):
                    maze = session.maze(state["maze"]["id"])
                    rec.start(pid, maze.id)
                    walk = simulate_many(maze.maze, make_agent(model, **params), maze.vision, 1,
                                         np.random.SeedSequence(9, spawn_key=(m, i)),
                                         keep_positions=True).positions[0]
                    for seq, direction in enumerate(_directions(walk), 1):
                        _, state = rec.move(pid, maze.id, seq, direction)
    finally:
        rec.store.close()


@pytest.mark.slow
def test_a_designed_study_recorded_fitted_and_checked(runner, tmp_path):
    fits = {model: [(params, 0.0)] for model, params in PEOPLE.items()}
    # the greedy design without revisits: the loop, not the search, is under test here
    result = run_design(fits, mazes=6, seed=2, people=0, sample=1, candidates=60, edits=5,
                        spec=MapSpec(), passes=0)
    write_study(result, tmp_path / "study")
    session = load_session(tmp_path / "study" / "session.yaml")
    _walk_everyone(session)
    run, fit = str(session.output), str(tmp_path / "fit")
    out = runner.invoke(main, ["fit", run, "--level", "node", "--protocol", "peer", "--cv", "2",
                               "--model", "steps", "--model", "cells", "-o", fit])
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(open(tmp_path / "fit" / "fit_participants.csv")))
    bits = {(r["participant"], r["model"]): float(r["cv_bits"]) for r in rows}
    people = sorted({r["participant"] for r in rows})
    assert len(people) == 2 * EACH
    recovered = [min(PEOPLE, key=lambda m: bits[(p, m)]) == p.split("-")[0] for p in people]
    assert np.mean(recovered) >= 0.9
    out = runner.invoke(main, ["predict", run, "--fit", fit, "--walks", "3", "--json"])
    assert out.exit_code == 0, out.output
