"""A small, safe Markdown subset for the study's pages (consent, instructions, debrief).

Blocks: `#`, `##`, `###` headings, paragraphs (lines joined until a blank line), `-`/`*` and
`1.` lists, `---` rules. Inline: `**bold**`, `*italic*` or `_italic_`, `` `code` `` and
`[text](url)` links (http, https and mailto only; any other link stays text). Everything else is
text: every character of the file is HTML-escaped before it reaches the page, so a file can never
inject markup (a `<script>` in a consent page shows as those characters).

>>> render_markdown("# Consent\\n\\nPlease **read** <this>.")
'<h1>Consent</h1>\\n<p>Please <strong>read</strong> &lt;this&gt;.</p>'
"""

from __future__ import annotations

import html
import re

__all__ = ["render_markdown", "TAGS", "LINK_SCHEMES"]

TAGS = ("h1", "h2", "h3", "p", "ul", "ol", "li", "strong", "em", "code", "hr", "a")
"""Every element the renderer can produce."""
LINK_SCHEMES = ("http://", "https://", "mailto:")
"""Links that become `<a>`; any other target (`javascript:`, relative paths) stays text."""

_HEADING = re.compile(r"(#{1,3})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"[-*]\s+(.*)")
_NUMBERED = re.compile(r"\d{1,9}[.)]\s+(.*)")
_RULE = re.compile(r"(-{3,}|\*{3,}|_{3,})\s*")
_INLINE = re.compile(
    r"`([^`]+)`"                                   # code
    r"|\*\*(.+?)\*\*"                              # bold
    r"|\*(?=\S)(.+?)(?<=\S)\*"                     # italic
    r"|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"          # italic, not inside snake_case words
    r"|\[([^\]\n]+)\]\(([^()\s]+)\)")              # link


def render_markdown(text: str) -> str:
    """HTML of the Markdown subset of `text` (see the module docstring); every text escaped."""
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""

    def flush() -> None:
        nonlocal list_tag
        if paragraph:
            blocks.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            body = "".join(f"<li>{_inline(item)}</li>" for item in items)
            blocks.append(f"<{list_tag}>{body}</{list_tag}>")
            items.clear()
            list_tag = ""

    for raw in text.splitlines():
        line = raw.strip()
        bullet, numbered = _BULLET.fullmatch(line), _NUMBERED.fullmatch(line)
        if not line:
            flush()
        elif _RULE.fullmatch(line):
            flush()
            blocks.append("<hr>")
        elif heading := _HEADING.fullmatch(line):
            flush()
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif bullet or numbered:
            tag = "ul" if bullet else "ol"
            if paragraph or (items and tag != list_tag):
                flush()
            list_tag = tag
            items.append((bullet or numbered).group(1))
        elif items:
            items[-1] += " " + line                # a continuation line of the last item
        else:
            paragraph.append(line)
    flush()
    return "\n".join(blocks)


def _inline(text: str) -> str:
    out = []
    pos = 0
    for match in _INLINE.finditer(text):
        out.append(_escape(text[pos:match.start()]))
        code, bold, star, underscore, label, url = match.groups()
        if code is not None:
            out.append(f"<code>{_escape(code)}</code>")
        elif bold is not None:
            out.append(f"<strong>{_inline(bold)}</strong>")
        elif star is not None or underscore is not None:
            out.append(f"<em>{_inline(star if star is not None else underscore)}</em>")
        elif url.lower().startswith(LINK_SCHEMES):
            out.append(f'<a href="{_escape(url)}" rel="noopener noreferrer" target="_blank">'
                       f"{_inline(label)}</a>")
        else:
            out.append(_escape(match.group(0)))
        pos = match.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def _escape(text: str) -> str:
    return html.escape(text, quote=True)
