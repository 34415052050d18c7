"""One participant as the recorder keeps them in memory: a cache of their stored rows, rebuilt
from the database at open (`rebuild`).

Where a participant is (`phase`): consent -> questions asked at the start -> each maze of their
order (`ready` until shown, then `playing`) -> questions asked at the end -> `done`; or
`declined` when they did not consent. The walk on the current maze (`positions`) and, under
`map: known`, the cells seen so far (`seen`) are rebuilt from the stored moves on entering it.

At a restart every stored walk is replayed on its maze (`rebuild`): moves numbered 1, 2, ...
without a gap, each one step from where the walk is (its stored from/to cells) onto a passage,
none after the goal, the maze finished exactly when the walk ends on the goal; bumps numbered
1, 2, ..., each from the cell before its move into a wall. Rows that cannot be right (a
hand-edited or damaged database) stop the restart with one line (`Stored.damaged`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mazesim.errors import ConfigError, short
from mazesim.maze import DELTAS, DIRECTIONS, Cell
from mazesim.play.entry import participant_token
from mazesim.play.questions import END, START, Question
from mazesim.play.session import PlayMaze, Session
from mazesim.play.store import BumpRow, MoveRow, ParticipantRow, Stored
from mazesim.play.view import in_sight, maze_view

__all__ = ["CONSENT", "DECLINED", "QUESTIONS", "READY", "PLAYING", "DONE", "MAX_TAB", "MazeLog",
           "Player", "new_player", "rebuild", "step"]

CONSENT, DECLINED, QUESTIONS = "consent", "declined", "questions"
READY, PLAYING, DONE = "ready", "playing", "done"
MAX_TAB = 2**53
"""Largest tab number (JavaScript's largest exact integer); the join after it is tab 1 again."""


@dataclass
class MazeLog:
    """What is stored of one maze of one participant: directions of moves 1..n, (seq,
    direction) of bumps 1..m."""

    moves: list[str] = field(default_factory=list)
    bumps: list[tuple[int, str]] = field(default_factory=list)
    started: bool = False
    finished: bool = False


@dataclass
class Player:
    """A participant; `number` counts every participant before them (join order), `entry` the
    fields of their entry (Prolific's ids)."""

    id: str
    number: int
    pilot: bool
    order: tuple[str, ...]
    token: str
    joined_ms: int = 0
    entry: dict[str, str] = field(default_factory=dict)
    tab: int = 1
    consent: bool | None = None
    answers: dict[str, Any] = field(default_factory=dict)
    logs: dict[str, MazeLog] = field(default_factory=dict)
    index: int = 0
    positions: list[Cell] = field(default_factory=list)
    seen: np.ndarray | None = None
    last: dict[str, Any] | None = None
    active_ms: int = 0

    def log(self, maze_id: str) -> MazeLog:
        return self.logs.setdefault(maze_id, MazeLog())

    @property
    def started(self) -> bool:
        """Whether they have started a maze (the practice counts)."""
        return any(log.started for log in self.logs.values())

    def next_tab(self) -> int:
        """Make a new tab current (a join): its number, within 1 to `MAX_TAB`."""
        self.tab = self.tab + 1 if self.tab < MAX_TAB else 1
        return self.tab

    def pending_questions(self, session: Session, when: str) -> tuple[Question, ...]:
        """The questions asked at `when` (start or end) not answered yet."""
        return tuple(q for q in session.questions if q.when == when and q.id not in self.answers)

    def phase(self, session: Session) -> str:
        """Where the participant is in the session (see the module docstring)."""
        if session.pages.consent is not None and self.consent is None:
            return CONSENT
        if self.consent is False:
            return DECLINED
        if self.pending_questions(session, START):
            return QUESTIONS
        if self.index < len(self.order):
            return PLAYING if self.log(self.order[self.index]).started else READY
        return QUESTIONS if self.pending_questions(session, END) else DONE

    def enter(self, session: Session, index: int) -> None:
        """Make maze `index` of the order current: its walk and seen cells from its moves."""
        self.index = index
        self.positions, self.seen = [], None
        if index >= len(self.order):
            return
        current = session.maze(self.order[index])
        self.positions = [current.maze.start]
        for direction in self.log(current.id).moves:
            self.positions.append(step(self.positions[-1], direction))
        if current.vision.known_map:
            self.seen = np.zeros(current.maze.shape, bool)
            for cell in self.positions if current.vision.memory else self.positions[-1:]:
                self.seen |= in_sight(current.maze, cell, current.vision)

    def walk_to(self, current: PlayMaze, target: Cell) -> None:
        """Append one move to the walk (and what it brings into sight)."""
        self.positions.append(target)
        if self.seen is not None:
            sight = in_sight(current.maze, target, current.vision)
            self.seen = self.seen | sight if current.vision.memory else sight

    def view(self, current: PlayMaze) -> dict[str, Any]:
        """What the page may show of the current maze now (`mazesim.play.view`)."""
        return maze_view(current.maze, self.positions[-1], current.vision, self.seen)


def new_player(session: Session, row: ParticipantRow) -> Player:
    """The participant of a stored or new row (token from the seed), before their first maze;
    ConfigError when the session no longer holds a maze of their order. A stored tab beyond
    1 to `MAX_TAB` is read as `MAX_TAB` (the next join makes it 1)."""
    for maze_id in row.order:
        session.maze(maze_id)
    return Player(row.participant, row.number, row.pilot, row.order,
                  participant_token(session.seed, row.participant), row.joined_ms,
                  dict(row.entry), min(max(row.tab, 1), MAX_TAB), row.consent,
                  active_ms=row.joined_ms)


def rebuild(session: Session, stored: Stored) -> list[Player]:
    """Every participant of the database, each at the first maze of their order not finished:
    a restarted server resumes them all. RunError for rows that cannot be right (see the module
    docstring)."""
    try:
        players = {row.participant: new_player(session, row) for row in stored.participants}
    except ConfigError as err:                      # a maze id the session does not hold
        raise stored.damaged(f"play_participants: {err}") from None
    for pid, answers in stored.answers.items():
        _known(players, pid, stored, "play_answers").answers = dict(answers)
    started = set()
    for row in stored.progress:
        player = _known(players, row.participant, stored, "play_progress")
        if row.maze_id not in player.order:
            raise stored.damaged(f"play_progress: participant {short(row.participant)}: maze "
                                 f"{short(row.maze_id)} is not in their order")
        key = (row.participant, row.maze_id)
        started.add(key)
        log = player.log(row.maze_id)
        log.started, log.finished = True, row.finished_ms is not None
        moves, bumps = stored.moves.get(key, []), stored.bumps.get(key, [])
        _check_walk(stored, f"participant {short(row.participant)}, maze {short(row.maze_id)}",
                    session.maze(row.maze_id), moves, bumps, log.finished)
        log.moves = [m.direction for m in moves]
        log.bumps = [(b.seq, b.direction) for b in bumps]
        times = [row.started_ms, row.finished_ms or 0] + [m.server_ms for m in moves[-1:]]
        player.active_ms = max(player.active_ms, *times)
    orphan = next((k for k in (*stored.moves, *stored.bumps) if k not in started), None)
    if orphan is not None:
        raise stored.damaged(f"participant {short(orphan[0])}, maze {short(orphan[1])}: moves or "
                             "bumps of a maze never started (no play_progress row)")
    for player in players.values():
        index = next((i for i, m in enumerate(player.order) if not player.log(m).finished),
                     len(player.order))
        player.enter(session, index)
        if index > 0:
            previous = session.maze(player.order[index - 1])
            player.last = {"id": previous.id, "moves": len(player.log(previous.id).moves),
                           "practice": previous.practice}
    return list(players.values())


def _known(players: dict[str, Player], pid: str, stored: Stored, table: str) -> Player:
    if pid not in players:
        raise stored.damaged(f"{table}: participant {short(pid)} has not joined (no "
                             "play_participants row)")
    return players[pid]


def _check_walk(stored: Stored, where: str, maze: PlayMaze, moves: list[MoveRow],
                bumps: list[BumpRow], finished: bool) -> None:
    """Replay one maze's stored moves and bumps (see the module docstring)."""
    def fail(what: str) -> Exception:
        return stored.damaged(f"{where}: {what}")

    grid = maze.maze
    walk = [grid.start]
    for n, m in enumerate(moves, 1):
        if m.seq != n:
            raise fail(f"move {n} is stored as number {short(m.seq)} (a gap or a reordering)")
        if walk[-1] == grid.goal:
            raise fail(f"move {n} comes after the goal was reached")
        if m.direction not in DIRECTIONS:
            raise fail(f"move {n}: direction {short(m.direction)}")
        target = step(walk[-1], m.direction)
        if (m.source, m.target) != (walk[-1], target):
            raise fail(f"move {n}: stored from {short(m.source)} to {short(m.target)}, replayed "
                       f"from {walk[-1]} to {target}")
        if not grid.is_passage(target):
            raise fail(f"move {n}: {m.direction} from {walk[-1]} runs into a wall")
        walk.append(target)
    if finished != (walk[-1] == grid.goal):
        raise fail(f"the walk ends at {walk[-1]}, but the maze is stored as "
                   f"{'finished' if finished else 'not finished'}")
    for n, b in enumerate(bumps, 1):
        if b.bump != n:
            raise fail(f"bump {n} is stored as number {short(b.bump)} (a gap or a reordering)")
        if isinstance(b.seq, bool) or not isinstance(b.seq, int) or not (
                1 <= b.seq <= len(walk)):
            raise fail(f"bump {n}: before move {short(b.seq)} (allowed: 1 to {len(walk)})")
        cell = walk[b.seq - 1]
        if b.cell != cell or b.direction not in DIRECTIONS or grid.is_passage(
                step(cell, b.direction)):
            raise fail(f"bump {n}: {short(b.direction)} from {short(b.cell)} is not into a wall "
                       f"(the walk was at {cell} before move {b.seq})")


def step(cell: Cell, direction: str) -> Cell:
    """The cell one step from `cell` in `direction` (a name of DIRECTIONS)."""
    d = DIRECTIONS.index(direction)
    return cell[0] + int(DELTAS[d, 0]), cell[1] + int(DELTAS[d, 1])
