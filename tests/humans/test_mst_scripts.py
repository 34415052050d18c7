"""The Maze Search Task scripts of experiments/maze-search-task/ that score mazesim's agents on
experiment 1 (imported once per session): the cell-level agents on the node yardstick
(`node_agents.py --quick`) and the node models walking the maps (`walkers.py`)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parents[2] / "experiments" / "maze-search-task"


def _script(name, *args):
    done = subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SCRIPTS.parents[1])})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _rows(lines, names):
    return {line.split(" | ")[0].strip("| "): line.split(" | ") for line in lines
            if any(line.startswith(f"| {name} |") for name in names)}


@pytest.mark.slow
def test_the_node_agents_script_quick(experiment_1_run):
    """experiments/maze-search-task/node_agents.py --quick on experiment 1: every 20th of the
    5,971 decisions, random-walk and dfs at their junction fits, 50 rollouts."""
    lines = _script("node_agents.py", experiment_1_run, "--quick")
    assert lines[0].startswith("299 node decisions of 116 people (every 20), uniform 1.221 bits")
    rows = _rows(lines, ("random-walk", "dfs"))
    assert set(rows) == {"random-walk", "dfs"}
    assert rows["random-walk"][1] == "1.303"                 # its junction fit (README: 1.303)
    node_bits, extrapolated = float(rows["random-walk"][2]), float(rows["random-walk"][4])
    assert 1.0 < node_bits < 1.221                       # nearer children first: below uniform
    halves = [float(b) for b in rows["random-walk"][3].split(", ")]
    assert extrapolated == pytest.approx(2 * node_bits - sum(halves) / 2, abs=0.002)


@pytest.mark.slow
def test_the_priors_script(experiment_1_run):
    """priors.py, fold seed 0: the planners with the 1/tau prior as `fit --protocol peer`
    gives them (DU 0.939), with the population prior better (DU 0.930)."""
    lines = _script("priors.py", experiment_1_run, "--seeds", 1)
    assert lines[0].startswith("116 people, 5,971 node decisions, fold seeds 0-0")
    assert _rows(lines, ("du",))["du"][1:4] == ["0.939", "0.930", "0.929"]
    assert "| node-choice | | 0.857 | | | |" in lines


@pytest.mark.slow
def test_the_walkers_script(experiment_1_run):
    """walkers.py with 20 trials a map: every node model walks every map; the planners' mean
    moves per map follow people's."""
    lines = _script("walkers.py", experiment_1_run, "--trials", "20")
    assert lines[0].startswith("4,616 first walks of 116 people on 40 maps: 12.27 moves a walk")
    rows = _rows(lines, ("eu", "du", "pw", "pw-du", "steps", "cells", "steps-cells",
                         "node-choice", "choice-model"))
    assert len(rows) == 9 and rows["du"][1] == "sweep, map known"
    assert float(rows["du"][3]) > 0.85 and float(rows["pw-du"][3]) > 0.85


@pytest.fixture
def small_run(write_mst, tmp_path):
    from mazesim.humans import import_mst

    import_mst(write_mst(), tmp_path / "run")
    return tmp_path / "run"


def _failed(name, *args):
    done = subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SCRIPTS.parents[1])})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.splitlines()
    return line


@pytest.mark.parametrize("name, args, message", [
    ("walkers.py", ["{run}", "--trials", 0], "--trials: '0' (allowed: an integer from 1 to"),
    ("walkers.py", ["{run}/nowhere"], "nowhere: "),
    ("walkers.py", ["{run}", "--exclude-participants", "nobody"], "no participant 'nobody'"),
    ("node_agents.py", ["{run}", "--every", 0], "--every: '0' (allowed: an integer from 1"),
    ("node_agents.py", ["{run}", "--seed", -1], "--seed: '-1' (allowed: an integer from 0"),
    ("split.py", ["{run}", "--cv", "x"], "--cv: 'x' (allowed: an integer from 0 to 100)"),
    ("shrinkage.py", ["{run}/nowhere"], "nowhere: "),
    ("halves.py", ["{run}"], "the following arguments are required: out"),
    ("nodes.py", ["{run}", "{run}", "--seeds", 0], "--seeds: '0' (allowed"),
    ("nodes.py", ["{run}/nowhere", "{run}"], "nowhere/tree_builder.csv: "),
    ("priors.py", ["{run}", "--seeds", 0], "--seeds: '0' (allowed"),
    ("priors.py", ["{run}/nowhere"], "nowhere: "),
])
def test_the_scripts_follow_the_command_line_s_error_rule(small_run, name, args, message):
    """Issue 33, point 11: 29 of 34 bad-argument runs ended in a traceback; `--every 0`
    divided by zero; `walkers.py --trials 0` printed a table of nan with exit 0."""
    line = _failed(name, *[str(a).format(run=small_run) for a in args])
    assert line.startswith("Error: ") and message in line, line


def test_the_walkers_script_walks_another_run(small_run):
    """Issue 33, point 11: the scripts refused any run but experiment 1 (its exclusions were
    hard-coded); now the authors' exclusions are left out where the run has them."""
    lines = _script("walkers.py", small_run, "--trials", 2)
    assert lines[0].startswith("3 first walks of 2 people on 2 maps")
    assert len(_rows(lines, ("du", "choice-model"))) == 2
