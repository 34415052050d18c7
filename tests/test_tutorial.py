"""docs/tutorial.md runs as written on a fresh clone, and says what it prints.

Its command lines (indented blocks; the CSV excerpt is data, not a command) run in order in one
workspace laid out like a clone (`tests.test_readme.Workspace`); each command's output must
hold the figures the tutorial quotes beside it (QUOTED), and the example files must be what
`examples/make_examples.py` writes (seeded: the same bytes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.test_readme import TIMEOUT, Workspace, argv, readme_blocks

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
DATA_HEADER = "participant,maze,trial,step,row,col"

# command (its first words) -> what its output must contain, quoted verbatim in the tutorial
QUOTED = {
    "mazesim import csv": ["wrote results/tutorial/people: 72 trials of 12 participants on 6 "
                           "mazes, 954 junction decisions, 0 unfinished; 0 skipped"],
    "mazesim fit": [
        "| choice-model | 9 | 0.0415 | 1.020 | 1.080 | 0.960-1.187 | 1367.5 | 1411.3 |",
        "| turn-bias:goal_seeking=false | 4 | 0.0000 | 1.558 | 1.578 | 1.495-1.655 | 2067.9 | "
        "2087.3 |",
        "| turn-bias | 4 | 0.0383 | 1.488 | 3.581 | 1.417-8.229 | 1975.4 | 1994.8 |",
        "| random-walk | 1 | 0.0492 | 1.568 | 3.645 | 1.531-8.357 | 2076.0 | 2080.8 |",
        "| choice-model | | | | | 12 |",
        "| turn-bias:goal_seeking=false | 0.4980 | 0.4233 to 0.5728 | 12 / 0 | 0.0015 | 0 |",
        "1.654"],
    "mazesim predict results/tutorial/people --fit results/tutorial/fit --walks": [
        "| choice-model | 0 | 0.968 (0.726-0.997) | 1.000 | 1.020 | 0 |",
        "| turn-bias | 0 | 0.880 (0.239-0.987) | 0.600 | 2.000 | 5 |"],
    "mazesim predict results/tutorial/people --fit results/tutorial/fit --model": [
        "0.638 (-0.574-1.000) | 0.829 | 12.14"],
}
WRITTEN = {"results/tutorial/maze-1.png", "results/tutorial/fit/ranking.csv",
           "results/tutorial/fit/fit.png", "results/tutorial/predict/predict.png",
           "results/tutorial/predict/heatmaps.png"}


def tutorial_lines() -> list[str]:
    """The command lines of the tutorial's indented blocks, in order."""
    return [line for block in readme_blocks(TUTORIAL.read_text(encoding="utf-8"))
            for line in block.lines]


def test_the_tutorial_quotes_what_is_checked():
    """Each QUOTED command is a line of the tutorial, each figure is in its text."""
    text, lines = TUTORIAL.read_text(encoding="utf-8"), tutorial_lines()
    for command, quoted in QUOTED.items():
        assert sum(line.startswith(command) for line in lines) == 1, command
        for quote in quoted:
            assert quote in text, quote


@pytest.mark.slow
def test_every_tutorial_command_runs_and_prints_what_it_says(tmp_path):
    ws = Workspace(tmp_path)
    for line in tutorial_lines():
        done = subprocess.run(argv(line), cwd=ws.repo, env=ws.env, capture_output=True,
                              text=True, timeout=TIMEOUT)
        assert done.returncode == 0, f"{line}\n{done.stderr}"
        for command, quoted in QUOTED.items():
            if line.startswith(command):
                for quote in quoted:
                    assert quote in done.stdout, f"{line}: {quote!r} not in\n{done.stdout}"
    made = ws.repo / "results" / "tutorial" / "examples"
    for shipped in sorted((ROOT / "examples").rglob("*.txt")) + [ROOT / "examples/walks.csv"]:
        again = made / shipped.relative_to(ROOT / "examples")
        assert again.read_bytes() == shipped.read_bytes(), shipped
    for path in WRITTEN:
        assert (ws.repo / path).is_file(), path


def test_the_examples_are_small_text_files():
    shipped = [p for p in (ROOT / "examples").rglob("*") if p.is_file() and
               "__pycache__" not in p.parts]
    assert sum(p.stat().st_size for p in shipped) < 200_000
    assert (ROOT / "examples/walks.csv").read_text().startswith(DATA_HEADER + "\n")
