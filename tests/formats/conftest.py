"""Runs of people for the tests of the export formats and the environments: the play demo's
session walked by two scripted participants (its three mazes along their shortest routes, one
with a bump), and the Maze Search Task's experiment 1 imported once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.humans.conftest import experiment_1, experiment_1_run  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]
_STEPS = {(-1, 0): "up", (0, 1): "right", (1, 0): "down", (0, -1): "left"}


def play_demo_run(output: Path, people=("r1", "r2")) -> Path:
    """The play demo's session recorded into `output`: each person consents, walks the practice
    and the three mazes along their shortest routes (r2 bumps once a maze), and answers."""
    from mazesim.analysis.routes import shortest_path
    from mazesim.play.run import open_run
    from mazesim.play.session import parse_session

    data = yaml.safe_load((ROOT / "configs" / "play-demo.yaml").read_text(encoding="utf-8"))
    data["output"] = str(output)
    session = parse_session(data, source="play-demo.yaml", base_dir=ROOT / "configs")
    mazes = {m.id: m.maze for m in (*session.practice, *session.mazes)}
    rec = open_run(session)
    try:
        for person in people:
            state = rec.join(person)
            for _ in range(20):
                if state["phase"] == "done":
                    break
                if state["phase"] == "consent":
                    state = rec.consent(person, True)
                elif state["phase"] == "questions":
                    state = rec.answer(person, {"age": 30})
                else:
                    state = _walk(rec, person, state["maze"]["id"], mazes, shortest_path)
            assert state["phase"] == "done", state
    finally:
        rec.store.close()
    return output


def _walk(rec, person, maze, mazes, shortest_path):
    state = rec.start(person, maze)
    route = shortest_path(mazes[maze])
    if person == "r2":
        blocked = next(d for d, name in _STEPS.items() if name not in state["view"]["open"])
        rec.bump(person, maze, 1, 1, _STEPS[blocked])
    for seq, (a, b) in enumerate(zip(route[:-1], route[1:]), 1):
        status, state = rec.move(person, maze, seq, _STEPS[tuple(b - a)])
        assert status == "accepted", state
    return state


@pytest.fixture(scope="session")
def play_run(tmp_path_factory) -> Path:
    return play_demo_run(tmp_path_factory.mktemp("play") / "play-demo")
