"""docs/formats.md runs as written: its Python examples (against the play demo's run of people,
as results/play-demo) and its command lines (against the play demo and the Maze Search Task's
experiment 1, as results/mst-1: slow)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("minari")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "formats.md"
TEXT = PAGE.read_text(encoding="utf-8")
PYTHON = re.findall(r"^```python\n(.*?)^```", TEXT, re.S | re.M)
COMMANDS = [line.strip() for line in re.findall(r"^    (mazesim .*)$", TEXT, re.M)]


@pytest.fixture
def workspace(tmp_path, play_run, monkeypatch):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "play-demo").symlink_to(play_run)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    return tmp_path


def test_the_page_has_its_examples():
    assert len(PYTHON) == 4 and len(COMMANDS) == 3


@pytest.mark.parametrize("code", PYTHON, ids=[f"example-{k}" for k in range(len(PYTHON))])
def test_every_python_example_runs(workspace, code, capsys):
    exec(compile(code, str(PAGE), "exec"), {"__name__": "__formats_doc__"})
    assert capsys.readouterr().out.strip()


@pytest.mark.slow
def test_every_command_line_runs(workspace, experiment_1_run):
    (workspace / "results" / "mst-1").symlink_to(experiment_1_run)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for line in COMMANDS:
        done = subprocess.run([sys.executable, "-m", *shlex.split(line)], cwd=workspace,
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stdout.startswith(("wrote results/", '{"format"')), done.stdout
