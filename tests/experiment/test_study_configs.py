"""The study's configs validate, and the branch-point maze has the structure the study describes."""

import importlib.util
import re
import sys
from collections import deque

import numpy as np
import pytest
import yaml

from mazesim.agents import make_agent
from mazesim.agents.choice_model import FEATURES
from mazesim.analysis import parameters
from mazesim.experiment.config import load_config
from mazesim.maze import read_maze
from mazesim.walks import simulate_many

from experiment_fixtures import BRANCH_MAZE, ROOT

STUDY_UP_SHARE = 0.66  # source 004, Table 2: 66 of 100 walker runs went up at A
TRIALS = 4000


@pytest.mark.parametrize("name, mazes, units", [
    ("quickstart.yaml", 15, 120),
    ("study-first-experiment.yaml", 300, 4200),
    ("study-fitted-human.yaml", 300, 3000),
    ("study-route-choice.yaml", 300, 1500),
    ("study-branch-point.yaml", 1, 2),
    ("play-demo-agents.yaml", 3, 36),
])
def test_study_configs_validate(name, mazes, units):
    config = load_config(ROOT / "configs" / name)
    assert config.maze_count == mazes
    assert config.maze_count * len(config.agents) * len(config.vision) == units


def test_first_experiment_is_the_study_setup():
    config = load_config(ROOT / "configs" / "study-first-experiment.yaml")
    assert {b.generator for b in config.mazes} == {"stick-knocking", "digging", "wall-extending"}
    assert all(b.size == (31, 31) and b.count >= 100 for b in config.mazes)
    assert config.vision_labels == ("full", "2")
    assert {a.type for a in config.agents} == {"bfs", "dfs", "right-hand", "tremaux",
                                               "weighted-walker", "random-walk",
                                               "straight-biased"}
    assert all(a.trials == 100 for a in config.agents)


def test_fitted_human_walks_the_first_experiments_mazes():
    """experiments/fitted-human/README.md compares its agents with the first experiment's."""
    mine = load_config(ROOT / "configs" / "study-fitted-human.yaml")
    study = load_config(ROOT / "configs" / "study-first-experiment.yaml")
    assert (mine.seed, mine.mazes, mine.vision) == (study.seed, study.mazes, study.vision)
    assert [a.label for a in mine.agents] == ["fitted-human", "fitted-human-no-closed",
                                              "weighted-walker", "dfs", "bfs"]
    walker = next(a for a in study.agents if a.label == "weighted-walker")
    assert mine.agents[2].agent == walker.agent


def _regenerate():
    """experiments/regenerate.py (it loads an experiment's tables and reads a README's blocks)."""
    spec = importlib.util.spec_from_file_location("regenerate", ROOT / "experiments" /
                                                  "regenerate.py")
    module = sys.modules.setdefault("regenerate", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def _specs(name):
    """The agents of a config as the run stores them: the YAML entries by label."""
    data = yaml.safe_load((ROOT / "configs" / name).read_text(encoding="utf-8"))
    return {a.get("label", a["type"]): a for a in data["agents"]}


def _weights_table(readme):
    """{feature: number} from the rows `| feature: ... | weight | ...` of a markdown table."""
    rows = re.findall(r"^\| (\w+)(?::[^|]*)? \| (-?[\d.]+) \|", readme, re.M)
    return {name: float(value) for name, value in rows}


def test_fitted_human_weights_are_those_of_the_write_ups():
    """The config's fitted weights and lapse, rounded, are the Maze Search Task write-up's; the
    fitted-human write-up shows them as the config has them; the agent's defaults agree."""
    specs = _specs("study-fitted-human.yaml")
    fitted = specs["fitted-human"]
    mst = _weights_table((ROOT / "experiments" / "maze-search-task" / "README.md")
                         .read_text(encoding="utf-8").split("## What the fitted weights")[1]
                         .split("\n## ")[0])
    assert set(mst) == set(FEATURES) | {"lapse"}
    for key in FEATURES:  # the config's 4 decimals round to the write-up's 2 (4.9150: 4.91)
        assert abs(fitted[key] - mst[key]) <= 0.005 + 1e-12, key
    assert fitted["lapse"] == mst["lapse"] == 0.0024
    defaults = make_agent("choice-model").params()
    assert {k: defaults[k] for k in FEATURES} == {k: mst[k] for k in FEATURES}
    regenerate = _regenerate()
    tables = regenerate.experiment("fitted-human")
    readme = regenerate.blocks_of((ROOT / "experiments" / "fitted-human" / "README.md")
                                  .read_text(encoding="utf-8"))
    assert readme["weights"] == tables.weights(specs)
    assert readme["trap"] == tables._trap(specs)
    assert "| goal | 10.4655 | 9.9424 |" in readme["weights"]


def test_fitted_human_dead_end_break_even():
    specs = _specs("study-fitted-human.yaml")
    tables = _regenerate().experiment("fitted-human")
    assert tables.break_even(specs["fitted-human"]) == pytest.approx(18.80, abs=0.01)
    assert tables.break_even(specs["fitted-human-no-closed"]) == pytest.approx(100)
    # at that distance the frontier and a dead end score the same
    d = tables.break_even({"frontier": 2.0, "closed": 1.0})
    assert -2.0 * np.log1p(d) == pytest.approx(-2.0 * np.log1p(100) + 1.0)


def test_branch_point_config_has_the_human_counts():
    config = load_config(ROOT / "configs" / "study-branch-point.yaml")
    assert config.mazes[0].file == BRANCH_MAZE
    assert dict(config.probes[0].human) == {"up": 10, "right": 4}
    assert sorted(a.trials for a in config.agents) == [100, 10000]


def _branch(grid, a, first):
    """The cells reachable from `first` without passing `a`."""
    seen, queue = {a, first}, deque([first])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            n = (r + dr, c + dc)
            if grid[n] == 0 and n not in seen:
                seen.add(n)
                queue.append(n)
    return seen - {a}


def test_branch_point_maze_structure():
    maze = read_maze(BRANCH_MAZE)
    a = maze.marks["A"]
    assert parameters(maze, ["loops"])["loops"] == 0
    assert maze.open_directions(a) == [0, 1, 2]  # up, right, down (arrival from below)
    up = _branch(maze.grid, a, (a[0] - 1, a[1]))
    right = _branch(maze.grid, a, (a[0], a[1] + 1))
    below = _branch(maze.grid, a, (a[0] + 1, a[1]))
    assert len(up) >= 30 and maze.goal not in up  # a long wrong branch
    assert maze.goal in right and maze.start in below
    # the start area leads upward: S lies below A, the route from S climbs 10 rows and goes 4 right
    assert (maze.start[0] - a[0], a[1] - maze.start[1]) == (10, 4)


def test_weighted_walker_goes_up_at_a_like_the_study():
    maze = read_maze(BRANCH_MAZE)
    batch = simulate_many(maze, make_agent("weighted-walker"), 2, TRIALS,
                          np.random.SeedSequence(2017))
    firsts = batch.choices[(batch.choices["mark"] == 0) & batch.choices["first"]]
    assert len(firsts) == TRIALS
    assert set(firsts["chosen"].tolist()) == {0, 1}  # up or right only
    share = float(np.mean(firsts["chosen"] == 0))
    tolerance = 4 * np.sqrt(STUDY_UP_SHARE * (1 - STUDY_UP_SHARE) / TRIALS)
    assert abs(share - STUDY_UP_SHARE) < tolerance


def test_branch_point_readme_table_100_runs(tmp_path):
    """experiments/branch-point-a/README.md quotes this run: 68 up, 32 right (seed 2017)."""
    from dataclasses import replace

    from mazesim.experiment.runner import run_experiment
    from mazesim.experiment.storage import RunStore

    config = load_config(ROOT / "configs" / "study-branch-point.yaml")
    config = replace(config, agents=config.agents[:1])  # agent 0: the 100 runs, same seeds
    run = run_experiment(config, output=tmp_path, report=False)
    with RunStore(run.run_dir) as store:
        counts = dict(store.query("SELECT direction, COUNT(*) FROM choices WHERE first = 1 "
                                  "GROUP BY direction"))
    assert counts == {"up": 68, "right": 32}


def test_play_demo_agents_walk_the_play_demo_mazes():
    """`mazesim compare results/play-demo <run of play-demo-agents>` matches mazes by text."""
    from mazesim.experiment.runner import build_mazes
    from mazesim.maze import format_maze
    from mazesim.play.session import load_session

    session = load_session(ROOT / "configs" / "play-demo.yaml")
    config = load_config(ROOT / "configs" / "play-demo-agents.yaml")
    assert [format_maze(m) for _, m in build_mazes(config)] == [format_maze(m.maze)
                                                                for m in session.mazes]
    assert {str(m.vision) for m in session.mazes} <= set(config.vision_labels)
