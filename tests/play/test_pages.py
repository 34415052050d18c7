"""The study's pages (Markdown files, rendered at load) and the completion block."""

from __future__ import annotations

import pytest

from mazesim.errors import ConfigError
from mazesim.play.pages import Completion, check_url, parse_completion, parse_pages
from mazesim.schema import Reader


def test_pages_are_read_and_rendered(tmp_path):
    (tmp_path / "consent.md").write_text("# Consent\n\nI <agree>.", encoding="utf-8")
    pages = parse_pages(Reader("s.yaml", tmp_path), {"consent": "consent.md"})
    assert pages.consent == "<h1>Consent</h1>\n<p>I &lt;agree&gt;.</p>"
    assert pages.instructions is None and pages.files == (("consent", "consent.md"),)
    with pytest.raises(ConfigError, match=r"s.yaml: pages.debrief: 'gone.md': no such file"):
        parse_pages(Reader("s.yaml", tmp_path), {"debrief": "gone.md"})
    with pytest.raises(ConfigError, match=r"pages.thanks: unknown key \(allowed: consent, "
                                          r"instructions, debrief\)"):
        parse_pages(Reader("s.yaml", tmp_path), {"thanks": "x.md"})
    (tmp_path / "big.md").write_bytes(b"x" * (256 * 1024 + 1))
    with pytest.raises(ConfigError, match=r"pages.consent: .*big.md: 262,145 bytes \(allowed: at most "
                                          r"262,144\)"):
        parse_pages(Reader("s.yaml", tmp_path), {"consent": "big.md"})


def test_completion():
    reader = Reader("s.yaml")
    assert parse_completion(reader, None) == Completion()
    done = parse_completion(reader, {"code": "C0DE-1", "redirect": "https://x.org/done?cc=1"})
    assert done.to_page() == {"code": "C0DE-1", "redirect": "https://x.org/done?cc=1"}
    with pytest.raises(ConfigError, match=r"completion.code: 'a b' \(allowed: 1 to 64"):
        parse_completion(reader, {"code": "a b"})
    for bad in ("javascript:alert(1)", "//x.org", "https://", "https://x.org/a b", 5,
                "https://x.org:0/"):
        with pytest.raises(ConfigError, match="completion.redirect: .* \\(allowed: an http:// "
                                              "or https:// URL\\)"):
            parse_completion(reader, {"redirect": bad})
    assert check_url("http://127.0.0.1:8000/x", "u") == "http://127.0.0.1:8000/x"
