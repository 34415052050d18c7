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

import numpy as np
import yaml

from mazesim.errors import ConfigError
from mazesim.experiment.tasks import direction_name
from mazesim.maze import DIRECTIONS, format_maze
from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.server import DEFAULT_HOST, DEFAULT_PORT, PlayServer, make_server
from mazesim.play.session import PlayMaze, Session, load_session
from mazesim.play.store import MoveRow, PlayStore

__all__ = ["HUMAN", "SESSION_FILE", "open_run", "open_server", "maze_number", "branch_choices"]

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
    with RunStore(run_dir, create=True) as runs:
        runs.set_meta(name=session.name, kind=KIND, config=dict(session.config))
        runs.add_mazes(_maze_records(session))
    config_path.write_text(config_text, encoding="utf-8")
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


def maze_number(session: Session, maze: PlayMaze) -> int:
    """The integer `maze_id` of a (non-practice) session maze: its index in `mazes`."""
    return next(i for i, m in enumerate(session.mazes) if m.id == maze.id)


def branch_choices(maze: PlayMaze, positions: np.ndarray) -> np.ndarray:
    """Int64 (m, 8) choice records of a walk (step, row, col, arrival, open mask, unexplored mask,
    chosen, first): the agents' own derivation, so human and agent records agree in form."""
    from mazesim.agents import _kernels as agent_kernels

    pos = np.ascontiguousarray(positions, dtype=np.int64).reshape(-1, 2)
    return agent_kernels.branch_choices(maze.maze.grid, pos, len(pos) - 1)


class _TrialWriter:
    """Stores a finished maze as trial and choice rows inside the recorder's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def __call__(self, db: sqlite3.Connection, participant: str, maze: PlayMaze,
                 positions: list, moves: list[MoveRow]) -> None:
        maze_id = maze_number(self.session, maze)
        vision = str(maze.vision)
        number = db.execute("SELECT number FROM play_participants WHERE participant = ?",
                            (participant,)).fetchone()[0]
        trial_id = db.execute("SELECT COALESCE(MAX(trial_id) + 1, 0) FROM trials").fetchone()[0]
        db.execute("INSERT INTO trials VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (trial_id, maze_id, HUMAN, vision, number, participant, len(moves), 1, 0))
        names = {cell: name for name, cell in maze.maze.marks.items()}
        for step, r, c, arrival, open_mask, unexplored, chosen, first in branch_choices(
                maze, np.array(positions)).tolist():
            mark = names.get((r, c), "")
            arrived, chose = direction_name(arrival), direction_name(chosen)
            db.execute("INSERT INTO play_choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (participant, maze_id, step, r, c, mark, arrived, _names(open_mask),
                        _names(unexplored), chose, first))
            if mark:
                db.execute("INSERT INTO choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (trial_id, step, maze_id, HUMAN, vision, number, mark, r, c, arrived,
                            chose, first))


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


def _names(mask: int) -> str:
    return json.dumps([DIRECTIONS[d] for d in range(len(DIRECTIONS)) if mask >> d & 1])
