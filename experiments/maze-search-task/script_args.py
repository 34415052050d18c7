"""What the scripts of this folder share: the command line's error rule (bad input is one line
`Error: ...` on stderr and exit code 2, never a traceback), counts checked before the work, and
the people to leave out read from the run.

Each script builds its `Parser`, declares counts with `integers(low, high)` and runs its `main`
through `run_script`.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Callable, NoReturn

from mazesim.errors import MazesimError, printable
from mazesim.humans.data.run import participant_list
from mazesim.humans.peer.tables import EXCLUDED
from mazesim.limits import INT64_MAX

SEED = (0, INT64_MAX)


class Parser(argparse.ArgumentParser):
    """argparse with the CLI's error rule: one `Error:` line, exit 2 (argparse prints the
    usage first)."""

    def error(self, message: str) -> NoReturn:
        fail(message)


def fail(message: object) -> NoReturn:
    print(f"Error: {printable(message)}", file=sys.stderr)
    sys.exit(2)


def integers(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from `low` to `high` (ASCII digits; refused before any
    work)."""
    def parse(text: str) -> int:
        if not (re.fullmatch(r"[0-9]{1,19}", text.strip()) and low <= int(text) <= high):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} (allowed: an integer from {low:,} "
                                             f"to {high:,})")
        return int(text)
    return parse


def add_exclusions(parser: argparse.ArgumentParser) -> None:
    """`--exclude-participants IDS`: ids or a file of ids; default the Maze Search Task
    authors' exclusions of experiment 1 that the run has (none in another run)."""
    parser.add_argument("--exclude-participants", default=None, metavar="IDS",
                        help="ID,ID,... or a file of ids (default: the people the authors "
                             "left out of experiment 1, those of them in the run)")


def exclusions(run, given: str | None) -> tuple[str, ...]:
    """The ids to leave out of `run`: those `given`, else the authors' experiment-1 exclusions
    it holds."""
    if given is not None:
        return participant_list(given)
    return tuple(p for p in EXCLUDED if p in run.participants)


def run_script(main: Callable[[], None]) -> None:
    """Run `main`: a MazesimError or an OSError (a file that cannot be read or written) is one
    line and exit 2."""
    try:
        main()
    except MazesimError as err:
        fail(err)
    except OSError as err:
        fail(f"{err.filename}: {err.strerror}" if err.filename else err)
