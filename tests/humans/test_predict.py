"""Predictive checks (`mazesim predict`): fitted models walk the run's mazes beside its people.

The people here are simulated walkers of a known agent (A, the choice model at the weights of
the recovery test), so the check must find few differing mazes for A fitted to them and many for
another agent (B, the right-hand wall follower) fitted to the same walks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mazesim import generate, make_agent
from mazesim.agents.vision import parse_vision
from mazesim.cli import main
from mazesim.errors import DataError
from mazesim.humans import fit_run, load_human_run
from mazesim.humans.fitting.output import write_fit
from mazesim.humans.predict.run import predict_run, read_fit
from mazesim.limits import MAX_WALKS
from mazesim.humans.predict.output import HEATMAP_MAZES, write_predict
from mazesim.humans.predict.walks import people_walks, sight_of_goal
from mazesim.humans.fitting.recovery import simulate_population
from mazesim.maze import parse_maze

from tests.humans.test_recovery import TRUE_WEIGHTS

README = Path(__file__).resolve().parents[2] / "README.md"
MAZES = 6
PEOPLE = 20


@pytest.fixture(scope="module")
def walkers(tmp_path_factory):
    """A run of 20 simulated people (agent A) on 6 mazes, fitted with A and with B."""
    root = tmp_path_factory.mktemp("predict")
    mazes = {f"d{i}": generate("digging", (9, 9), seed=i) for i in range(MAZES)}
    agent = make_agent("choice-model", **TRUE_WEIGHTS, lapse=0.05)
    simulate_population(mazes, agent, {"window": 2}, PEOPLE, 5, root / "run")
    run = load_human_run(root / "run")
    write_fit(fit_run(run, ["choice-model"], folds=0, seed=0, starts=1), root / "fit-a")
    write_fit(fit_run(run, ["right-hand"], folds=0, seed=0, starts=1), root / "fit-b")
    return root, run


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_model_that_made_the_walks_passes_and_another_fails(walkers):
    root, run = walkers
    a = predict_run(run, root / "fit-a", walks=20, seed=1)
    b = predict_run(run, root / "fit-b", walks=20, seed=1)
    same, other = a.models[0], b.models[0]
    assert len(same.differ()) <= 1 and len(other.differ()) >= MAZES - 1
    assert same.maze_r > 0.95 and 0.9 < same.ratio_median < 1.1
    assert other.ratio_median > 3


@pytest.mark.slow
def test_same_seed_same_bytes_and_the_json_shape(walkers, tmp_path):
    root, run = walkers
    outputs = []
    for name in ("one", "two"):
        result = invoke("predict", root / "run", "--fit", root / "fit-a", "--walks", 5,
                        "--seed", 3, "--cv-mazes", 3, "--json", "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert files == ["heatmaps.png", "predict.csv", "predict.png", "predict_models.csv"]
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    data = json.loads(outputs[0])
    assert data["mazes"] == MAZES and data["walks"] == 5 and data["cv_mazes"] == 3
    (m,) = data["models"]
    assert m["name"] == "choice-model" and {"maze_r", "heldout_r", "differ", "heldout"} <= set(m)
    assert 0.9 < m["maze_r"] <= 1 and 0.5 < m["heldout_r"] <= 1
    assert set(m["differ"]) <= {f"d{i}" for i in range(MAZES)}
    unfinished = any(tuple(t.positions[-1]) != run.mazes[t.maze_id].goal for t in run.trials)
    assert unfinished and -1 <= m["heldout"]["unfinished_r"] <= 1   # some hit max_steps
    other = invoke("predict", root / "run", "--fit", root / "fit-a", "--walks", 5, "--seed", 4,
                   "--json")
    assert json.loads(other.output)["models"] != data["models"]


def test_without_cv_the_held_out_r_is_null_and_the_text_names_the_models(walkers):
    root, _ = walkers
    result = invoke("predict", root / "run", "--fit", root / "fit-b", "--walks", 1, "--json")
    assert json.loads(result.output)["models"][0]["heldout_r"] is None
    text = invoke("predict", root / "run", "--fit", root / "fit-b", "--walks", 1).output
    assert "| right-hand | 0 |" in text and "held-out" not in text


def test_per_person_parameters_are_walked_where_the_fit_has_them(walkers, tmp_path):
    root, run = walkers
    report = fit_run(run, ["right-hand"], folds=0, seed=0, starts=1, by="participant")
    write_fit(report, tmp_path / "own")
    fitted = read_fit(tmp_path / "own")[0]
    assert len(fitted.own) == PEOPLE
    own = predict_run(run, tmp_path / "own", walks=3, seed=0)
    heard = []
    pooled = predict_run(run, tmp_path / "own", walks=3, seed=0, pooled=True,
                         progress=lambda *a: heard.append(a))
    assert (own.models[0].own_params, pooled.models[0].own_params) == (PEOPLE, 0)
    mazes = len(own.models[0].mazes)                    # one walk task per model and maze
    assert heard == [("mazes walked by the models", k, mazes) for k in range(mazes + 1)]
    assert own.models[0].mazes[0].steps != pooled.models[0].mazes[0].steps


def test_people_walks_are_measured_cell_by_cell():
    maze = parse_maze("#######\n#S...G#\n#.###.#\n#.....#\n#######\n")
    walk = np.array([[1, 1], [1, 2], [1, 1], [2, 1], [3, 1], [3, 2], [3, 3], [3, 4], [3, 5],
                     [2, 5], [1, 5]])
    sight = sight_of_goal(maze, 1)
    walked = people_walks(maze, [walk], [np.array([0])], [np.array([1])], sight, (1, 1))
    assert walked.steps.tolist() == [10] and walked.revisits.tolist() == [1]
    assert walked.exit_seen.tolist() == [9]       # at (2, 5) G is inside the window of 1
    assert walked.first.tolist() == [1] and walked.visits[1, 1] == 2


@pytest.mark.parametrize("args, message", [
    (["--fit", "{root}/nowhere"], "fit {root}/nowhere: no such folder"),
    (["--fit", "{root}/node"], "{root}/node/fit.csv: model 'DU' cannot walk here"),
    (["--fit", "{root}/fit-a", "--walks", 0],
     "Invalid value for '--walks': 0 is not in the range 1<=x<=10000"),
    (["--fit", "{root}/fit-a", "--walks", MAX_WALKS + 1],
     f"Invalid value for '--walks': {MAX_WALKS + 1} is not in the range"),
    (["--fit", "{root}/fit-a", "--model", "dfs"], "model dfs: not in the fit"),
    (["--fit", "{root}/fit-a", "--cv-mazes", 1], "cv_mazes 1 (allowed: 0 for none, or 2 to 6"),
    (["--fit", "{root}/empty"], "{root}/empty/fit.csv: no such file"),
])
def test_bad_input_is_one_line_and_exit_2(walkers, args, message):
    root, _ = walkers
    (root / "node").mkdir(exist_ok=True)
    (root / "node" / "fit.csv").write_text("model,agent,lapse,params\nDU,DU,0.1,{}\n")
    (root / "empty").mkdir(exist_ok=True)
    result = invoke("predict", root / "run", *[str(a).format(root=root) for a in args])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and message.format(root=root) in result.output
    assert result.output.count("\n") == 1


def test_the_documented_commands_run(walkers, planners, tmp_path):
    """Every `mazesim predict` line of README.md on the Maze Search Task's run, on the small
    runs and their fits (a node-level fit's line on the planners' run; the full-view lines:
    tests/humans/test_vgc.py)."""
    lines = [line.split("#")[0].split() for line in README.read_text().splitlines()
             if line.strip().startswith("mazesim predict results/mst-1")]
    assert len(lines) >= 3
    for words in lines:
        node = "results/mst-1/nodefit" in words
        root = (planners if node else walkers)[0]
        swap = {"results/mst-1": root / "run", "results/mst-1/fit": root / "fit-a",
                "results/mst-1/nodefit": root / "fit-steps",
                "results/mst-1/predict": tmp_path / "out"}
        args = [swap.get(w, w) for w in words[2:]]
        args = [2 if a == "10" else a for a in args]             # fewer walks, same command
        args = [2 if node and a == "5" else a for a in args]     # 6 mazes: 2 folds
        result = invoke("predict", *args)
        assert result.exit_code == 0, (words, result.output)
        assert re.search(r"steps" if node else r"choice-model", result.output)


def test_goal_seekers_walk_to_the_exit_from_the_step_it_comes_into_sight():
    """The walking loop sees the exit exactly when the perception kernel
    (`seen_cells`, through `sight_of_goal`) says so: from that step on a goal-seeking random
    walk takes a shortest path to it (on three of the Maze Search Task's maps)."""
    from mazesim._grid import distances
    from mazesim.agents.base import trial_streams
    from mazesim.agents.vision import MST_VISION
    from mazesim.humans import read_mst

    from tests.humans.mst_data import mst_folder

    mazes = read_mst(mst_folder()).mazes
    agent = make_agent("random-walk", goal_seeking=True)
    for name in ("4ways", "Equal_7vs9", "Loop_1_mirror"):
        maze = mazes[name]
        sight = sight_of_goal(maze, MST_VISION).reshape(maze.shape)
        dist, _ = distances(maze.grid, *maze.goal)
        walks = agent.run_trials(maze, MST_VISION, trial_streams(np.random.SeedSequence(7), 200),
                                 10_000, keep=True, record=np.zeros(maze.shape, bool))
        detours = 0
        for pos in np.split(walks.positions, np.cumsum(walks.moves + 1)[:-1]):
            seen = np.flatnonzero(sight[pos[:, 0], pos[:, 1]])
            t = int(seen[0])
            assert len(pos) - 1 - t == dist[tuple(pos[t])]         # straight to the exit
            detours += len(pos) - 1 > dist[maze.start]
        assert detours > 0                                          # searching before that


@pytest.fixture(scope="module")
def planners(tmp_path_factory):
    """A run of 40 simulated people walking as `steps` (nearest child first, tau 0.3) on 6
    perfect mazes with the floor plan known, and node-level fits of `steps` and of `cells`."""
    from mazesim.humans import fit_node_models
    from mazesim.humans.fitting.node_output import write_node_fit

    root = tmp_path_factory.mktemp("predict-nodes")
    mazes = {f"p{i}": generate("stick-knocking", (9, 9), seed=i) for i in range(MAZES)}
    agent = make_agent("steps", tau=0.3)
    simulate_population(mazes, agent, {"sweep": True, "map": "known"}, 40, 3, root / "run")
    for model in ("steps", "cells"):
        write_node_fit(fit_node_models(root / "run", [model], folds=0, seed=0),
                       root / f"fit-{model}")
    return root, load_human_run(root / "run")


def test_node_level_fits_walk_as_their_tree_walkers(planners):
    root, run = planners
    same = predict_run(run, root / "fit-steps", walks=20, seed=1, cv_mazes=2)
    other = predict_run(run, root / "fit-cells", walks=20, seed=1)
    assert [m.agent for m in read_fit(root / "fit-steps")] == ["steps"]
    a, b = same.models[0], other.models[0]
    assert len(a.differ()) <= 1 and len(b.differ()) >= MAZES - 2
    assert a.heldout is not None and a.heldout.r > 0.8
    again = predict_run(run, root / "fit-steps", walks=20, seed=1, cv_mazes=2)
    assert again.to_json() == same.to_json()


def test_an_integer_parameter_is_read_as_an_integer(tmp_path):
    """finite-memory's horizon (an integer key) read back from fit.csv makes its agent."""
    (tmp_path / "fit.csv").write_text(
        'model,agent,lapse,params\nfinite-memory,finite-memory,0.4,"{""horizon"": 21}"\n')
    (model,) = read_fit(tmp_path)
    settings = model.settings("", True)
    assert settings["horizon"] == 21 and isinstance(settings["horizon"], int)


def test_a_node_fit_does_not_walk_a_run_without_observation_nodes(walkers, planners):
    """Issue 33, point 2: the walkers (window 2, map unknown) have no observation nodes; a node
    fit walked them under that vision as shortest paths."""
    (root, run), (node_root, _) = walkers, planners
    with pytest.raises(DataError, match="need observation nodes"):
        predict_run(run, node_root / "fit-steps", walks=1)


@pytest.mark.parametrize("args, message", [
    (["--seed", 10**200], "Invalid value for '--seed'"),
    (["--workers", 0], "Invalid value for '--workers': 0 is not in the range 1<=x<=1024"),
    (["--workers", 5000], "Invalid value for '--workers': 5000 is not in the range 1<=x<=1024"),
])
def test_predict_ranges_match_the_other_commands(walkers, args, message):
    """Issue 33, point 18: --seed took 10^200; --workers 0 and 5000 stated different ranges."""
    root, _ = walkers
    result = invoke("predict", root / "run", "--fit", root / "fit-a", *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert result.output.count("\n") == 1


def test_one_maze_cannot_be_dealt_into_folds(walkers, tmp_path):
    """Issue 33, point 18: the message offered "2 to 1"."""
    root, _ = walkers
    result = invoke("predict", root / "run", "--fit", root / "fit-a", "--cv-mazes", 2,
                    *[a for i in range(1, MAZES) for a in ("--exclude-maze", f"d{i}")])
    assert result.exit_code == 2, result.output
    assert "cv_mazes 2 (allowed: 0 for none: the run's mazes form one group" in result.output


def test_model_walks_are_walked_in_bounded_batches_with_the_same_result(monkeypatch):
    """Issue 33, point 13: all walks of a maze were held at once (2.4 GB at 1,000 walks on
    experiment 1, about 22 GB at the allowed 10,000). Batches of at most CHUNK_MOVES moves,
    each measured and dropped, give the same walks."""
    from mazesim.agents.base import KernelAgent
    from mazesim.humans.predict import walks as predict_walks

    maze = generate("digging", (9, 9), seed=3)
    sight = sight_of_goal(maze, parse_vision(2))
    args = (maze, parse_vision(2), "random-walk", [{"lapse": 0.0}] * 3, 7, [5, 1], [0, 1, 2],
            sight, maze.start)
    whole = predict_walks.model_walks(*args)
    batches, walk = [], KernelAgent.run_trials

    def spy(self, maze, vision, streams, max_steps, **keys):
        batches.append(len(streams) * max_steps)
        return walk(self, maze, vision, streams, max_steps, **keys)

    monkeypatch.setattr(KernelAgent, "run_trials", spy)
    monkeypatch.setattr(predict_walks, "CHUNK_MOVES", 2 * make_agent(
        "random-walk").resolved_max_steps(maze))
    parts = predict_walks.model_walks(*args)
    assert len(batches) == 11 and max(batches) <= predict_walks.CHUNK_MOVES
    for field in ("steps", "reached", "revisits", "exit_seen", "first", "visits"):
        assert np.array_equal(getattr(whole, field), getattr(parts, field)), field


def test_the_figures_say_what_they_show(walkers, tmp_path, monkeypatch):
    """heatmaps.png's labels collided ("4vs1_mirror: peoplemodel"), had no colour scale and
    did not name the model; predict.png's panels had no axis labels; fit.png never said lower
    is better. Read from the figures as they are saved."""
    from matplotlib.figure import Figure

    saved = {}
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig",
                        lambda fig, path, **kw: (saved.__setitem__(Path(path).name, fig),
                                                 real(fig, path, **kw))[1])
    root, run = walkers
    write_predict(predict_run(run, root / "fit-a", walks=2, seed=0), tmp_path / "p")
    heat = saved["heatmaps.png"]
    maps = [ax for ax in heat.axes if ax.get_title()]
    assert len(maps) == 2 * min(HEATMAP_MAZES, MAZES)
    assert [ax.get_title().split(": ")[1] for ax in maps] == ["people", "choice-model"] * (
        len(maps) // 2)
    (bar,) = [ax for ax in heat.axes if "visits per cell" in ax.get_ylabel()]
    assert "choice-model" in heat._suptitle.get_text()
    for ax in saved["predict.png"].axes:
        if ax.axison:
            assert ax.get_xlabel() == "people: mean steps"
            assert ax.get_ylabel() == "choice-model: mean steps"
    write_fit(fit_run(run, ["choice-model", "right-hand"], folds=2, seed=0, starts=1),
              tmp_path / "f")
    (ax,) = saved["fit.png"].axes
    assert ax.get_xlabel().endswith("lower is better")
    assert ax.get_title().startswith("How well each model predicts people's choices")
    assert ax.get_legend().get_window_extent().y0 >= ax.get_window_extent().y0   # inside
