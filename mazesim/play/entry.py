"""Who may take part, and how they enter: typed ids, personal links with a token, or Prolific.

The `participants` block of a session::

    participants:
      entry: link            # id (typed on the page, the default), link, or prolific
      ids: ids.txt           # allowed ids: a list, or a file with one id a line
      generate: 30           # or generated ids P01 ... P30
      pilot: [pilot-1]       # pilot ids: may enter, are marked, and are left out of reports
      expected: 3000         # how many people the study expects (an open entry keeps room)

`link`: a participant enters only through `URL?t=TOKEN`; `prolific`: through the query Prolific
appends (`PROLIFIC_PID` becomes the id; `STUDY_ID` and `SESSION_ID` are stored, and a later join
with that id must bring the same two, or the participant's token). Tokens and the dashboard key
come from the session seed through `numpy.random.SeedSequence` (the same links on every
restart), so on a public host the seed is the study's secret and must be large.

An open entry (no `ids` or `generate`: anyone with a valid id, or any Prolific id) lets in at
most `recorder.MAX_WAITING` new participants who have not started a maze within
`recorder.WAITING_SECONDS`, or `expected` if that is more: a flood of made-up ids is slowed
down, and the study's own people all fit even if they all come at once.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from mazesim.errors import ConfigError, read_text
from mazesim.schema import Reader, short

__all__ = ["ENTRIES", "ID_ENTRY", "LINK_ENTRY", "PROLIFIC_ENTRY", "PROLIFIC_FIELDS",
           "PARTICIPANT_MAX_LENGTH", "MAX_GENERATED", "MAX_PARTICIPANTS", "MIN_PUBLIC_SEED",
           "Participants",
           "parse_participants", "check_participant", "prolific_query", "secret",
           "participant_token", "dashboard_key", "tokens_match"]

ID_ENTRY, LINK_ENTRY, PROLIFIC_ENTRY = "id", "link", "prolific"
ENTRIES = (ID_ENTRY, LINK_ENTRY, PROLIFIC_ENTRY)
PROLIFIC_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
"""The query of a Prolific study link; the first is the participant id."""
PARTICIPANT_MAX_LENGTH = 64
MAX_GENERATED = 10_000
"""Most generated participant ids (and links) of a session."""
MAX_PARTICIPANTS = 100_000
"""Most participants of a session (about 2.4 KB of memory each), and the largest `expected`."""
MAX_IDS_FILE_BYTES = 1 << 20
MIN_PUBLIC_SEED = 2**62
"""Smallest session seed on a public host: tokens are derived from it, so it must not be
guessable (a random 63-bit number is at least this with probability 1/2)."""
TOKEN_PURPOSE, DASHBOARD_PURPOSE = 1, 2
"""First entropy word after the seed of each secret (shuffled orders use the id's bytes, >= 45)."""
_KEYS = ("entry", "ids", "generate", "pilot", "expected")
_PARTICIPANT_RE = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Participants:
    """The entry rule: `ids` the allowed main participants (empty: any valid id), `pilot` the
    pilot ids (always allowed), `expected` how many people the study expects (or None)."""

    entry: str = ID_ENTRY
    ids: tuple[str, ...] = ()
    pilot: tuple[str, ...] = ()
    expected: int | None = None

    @property
    def listed(self) -> tuple[str, ...]:
        """Every listed id, main ids first: the ids that get links."""
        return self.ids + tuple(p for p in self.pilot if p not in self.ids)

    def allowed(self, participant: str) -> bool:
        return self.open or participant in self.ids or participant in self.pilot

    def is_pilot(self, participant: str) -> bool:
        return participant in self.pilot

    @property
    def open(self) -> bool:
        """Whether ids are not listed: anyone with a valid id (or Prolific id) may join."""
        return not self.ids

    def to_config(self) -> dict[str, Any]:
        return {"entry": self.entry, "ids": list(self.ids), "pilot": list(self.pilot),
                "expected": self.expected}


def parse_participants(reader: Reader, data: Any) -> Participants:
    """The `participants` block (see the module docstring); errors name the key path."""
    if data is None:
        return Participants()
    data = reader.mapping(data, "participants", _KEYS)
    entry = reader.choice(data.get("entry", ID_ENTRY), "participants.entry", ENTRIES,
                          "an entry")
    if "ids" in data and "generate" in data:
        raise reader.fail("participants", "give ids or generate, not both")
    if "generate" in data:
        n = reader.integer(data["generate"], "participants.generate", 1, MAX_GENERATED)
        ids = tuple(f"P{i:0{len(str(n))}d}" for i in range(1, n + 1))
    else:
        ids = _id_list(reader, data.get("ids", []), "participants.ids")
    pilot = _id_list(reader, data.get("pilot", []), "participants.pilot")
    if entry == LINK_ENTRY and not ids + pilot:
        raise reader.fail("participants", "entry link needs ids or generate (the participants "
                          "who get links)")
    expected = data.get("expected")
    if expected is not None:
        expected = reader.integer(expected, "participants.expected", 1, MAX_PARTICIPANTS)
    return Participants(entry, ids, pilot, expected)


def check_participant(participant: Any) -> str:
    """Return a valid participant id or raise ConfigError (letters, digits, _ and -, 1 to 64)."""
    if not isinstance(participant, str) or not participant:
        raise ConfigError("participant id: required (letters, digits, _ and -)")
    if len(participant) > PARTICIPANT_MAX_LENGTH:
        raise ConfigError(
            f"participant id: {len(participant)} characters (at most {PARTICIPANT_MAX_LENGTH})"
        )
    if not _PARTICIPANT_RE.fullmatch(participant):
        raise ConfigError(f"participant id: {short(participant)} (allowed: letters, digits, _ "
                          "and -)")
    return participant


def secret(seed: int, purpose: int, text: str = "") -> str:
    """128 bits as 32 hex digits from the session seed, a purpose and a text (an id)."""
    words = np.random.SeedSequence([seed, purpose, *text.encode("ascii")]).generate_state(4)
    return "".join(f"{int(w):08x}" for w in words)


def participant_token(seed: int, participant: str) -> str:
    """The token of a participant's personal link (and of their requests)."""
    return secret(seed, TOKEN_PURPOSE, participant)


def dashboard_key(seed: int) -> str:
    """The key of the experimenter's dashboard."""
    return secret(seed, DASHBOARD_PURPOSE)


def tokens_match(given: Any, expected: str) -> bool:
    """Constant-time comparison of a given token with the expected one."""
    return isinstance(given, str) and hmac.compare_digest(given.encode("ascii", "replace"),
                                                          expected.encode("ascii"))


def _id_list(reader: Reader, value: Any, path: str) -> tuple[str, ...]:
    if isinstance(value, str):
        file = reader.file(value, path, "a file of participant ids")
        lines = read_text(file, ConfigError, MAX_IDS_FILE_BYTES).splitlines()
        entries = [(f"{file}:{n}", line.strip()) for n, line in enumerate(lines, 1)
                   if line.strip() and not line.lstrip().startswith("#")]
        if len(entries) > MAX_GENERATED:
            raise reader.fail(path, f"{file}: {len(entries):,} ids (at most {MAX_GENERATED:,})")
    else:
        items = reader.listing(value, path, "participant ids", nonempty=False,
                               max_items=MAX_GENERATED)
        entries = [(f"{reader.source}: {path}[{i}]", item) for i, item in enumerate(items)]
    ids: list[str] = []
    for where, item in entries:
        try:
            ids.append(check_participant(item))
        except ConfigError as err:
            raise ConfigError(f"{where}: {err}") from None
        if item in ids[:-1]:
            raise ConfigError(f"{where}: participant id {item!r} is listed twice")
    return tuple(ids)


def prolific_query(query: Any) -> tuple[str, Mapping[str, str]]:
    """The participant id and the stored fields of a Prolific query; ConfigError when a field
    is missing or not an id."""
    if not isinstance(query, dict):
        raise ConfigError(f"prolific: {short(query)} (allowed: an object with "
                          f"{', '.join(PROLIFIC_FIELDS)})")
    fields = {}
    for name in PROLIFIC_FIELDS:
        try:
            fields[name] = check_participant(query.get(name))
        except ConfigError as err:
            raise ConfigError(f"prolific: {name}: {str(err).split(': ', 1)[1]}") from None
    return fields[PROLIFIC_FIELDS[0]], fields

