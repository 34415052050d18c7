"""Text from data in a Markdown report (`markup.markdown_text`): shown, never run or linked."""

import re

from hypothesis import given
from hypothesis import strategies as st

from mazesim.markup import MARKDOWN_SPECIAL, markdown_text


def test_html_links_images_and_table_cells_are_plain_text():
    assert markdown_text("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert markdown_text("![x](http://tracker.example/p.png)") == \
        "!\\[x\\](http://tracker.example/p.png)"
    assert markdown_text("a | b") == "a \\| b" and markdown_text("a\\|b") == "a\\\\\\|b"
    assert markdown_text("**x** `y` &amp;") == "\\*\\*x\\*\\* \\`y\\` &amp;amp;"
    assert markdown_text("P_01-maze.2") == "P_01-maze.2"       # ids and paths as they are


def test_control_characters_are_escaped_on_one_line():
    assert markdown_text("a\nb\x1b[31m") == "a\\\\nb\\\\x1b\\[31m"


@given(st.text())
def test_no_markup_character_is_left_bare(text):
    out = markdown_text(text)
    assert "\n" not in out and "<" not in out and ">" not in out
    bare = re.sub(r"\\.", "", out)                 # what is not behind a backslash
    assert not set(bare) & set(MARKDOWN_SPECIAL)
    assert re.fullmatch(r"([^&]|&(amp|lt|gt);)*", bare)
