"""The pages' Markdown subset: exact output for each construct, and nothing from the file ever
reaches the page as markup."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.play.markdown import render_markdown

_OWN_TAGS = re.compile(r'</?(h1|h2|h3|p|ul|ol|li|strong|em|code)>|<hr>'
                       r'|<a href="(https?://|mailto:)[^"<>]*" rel="noopener noreferrer" '
                       r'target="_blank">|</a>')


def test_blocks():
    text = ("# Consent\n\nThis study\nlasts *ten* minutes.\n\n## Your rights\n"
            "- you may stop\n- at **any** time\n  without reason\n\n1. read\n2. agree\n\n---\n"
            "### End ###")
    assert render_markdown(text) == (
        "<h1>Consent</h1>\n<p>This study lasts <em>ten</em> minutes.</p>\n"
        "<h2>Your rights</h2>\n<ul><li>you may stop</li><li>at <strong>any</strong> time "
        "without reason</li></ul>\n<ol><li>read</li><li>agree</li></ol>\n<hr>\n<h3>End</h3>")


def test_inline_code_links_and_underscores():
    assert render_markdown("Press `<Enter>` or see [the site](https://x.org/a?b=1&c=2).") == (
        '<p>Press <code>&lt;Enter&gt;</code> or see <a href="https://x.org/a?b=1&amp;c=2" '
        'rel="noopener noreferrer" target="_blank">the site</a>.</p>')
    assert render_markdown("Mail [us](mailto:lab@x.org); snake_case_name stays; _yes_") == (
        '<p>Mail <a href="mailto:lab@x.org" rel="noopener noreferrer" target="_blank">us</a>; '
        "snake_case_name stays; <em>yes</em></p>")


def test_markup_and_unsafe_links_stay_text():
    assert render_markdown('<script>alert("x")</script> & <b onclick=1>') == (
        "<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b onclick=1&gt;</p>")
    assert render_markdown("[click](javascript:alert(1)) [rel](page.html)") == (
        "<p>[click](javascript:alert(1)) [rel](page.html)</p>")
    assert render_markdown('[x](https://a.org/"onmouseover="y)') == (
        '<p><a href="https://a.org/&quot;onmouseover=&quot;y" rel="noopener noreferrer" '
        'target="_blank">x</a></p>')


@settings(max_examples=300)
@given(st.lists(st.sampled_from(list("<>&\"'`*_#-[]()/:= \nabjs1.") +
                                ["javascript:", "https://", "<script>", "**", "\n\n"]),
                max_size=120).map("".join))
def test_no_markup_but_its_own(text):
    html = render_markdown(text)
    rest = _OWN_TAGS.sub("", html)
    assert "<" not in rest and ">" not in rest
    assert "javascript:" not in "".join(re.findall(r'href="([^"]*)"', html))
