"""The study's own pages (consent, instructions, debrief) and what a finished participant gets.

    pages:                       # Markdown files, relative to the session file
      consent: consent.md        # first: the participant agrees or declines
      instructions: instructions.md   # above the built-in instructions before each maze
      debrief: debrief.md        # on the end screen
    completion:                  # online studies: shown once every maze is done
      code: C0DE1234
      redirect: https://app.prolific.com/submissions/complete?cc=C0DE1234

Pages are rendered once, at load, by `mazesim.play.markdown` (every character escaped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mazesim.errors import ConfigError, read_text
from mazesim.play.markdown import render_markdown
from mazesim.schema import Reader, short

__all__ = ["PAGES", "MAX_PAGE_BYTES", "MAX_URL_LENGTH", "Pages", "Completion", "parse_pages",
           "parse_completion", "check_url"]

PAGES = ("consent", "instructions", "debrief")
MAX_PAGE_BYTES = 256 << 10
MAX_URL_LENGTH = 2000
_CODE_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Pages:
    """The rendered HTML of each page given (None when not), and the files they came from."""

    consent: str | None = None
    instructions: str | None = None
    debrief: str | None = None
    files: tuple[tuple[str, str], ...] = ()        # (page, file as written in the config)


@dataclass(frozen=True)
class Completion:
    """What a participant gets at the end: a code to copy and/or a URL to go on to."""

    code: str | None = None
    redirect: str | None = None

    def to_page(self) -> dict[str, Any]:
        return {"code": self.code, "redirect": self.redirect}


def parse_pages(reader: Reader, data: Any) -> Pages:
    """The `pages` block: each named file read (at most `MAX_PAGE_BYTES`) and rendered."""
    if data is None:
        return Pages()
    data = reader.mapping(data, "pages", PAGES)
    html, files = {}, []
    for name in PAGES:
        if name in data:
            path = reader.file(data[name], f"pages.{name}", "a Markdown file")
            try:
                html[name] = render_markdown(read_text(path, ConfigError, MAX_PAGE_BYTES))
            except ConfigError as err:
                raise reader.fail(f"pages.{name}", str(err)) from None
            files.append((name, data[name]))
    return Pages(**html, files=tuple(files))


def parse_completion(reader: Reader, data: Any) -> Completion:
    """The `completion` block: a `code` (letters, digits, _ and -) and/or a `redirect` URL."""
    if data is None:
        return Completion()
    data = reader.mapping(data, "completion", ("code", "redirect"))
    code = data.get("code")
    if code is not None and (not isinstance(code, str) or not _CODE_RE.fullmatch(code)):
        raise reader.fail("completion.code", f"{short(code)} (allowed: 1 to 64 letters, digits, "
                          "_ and -)")
    redirect = data.get("redirect")
    if redirect is not None:
        try:
            redirect = check_url(redirect, "completion.redirect")
        except ConfigError as err:
            raise reader.fail("", str(err)) from None
    return Completion(code, redirect)


def check_url(value: Any, name: str) -> str:
    """An absolute http(s) URL with a host, at most `MAX_URL_LENGTH` characters."""
    parts = urlsplit(value) if isinstance(value, str) and len(value) <= MAX_URL_LENGTH else None
    try:
        port_ok = parts is not None and (parts.port is None or parts.port > 0)
    except ValueError:
        port_ok = False
    if not (port_ok and parts.scheme in ("http", "https") and parts.hostname
            and not any(ch.isspace() for ch in value)):
        raise ConfigError(f"{name}: {short(value)} (allowed: an http:// or https:// URL)")
    return value
