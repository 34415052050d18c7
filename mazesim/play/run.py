"""A play run directory: the experiment's `results.sqlite` layout plus the raw play tables.

The run directory of a session holds `session.yaml` (the resolved config), and `results.sqlite`
with the experiment tables (`meta`, `mazes`, `parameters`, `trials`, `choices`, `samples`; written
by `mazesim.experiment.storage`) so that reports read human runs like simulated ones, and the
play tables of `store.py` (participants, shown mazes, raw moves, every choice record).

A finished maze becomes one `trials` row (agent `human`, `trial` = the participant's number in
join order, `seed` = the participant id), its marked choices in `choices`, its positions as a
sampled trajectory, all its choices in `play_choices`, written in the transaction of its last
move.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from mazesim.errors import ConfigError
from mazesim.experiment.runner import ENVIRONMENT_FILE, environment
from mazesim.experiment.storage import (HUMAN, MazeRecord, RunStore, TrialRows, next_trial_id,
                                        write_samples, write_trials)
from mazesim.maze import format_maze
from mazesim.records import Trajectory
from mazesim.walks import check_walk, choice_records, choices_of
from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.server import DEFAULT_HOST, DEFAULT_PORT, PlayServer, make_server
from mazesim.play.session import PlayMaze, Session, load_session
from mazesim.play.store import MoveRow, PlayStore

__all__ = ["RECORDER", "SESSION_FILE", "open_run", "open_server", "report_config", "maze_number",
           "trajectory"]

SESSION_FILE = "session.yaml"
RECORDER = "play"
"""The `recorder` (meta) of a run of people recorded by `mazesim play`."""


def open_run(session: Session) -> Recorder:
    """Create or reopen the session's run directory and return its recorder.

    Reopening resumes every participant; a directory holding a different session is refused.
    """
    run_dir = session.output
    run_dir.mkdir(parents=True, exist_ok=True)
    config_text = yaml.safe_dump(dict(session.config), sort_keys=False)
    config_path = run_dir / SESSION_FILE
    if config_path.exists() and config_path.read_text(encoding="utf-8") != config_text:
        raise ConfigError(f"{run_dir}: holds a different session ({SESSION_FILE} differs); "
                          f"choose another output or remove the directory")
    records = _maze_records(session)
    with RunStore(run_dir, create=True) as runs:
        stored = {m.maze_id: m.text for m in runs.mazes()}
        changed = [r.meta["name"] for r in records if stored.get(r.maze_id, r.text) != r.text]
        if changed:
            raise ConfigError(f"{run_dir}: holds a different session (maze {changed[0]} "
                              f"differs); choose another output or remove the directory")
        runs.set_meta(name=session.name, kind=HUMAN, recorder=RECORDER,
                      config=report_config(session),
                      session=dict(session.config),
                      **{f"practice:{m.id}": format_maze(m.maze) for m in session.practice})
        runs.add_mazes(records)
    config_path.write_text(config_text, encoding="utf-8")
    environment_path = run_dir / ENVIRONMENT_FILE
    if not environment_path.exists():
        environment_path.write_text(json.dumps(environment(), indent=1) + "\n", encoding="utf-8")
    return Recorder(session, PlayStore(run_dir), _TrialWriter(session))


def open_server(config: str | Path, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT
                ) -> PlayServer:
    """Load a session file, open its run and bind the server; PlayError when it cannot listen."""
    recorder = open_run(load_session(config))
    try:
        return make_server(recorder, host, port)
    except OSError as err:
        recorder.store.close()
        raise PlayError(f"--host {host} --port {port}: cannot listen ({err.strerror})") from None


def report_config(session: Session) -> dict[str, Any]:
    """The session in the experiment's resolved-config shape (agent `human`), so that
    `mazesim.experiment.report` reads a play run like a simulated one: Table 1 with humans as the
    movement source, choices at every mark of the mazes."""
    from mazesim.analysis import PARAMETERS
    from mazesim.experiment.config import CORRELATION_METHODS, DEFAULT_CORRELATION_PARAMETERS

    visions = list(dict.fromkeys(m.vision.to_config() for m in session.mazes))
    marks = list(dict.fromkeys(name for m in session.mazes for name in sorted(m.maze.marks)))
    return {
        "name": session.name,
        "description": f"Human trials recorded by `mazesim play` (session {session.name}).",
        "seed": session.seed,
        "mazes": [dict(m.source) for m in session.mazes],
        "agents": [{"type": HUMAN, "label": HUMAN, "trials": 0}],
        "vision": visions,
        "parameters": list(PARAMETERS),
        "analysis": {
            "correlations": {"methods": list(CORRELATION_METHODS),
                             "parameters": list(DEFAULT_CORRELATION_PARAMETERS)},
            "branch_choices": [{"mark": mark, "human": {}} for mark in marks],
        },
        "output": str(session.output),
        "trajectories": 0,
    }


def maze_number(session: Session, maze: PlayMaze) -> int:
    """The integer `maze_id` of a (non-practice) session maze: its index in `mazes`."""
    return next(i for i, m in enumerate(session.mazes) if m.id == maze.id)


def trajectory(maze: PlayMaze, positions: list | np.ndarray) -> Trajectory:
    """A finished walk as the agents' `Trajectory`, choices derived by `walks.choices_of`."""
    pos = check_walk(maze.maze, positions)
    reached = tuple(pos[-1]) == maze.maze.goal
    return Trajectory(pos, reached, False, choices_of(maze.maze, pos))


class _TrialWriter:
    """Stores a finished maze as trial and choice rows inside the recorder's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.run_dir = session.output

    def __call__(self, db: sqlite3.Connection, participant: str, maze: PlayMaze,
                 positions: list, moves: list[MoveRow]) -> None:
        maze_id = maze_number(self.session, maze)
        trial_id = next_trial_id(db)
        walk = trajectory(maze, positions)
        write_trials(db, TrialRows(
            maze_id, HUMAN, str(maze.vision), [trial_id],
            [PlayStore.participant_number(db, participant)], [participant], [len(moves)],
            [walk.reached], [walk.capped], choice_records(maze.maze, walk.positions),
            tuple(maze.maze.marks)))
        write_samples(db, self.run_dir, {trial_id: walk.positions})


def _maze_records(session: Session) -> list[MazeRecord]:
    from mazesim.analysis import parameters

    records = []
    for i, item in enumerate(session.mazes):
        source = dict(item.source)
        generator = source.get("generator")
        h, w = item.maze.shape
        records.append(MazeRecord(
            i, source.get("file", "generator"), generator, f"{h}x{w}", source.get("seed"),
            format_maze(item.maze), {"name": item.id, "vision": item.vision.to_config(),
                                     "start": list(item.maze.start), "goal": list(item.maze.goal),
                                     "marks": {k: list(v) for k, v in item.maze.marks.items()}},
            parameters(item.maze)))
    return records
