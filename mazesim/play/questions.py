"""Questions of a session (free text, a choice, a number), asked once per participant.

    questions:
      - {id: age, kind: number, text: "Your age in years", min: 18, max: 99, integer: true}
      - {id: hand, kind: choice, text: "Which hand did you use?", options: [left, right]}
      - {id: strategy, kind: text, text: "How did you look for the goal?", required: false}

Each question is asked at the `start` (after consent, before the first maze) or at the `end`
(after the last maze; the default). The answers of one group arrive together and are checked
here; an optional question left out is stored as null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mazesim.play.refusals import Unprocessable
from mazesim.schema import Reader, short

__all__ = ["KINDS", "WHEN", "START", "END", "MAX_QUESTIONS", "MAX_TEXT_ANSWER", "Question",
           "parse_questions", "check_answers"]

TEXT, CHOICE, NUMBER = "text", "choice", "number"
KINDS = (TEXT, CHOICE, NUMBER)
START, END = "start", "end"
WHEN = (START, END)
MAX_QUESTIONS = 100
MAX_OPTIONS = 50
MAX_TEXT_ANSWER = 10_000
"""Longest free-text answer (characters); a question's `max_length` (default 1,000) is below."""
DEFAULT_TEXT_ANSWER = 1000
MAX_PROMPT = 2000
_KEYS = ("id", "kind", "text", "when", "required", "options", "min", "max", "integer",
         "max_length")
NUMBER_LIMIT = 1e15
"""Largest magnitude of a number answer or bound (exact in a double; no overflow)."""


@dataclass(frozen=True)
class Question:
    """One question; `low`/`high` bound a number answer, `max_length` a text answer."""

    id: str
    kind: str
    text: str
    when: str = END
    required: bool = True
    options: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    integer: bool = False
    max_length: int = DEFAULT_TEXT_ANSWER

    def to_page(self) -> dict[str, Any]:
        """What the page needs to show the question."""
        page: dict[str, Any] = {"id": self.id, "kind": self.kind, "text": self.text,
                                "required": self.required}
        if self.kind == CHOICE:
            page["options"] = list(self.options)
        elif self.kind == NUMBER:
            page.update(min=self.low, max=self.high, integer=self.integer)
        else:
            page["max_length"] = self.max_length
        return page

    def to_config(self) -> dict[str, Any]:
        """The resolved config entry: the page's fields and when it is asked."""
        return {**self.to_page(), "when": self.when}

    def answer(self, value: Any) -> Any:
        """The stored form of an answer (None when left out); Unprocessable naming the question."""
        if value is None or (isinstance(value, str) and not value.strip()):
            if self.required:
                raise Unprocessable(f"answers.{self.id}: required")
            return None
        if self.kind == TEXT:
            if not isinstance(value, str) or len(value) > self.max_length:
                raise Unprocessable(f"answers.{self.id}: {short(value)} (allowed: text of at "
                                    f"most {self.max_length:,} characters)")
            return value
        if self.kind == CHOICE:
            if value not in self.options:
                raise Unprocessable(f"answers.{self.id}: {short(value)} (allowed: "
                                    f"{', '.join(self.options)})")
            return value
        ok = (not isinstance(value, bool) and isinstance(value, (int, float))
              and -NUMBER_LIMIT <= value <= NUMBER_LIMIT
              and (self.low is None or value >= self.low)
              and (self.high is None or value <= self.high)
              and (not self.integer or float(value).is_integer()))
        if not ok:
            kind = "an integer" if self.integer else "a number"
            low = "" if self.low is None else f" from {self.low:g}"
            high = "" if self.high is None else f" to {self.high:g}"
            raise Unprocessable(f"answers.{self.id}: {short(value)} (allowed: {kind}{low}{high})")
        return int(value) if self.integer else value


def parse_questions(reader: Reader, data: Any) -> tuple[Question, ...]:
    """The `questions` list of a session; errors name the key path."""
    items = reader.listing(data, "questions", "questions", nonempty=False,
                           max_items=MAX_QUESTIONS)
    questions = []
    for i, item in enumerate(items):
        path = f"questions[{i}]"
        item = reader.mapping(item, path, _KEYS, required=("id", "kind", "text"))
        question_id = reader.name(item["id"], f"{path}.id")
        if question_id in {q.id for q in questions}:
            raise reader.fail(f"{path}.id", f"{question_id!r} is used twice")
        kind = reader.choice(item["kind"], f"{path}.kind", KINDS, "a question kind")
        allowed = {TEXT: ("max_length",), CHOICE: ("options",),
                   NUMBER: ("min", "max", "integer")}[kind]
        for key in ("options", "min", "max", "integer", "max_length"):
            if key in item and key not in allowed:
                raise reader.fail(f"{path}.{key}", f"not a key of a {kind} question")
        options: tuple[str, ...] = ()
        if kind == CHOICE:
            raw = reader.listing(item.get("options"), f"{path}.options", "options",
                                 max_items=MAX_OPTIONS)
            options = tuple(reader.text(o, f"{path}.options[{j}]", MAX_PROMPT)
                            for j, o in enumerate(raw))
        low, high = (None if item.get(k) is None else
                     reader.number(item[k], f"{path}.{k}", -NUMBER_LIMIT, NUMBER_LIMIT)
                     for k in ("min", "max"))
        if low is not None and high is not None and low > high:
            raise reader.fail(f"{path}.min", f"{low:g} is above max {high:g}")
        questions.append(Question(
            question_id, kind, reader.text(item["text"], f"{path}.text", MAX_PROMPT),
            reader.choice(item.get("when", END), f"{path}.when", WHEN, "a time to ask"),
            reader.flag(item.get("required", True), f"{path}.required"), options, low, high,
            reader.flag(item.get("integer", False), f"{path}.integer"),
            reader.integer(item.get("max_length", DEFAULT_TEXT_ANSWER), f"{path}.max_length", 1,
                           MAX_TEXT_ANSWER)))
    return tuple(questions)


def check_answers(questions: tuple[Question, ...], answers: Any) -> dict[str, Any]:
    """The stored answers of one group of questions ({id: value or None})."""
    if not isinstance(answers, dict):
        raise Unprocessable(f"answers: {short(answers)} (allowed: an object of question ids)")
    ids = [q.id for q in questions]
    for key in answers:
        if key not in ids:
            raise Unprocessable(f"answers.{short(key, 40)}: not a question here (allowed: "
                                f"{', '.join(ids)})")
    return {q.id: q.answer(answers.get(q.id)) for q in questions}
