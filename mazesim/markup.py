r"""Text from data (ids, maze and run names, agents, answers) written into a Markdown report.

A report is read in viewers that render its Markdown and the HTML inside it: an imported
participant id `<script>...</script>`, `![x](http://tracker.example/)` or `a | b` would run,
load or break the table it stands in. `markdown_text` makes any value plain text there.

>>> print(markdown_text("<b>P|1</b> *x*"))
&lt;b&gt;P\|1&lt;/b&gt; \*x\*
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from mazesim.errors import printable

__all__ = ["MARKDOWN_SPECIAL", "markdown_text", "table_rule", "json_number", "json_interval"]

MARKDOWN_SPECIAL = "\\`*[]|"
"""Characters that start Markdown markup anywhere in a line (escapes, code, emphasis, links and
images, table cells); each is written behind a backslash. `_` is not among them: ids and paths
are full of it, and inside a word it never starts emphasis (at worst `_x_` shows in italics)."""
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_TABLE = str.maketrans({**{c: "\\" + c for c in MARKDOWN_SPECIAL}, **_ENTITIES})


def markdown_text(value: Any) -> str:
    """`value` as Markdown that renders as exactly its text on one line: control characters
    escaped visibly (`errors.printable`), `& < >` as HTML entities, `MARKDOWN_SPECIAL` behind a
    backslash."""
    return printable(value).translate(_TABLE)


def table_rule(aligns: str) -> str:
    """The line under a Markdown table's header: one cell per letter of `aligns`, `l` left and
    `r` right aligned (`table_rule("lrr")` is `|---|---:|---:|`)."""
    return "|" + "".join("-" * 3 + (":" if a == "r" else "") + "|" for a in aligns)


def json_number(value: Any) -> float | None:
    """A number for JSON, which has no NaN or infinity: None for a missing or non-finite one."""
    return float(value) if value is not None and math.isfinite(value) else None


def json_interval(interval: Sequence[float] | None) -> list[float] | None:
    """An interval for JSON: None where there is none (missing, NaN or infinite ends)."""
    if interval is None or not all(map(math.isfinite, interval)):
        return None
    return [float(v) for v in interval]
