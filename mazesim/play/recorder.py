"""The trial recorder: each participant's way through a session, one validated request at a time.

A participant joins (a typed id, a link's token or a Prolific query), consents, answers the
questions asked at the start, is shown the mazes of their order one by one (`start`) and sends
one message per key press: a `move` (one cell) or a `bump` (into a wall: recorded, never a
move). Moves are numbered from 1 on each maze (`seq`), bumps too (`bump`); a bump also names the
move it came before. A number already stored with the same content is a duplicate and ignored
(a resend), any other number than the next is refused, and so is a move into a wall, a bump
into an open cell or a direction outside the four (a jump).

Every request runs under one lock against the participants in memory (`Player`, rebuilt from
the database at open) and changes them; its rows are committed before its reply is sent.
A join makes a new tab current: requests naming an older `tab` are refused as `StaleTab`.

A join with the id of a participant who joined before is a reload and must prove it: their
token (link and Prolific entry), or under Prolific entry the `STUDY_ID` and `SESSION_ID` they
first came with; otherwise 403. An open entry (no listed ids) admits at most `MAX_WAITING` new
participants who have not started a maze within `WAITING_SECONDS` (or the session's
`participants.expected`, if more), then refuses new ones with 429 until some start or the
window passes.
"""

from __future__ import annotations

import hmac
import threading
from functools import partial
from typing import Any, Callable

from mazesim.errors import ConfigError
from mazesim.maze import DIRECTIONS
from mazesim.play.entry import (ID_ENTRY, LINK_ENTRY, MAX_PARTICIPANTS, PROLIFIC_ENTRY,
                                PROLIFIC_FIELDS, check_participant, dashboard_key,
                                participant_token, prolific_query, tokens_match)
from mazesim.play.player import (CONSENT, DONE, MAX_TAB, PLAYING, QUESTIONS, READY, MazeLog,
                                 Player, new_player, rebuild, step)
from mazesim.play.questions import END, START, check_answers
from mazesim.play.refusals import (BadRequest, Conflict, Forbidden, PlayError, StaleTab,
                                   TooMany, Unavailable, Unprocessable)
from mazesim.play.session import PlayMaze, Session
from mazesim.play.store import (BumpRow, MoveRow, ParticipantRow, PlayStore, ProgressRow, Work,
                                now_ms)
from mazesim.schema import short

__all__ = ["ACCEPTED", "DUPLICATE", "ACTIONS", "MAX_MOVES_PER_MAZE", "MAX_BUMPS_PER_MAZE",
           "MAX_PARTICIPANTS", "MAX_WAITING", "WAITING_SECONDS", "MAX_CLIENT_MS", "MAX_TAB",
           "PlayError", "Recorder", "TrialWriter"]

ACCEPTED, DUPLICATE = "accepted", "duplicate"
ACTIONS = ("join", "state", "consent", "answer", "start", "move", "bump")
"""The participant's requests (`/api/<action>`)."""
MAX_MOVES_PER_MAZE = 1_000_000
MAX_BUMPS_PER_MAZE = 1_000_000
MAX_WAITING = 1_000
"""New participants of an open entry who have not started a maze, joined within
`WAITING_SECONDS` (3,000 people in 20 minutes, each a few minutes from joining to their first
maze, are a few hundred at once)."""
WAITING_SECONDS = 600
MAX_CLIENT_MS = 2.0**53
"""Largest client timestamp (JavaScript's largest exact integer; epoch ms are about 1.7e12)."""
_PROOF_FIELDS = PROLIFIC_FIELDS[1:]
"""What a Prolific re-join must repeat: STUDY_ID and SESSION_ID."""

TrialWriter = Callable[[Any, Player, PlayMaze, list], None]
"""Writes a finished maze's trial inside the move's transaction: (db, player, maze,
positions) -> None."""


class Recorder:
    """Thread-safe participant states over a `PlayStore`.

    `prepare(action, body)` serves the web app, `call` scripts; the methods named after the
    actions build a body for `call` and return the state (moves and bumps: the status too).
    """

    def __init__(self, session: Session, store: PlayStore,
                 trial_writer: TrialWriter | None = None) -> None:
        self.session = session
        self.store = store
        self.trial_writer = trial_writer
        self.dashboard_key = dashboard_key(session.seed)
        self._lock = threading.RLock()
        self._players = {p.id: p for p in rebuild(session, store.load())}
        self._ranks = {kind: sum(p.pilot == kind for p in self._players.values())
                       for kind in (False, True)}
        # new participants who have not started a maze, in join order (`MAX_WAITING`)
        cutoff = now_ms() - WAITING_SECONDS * 1000
        self._waiting = {p.id: p.joined_ms for p in sorted(self._players.values(),
                                                           key=lambda p: p.joined_ms)
                         if not p.started and not p.pilot and p.joined_ms >= cutoff}
        self._token_ids: dict[str, str] = {}
        if session.participants.entry == LINK_ENTRY:
            self._token_ids = {participant_token(session.seed, pid): pid
                               for pid in session.participants.listed}

    @property
    def tokens(self) -> bool:
        """Whether requests must carry the participant's token (link and Prolific entry)."""
        return self.session.participants.entry != ID_ENTRY

    # -- the actions --------------------------------------------------------------------------
    def prepare(self, action: str, body: dict[str, Any]) -> tuple[dict[str, Any], list[Work]]:
        """Check one request (`/api/<action>` with its JSON body) and change memory: the reply,
        and the rows the caller must write (`store.write`) before sending it. PlayError when
        refused; nothing changes then. The web app writes the rows of every request of one
        event-loop turn in one transaction; `call` writes at once."""
        handler = getattr(self, f"_on_{action}") if action in ACTIONS else None
        if handler is None:
            raise BadRequest(f"no action {action!r} (allowed: {', '.join(ACTIONS)})")
        with self._lock:
            if self.store.failure is not None:
                raise Unavailable(self.store.failure)
            return handler(body)

    def call(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        """`prepare` and write in one go (for scripts and tests; not beside a running server)."""
        with self._lock:
            reply, works = self.prepare(action, body)
            if works:
                self.store.write(works)
        return reply

    def join(self, participant: Any = None, **body: Any) -> dict[str, Any]:
        return self.call("join", {"participant": participant, **body})["state"]

    def state(self, participant: Any, **body: Any) -> dict[str, Any]:
        return self.call("state", {"participant": participant, **body})["state"]

    def consent(self, participant: Any, agree: Any, **body: Any) -> dict[str, Any]:
        return self.call("consent", {"participant": participant, "agree": agree, **body})["state"]

    def answer(self, participant: Any, answers: Any, **body: Any) -> dict[str, Any]:
        return self.call("answer", {"participant": participant, "answers": answers,
                                    **body})["state"]

    def start(self, participant: Any, maze_id: Any, **body: Any) -> dict[str, Any]:
        return self.call("start", {"participant": participant, "maze": maze_id, **body})["state"]

    def move(self, participant: Any, maze_id: Any, seq: Any, direction: Any,
             client_ms: Any = None, **body: Any) -> tuple[str, dict[str, Any]]:
        reply = self.call("move", {"participant": participant, "maze": maze_id, "seq": seq,
                                   "direction": direction, "t": client_ms, **body})
        return reply["status"], reply["state"]

    def bump(self, participant: Any, maze_id: Any, seq: Any, bump: Any, direction: Any,
             client_ms: Any = None, **body: Any) -> tuple[str, dict[str, Any]]:
        reply = self.call("bump", {"participant": participant, "maze": maze_id, "seq": seq,
                                   "bump": bump, "direction": direction, "t": client_ms, **body})
        return reply["status"], reply["state"]

    def info(self) -> dict[str, Any]:
        """What the page needs before anyone joins: the session's name and how one enters."""
        return {"session": self.session.name, "entry": self.session.participants.entry}

    def dashboard(self, key: Any) -> dict[str, Any]:
        """Every participant: phase, current maze, its moves and bumps, mazes finished."""
        if not tokens_match(key, self.dashboard_key):
            raise Forbidden("dashboard key: wrong or missing")
        with self._lock:
            rows = []
            for p in self._players.values():
                phase = p.phase(self.session)
                current = p.order[p.index] if phase in (READY, PLAYING) else None
                log = p.logs.get(current) if current else None
                rows.append({"participant": p.id, "pilot": p.pilot, "phase": phase,
                             "maze": current, "position": p.index + 1 if current else None,
                             "total": len(p.order), "moves": len(log.moves) if log else 0,
                             "bumps": len(log.bumps) if log else 0,
                             "finished": sum(log.finished for log in p.logs.values()),
                             "active_ms": p.active_ms})
        return {"session": self.session.name, "participants": rows, "failure": self.store.failure}

    # -- handlers: (reply, rows to write), under the lock -----------------------------------
    def _on_join(self, body: dict) -> tuple[dict, list[Work]]:
        entry = self.session.participants.entry
        fields: dict[str, str] = {}
        try:
            if self.tokens and body.get("participant") is not None and "prolific" not in body:
                pid = self._known(body, check_tab=False).id   # a reload: id and token suffice
            elif entry == LINK_ENTRY:
                pid = self._token_ids.get(body.get("token"))  # type: ignore[arg-type]
                if pid is None:
                    raise Forbidden("token: this link is not valid (was the whole address "
                                    "copied?)")
            elif entry == PROLIFIC_ENTRY:
                pid, fields = prolific_query(body.get("prolific"))
                self._check_rejoin(pid, fields, body.get("token"))
            else:
                pid = check_participant(body.get("participant"))
        except ConfigError as err:
            raise BadRequest(str(err)) from None
        except TypeError:                  # an unhashable token
            raise Forbidden("token: this link is not valid") from None
        if not self.session.participants.allowed(pid):
            raise Forbidden(f"participant id {pid} is not on the list of this study")
        player = self._players.get(pid)
        if player is None:
            player, works = self._create(pid, fields)
        else:
            works = [partial(PlayStore.set_tab, participant=pid, tab=player.next_tab())]
        player.active_ms = now_ms()
        reply = {"state": self._state(player)}
        if self.tokens:
            reply["token"] = player.token
        return reply, works

    def _on_state(self, body: dict) -> tuple[dict, list[Work]]:
        return {"state": self._state(self._known(body))}, []

    def _on_consent(self, body: dict) -> tuple[dict, list[Work]]:
        player = self._known(body)
        agree = body.get("agree")
        if not isinstance(agree, bool):
            raise BadRequest(f"agree: {short(agree, 40)} (allowed: true, false)")
        if self.session.pages.consent is None:
            raise Conflict("this session asks for no consent")
        if player.consent is not None:
            if player.consent == agree:
                return {"state": self._state(player)}, []
            raise Conflict(f"consent was already {'given' if player.consent else 'declined'}")
        player.consent = agree
        when = player.active_ms = now_ms()
        return ({"state": self._state(player)},
                [partial(PlayStore.set_consent, participant=player.id, agree=agree, when=when)])

    def _on_answer(self, body: dict) -> tuple[dict, list[Work]]:
        player = self._known(body)
        answers = body.get("answers")
        if player.phase(self.session) != QUESTIONS:
            if isinstance(answers, dict) and answers and all(
                    k in player.answers and player.answers[k] == v for k, v in answers.items()):
                return {"state": self._state(player)}, []       # a resend
            raise Conflict("no questions are asked now")
        when = START if player.pending_questions(self.session, START) else END
        stored = check_answers(player.pending_questions(self.session, when), answers)
        player.answers.update(stored)
        moment = player.active_ms = now_ms()
        return ({"state": self._state(player)},
                [partial(PlayStore.insert_answers, participant=player.id, answers=stored,
                         when=moment)])

    def _on_start(self, body: dict) -> tuple[dict, list[Work]]:
        player = self._known(body)
        client_ms = _client_ms(body)
        current = self._current(player, body.get("maze"))
        log = player.log(current.id)
        works: list[Work] = []
        if not log.started:
            log.started = True
            self._waiting.pop(player.id, None)
            player.active_ms = now_ms()
            row = ProgressRow(player.id, current.id, player.index, player.active_ms, client_ms,
                              None)
            works.append(partial(PlayStore.start_maze, row=row))
        return {"state": self._state(player)}, works

    def _on_move(self, body: dict) -> tuple[dict, list[Work]]:
        player = self._known(body)
        seq = _count(body, "seq", MAX_MOVES_PER_MAZE)
        client_ms = _client_ms(body)
        maze_id, direction = body.get("maze"), body.get("direction")
        done = player.logs.get(maze_id) if isinstance(maze_id, str) else None
        if done is not None and seq <= len(done.moves):
            if done.moves[seq - 1] != direction:
                raise Conflict(f"move {seq} of {maze_id} was already {done.moves[seq - 1]}")
            return {"status": DUPLICATE, "state": self._state(player)}, []
        current, log = self._playing(player, maze_id)
        if seq != len(log.moves) + 1:
            raise Conflict(f"move {seq} out of order (expected {len(log.moves) + 1})")
        source = player.positions[-1]
        target = step(source, _direction(direction))
        if not current.maze.is_passage(target):
            raise Unprocessable(f"move {seq}: {direction} runs into a wall")
        when = player.active_ms = now_ms()
        row = MoveRow(seq, source, target, direction, when, client_ms)
        works: list[Work] = [partial(PlayStore.insert_move, participant=player.id,
                                     maze_id=current.id, row=row)]
        log.moves.append(direction)
        player.walk_to(current, target)
        if target == current.maze.goal:
            log.finished = True
            works.append(partial(PlayStore.finish_maze, participant=player.id,
                                 maze_id=current.id, when=when))
            if self.trial_writer is not None and not current.practice:
                works.append(partial(self.trial_writer, player=player, maze=current,
                                     positions=list(player.positions)))
            player.last = {"id": current.id, "moves": seq, "practice": current.practice}
            player.enter(self.session, player.index + 1)
        return {"status": ACCEPTED, "state": self._state(player)}, works

    def _on_bump(self, body: dict) -> tuple[dict, list[Work]]:
        player = self._known(body)
        number = _count(body, "bump", MAX_BUMPS_PER_MAZE)
        seq = _count(body, "seq", MAX_MOVES_PER_MAZE)
        client_ms = _client_ms(body)
        maze_id, direction = body.get("maze"), body.get("direction")
        done = player.logs.get(maze_id) if isinstance(maze_id, str) else None
        if done is not None and number <= len(done.bumps):
            if done.bumps[number - 1] != (seq, direction):
                was_seq, was = done.bumps[number - 1]
                raise Conflict(f"bump {number} of {maze_id} was already {was} before move "
                               f"{was_seq}")
            return {"status": DUPLICATE, "state": self._state(player)}, []
        current, log = self._playing(player, maze_id)
        if number != len(log.bumps) + 1:
            raise Conflict(f"bump {number} out of order (expected {len(log.bumps) + 1})")
        if seq != len(log.moves) + 1:
            raise Conflict(f"bump {number} before move {seq}: the next move is "
                           f"{len(log.moves) + 1}")
        cell = player.positions[-1]
        if current.maze.is_passage(step(cell, _direction(direction))):
            raise Unprocessable(f"bump {number}: {direction} is open (send a move)")
        when = player.active_ms = now_ms()
        log.bumps.append((seq, direction))
        row = BumpRow(number, seq, cell, direction, when, client_ms)
        return ({"status": ACCEPTED, "state": self._state(player)},
                [partial(PlayStore.insert_bump, participant=player.id, maze_id=current.id,
                         row=row)])

    # -- helpers ------------------------------------------------------------------------------
    def _known(self, body: dict, check_tab: bool = True) -> Player:
        """The participant a request names, checked: a valid id that has joined, its token when
        the entry needs one, and the current tab when the request names one."""
        try:
            pid = check_participant(body.get("participant"))
        except ConfigError as err:
            raise BadRequest(str(err)) from None
        player = self._players.get(pid)
        if self.tokens:
            expected = player.token if player else participant_token(self.session.seed, pid)
            if not tokens_match(body.get("token"), expected):
                raise Forbidden(f"token: wrong or missing for participant {pid}")
        if player is None:
            raise Conflict(f"participant {pid} has not joined")
        tab = body.get("tab")
        if check_tab and tab is not None:
            if isinstance(tab, bool) or not isinstance(tab, int) or not 1 <= tab <= MAX_TAB:
                raise BadRequest(f"tab: {short(tab, 40)} (allowed: the tab number of the last "
                                 "join)")
            if tab != player.tab:
                raise StaleTab("this session is open in another tab or window (reload this one "
                               "to continue here)")
        return player

    def _current(self, player: Player, maze_id: Any) -> PlayMaze:
        phase = player.phase(self.session)
        if phase == DONE:
            raise Conflict(f"participant {player.id} has finished the session")
        if phase not in (READY, PLAYING):
            raise Conflict(f"participant {player.id} is at {phase}, not at a maze")
        current = player.order[player.index]
        if maze_id != current:
            raise Conflict(f"maze: {short(maze_id, 64)} is not the current maze ({current})")
        return self.session.maze(current)

    def _playing(self, player: Player, maze_id: Any) -> tuple[PlayMaze, MazeLog]:
        current = self._current(player, maze_id)
        log = player.log(current.id)
        if not log.started:
            raise Conflict(f"maze {current.id} has not been started")
        return current, log

    def _check_rejoin(self, pid: str, fields: dict[str, str], token: Any) -> None:
        """A Prolific id that joined before enters again only with its token or the STUDY_ID
        and SESSION_ID it first came with (another session of that id is someone else)."""
        player = self._players.get(pid)
        if player is None or tokens_match(token, player.token) or all(
                hmac.compare_digest(fields[k].encode(), player.entry.get(k, "").encode())
                for k in _PROOF_FIELDS):
            return
        raise Forbidden(f"prolific: participant {pid} started this study in another session "
                        "(SESSION_ID); open the study from Prolific again, or contact the "
                        "researcher")

    def _create(self, pid: str, fields: dict[str, str]) -> tuple[Player, list[Work]]:
        if len(self._players) >= MAX_PARTICIPANTS:
            raise Conflict(f"this session is full ({MAX_PARTICIPANTS:,} participants)")
        pilot = self.session.participants.is_pilot(pid)
        joined = now_ms()
        if self.session.participants.open and not pilot:
            self._admit(pid, joined)
        order = tuple(self.session.order_of(pid, self._ranks[pilot]))
        self._ranks[pilot] += 1
        row = ParticipantRow(pid, len(self._players), pilot, order, fields, joined, 1, None)
        player = self._players[pid] = new_player(self.session, row)
        player.enter(self.session, 0)
        return player, [partial(PlayStore.insert_participant, row=row)]

    def _admit(self, pid: str, joined: int) -> None:
        """Count a new participant of an open entry as waiting, or refuse them (TooMany) when
        the waiting room is full."""
        cutoff = joined - WAITING_SECONDS * 1000
        while self._waiting and next(iter(self._waiting.values())) < cutoff:
            del self._waiting[next(iter(self._waiting))]
        room = max(MAX_WAITING, self.session.participants.expected or 0)
        if len(self._waiting) >= room:
            raise TooMany(f"the study is busy: {room:,} people joined in the last "
                          f"{WAITING_SECONDS // 60} minutes and have not started yet; please "
                          "try again in a few minutes")
        self._waiting[pid] = joined

    def _state(self, player: Player) -> dict[str, Any]:
        phase = player.phase(self.session)
        state: dict[str, Any] = {"participant": player.id, "phase": phase, "tab": player.tab,
                                 "index": player.index, "total": len(player.order),
                                 "last": player.last}
        pages = self.session.pages
        if phase == CONSENT:
            state["page"] = pages.consent
        elif phase == QUESTIONS:
            when = START if player.pending_questions(self.session, START) else END
            state["questions"] = [q.to_page() for q in
                                  player.pending_questions(self.session, when)]
        elif phase == DONE:
            state["page"] = pages.debrief
            state["completion"] = self.session.completion.to_page()
        elif phase in (READY, PLAYING):
            current = self.session.maze(player.order[player.index])
            log = player.log(current.id)
            group = self.session.practice if current.practice else self.session.mazes
            state.update(seq=len(log.moves) + 1, moves=len(log.moves), bumps=len(log.bumps),
                         maze={"id": current.id, "practice": current.practice,
                               "vision": current.vision.to_config(),
                               "number": group.index(current) + 1, "of": len(group)})
            if phase == PLAYING:
                state["view"] = player.view(current)
            elif pages.instructions is not None:
                state["page"] = pages.instructions
        return state


def _count(body: dict, key: str, high: int) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise BadRequest(f"{key}: {short(value, 40)} (allowed: an integer from 1 to {high:,})")
    return value


def _client_ms(body: dict) -> float | None:
    """The client's timestamp `t` (epoch milliseconds), or None when not sent."""
    value = body.get("t")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0 <= value <= MAX_CLIENT_MS):                  # NaN and huge integers fail too
        raise BadRequest(f"t: {short(value, 40)} (allowed: milliseconds from 0 to 2^53)")
    return float(value)


def _direction(direction: Any) -> str:
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise Unprocessable(f"direction: {short(direction, 40)} (allowed: "
                            f"{', '.join(DIRECTIONS)})")
    return direction
