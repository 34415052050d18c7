"""The `mazesim fit` commands README.md documents run as written: on a small simulated run of
people at `results/mst-1` (the documented import of experiment 1 takes 20 s and is tested with
the importer), with the halves (`results/halves/people-A.txt`, `people-B.txt`) they name."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim import generate, make_agent
from mazesim.cli import main
from mazesim.humans.fitting.recovery import simulate_population

README = Path(__file__).resolve().parents[2] / "README.md"
PEOPLE = 12


def documented() -> list[str]:
    lines = README.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.startswith("    mazesim fit results/mst-1")]


def _cases() -> list:
    """Every documented line; those fitting every model (about 10 s) marked slow."""
    return [pytest.param(line, marks=[pytest.mark.slow] if "--model" not in line and
                         "--params" not in line else []) for line in documented()]


def test_the_fit_section_documents_the_inference_options():
    text = " ".join(documented())
    for option in ("--params", "--refit-lapse", "--max-iterations", "--by participant",
                   "--exclude-participants"):
        assert option in text


@pytest.mark.parametrize("line", _cases())
def test_documented_fit_commands_run(line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if "--level node" in line:          # node decisions need the floor plan known: planners
        mazes = {f"stick-{i}": generate("stick-knocking", (9, 9), seed=i) for i in range(3)}
        simulate_population(mazes, make_agent("steps"), {"sweep": True, "map": "known"},
                            PEOPLE, 0, Path("results/mst-1"))
    else:
        mazes = {f"digging-{i}": generate("digging", (7, 9), seed=i)   # a group of mazes each
                 for i in range(7 if "--cv-mazes" in line else 3)}
        simulate_population(mazes, make_agent("choice-model", lapse=0.05), {"window": 2},
                            PEOPLE, 0, Path("results/mst-1"))
    ids = [f"sim{i:02d}" for i in range(PEOPLE)]
    Path("results/halves").mkdir()
    Path("results/halves/people-A.txt").write_text("\n".join(ids[::2]) + "\n")
    Path("results/halves/people-B.txt").write_text("\n".join(ids[1::2]) + "\n")
    runner = CliRunner()
    words = shlex.split(line, comments=True)
    if "--params" in words:             # the fit it scores, as the line before documents it
        assert runner.invoke(main, ["fit", "results/mst-1", "--model", "choice-model",
                                    "--exclude-participants", "results/halves/people-B.txt",
                                    "-o", "results/halves/fit-A"]).exit_code == 0
    result = runner.invoke(main, words[1:])
    assert result.exit_code == 0, (line, result.output)
    if "--json" in words:
        data = json.loads(result.stdout)
        assert data["decisions"] > 0 and data["models"]
    if "--max-iterations" in words:
        assert result.stderr.startswith("Warning: choice-model: the optimiser did not converge")
