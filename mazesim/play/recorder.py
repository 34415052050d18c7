"""The trial recorder: each participant's progress through a session, one validated move at a time.

A participant joins with an id, is shown the mazes of their order one by one (`start`), and moves
one cell per message. Every message carries the maze id and a client sequence number (1 for the
first move of a maze): a number already stored with the same direction is a duplicate and ignored,
any other number than the next one is refused, and so is a move into a wall or off the four
directions (a jump). Accepted moves are written before the in-memory state changes, each in its
own transaction; the state is rebuilt from the database when a participant rejoins (reload, new
browser, restarted server).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from mazesim.errors import MazesimError, PlayError
from mazesim.maze import DELTAS, DIRECTIONS, Cell
from mazesim.play.session import PlayMaze, Session, check_participant, maze_order
from mazesim.play.store import MoveRow, PlayStore, now_ms
from mazesim.play.view import maze_view

__all__ = [
    "PlayError",
    "BadRequest",
    "Conflict",
    "IllegalMove",
    "Recorder",
    "ACCEPTED",
    "DUPLICATE",
]

ACCEPTED, DUPLICATE = "accepted", "duplicate"
READY, PLAYING, DONE = "ready", "playing", "done"


class BadRequest(PlayError):
    """Malformed request: bad participant id, missing or mistyped field."""


class Conflict(PlayError):
    """A request that does not fit the participant's state: wrong maze, out-of-order number."""

    status = 409


class IllegalMove(PlayError):
    """A move into a wall or outside the four directions."""

    status = 422


# Writes the finished maze's trajectory inside the move's transaction:
# (db, participant, maze, positions, move rows) -> None.
TrialWriter = Callable[[Any, str, PlayMaze, list, list], None]


@dataclass
class _Player:
    order: list[str]
    index: int = 0
    started: bool = False
    positions: list[Cell] = field(default_factory=list)
    last: dict[str, Any] | None = None

    @property
    def next_seq(self) -> int:
        return len(self.positions)


class Recorder:
    """Thread-safe participant states over a `PlayStore`; every public call returns a state dict.

    `trial_writer`, when given, stores each finished (non-practice) maze as a trajectory with
    choice records in the same transaction as its last move.
    """

    def __init__(self, session: Session, store: PlayStore,
                 trial_writer: TrialWriter | None = None) -> None:
        self.session = session
        self.store = store
        self.trial_writer = trial_writer
        self._lock = threading.Lock()
        self._players: dict[str, _Player] = {}

    def join(self, participant: Any) -> dict[str, Any]:
        """Register `participant` (or resume them) and return their state."""
        with self._lock:
            pid, player = self._player(participant)
            return self._state(pid, player)

    def state(self, participant: Any) -> dict[str, Any]:
        """The state of a participant who has joined; Conflict otherwise."""
        with self._lock:
            pid, player = self._player(participant, create=False)
            return self._state(pid, player)

    def start(self, participant: Any, maze_id: Any) -> dict[str, Any]:
        """Show the participant's current maze (idempotent); its clock starts now."""
        with self._lock:
            pid, player = self._player(participant, create=False)
            current = self._current(pid, player, maze_id)
            if not player.started:
                self.store.start_maze(pid, current.id, player.index)
                player.started = True
            return self._state(pid, player)

    def move(self, participant: Any, maze_id: Any, seq: Any, direction: Any,
             client_ms: Any = None) -> tuple[str, dict[str, Any]]:
        """Validate and store one move; returns (ACCEPTED or DUPLICATE, state)."""
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise BadRequest(f"seq: {seq!r} (an integer >= 1)")
        if client_ms is not None and (isinstance(client_ms, bool)
                                      or not isinstance(client_ms, (int, float))):
            raise BadRequest(f"t: {client_ms!r} (a number of milliseconds)")
        with self._lock:
            pid, player = self._player(participant, create=False)
            if isinstance(maze_id, str):
                stored = self.store.move(pid, maze_id, seq)
                if stored is not None:
                    if stored.direction != direction:
                        raise Conflict(f"move {seq} of {maze_id} was already {stored.direction}")
                    return DUPLICATE, self._state(pid, player)
            current = self._current(pid, player, maze_id)
            if not player.started:
                raise Conflict(f"maze {current.id} has not been started")
            if seq != player.next_seq:
                raise Conflict(f"move {seq} out of order (expected {player.next_seq})")
            self._append(pid, player, current, seq, direction, client_ms)
            return ACCEPTED, self._state(pid, player)

    def _append(self, pid: str, player: _Player, current: PlayMaze, seq: int, direction: Any,
                client_ms: float | None) -> None:
        if direction not in DIRECTIONS:
            raise IllegalMove(f"direction: {direction!r} (allowed: {', '.join(DIRECTIONS)})")
        d = DIRECTIONS.index(direction)
        r, c = player.positions[-1]
        target = (r + int(DELTAS[d, 0]), c + int(DELTAS[d, 1]))
        if not current.maze.is_passage(target):
            raise IllegalMove(f"move {seq}: {direction} runs into a wall")
        when = now_ms()
        row = MoveRow(seq, (r, c), target, direction, when, client_ms)
        reached = target == current.maze.goal
        with self.store.transaction() as db:
            self.store.insert_move(db, pid, current.id, row)
            if reached:
                self.store.finish_maze(db, pid, current.id, when)
                if self.trial_writer is not None and not current.practice:
                    moves = self.store.moves(pid, current.id)  # this transaction's view
                    self.trial_writer(db, pid, current, player.positions + [target], moves)
        player.positions.append(target)
        if reached:
            player.last = {"id": current.id, "moves": seq, "practice": current.practice}
            self._enter(pid, player, player.index + 1)

    def _player(self, participant: Any, create: bool = True) -> tuple[str, _Player]:
        try:
            pid = check_participant(participant)
        except MazesimError as err:
            raise BadRequest(str(err)) from None
        player = self._players.get(pid)
        if player is not None:
            return pid, player
        order = self.store.participant_order(pid)
        if order is None:
            if not create:
                raise Conflict(f"participant {pid} has not joined")
            order = maze_order(self.session, pid)
            self.store.add_participant(pid, order)
        for maze_id in order:
            self.session.maze(maze_id)  # the config must still hold every maze of the order
        player = _Player(order)
        progress = self.store.progress(pid)
        index = next((i for i, m in enumerate(order) if progress.get(m, (0, None))[1] is None),
                     len(order))
        self._enter(pid, player, index)
        if index > 0:
            previous = self.session.maze(order[index - 1])
            player.last = {"id": previous.id, "moves": len(self.store.moves(pid, previous.id)),
                           "practice": previous.practice}
        self._players[pid] = player
        return pid, player

    def _enter(self, pid: str, player: _Player, index: int) -> None:
        """Make maze `index` of the order current, rebuilding its walk from the stored moves."""
        player.index = index
        player.started = False
        player.positions = []
        if index >= len(player.order):
            return
        maze_id = player.order[index]
        player.started = maze_id in self.store.progress(pid)
        player.positions = [self.session.maze(maze_id).maze.start]
        player.positions += [m.target for m in self.store.moves(pid, maze_id)]

    def _current(self, pid: str, player: _Player, maze_id: Any) -> PlayMaze:
        if player.index >= len(player.order):
            raise Conflict(f"participant {pid} has finished the session")
        current = player.order[player.index]
        if maze_id != current:
            raise Conflict(f"maze: {maze_id!r} is not the current maze ({current})")
        return self.session.maze(current)

    def _state(self, pid: str, player: _Player) -> dict[str, Any]:
        total = len(player.order)
        state: dict[str, Any] = {"participant": pid, "index": player.index, "total": total,
                                 "last": player.last}
        if player.index >= total:
            return {**state, "phase": DONE}
        current = self.session.maze(player.order[player.index])
        state.update(phase=PLAYING if player.started else READY, seq=player.next_seq,
                     moves=player.next_seq - 1,
                     maze={"id": current.id, "practice": current.practice,
                           "vision": current.vision.to_config()})
        if player.started:
            state["view"] = maze_view(current.maze, player.positions[-1], current.k)
        return state
