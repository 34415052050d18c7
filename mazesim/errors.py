"""The exception types of mazesim: one root, one subclass per domain (STYLE.md, Errors)."""

import difflib
import json
import numbers
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterable

from mazesim.limits import INT64_MAX, MAX_FILE_BYTES, MAX_NESTING

__all__ = [
    "MazesimError",
    "MazeFormatError",
    "GeneratorError",
    "AgentError",
    "ConfigError",
    "LevelError",
    "SearchError",
    "PlayError",
    "DataError",
    "RunError",
    "file_problem",
    "check_file",
    "read_bytes",
    "utf8_text",
    "read_text",
    "load_json",
    "nesting",
    "check_integer",
    "cannot_write",
    "check_seed",
    "did_you_mean",
    "short",
    "printable",
]

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")
"""What a terminal acts on rather than shows: C0 controls (NUL, ESC, newline, ...), DEL, C1
controls (CSI, OSC), line and paragraph separators, the bidirectional overrides, and lone
surrogates (undecodable bytes of a file name, which a terminal cannot even be sent)."""
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


class MazesimError(Exception):
    """Bad input or an impossible request; shown as one line."""


class MazeFormatError(MazesimError, ValueError):
    """Maze text or JSON, grids, cells."""


class GeneratorError(MazesimError, ValueError):
    """Unknown generator, bad size or option."""


class AgentError(MazesimError, ValueError):
    """Unknown agent, bad agent parameter or vision."""


class ConfigError(MazesimError, ValueError):
    """Experiment or session config: names the key path."""


class LevelError(MazesimError, ValueError):
    """Sokoban level text, terrain grids and other puzzle input."""


class SearchError(MazesimError, ValueError):
    """Impossible search request (no route, unreachable square)."""


class PlayError(MazesimError, ValueError):
    """A refused request of the human-trial server; `status` is its HTTP status code."""

    status = 400


class DataError(MazesimError, ValueError):
    """Recorded human data: trajectory tables, their mazes, runs of people to fit or compare."""


class RunError(MazesimError):
    """A run directory that cannot be used: damaged, locked by another process, read-only, or
    a run that lost its workers; the message says what and how to go on."""


def file_problem(path: str | Path, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """What keeps `path` from being read as an input file, or None for a regular file of at
    most `max_bytes`: missing, a directory, a device such as /dev/zero or /dev/null, a pipe, or
    bigger."""
    try:
        info = Path(path).stat()
    except FileNotFoundError:
        return "no such file"
    except OSError as err:
        return f"cannot read ({err.strerror})"
    except ValueError:                                  # a NUL character in the name
        return "not a file name"
    if stat.S_ISDIR(info.st_mode):
        return "a directory, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > max_bytes:
        return f"{info.st_size:,} bytes (allowed: at most {max_bytes:,})"
    return None


def check_file(path: str | Path, error: type[MazesimError],
               max_bytes: int = MAX_FILE_BYTES) -> None:
    """Raise `error` naming `path` and its `file_problem`, if any."""
    problem = file_problem(path, max_bytes)
    if problem is not None:
        raise error(f"{path}: {problem}")


def read_bytes(path: str | Path, error: type[MazesimError],
               max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes`; anything else (see
    `check_file`) raises `error` naming it, before more than `max_bytes` are read."""
    check_file(path, error, max_bytes)
    try:
        with open(path, "rb") as handle:              # read(n) allocates n bytes at once
            size = min(os.fstat(handle.fileno()).st_size, max_bytes)
            data = handle.read(size + 1)
            if size < len(data) <= max_bytes:         # the file grew since: read on
                data += handle.read(max_bytes + 1 - len(data))
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as err:
        raise error(f"{path}: cannot read ({err.strerror})") from None
    if len(data) > max_bytes:
        raise error(f"{path}: more than {max_bytes:,} bytes")
    return data


def utf8_text(data: bytes, path: str | Path, error: type[MazesimError]) -> str:
    """`data`, the bytes of the file `path`, as text; other bytes than UTF-8 raise `error`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{path}: not UTF-8 text (byte {err.start + 1})") from None


def read_text(path: str | Path, error: type[MazesimError],
              max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file `path`, at most `max_bytes` long; anything else (see
    `read_bytes`, or other bytes than UTF-8) raises `error` naming it, before more than
    `max_bytes` are read."""
    return utf8_text(read_bytes(path, error, max_bytes), path, error)


MAX_JSON_DIGITS = 64
"""Longest integer literal of a JSON input (a seed has at most 19 digits)."""


class _LongNumber(Exception):
    """An integer literal longer than `MAX_JSON_DIGITS` (raised out of `json.loads`)."""


def _json_int(text: str) -> int:
    if len(text) > MAX_JSON_DIGITS:
        raise _LongNumber(text)
    return int(text)


def load_json(text: str, source: str, error: type[MazesimError]) -> Any:
    """The JSON document of `text`; its faults, a stack-deep nesting (json recurses; callers
    check `nesting` against `limits.MAX_NESTING`) and integers of thousands of digits included,
    raise `error` naming `source:line:col`."""
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as err:
        raise error(f"{source}:{err.lineno}:{err.colno}: {err.msg}") from None
    except RecursionError:
        raise error(f"{source}: nested deeper than {MAX_NESTING} levels") from None
    except _LongNumber as err:
        at = text.find(err.args[0])
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise error(f"{source}:{line}:{column}: an integer of {len(err.args[0]):,} digits "
                    f"(allowed: at most {MAX_JSON_DIGITS})") from None


def nesting(value: Any) -> int:
    """How deeply lists and dicts nest in `value` (1 for a flat one), counted without
    recursion and stopping past `MAX_NESTING`."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_NESTING:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                   else item) if isinstance(v, (dict, list)))
    return deepest


def did_you_mean(value: Any, allowed: Iterable[str]) -> str:
    """`"; did you mean 'x'?"` for the closest of `allowed` to `value`, or "" when none is close."""
    close = difflib.get_close_matches(str(value), list(allowed), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def short(value: Any, limit: int = 60) -> str:
    """`repr(value)` cut to `limit` characters (messages quote what was given, not all of it)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):        # deep nesting; an int of more than 4,300 digits
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cannot_write(folder: str | Path, err: OSError) -> DataError:
    """The one error of an output folder that could not be written (what the system said)."""
    return DataError(f"output folder {folder}: cannot write ({err.strerror or err})")


def check_integer(value: Any, name: str, low: int = 0, high: int = INT64_MAX,
                  error: type[MazesimError] = MazesimError, why: str = "") -> int:
    """`value` as an int when it is an integer (not a bool, not a float) from `low` to `high`;
    else `error` naming `name`, what was given and the range (`why`: what the range is, e.g.
    "the participants"). The one integer check of the library."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or \
            not low <= value <= high:
        reason = f": {why}" if why else ""
        raise error(f"{name}: {short(value)} (allowed: an integer from {low:,} to {high:,}"
                    f"{reason})")
    return int(value)


def check_seed(value: Any, error: type[MazesimError] = MazesimError, name: str = "seed") -> int:
    """A seed: an integer from 0 to the largest 64-bit one (what `numpy.random.SeedSequence`
    and the CLI's `--seed` take), the same message everywhere."""
    return check_integer(value, name, 0, INT64_MAX, error)


def printable(text: Any) -> str:
    """`text` safe to print as one line on a terminal: every control character (NUL, ESC and
    the escape sequences it starts, newlines, C1 controls, bidirectional overrides) written
    visibly as its escape (`\\x1b`, `\\n`, `\\u202e`); everything else unchanged."""
    return _UNPRINTABLE.sub(_escape, str(text))


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
