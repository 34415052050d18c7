"""The project's pytest settings: the short summary at the end names every failure and error
(with `-rs` alone a run in the background ended on its skips, and its failures scrolled away)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_summary_lists_failures_errors_and_skips(tmp_path):
    (tmp_path / "test_three.py").write_text(
        "import pytest\n\n"
        "@pytest.fixture\ndef broken():\n    raise RuntimeError\n\n"
        "def test_fails():\n    assert 1 == 2\n\n"
        "def test_errs(broken):\n    pass\n\n"
        "def test_skipped():\n    pytest.skip('not here')\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
                           "-n", "0", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    summary = done.stdout.split("short test summary info")[-1]
    assert "FAILED" in summary and "test_fails" in summary, done.stdout
    assert "ERROR" in summary and "test_errs" in summary, done.stdout
    assert "SKIPPED" in summary and "not here" in summary, done.stdout
