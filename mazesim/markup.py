r"""Text from data (ids, maze and run names, agents, answers) written into a Markdown report.

A report is read in viewers that render its Markdown and the HTML inside it: an imported
participant id `<script>...</script>`, `![x](http://tracker.example/)` or `a | b` would run,
load or break the table it stands in. `markdown_text` makes any value plain text there.

>>> print(markdown_text("<b>P|1</b> *x*"))
&lt;b&gt;P\|1&lt;/b&gt; \*x\*
"""

from __future__ import annotations

from typing import Any

from mazesim.errors import printable

__all__ = ["MARKDOWN_SPECIAL", "markdown_text"]

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
