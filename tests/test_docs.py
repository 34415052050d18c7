"""The documentation stands alone: every relative link in README.md, NOTES.md and docs/*.md
points to an existing file (and heading), and every `mazesim <command>` they name exists."""

import re
from pathlib import Path

import click
import pytest

from mazesim.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "NOTES.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_INDENTED = re.compile(r"^(?: {4}|\t).*$", re.M)
_SPAN = re.compile(r"`[^`\n]+`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
_COMMAND = re.compile(r"(?<!from )(?<![\w./-])mazesim[ \t]+([a-z][a-z0-9-]*)"
                      r"(?:[ \t]+([a-z][a-z|]*))?")


def _prose(text: str) -> str:
    """`text` without its code blocks and code spans (a link there is an example, not a link)."""
    return _SPAN.sub("", _INDENTED.sub("", _FENCE.sub("", text)))


def _code(text: str) -> list[str]:
    """The code of `text`: fenced and indented blocks and code spans."""
    blocks = _FENCE.findall(text) + _INDENTED.findall(_FENCE.sub("", text))
    return blocks + _SPAN.findall(_INDENTED.sub("", _FENCE.sub("", text)))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def broken_links(page: Path, text: str) -> list[str]:
    """The relative links of `text` (the file `page`) whose file or heading does not exist."""
    out = []
    for target in _LINK.findall(_prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):       # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            out.append(f"{page.name}: {target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in {
                slug(h) for h in _HEADING.findall(_FENCE.sub("", file.read_text("utf-8")))}:
            out.append(f"{page.name}: {target}: no such heading")
    return out


def unknown_commands(text: str) -> list[str]:
    """Every `mazesim COMMAND [SUBCOMMAND]` in the code of `text` that the CLI does not have."""
    out = []
    ctx = click.Context(main)
    for code in _code(text):
        for name, sub in _COMMAND.findall(code):
            if name not in COMMANDS:
                out.append(f"mazesim {name}")
                continue
            command = main.get_command(ctx, name)
            if isinstance(command, click.Group):
                out += [f"mazesim {name} {s}" for s in sub.split("|")
                        if s and s not in command.commands]
    return out


def test_the_checks_find_what_is_wrong(tmp_path):
    page = tmp_path / "page.md"
    text = ("# Title\n\n[ok](page.md#title) [gone](missing.md) [bad](page.md#nowhere) "
            "[web](https://example.org/x) `[code](missing.md)`\n\n    mazesim frobnicate x\n"
            "\n`mazesim import` `mazesim import mst` `mazesim import tsv` `mazesim.humans` "
            "`mazesim run`\n"
            "```python\nfrom mazesim import load_run\n```\n")
    page.write_text(text, encoding="utf-8")
    assert broken_links(page, text) == ["page.md: missing.md: no such file",
                                        "page.md: page.md#nowhere: no such heading"]
    assert unknown_commands(text) == ["mazesim frobnicate", "mazesim import tsv"]
    assert slug("Junction level: `mazesim fit RUN_DIR`") == "junction-level-mazesim-fit-run_dir"


def test_there_are_docs_and_the_readme_links_them():
    names = {p.name for p in PAGES}
    assert {"README.md", "architecture.md", "definitions.md", "run-directory.md",
            "human-data.md"} <= names
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/README.md)" in readme


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page, page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_named_exists(page):
    assert unknown_commands(page.read_text(encoding="utf-8")) == []
