"""A play run directory: the experiment's `results.sqlite` layout plus the raw play tables.

The run directory of a session holds `session.yaml` (the resolved config), and `results.sqlite`
with the experiment tables (`meta`, `mazes`, `parameters`, `trials`, `choices`; created by
`mazesim.experiment.storage.RunStore`) so that reports read human runs like simulated ones, and the
play tables of `store.py` (participants, shown mazes, raw moves) plus `play_choices`: every
departure from a branch point of a finished maze (the full choice record, not only marked cells),
for comparing people with agents decision by decision.

A finished maze becomes one `trials` row (agent `human`, `trial` = the participant's number in
join order, `seed` = the participant id), its marked choices in `choices`, all of them in
`play_choices`, written in the transaction of its last move.
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
from mazesim.experiment.tasks import direction_name
from mazesim.maze import DIRECTIONS, format_maze
from mazesim.simulate import Trajectory, check_walk, choices_of
from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.server import DEFAULT_HOST, DEFAULT_PORT, PlayServer, make_server
from mazesim.play.session import PlayMaze, Session, load_session
from mazesim.play.store import MoveRow, PlayStore

__all__ = ["HUMAN", "SESSION_FILE", "open_run", "open_server", "report_config", "maze_number",
           "trajectory"]

HUMAN = "human"
SESSION_FILE = "session.yaml"
KIND = "play"
_CHOICES_SCHEMA = """
CREATE TABLE IF NOT EXISTS play_choices (
    participant TEXT NOT NULL, maze_id INTEGER NOT NULL, step INTEGER NOT NULL,
    row INTEGER NOT NULL, col INTEGER NOT NULL, mark TEXT NOT NULL, arrival TEXT NOT NULL,
    open TEXT NOT NULL, unexplored TEXT NOT NULL, direction TEXT NOT NULL, first INTEGER NOT NULL,
    PRIMARY KEY (participant, maze_id, step));
"""


def open_run(session: Session) -> Recorder:
    """Create or reopen the session's run directory and return its recorder.

    Reopening resumes every participant; a directory holding a different session is refused.
    """
    from mazesim.experiment.storage import RunStore

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
        runs.set_meta(name=session.name, kind=KIND, config=report_config(session),
                      session=dict(session.config),
                      **{f"practice:{m.id}": format_maze(m.maze) for m in session.practice})
        runs.add_mazes(records)
    config_path.write_text(config_text, encoding="utf-8")
    environment_path = run_dir / ENVIRONMENT_FILE
    if not environment_path.exists():
        environment_path.write_text(json.dumps(environment(), indent=1) + "\n", encoding="utf-8")
    store = PlayStore(run_dir)
    store.connection.executescript(_CHOICES_SCHEMA)
    return Recorder(session, store, _TrialWriter(session))


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

    visions = list(dict.fromkeys(m.vision for m in session.mazes))
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
    """A finished walk as the agents' `Trajectory`, choices derived by `simulate.choices_of`."""
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
        vision = str(maze.vision)
        number = db.execute("SELECT number FROM play_participants WHERE participant = ?",
                            (participant,)).fetchone()[0]
        trial_id = db.execute("SELECT COALESCE(MAX(trial_id) + 1, 0) FROM trials").fetchone()[0]
        db.execute("INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (trial_id, maze_id, HUMAN, vision, number, participant, len(moves), 1, 0))
        walk = trajectory(maze, positions)
        _save_positions(self.run_dir, db, trial_id, walk.positions)
        for ch in walk.choices:
            mark, arrived, chose = ch.mark or "", direction_name(ch.arrival), ch.direction
            db.execute("INSERT INTO play_choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (participant, maze_id, ch.step, *ch.cell, mark, arrived,
                        _names(ch.open), _names(ch.unexplored), chose, int(ch.first)))
            if mark:
                db.execute("INSERT INTO choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (trial_id, ch.step, maze_id, HUMAN, vision, number, mark, *ch.cell,
                            arrived, chose, int(ch.first)))


def _maze_records(session: Session) -> list:
    from mazesim.analysis import parameters
    from mazesim.experiment.storage import MazeRecord

    records = []
    for i, item in enumerate(session.mazes):
        source = dict(item.source)
        generator = source.get("generator")
        h, w = item.maze.shape
        records.append(MazeRecord(
            i, source.get("file", "generator"), generator, f"{h}x{w}", source.get("seed"),
            format_maze(item.maze), {"name": item.id, "vision": item.vision,
                                     "start": list(item.maze.start), "goal": list(item.maze.goal),
                                     "marks": {k: list(v) for k, v in item.maze.marks.items()}},
            parameters(item.maze)))
    return records


def _names(directions: tuple[int, ...]) -> str:
    return json.dumps([DIRECTIONS[d] for d in directions])


def _save_positions(run_dir: Path, db: sqlite3.Connection, trial_id: int,
                    positions: np.ndarray) -> None:
    """One `.npz` per human trial, registered in `samples` like the experiment's samples."""
    from mazesim.experiment.storage import TRAJECTORIES

    name = f"{TRAJECTORIES}/{HUMAN}-{trial_id:09d}.npz"
    (run_dir / TRAJECTORIES).mkdir(exist_ok=True)
    tmp = run_dir / (name + ".part.npz")
    np.savez_compressed(tmp, **{f"t{trial_id}": positions.astype(np.int16)})
    tmp.replace(run_dir / name)
    db.execute("INSERT OR REPLACE INTO samples VALUES (?, ?)", (trial_id, name))
