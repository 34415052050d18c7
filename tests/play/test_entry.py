"""The participants block: entry rules, allowed and pilot ids (lists, files, generated), tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from mazesim.errors import ConfigError
from mazesim.play.entry import (PARTICIPANT_MAX_LENGTH, Participants, check_participant,
                                dashboard_key, parse_participants, participant_token,
                                prolific_query, secret, tokens_match)
from mazesim.schema import Reader


def parse(data, base="."):
    return parse_participants(Reader("play.yaml", Path(base)), data)


def test_defaults_and_lists(tmp_path):
    assert parse(None) == Participants("id", (), ())
    assert parse({"ids": ["P1", "P2"], "pilot": ["x"]}) == Participants("id", ("P1", "P2"), ("x",))
    rule = parse({"entry": "link", "generate": 12, "pilot": ["pilot-1", "P03"]})
    assert rule.ids[:2] == ("P01", "P02") and rule.ids[-1] == "P12" and len(rule.ids) == 12
    assert rule.listed == rule.ids + ("pilot-1",)
    assert rule.allowed("P12") and rule.allowed("pilot-1") and not rule.allowed("P13")
    assert rule.is_pilot("P03") and not rule.is_pilot("P04")
    assert Participants().allowed("anyone")
    (tmp_path / "ids.txt").write_text("# lab ids\nA1\n\n  B2  \n", encoding="utf-8")
    assert parse({"ids": "ids.txt"}, tmp_path).ids == ("A1", "B2")
    prolific = parse({"entry": "prolific", "expected": 3000})
    assert prolific.expected == 3000 and prolific.open and not rule.open
    assert prolific.to_config() == {"entry": "prolific", "ids": [], "pilot": [], "expected": 3000}


@pytest.mark.parametrize("data, message", [
    ({"entry": "door"}, r"play.yaml: participants.entry: 'door' is not an entry \(allowed: id, "
                        r"link, prolific\)"),
    ({"ids": ["a"], "generate": 3}, "participants: give ids or generate, not both"),
    ({"generate": 0}, r"participants.generate: 0 \(allowed: an integer from 1 to 10,000\)"),
    ({"entry": "link"}, "participants: entry link needs ids or generate"),
    ({"ids": ["ok", "a b"]}, r"play.yaml: participants.ids\[1\]: participant id: 'a b'"),
    ({"ids": ["a", "a"]}, r"participants.ids\[1\]: participant id 'a' is listed twice"),
    ({"pilot": "none.txt"}, r"participants.pilot: 'none.txt': no such file"),
    ({"idz": []}, r"participants.idz: unknown key; did you mean 'ids'"),
    ({"expected": 0}, r"participants.expected: 0 \(allowed: an integer from 1 to 100,000\)"),
    ({"expected": "many"}, r"participants.expected: 'many' \(allowed: an integer"),
])
def test_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        parse(data)


def test_id_file_errors_name_the_line(tmp_path):
    (tmp_path / "ids.txt").write_text("A1\nB 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ids.txt:2: participant id: 'B 2'"):
        parse({"ids": "ids.txt"}, tmp_path)


def test_tokens_are_seeded_secrets():
    token = participant_token(2**62 + 5, "P01")
    assert len(token) == 32 and int(token, 16) >= 0
    assert token == participant_token(2**62 + 5, "P01")
    assert token != participant_token(2**62 + 6, "P01") != participant_token(2**62 + 5, "P02")
    assert dashboard_key(7) == secret(7, 2) != secret(7, 1)
    assert tokens_match(token, token) and not tokens_match(token[:-1] + "x", token)
    assert not tokens_match(None, token) and not tokens_match(["x"], token)
    assert not tokens_match("é" * 32, token)


def test_prolific_query():
    query = {"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4", "STUDY_ID": "s1", "SESSION_ID": "x-2"}
    assert prolific_query(query) == ("5f1e2d3c4b5a69788796a5b4", query)
    with pytest.raises(ConfigError, match="prolific: SESSION_ID: required"):
        prolific_query({**query, "SESSION_ID": ""})
    with pytest.raises(ConfigError, match=r"prolific: STUDY_ID: 'a/b' \(allowed"):
        prolific_query({**query, "STUDY_ID": "a/b"})
    with pytest.raises(ConfigError, match="prolific: 'x' .allowed: an object with PROLIFIC_PID"):
        prolific_query("x")


@pytest.mark.parametrize("good", ["a", "P-01_x", "9" * PARTICIPANT_MAX_LENGTH])
def test_good_participant_ids(good):
    assert check_participant(good) == good


@pytest.mark.parametrize("bad, message", [
    ("", "required"), (None, "required"), ("a/b", "allowed: letters"), ("x\n", "allowed"),
    ("x" * (PARTICIPANT_MAX_LENGTH + 1), "65 characters"), ("naïve", "allowed"),
])
def test_bad_participant_ids(bad, message):
    with pytest.raises(ConfigError, match=f"participant id: .*{message}"):
        check_participant(bad)
