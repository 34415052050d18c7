"""A play run directory: the experiment's `results.sqlite` layout plus the raw play tables.

The run directory of a session holds `session.yaml` (the resolved config), `results.sqlite`
with the experiment tables (`meta` with `kind: human`, `recorder: play`; `mazes`, `parameters`,
`trials`, `choices`, `samples`; written by `mazesim.experiment.storage`) so that reports read
human runs like simulated ones, the play tables of `store.py`, `links.csv` (personal links,
under `entry: link`) and `writer.lock`, held by the one recorder writing into it (`experiment.rundir`).

A finished maze becomes one `trials` row (agent `human`, or `human-pilot` for a pilot id, which
no report counts; `participant` = the participant id, `trial` = the trial's index among those of
its maze, agent and vision, `seed` empty), all its junction choices in `choices` and its positions as a sampled trajectory, written in
the transaction of its last move.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from mazesim import csvfile
from mazesim.errors import ConfigError, short
from mazesim.limits import MAX_FILE_BYTES
from mazesim.experiment.config import human_run_config
from mazesim.experiment.rundir import RunLock, lock_run
from mazesim.experiment.storage import (HUMAN, HUMAN_PILOT, PLAY_RECORDER, MazeRecord, RunStore,
                                        TrialRows, next_trial_id, write_samples, write_trials)
from mazesim.maze import format_maze
from mazesim.records import Trajectory
from mazesim.schema import read_yaml
from mazesim.walks import check_walk, choice_records, choices_of
from mazesim.play.entry import ID_ENTRY, LINK_ENTRY, MIN_PUBLIC_SEED, participant_token
from mazesim.play.pages import check_url
from mazesim.play.player import Player
from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.server import DEFAULT_HOST, DEFAULT_PORT, PlayServer, is_loopback
from mazesim.play.session import PlayMaze, Session, load_session
from mazesim.play.store import PlayStore, damaged

__all__ = ["RECORDER", "PLAY_SCHEMA", "SESSION_FILE", "LINKS_FILE",
           "open_run", "open_server", "start_info", "report_config", "maze_number", "trajectory",
           "write_links"]

SESSION_FILE = "session.yaml"
LINKS_FILE = "links.csv"
RECORDER = PLAY_RECORDER
"""The `recorder` (meta) of a run of people recorded by `mazesim play`."""
PLAY_SCHEMA = 2
"""The layout of the play tables (meta `play_schema`); older run directories are refused."""
_MAX_SESSION_NODES = 1_000_000
"""Most YAML values of a stored `session.yaml`: the ids of `MAX_PARTICIPANTS` participants and
as many pilots, the mazes and questions."""


def open_run(session: Session) -> Recorder:
    """Create or reopen the session's run directory (locked until `recorder.store.close()`) and
    return its recorder; reopening resumes every participant. A directory holding a different
    session, or recorded into by another process, is refused."""
    run_dir = session.output
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"output: {run_dir}: cannot create ({err.strerror})") from None
    config_path = run_dir / SESSION_FILE
    if config_path.exists() or config_path.is_symlink():
        old = _stored_session(config_path)
        changed = [k for k, v in session.identity.items() if old.get(k) != v]
        if changed:
            raise ConfigError(f"{run_dir}: holds a different session ({SESSION_FILE} differs in "
                              f"{changed[0]}); choose another output or remove the directory")
    lock = lock_run(run_dir, "mazesim play")     # before anything is written
    try:
        _write_run(session, lock)
        store = PlayStore(run_dir, lock)
    except BaseException:
        lock.release()
        raise
    try:
        return Recorder(session, store, _TrialWriter(session))
    except BaseException:
        store.close()
        raise


def open_server(config: str | Path, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                public_url: str | None = None) -> PlayServer:
    """Load a session file, check it may be served there, open its run and bind the server.

    A non-loopback `host` needs `public_url`; a public URL needs participant tokens (entry
    `link` or `prolific`) and a seed of at least `MIN_PUBLIC_SEED` (tokens come from it).
    """
    session = load_session(config)
    if public_url is not None:
        check_url(public_url, "public_url")
        if session.participants.entry == ID_ENTRY:
            raise ConfigError(f"{config}: participants.entry: id (a public study needs tokens: "
                              "entry link or prolific)")
        if session.seed < MIN_PUBLIC_SEED:
            raise ConfigError(f"{config}: seed: {session.seed} is too small to keep the tokens "
                              f"of a public study secret (allowed: at least 2^62, e.g. python -c "
                              f"'import secrets; print(2**62 + secrets.randbelow(2**62))')")
    elif not is_loopback(host):
        raise ConfigError(f"host: {host}: not a loopback address (a public study needs "
                          "public_url, the address participants open)")
    recorder = open_run(session)
    try:
        server = PlayServer(recorder, host, port, public_url)
    except OSError as err:
        recorder.store.close()
        raise PlayError(f"host {host}, port {port}: cannot listen ({err.strerror})") from None
    if session.participants.entry == LINK_ENTRY:
        write_links(session, server.url)
    return server


def start_info(server: PlayServer) -> dict[str, Any]:
    """What the experimenter needs at start: the session, where participants open the page, the
    address and port the server bound (`--port 0`: the one the system chose), the dashboard
    (with its key), the run directory and the links file (or None)."""
    session = server.recorder.session
    links = session.output / LINKS_FILE
    host, port = server.socket.getsockname()[:2]
    return {"session": session.name, "url": server.url, "host": host, "port": port,
            "dashboard": server.dashboard_url,
            "output": str(session.output),
            "links": str(links) if session.participants.entry == LINK_ENTRY else None}


def write_links(session: Session, url: str) -> Path:
    """`links.csv` in the run directory: participant, pilot, personal link; lines end with LF
    (a link cut out in a shell kept CRLF's carriage return, and its token was refused)."""
    path = session.output / LINKS_FILE
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle, lineterminator="\n")
        writer.writerow(["participant", "pilot", "link"])
        for pid in session.participants.listed:
            writer.writerow([pid, int(session.participants.is_pilot(pid)),
                             f"{url}?t={participant_token(session.seed, pid)}"])
    return path


def report_config(session: Session) -> dict[str, Any]:
    """The session in the experiment's resolved-config shape (agent `human`), so that
    `mazesim.experiment.report` reads a play run like a simulated one: Table 1 with humans as the
    movement source, choices at every mark of the mazes."""
    visions: list[Any] = []
    for item in session.mazes:
        if item.vision.to_config() not in visions:
            visions.append(item.vision.to_config())
    marks = list(dict.fromkeys(name for m in session.mazes for name in sorted(m.maze.marks)))
    return human_run_config(session.name, f"Human trials recorded by `mazesim play` (session "
                            f"{session.name}).", session.seed,
                            [dict(m.source) for m in session.mazes], visions, marks,
                            session.output)


def maze_number(session: Session, maze: PlayMaze) -> int:
    """The integer `maze_id` of a (non-practice) session maze: its index in `mazes`."""
    return next(i for i, m in enumerate(session.mazes) if m.id == maze.id)


def trajectory(maze: PlayMaze, positions: list | np.ndarray) -> Trajectory:
    """A finished walk as the agents' `Trajectory`, choices derived by `walks.choices_of`."""
    pos = check_walk(maze.maze, positions)
    reached = tuple(pos[-1]) == maze.maze.goal
    return Trajectory(pos, reached, False, choices_of(maze.maze, pos))


class _TrialWriter:
    """Stores a finished maze as trial and choice rows inside the writer's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.run_dir = session.output

    def __call__(self, db: sqlite3.Connection, player: Player, maze: PlayMaze,
                 positions: list) -> None:
        trial_id = next_trial_id(db)
        walk = trajectory(maze, positions)
        condition = (maze_number(self.session, maze), HUMAN_PILOT if player.pilot else HUMAN,
                     str(maze.vision))
        (number,) = db.execute("SELECT COUNT(*) FROM trials WHERE maze_id = ? AND agent = ? "
                               "AND vision = ?", condition).fetchone()
        write_trials(db, TrialRows(
            maze_id=condition[0], agent=condition[1], vision=condition[2], trial_ids=[trial_id],
            numbers=[number], seeds=[""], moves=[walk.moves], reached=[walk.reached],
            capped=[walk.capped], choices=choice_records(maze.maze, walk.positions),
            mark_names=tuple(maze.maze.marks), participants=[player.id]))
        write_samples(db, self.run_dir, {trial_id: walk.positions})


def _write_run(session: Session, lock: RunLock) -> None:
    run_dir = session.output
    records = _maze_records(session)
    with RunStore(run_dir, create=True, lock=lock) as runs:
        recorder, schema = runs.meta("recorder"), runs.meta("play_schema")
        if recorder is not None and (recorder != RECORDER or schema != PLAY_SCHEMA):
            raise ConfigError(f"{run_dir}: not a run of this mazesim play (recorder {recorder}, "
                              f"play schema {schema}); choose another output")
        stored = {m.maze_id: m.text for m in runs.mazes()}
        changed = [r.meta["name"] for r in records if stored.get(r.maze_id, r.text) != r.text]
        if changed:
            raise ConfigError(f"{run_dir}: holds a different session (maze {changed[0]} "
                              f"differs); choose another output or remove the directory")
        runs.write_head(records, name=session.name, kind=HUMAN, recorder=RECORDER,
                        play_schema=PLAY_SCHEMA, config=report_config(session),
                        session=dict(session.config),
                        **{f"practice:{m.id}": format_maze(m.maze) for m in session.practice})
        runs.query("CREATE INDEX IF NOT EXISTS play_trial_numbers ON trials "
                   "(maze_id, agent, vision)")          # each finished maze counts its own
    (run_dir / SESSION_FILE).write_text(yaml.safe_dump(dict(session.config), sort_keys=False),
                                        encoding="utf-8")


def _stored_session(path: Path) -> dict[str, Any]:
    """The session a run directory was recorded with (its `session.yaml`, written by
    `_write_run`); RunError naming the file when it cannot be that."""
    try:
        stored = read_yaml(path, max_bytes=MAX_FILE_BYTES, max_nodes=_MAX_SESSION_NODES)
    except ConfigError as err:
        raise damaged(path, str(err).removeprefix(str(path)).removeprefix(":").strip()
                      ) from None
    if not isinstance(stored, dict):
        raise damaged(path, f"{short(stored)} is not a session (a mapping of its keys)")
    return stored


def _maze_records(session: Session) -> list[MazeRecord]:
    from mazesim.analysis import parameters

    records = []
    for i, item in enumerate(session.mazes):
        source = dict(item.source)
        h, w = item.maze.shape
        records.append(MazeRecord(
            i, source.get("file", "generator"), source.get("generator"), f"{h}x{w}",
            source.get("seed"), format_maze(item.maze),
            {"name": item.id, "vision": item.vision.to_config(), "start": list(item.maze.start),
             "goal": list(item.maze.goal),
             "marks": {k: list(v) for k, v in item.maze.marks.items()}},
            parameters(item.maze)))
    return records
