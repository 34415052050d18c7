"""Fixtures of the human-data tests: small Maze Search Task folders and long CSVs written in the
test's own folder, the shared experiment-1 data (found above the clone; a missing folder fails
the test, never skips it), and the play fixtures for runs recorded by `mazesim play`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.humans.mst_data import mst_folder
from tests.play.conftest import session_factory, write_maze_file  # noqa: F401 (fixtures)

# Two Maze Search Task maps (codes: 3 wall, 0 floor, 6 floor seen at the start, 5 S, 2 exit).
# "fork": S at (0, 2) above a T; the exit in the left room; the right room is a dead end.
FORK = "5\n4\n33533\n06660\n03330\n23330\n"
# "line": a corridor S . . G (the last row has no newline).
LINE = "4\n1\n5002"
# plandata rows (x = column, y = row): left to the exit; right, back, then left.
GOOD = [("s1", "fork", 1, "p(2,0)p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);", "900;500;400;300;200;"),
        ("s1", "line", 2, "p(0,0)p(1,0);p(2,0);p(3,0);", "700;300;300;"),
        ("s2", "fork", 1, "p(2,0)p(2,1);p(3,1);p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);",
         "800;600;1500;400;300;300;300;")]


def mst_table(rows) -> str:
    """plandata.csv text: tab separated with the task's header."""
    lines = ["subject\tworld\ttrialNo\tsteps\tpath\ttimes"]
    lines += [f"{s}\t{w}\t{n}\t0\t{path}\t{times}" for s, w, n, path, times in rows]
    return "\n".join(lines) + "\n"


@pytest.fixture
def write_mst(tmp_path: Path):
    """write_mst(rows, mazes={name: text}) -> a Maze Search Task folder."""
    def write(rows=GOOD, mazes=None, name="mst") -> Path:
        folder = tmp_path / name
        (folder / "mazes").mkdir(parents=True)
        for maze, text in (mazes or {"fork": FORK, "line": LINE}).items():
            (folder / "mazes" / f"{maze}.txt").write_text(text, encoding="utf-8")
        (folder / "plandata.csv").write_text(mst_table(rows), encoding="utf-8")
        return folder
    return write


@pytest.fixture(scope="session")
def experiment_1() -> Path:
    """The shared experiment-1 folder of the Maze Search Task."""
    return mst_folder()


@pytest.fixture(scope="session")
def experiment_1_run(tmp_path_factory, experiment_1):
    """Experiment 1 imported once into a run directory."""
    from mazesim.humans import import_mst

    run = tmp_path_factory.mktemp("experiment-1") / "run"
    import_mst(experiment_1, run)
    return run


@pytest.fixture(scope="session")
def authors_choices():
    """The node decisions of experiment 1 on the authors' own trees (their `peer` folder)."""
    from mazesim.humans.fitting.node_choices import peer_node_choices

    return peer_node_choices(mst_folder() / "peer", mst_folder() / "mazes")


@pytest.fixture(scope="session")
def few_people(authors_choices):
    """The decisions of 24 of the authors' people (about 1,200)."""
    return authors_choices.select(authors_choices.participant < 24)
