"""The exception types of mazesim: one root, one subclass per domain (STYLE.md, Errors)."""

import difflib
import stat
from pathlib import Path
from typing import Any, Iterable

from mazesim.limits import MAX_FILE_BYTES

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
    "read_text",
    "did_you_mean",
]


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


def read_text(path: str | Path, error: type[MazesimError],
              max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file `path`, at most `max_bytes` long; anything else (a
    missing file, a directory, a device, a pipe, a bigger file, other bytes) raises `error`
    naming it, before more than `max_bytes` are read."""
    try:
        info = Path(path).stat()
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{path}: a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise error(f"{path}: {info.st_size:,} bytes (at most {max_bytes:,})")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as err:
        raise error(f"{path}: cannot read ({err.strerror})") from None
    if len(data) > max_bytes:
        raise error(f"{path}: more than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{path}: not UTF-8 text (byte {err.start + 1})") from None


def did_you_mean(value: Any, allowed: Iterable[str]) -> str:
    """`"; did you mean 'x'?"` for the closest of `allowed` to `value`, or "" when none is close."""
    close = difflib.get_close_matches(str(value), list(allowed), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
