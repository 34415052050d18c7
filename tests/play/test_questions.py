"""Session questions: the config block, and every answer checked with its question named."""

from __future__ import annotations

import pytest

from mazesim.errors import ConfigError
from mazesim.play.questions import Question, check_answers, parse_questions
from mazesim.play.refusals import Unprocessable
from mazesim.schema import Reader

QUESTIONS = [
    {"id": "age", "kind": "number", "text": "Your age", "min": 18, "max": 99, "integer": True,
     "when": "start"},
    {"id": "hand", "kind": "choice", "text": "Hand?", "options": ["left", "right"]},
    {"id": "notes", "kind": "text", "text": "Anything else?", "required": False,
     "max_length": 10},
]


def parse(data):
    return parse_questions(Reader("play.yaml"), data)


def test_parsed_questions():
    age, hand, notes = parse(QUESTIONS)
    assert age == Question("age", "number", "Your age", "start", True, (), 18.0, 99.0, True)
    assert hand.when == "end" and hand.options == ("left", "right")
    assert notes.to_page() == {"id": "notes", "kind": "text", "text": "Anything else?",
                               "required": False, "max_length": 10}
    assert age.to_config() == {"id": "age", "kind": "number", "text": "Your age",
                               "required": True, "min": 18.0, "max": 99.0, "integer": True,
                               "when": "start"}


@pytest.mark.parametrize("entry, message", [
    ({"id": "a", "kind": "essay", "text": "t"}, r"questions\[0\].kind: 'essay' is not a "
                                                r"question kind \(allowed: text, choice, number"),
    ({"id": "a", "kind": "text", "text": "t", "options": ["x"]},
     r"questions\[0\].options: not a key of a text question"),
    ({"id": "a", "kind": "choice", "text": "t"}, r"questions\[0\].options: None"),
    ({"id": "a", "kind": "number", "text": "t", "min": 5, "max": 1},
     r"questions\[0\].min: 5 is above max 1"),
    ({"id": "a", "kind": "number", "text": "t", "when": "later"},
     r"questions\[0\].when: 'later' is not a time to ask"),
    ({"kind": "text", "text": "t"}, r"questions\[0\].id: missing"),
    ({"id": "../x", "kind": "text", "text": "t"}, r"questions\[0\].id: '../x'"),
])
def test_errors_name_the_key(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse([entry])


def test_duplicate_ids():
    with pytest.raises(ConfigError, match=r"questions\[1\].id: 'a' is used twice"):
        parse([{"id": "a", "kind": "text", "text": "t"}] * 2)


def test_answers_are_checked():
    questions = parse(QUESTIONS)
    assert check_answers(questions, {"age": 30.0, "hand": "left"}) == {
        "age": 30, "hand": "left", "notes": None}
    assert check_answers(questions, {"age": 30, "hand": "left", "notes": " "})["notes"] is None
    for answers, message in [
        ({"hand": "left"}, "answers.age: required"),
        ({"age": 17, "hand": "left"}, r"answers.age: 17 \(allowed: an integer from 18 to 99\)"),
        ({"age": 30.5, "hand": "left"}, "answers.age: 30.5"),
        ({"age": True, "hand": "left"}, "answers.age: True"),
        ({"age": float("nan"), "hand": "left"}, "answers.age: nan"),
        ({"age": 10**400, "hand": "left"}, "answers.age: 1000"),
        ({"age": 30, "hand": "both"}, r"answers.hand: 'both' \(allowed: left, right\)"),
        ({"age": 30, "hand": "left", "notes": "x" * 11},
         r"answers.notes: 'xxxxxxxxxxx' \(allowed: text of at most 10 characters\)"),
        ({"age": 30, "hand": "left", "other": 1},
         r"answers.'other': not a question here \(allowed: age, hand, notes\)"),
        ([1], r"answers: \[1\] \(allowed: an object of question ids\)"),
    ]:
        with pytest.raises(Unprocessable, match=message):
            check_answers(questions, answers)
