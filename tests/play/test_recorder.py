"""The recorder's way through a session (no HTTP): consent, questions, orders, pilots, entry by
link or Prolific, tokens, tabs, the known map, restarts, ceilings."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazesim.play import recorder as recorder_module
from mazesim.play.entry import participant_token
from mazesim.play.refusals import (BadRequest, Conflict, Forbidden, PlayError, StaleTab,
                                   TooMany, Unprocessable)
from mazesim.play.run import open_run

from tests.play.conftest import CORRIDOR, TUTORIAL

STRONG_SEED = 2**62 + 12345
QUESTIONS = [
    {"id": "hand", "kind": "choice", "text": "Hand?", "options": ["left", "right"],
     "when": "start"},
    {"id": "age", "kind": "number", "text": "Age", "min": 18, "integer": True},
    {"id": "notes", "kind": "text", "text": "Notes", "required": False},
]


@pytest.fixture
def opened():
    recorders = []

    def open_(session):
        recorders.append(open_run(session))
        return recorders[-1]

    yield open_
    for r in recorders:
        r.store.close()


@pytest.fixture
def consent_page(tmp_path):
    (tmp_path / "consent.md").write_text("# Consent\n\nYou **may** stop.", encoding="utf-8")
    (tmp_path / "debrief.md").write_text("Thanks.", encoding="utf-8")
    return {"consent": "consent.md", "debrief": "debrief.md"}


def _rows(rec, sql):
    with sqlite3.connect(rec.store.path) as db:
        return db.execute(sql).fetchall()


def _walk(rec, participant, maze, directions, **auth):
    for seq, d in enumerate(directions, 1):
        status, state = rec.move(participant, maze, seq, d, **auth)
        assert status == "accepted"
    return state


def test_consent_questions_mazes_and_the_end(session_factory, opened, consent_page):
    rec = opened(session_factory([(CORRIDOR, "full")], pages=consent_page,
                                 questions=QUESTIONS, completion={"code": "DONE-1"}))
    state = rec.join("p1")
    assert state["phase"] == "consent" and state["page"] == (
        "<h1>Consent</h1>\n<p>You <strong>may</strong> stop.</p>")
    with pytest.raises(Conflict, match="participant p1 is at consent, not at a maze"):
        rec.start("p1", "m0")
    with pytest.raises(BadRequest, match="agree: 'yes' .allowed: true, false"):
        rec.consent("p1", "yes")
    state = rec.consent("p1", True)
    assert state["phase"] == "questions" and [q["id"] for q in state["questions"]] == ["hand"]
    assert rec.consent("p1", True)["phase"] == "questions"          # a resend
    with pytest.raises(Conflict, match="consent was already given"):
        rec.consent("p1", False)
    with pytest.raises(Unprocessable, match="answers.hand: 'both'"):
        rec.answer("p1", {"hand": "both"})
    state = rec.answer("p1", {"hand": "left"})
    assert state["phase"] == "ready" and "page" not in state
    assert rec.answer("p1", {"hand": "left"})["phase"] == "ready"   # a resend
    with pytest.raises(Conflict, match="no questions are asked now"):
        rec.answer("p1", {"hand": "right"})
    rec.start("p1", "m0")
    state = _walk(rec, "p1", "m0", ["right"] * 3)
    assert state["phase"] == "questions" and [q["id"] for q in state["questions"]] == [
        "age", "notes"]
    assert "completion" not in state                               # only once all is done
    state = rec.answer("p1", {"age": 40})
    assert state["phase"] == "done" and state["page"] == "<p>Thanks.</p>"
    assert state["completion"] == {"code": "DONE-1", "redirect": None}
    stored = _rows(rec, "SELECT question, value FROM play_answers ORDER BY question")
    assert stored == [("age", "40"), ("hand", '"left"'), ("notes", "null")]


def test_declining_ends_the_session(session_factory, opened, consent_page):
    rec = opened(session_factory([(CORRIDOR, "full")], pages=consent_page))
    rec.join("p1")
    state = rec.consent("p1", False)
    assert state["phase"] == "declined" and "page" not in state and "completion" not in state
    with pytest.raises(Conflict, match="at declined, not at a maze"):
        rec.start("p1", "m0")
    assert _rows(rec, "SELECT consent FROM play_participants") == [(0,)]


def test_latin_orders_by_join_order_with_pilots_apart(session_factory, opened):
    mazes = [(CORRIDOR, "full")] * 3
    rec = opened(session_factory(mazes, order="latin", participants={"pilot": ["pilot"]}))
    orders = {p: tuple(rec.join(p) and rec._players[p].order) for p in
              ("a", "pilot", "b", "c", "d")}
    assert orders == {"a": ("m0", "m1", "m2"), "pilot": ("m0", "m1", "m2"),
                      "b": ("m1", "m2", "m0"), "c": ("m2", "m0", "m1"), "d": ("m2", "m1", "m0")}
    stored = _rows(rec, "SELECT participant, number, pilot, maze_order FROM "
                              "play_participants ORDER BY number")
    assert stored[1] == ("pilot", 1, 1, '["m0", "m1", "m2"]')
    rec.store.close()
    again = opened(session_factory(mazes, order="latin", participants={"pilot": ["pilot"]}))
    assert again.join("e") and again._players["e"].order == ("m0", "m2", "m1")  # row 4 of 6


def test_pilot_trials_are_stored_apart(session_factory, opened):
    rec = opened(session_factory([(CORRIDOR, "full")], participants={"pilot": ["me"]}))
    for p in ("me", "p1"):
        rec.join(p)
        rec.start(p, "m0")
        _walk(rec, p, "m0", ["right"] * 3)
    assert _rows(rec, "SELECT agent, trial, seed, participant FROM trials ORDER BY "
                 "trial_id") == [("human-pilot", 0, "", "me"), ("human", 0, "", "p1")]
    assert "numpy" in (rec.store.path.parent / "environment.json").read_text(encoding="utf-8")


def test_allowed_ids(session_factory, opened):
    rec = opened(session_factory([(CORRIDOR, "full")], participants={"ids": ["P1"],
                                                                     "pilot": ["T"]}))
    assert rec.join("P1")["phase"] == "ready" and rec.join("T")["phase"] == "ready"
    with pytest.raises(Forbidden, match="participant id P2 is not on the list of this study"):
        rec.join("P2")


def test_links_carry_tokens(session_factory, opened):
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "link", "generate": 3}))
    token = participant_token(STRONG_SEED, "P2")
    assert rec.join(token=token)["participant"] == "P2"
    reply = rec.call("join", {"token": token})
    assert reply["token"] == token and reply["state"]["participant"] == "P2"
    with pytest.raises(Forbidden, match="token: this link is not valid"):
        rec.call("join", {"token": "0" * 32})
    with pytest.raises(Forbidden, match="token: this link is not valid"):
        rec.call("join", {"token": ["x"]})
    with pytest.raises(Forbidden, match="token: wrong or missing for participant P2"):
        rec.start("P2", "m0")
    with pytest.raises(Forbidden, match="token: wrong or missing for participant P1"):
        rec.state("P1", token=token)                        # someone else's token
    assert rec.start("P2", "m0", token=token)["phase"] == "playing"
    again = rec.call("join", {"participant": "P2", "token": token})      # a reload
    assert again["state"]["tab"] == 3


def test_prolific_entry_stores_its_ids(session_factory, opened):
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "prolific"},
                                 completion={"redirect": "https://app.prolific.com/x?cc=C1"}))
    query = {"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4", "STUDY_ID": "s-1", "SESSION_ID": "x9"}
    reply = rec.call("join", {"prolific": query})
    pid = query["PROLIFIC_PID"]
    assert reply["state"]["participant"] == pid
    assert reply["token"] == participant_token(STRONG_SEED, pid)
    with pytest.raises(BadRequest, match="prolific: STUDY_ID: required"):
        rec.call("join", {"prolific": {**query, "STUDY_ID": None}})
    with pytest.raises(Forbidden, match="token: wrong or missing for participant typed"):
        rec.join("typed")                                  # typed ids cannot enter
    token = reply["token"]
    rec.start(pid, "m0", token=token)
    state = _walk(rec, pid, "m0", ["right"] * 3, token=token)
    assert state["completion"] == {"code": None, "redirect": "https://app.prolific.com/x?cc=C1"}
    assert _rows(rec, "SELECT entry FROM play_participants") == [
        ('{"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4", "STUDY_ID": "s-1", "SESSION_ID": "x9"}',)]


def test_a_new_tab_makes_the_old_one_stale(session_factory, opened):
    rec = opened(session_factory([(CORRIDOR, "full")]))
    old = rec.join("p1")["tab"]
    new = rec.join("p1")["tab"]
    with pytest.raises(StaleTab, match="open in another tab"):
        rec.state("p1", tab=old)
    assert rec.state("p1", tab=new)["tab"] == new
    rec.store.close()
    assert opened(session_factory([(CORRIDOR, "full")])).state("p1", tab=new)["tab"] == new


def test_the_known_map_accumulates_what_was_seen(session_factory, opened):
    rec = opened(session_factory([(TUTORIAL, {"window": 1, "map": "known"}),
                                  (TUTORIAL, {"window": 1, "map": "known", "memory": False})]))
    rec.join("p1")
    rec.start("p1", "m0")
    state = _walk(rec, "p1", "m0", ["right", "right"])
    assert state["view"]["seen"][:3] == ["1111100000000", "1111100000000", "1111100000000"]
    rec.store.close()
    rec = opened(session_factory([(TUTORIAL, {"window": 1, "map": "known"}),
                                  (TUTORIAL, {"window": 1, "map": "known", "memory": False})]))
    assert rec.state("p1")["view"]["seen"] == state["view"]["seen"]      # rebuilt at open
    _walk_from = rec.move("p1", "m0", 3, "right")[1]
    assert _walk_from["view"]["seen"][0] == "1111110000000"


def test_forgetting_shows_the_current_sight_only(session_factory, opened):
    rec = opened(session_factory([(TUTORIAL, {"window": 1, "map": "known", "memory": False})]))
    rec.join("p1")
    rec.start("p1", "m0")
    state = _walk(rec, "p1", "m0", ["right", "right"])
    assert state["view"]["seen"][:3] == ["0011100000000", "0011100000000", "0011100000000"]


def test_ceilings(session_factory, opened, monkeypatch):
    rec = opened(session_factory([(CORRIDOR, "full")]))
    monkeypatch.setattr(recorder_module, "MAX_PARTICIPANTS", 2)
    rec.join("a")
    rec.join("b")
    with pytest.raises(Conflict, match="this session is full .2 participants"):
        rec.join("c")
    assert rec.join("a")["participant"] == "a"                      # the joined still can
    with pytest.raises(BadRequest, match="tab: 0 .allowed: the tab number"):
        rec.state("a", tab=0)
    with pytest.raises(BadRequest, match=r"no action 'dance' \(allowed: join, state"):
        rec.call("dance", {})


_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 30),
                    st.sampled_from([10**30, 10**400, -10**400, 2**53, 2**63, 1e308]),
                    st.floats(allow_nan=True), st.text(max_size=8),
                    st.sampled_from(["p1", "m0", "right", "up", "left", "down"]))
_JSON = st.one_of(_SCALAR, _SCALAR, st.recursive(
    _SCALAR, lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6))
_FIELDS = ("participant", "maze", "seq", "bump", "direction", "t", "tab", "token", "agree",
           "answers", "prolific")


@pytest.fixture
def fuzzed(session_factory, opened):
    """One recorder for every example of a hypothesis test (its state grows as they run)."""
    rec = opened(session_factory([(TUTORIAL, 1)], questions=[
        {"id": "age", "kind": "number", "text": "Age", "when": "start"}]))
    rec.join("p1")
    rec.answer("p1", {"age": 30})
    rec.start("p1", "m0")
    return rec


_VALID = {"participant": "p1", "maze": "m0", "seq": 1, "bump": 1, "direction": "right",
          "t": 1.7e12, "tab": 1, "agree": True, "answers": {"age": 30}}


@pytest.mark.parametrize("action", recorder_module.ACTIONS)
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changed=st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=2))
def test_any_json_body_is_answered_or_refused_in_one_line(fuzzed, action, changed):
    """A valid request with any one or two fields replaced by any JSON is answered, or refused
    with a one-line PlayError; it never fails otherwise (no OverflowError, TypeError, ...)."""
    body = {**_VALID, **changed}
    try:
        reply = fuzzed.call(action, body)
    except PlayError as err:
        assert "\n" not in str(err) and len(str(err)) < 300
    else:
        assert isinstance(reply, dict) and "state" in reply
    assert fuzzed.store.failure is None


PROLIFIC = {"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4", "STUDY_ID": "s-1", "SESSION_ID": "x9"}


def test_a_prolific_rejoin_must_bring_the_same_session_or_the_token(session_factory, opened):
    """Issue 23, point 1: the victim's PROLIFIC_PID with another STUDY_ID or SESSION_ID was
    answered with the victim's token; now 403, and the victim's tab stays theirs."""
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "prolific"}))
    victim = rec.call("join", {"prolific": PROLIFIC})
    pid, token, tab = PROLIFIC["PROLIFIC_PID"], victim["token"], victim["state"]["tab"]
    rec.start(pid, "m0", token=token, tab=tab)
    for changed in ({"SESSION_ID": "attacker"}, {"STUDY_ID": "other"},
                    {"STUDY_ID": "other", "SESSION_ID": "attacker"}):
        with pytest.raises(Forbidden, match=f"prolific: participant {pid} started this study in "
                                            "another session .SESSION_ID.; open the study"):
            rec.call("join", {"prolific": {**PROLIFIC, **changed}})
        with pytest.raises(Forbidden):
            rec.call("join", {"prolific": {**PROLIFIC, **changed}, "token": "0" * 32})
    assert rec.move(pid, "m0", 1, "right", token=token, tab=tab)[0] == "accepted"   # no 409
    assert _rows(rec, "SELECT tab FROM play_participants") == [(tab,)]
    again = rec.call("join", {"prolific": PROLIFIC})               # the same session: a reload
    assert again["token"] == token and again["state"]["seq"] == 2
    proven = rec.call("join", {"prolific": {**PROLIFIC, "SESSION_ID": "new"}, "token": token})
    assert proven["state"]["tab"] == again["state"]["tab"] + 1
    rec.store.close()
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "prolific"}))
    with pytest.raises(Forbidden, match="another session"):       # kept across a restart
        rec.call("join", {"prolific": {**PROLIFIC, "SESSION_ID": "attacker"}})


def _prolific(i: int) -> dict:
    return {"prolific": {"PROLIFIC_PID": f"fake{i}", "STUDY_ID": "s", "SESSION_ID": f"x{i}"}}


def test_an_open_entry_admits_a_bounded_number_that_never_start(session_factory, opened,
                                                                 monkeypatch):
    """Issue 23, point 2: made-up Prolific ids filled the session. New participants who have
    not started a maze are at most MAX_WAITING within WAITING_SECONDS; starting frees a place,
    and so does time."""
    monkeypatch.setattr(recorder_module, "MAX_WAITING", 5)
    clock = [1_700_000_000_000]
    monkeypatch.setattr(recorder_module, "now_ms", lambda: clock[0])
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "prolific", "pilot": ["pilot"]}))
    tokens = [rec.call("join", _prolific(i))["token"] for i in range(5)]
    with pytest.raises(TooMany, match="the study is busy: 5 people joined in the last 10 "
                                      "minutes and have not started yet"):
        rec.call("join", _prolific(5))
    assert rec.call("join", {"prolific": {"PROLIFIC_PID": "pilot", "STUDY_ID": "s",
                                          "SESSION_ID": "p"}})["state"]["phase"] == "ready"
    assert rec.call("join", _prolific(0))["token"] == tokens[0]     # the joined come back
    rec.start("fake0", "m0", token=tokens[0])                       # one starts: a place
    rec.call("join", _prolific(5))
    with pytest.raises(TooMany):
        rec.call("join", _prolific(6))
    clock[0] += recorder_module.WAITING_SECONDS * 1000 + 1          # the window passes
    assert [rec.call("join", _prolific(i))["state"]["participant"] for i in (6, 7)] == [
        "fake6", "fake7"]
    assert len(rec.store.participants()) == 9
    rec.store.close()
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                 participants={"entry": "prolific", "pilot": ["pilot"]}))
    for i in (8, 9, 10):                         # a restart counts the waiting ones again
        rec.call("join", _prolific(i))
    with pytest.raises(TooMany):
        rec.call("join", _prolific(11))


def test_the_expected_count_keeps_room_and_listed_ids_are_not_capped(session_factory, opened,
                                                                       monkeypatch):
    monkeypatch.setattr(recorder_module, "MAX_WAITING", 2)
    rec = opened(session_factory([(CORRIDOR, "full")], seed=STRONG_SEED, output="expected",
                                 participants={"entry": "prolific", "expected": 4}))
    for i in range(4):
        rec.call("join", _prolific(i))
    with pytest.raises(TooMany, match="busy: 4 people"):
        rec.call("join", _prolific(4))
    listed = opened(session_factory([(CORRIDOR, "full")], output="listed",
                                    participants={"generate": 5}))
    assert [listed.join(f"P{i}")["participant"] for i in range(1, 6)] == [
        "P1", "P2", "P3", "P4", "P5"]


def test_a_stored_tab_at_the_int64_ceiling_does_not_break_later_requests(session_factory,
                                                                           opened):
    """Issue 23, point 5: a stored tab of 2^63 - 1 made the next join overflow the database
    (and every later request 503). Tabs stay within 1 to MAX_TAB and wrap to 1."""
    from mazesim.play.player import MAX_TAB

    session = session_factory([(CORRIDOR, "full")])
    rec = opened(session)
    rec.join("p1")
    rec.join("p2")
    rec.store.close()
    with sqlite3.connect(session.output / "results.sqlite") as db:
        db.execute("UPDATE play_participants SET tab = ? WHERE participant = 'p1'", (2**63 - 1,))
        db.execute("UPDATE play_participants SET tab = ? WHERE participant = 'p2'", (MAX_TAB - 1,))
    rec = opened(session)
    assert rec.state("p1")["tab"] == MAX_TAB
    assert rec.join("p1")["tab"] == 1 and rec.state("p1", tab=1)["tab"] == 1
    assert [rec.join("p2")["tab"] for _ in range(3)] == [MAX_TAB, 1, 2]
    assert rec.start("p1", "m0", tab=1)["phase"] == "playing"
    assert rec.move("p1", "m0", 1, "right", tab=1)[0] == "accepted"
    assert rec.store.failure is None
    assert _rows(rec, "SELECT participant, tab FROM play_participants ORDER BY number") == [
        ("p1", 1), ("p2", 2)]
    with pytest.raises(BadRequest, match="tab: 9007199254740993 .allowed"):
        rec.state("p1", tab=MAX_TAB + 1)
