"""The fields of a recorded table (`sources`): its rows and header, and the numbers in them.

Strict where a lenient reader would import wrong data in silence: numbers are ASCII digits only
(Python's `int` and `float` also take Arabic-Indic or fullwidth digits and `0_3`), integers fit
in int64 (what numpy and SQLite hold), a row may not have more fields than its header, and a
quoted field may not run over lines (an unclosed quote would swallow the rest of the file). A
leading byte-order mark and blank lines before the header are skipped. The file is read line by
line, never whole. A message quotes at most
40 characters of a field.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterable, Iterator

from mazesim.errors import DataError, check_file
from mazesim.limits import INT64_MAX

__all__ = ["Unreadable", "Table", "read_table", "integer", "number", "quoted"]

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class Unreadable(Exception):
    """A trial that cannot be read; `line` and `step` say where, when known."""

    def __init__(self, reason: str, line: int | None = None, step: int | None = None) -> None:
        super().__init__(reason)
        self.line, self.step = line, step


class Table:
    """A delimited table: its header (names stripped), the line of the header, and its rows as
    (line, fields), read once (`rows`), blank rows skipped."""

    def __init__(self, path: Path, lines: Iterable[str], delimiter: str, max_rows: int
                 ) -> None:
        self.path, self.max_rows = path, max_rows
        self._reader = csv.reader(lines, delimiter=delimiter, strict=True)
        header = None
        for line, fields in self._records():
            if any(f.strip() for f in fields):
                header, self.header_line = fields, line
                break
        if header is None:
            raise DataError(f"{path}: empty file (expected a header line)")
        self.header = [h.strip() for h in header]

    def columns(self, required: tuple[str, ...], optional: tuple[str, ...] | None
                ) -> dict[str, int]:
        """Column index by name; DataError for a missing column or, when `optional` is given
        (a closed format), an unknown one."""
        where = f"{self.path}:{self.header_line}"
        index = {name: k for k, name in enumerate(self.header)}
        allowed = ", ".join(required) + (f"; optional {', '.join(optional)}" if optional
                                         else "")
        if optional is not None:
            for name in self.header:
                if name not in required and name not in optional:
                    raise DataError(f"{where}: unknown column {quoted(name)} (expected "
                                    f"{allowed})")
        if len(index) != len(self.header):
            raise DataError(f"{where}: a column name appears twice")
        for name in required:
            if name not in index:
                raise DataError(f"{where}: no column {name!r} (expected {allowed})")
        return index

    def rows(self) -> Iterator[tuple[int, list[str]]]:
        """(line, fields) of every non-blank row after the header; DataError for a row with
        more fields than the header or past `max_rows`."""
        count, width = 0, len(self.header)
        for line, fields in self._records():
            if not any(f.strip() for f in fields):
                continue
            if len(fields) > width:
                raise DataError(f"{self.path}:{line}: {len(fields)} fields, the header has "
                                f"{width} (a field beyond the header)")
            count += 1
            if count > self.max_rows:
                raise DataError(f"{self.path}: more than {self.max_rows:,} rows")
            yield line, fields

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        reader = self._reader
        while True:
            line = reader.line_num + 1
            try:
                fields = next(reader, None)
            except UnicodeDecodeError:
                raise DataError(f"{self.path}: not UTF-8 text (near line {line})") from None
            except csv.Error as err:
                hint = " (a quote not closed?)" if "end of data" in str(err) else ""
                raise DataError(f"{self.path}:{line}: {err}{hint}") from None
            if fields is None:
                return
            if reader.line_num > line:
                raise DataError(f"{self.path}:{line}: a quoted field runs over lines {line} "
                                f"to {reader.line_num} (a quote not closed?)")
            yield line, fields


def read_table(path: Path, delimiter: str, max_rows: int) -> Table:
    """The table in the file `path`, a regular file within the size ceiling
    (`errors.check_file`), read as UTF-8 line by line: never whole in memory (a 64 MiB file
    took 0.3 GB as one string and its StringIO)."""
    check_file(path, DataError)
    return Table(path, _lines(path), delimiter, max_rows)


def _lines(path: Path) -> Iterator[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            yield from handle
    except OSError as err:
        raise DataError(f"{path}: cannot read ({err.strerror})") from None


def integer(text: str, name: str, line: int | None = None, step: int | None = None) -> int:
    """`text` (surrounding spaces aside) as an integer of int64 (ASCII digits, an optional
    sign); Unreadable otherwise."""
    if len(text) < 19 and text.isdigit() and text.isascii():           # the common case, fast
        return int(text)
    text = text.strip()
    if not _INTEGER.fullmatch(text):
        raise Unreadable(f"{name} {quoted(text)} is not an integer", line, step)
    value = int(text) if len(text) <= 20 else INT64_MAX + 1
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise Unreadable(f"{name} {quoted(text)} is out of range (allowed: -2^63 to "
                         "2^63 - 1)", line, step)
    return value


def number(text: str, name: str, line: int | None = None, step: int | None = None) -> float:
    """`text` as a finite number >= 0 (ASCII decimal notation); Unreadable otherwise."""
    value = float(text) if _DECIMAL.fullmatch(text) else -1.0
    if not 0.0 <= value < float("inf"):
        raise Unreadable(f"{name} {quoted(text)} is not a number >= 0", line, step)
    return value


def quoted(text: str) -> str:
    """`text` quoted for a message, cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")
