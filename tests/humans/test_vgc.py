"""The value-guided construal reader and import (`humans.data.vgc`), step decisions, and the models
of planning in full view (`agents.route_choice`), on small files of our own and on the shared
data."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mazesim.agents import make_agent, parse_vision
from mazesim.errors import AgentError, DataError
from mazesim.experiment.storage import RunStore
from mazesim.humans import fit_models
from mazesim.humans.data.run import load_human_run, step_decisions
from mazesim.humans.data.importer import import_vgc
from mazesim.humans.data.vgc import read_vgc
from mazesim.maze import DOWN, RIGHT, UP

GRID = ["S..0.",
        ".#.0.",
        "....G"]
NAME = "grid-0-0-hflip"
# (session, round, trialnum, [x, y] with y from the bottom row, action, rt)
TRIAL_A = [("a", 0, 0, [0, 2], "^", 900), ("a", 0, 1, [0, 2], ">", 300),
           ("a", 0, 2, [1, 2], ">", 200), ("a", 0, 3, [2, 2], ">", 250),
           ("a", 0, 4, [2, 2], "v", 150), ("a", 0, 5, [2, 1], "v", 100),
           ("a", 0, 6, [2, 0], ">", 120), ("a", 0, 7, [3, 0], ">", 130)]
TRIAL_B = [("b", 3, k, [0, 2] if k == 0 else [0, 1] if k == 1 else [k - 2, 0], a, 100 + k)
           for k, a in enumerate("vv>>>>")]


def write_folder(folder: Path, rows=None, grid=None, zipped: bool = False) -> Path:
    """A folder of navtrials.json and exp-config.json (zipped if asked) in the format of Ho et
    al.'s experiments; B's records come before A's, B's out of trialnum order."""
    rows = rows if rows is not None else list(reversed(TRIAL_B)) + TRIAL_A
    names = ("sessionId", "round", "trialnum", "trans_state", "action", "rt")
    table = {n: {str(10 + k): row[i] for k, row in enumerate(rows)} for i, n in enumerate(names)}
    table["gridname"] = {key: NAME for key in table["sessionId"]}
    config = {"params": {}, "timelines": [[
        {"type": "GridNavigation", "taskparams": {"feature_array": ["S.", ".G"]}},
        {"type": "GridNavigation", "navgridname": NAME,
         "taskparams": {"feature_array": grid or GRID}},
        {"type": "GridBlockAttentionQuery", "navgridname": NAME}]]}
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("navtrials.json", table), ("exp-config.json", config)):
        text = json.dumps(data)
        if zipped:
            with zipfile.ZipFile(folder / (name + ".zip"), "w") as archive:
                archive.writestr(name, text)
        else:
            (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("zipped", [False, True])
def test_the_reader_resolves_frame_bumps_and_times(tmp_path, zipped):
    source = read_vgc(write_folder(tmp_path / "exp", zipped=zipped))
    assert (source.format, source.level, str(source.vision), source.unreadable) == (
        "vgc", "step", "full", ())
    b, a = source.recordings                       # in the order of their first record
    assert (a.participant, a.number, b.participant, b.number) == ("a", 0, "b", 3)
    assert a.positions.tolist() == [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [2, 3], [2, 4]]
    assert a.bumps == ((0, UP, 900.0), (2, RIGHT, 250.0))     # off the grid, into obstacle 0
    assert a.times.tolist() == [300.0, 200.0, 150.0, 100.0, 120.0, 130.0]
    assert a.lines.tolist() == [16, 17, 18, 20, 21, 22, 23]
    assert b.positions.tolist() == [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2], [2, 3], [2, 4]]
    maze = source.mazes[NAME]
    assert (maze.start, maze.goal, int(maze.grid.sum())) == ((0, 0), (2, 4), 3)
    assert dict(maze.meta) == {"obstacles": {"0": [[0, 3], [1, 3]]}, "base_grid": "grid-0-0",
                               "transformation": "hflip"}


def test_import_keeps_bumps_apart_and_reads_step_decisions(tmp_path):
    summary = import_vgc(write_folder(tmp_path / "exp"), tmp_path / "run")
    assert summary.to_json() | {"skipped": []} == {
        "trials": 2, "participants": 2, "mazes": 1, "moves": 12, "bumps": 2,
        "decision_level": "step", "decisions": 12, "unfinished": 0, "skipped": [],
        "warnings": []}
    with RunStore(tmp_path / "run") as store:
        assert store.meta("decision_level") == "step"
        assert store.query("SELECT trial_id, step, direction, t_ms FROM import_bumps "
                           "ORDER BY step") == [(1, 0, UP, 900.0), (1, 2, RIGHT, 250.0)]
        (maze,) = store.mazes()
        assert maze.meta["obstacles"] == {"0": [[0, 3], [1, 3]]}
    run = load_human_run(tmp_path / "run")
    assert (run.level, len(run.decisions)) == ("step", 12)
    opens = run.decisions.n_open
    assert run.decisions.baseline_bits() == pytest.approx(np.mean(np.log2(opens)))
    assert load_human_run(tmp_path / "run", "junction").level == "junction"
    with pytest.raises(DataError, match="decision level 'node'"):
        load_human_run(tmp_path / "run", "node")


def test_step_decisions_are_every_move_with_its_open_directions():
    from mazesim.humans.data.vgc import parse_grid

    maze = parse_grid(NAME, GRID)
    walk = np.array([[0, 0], [0, 1], [0, 2], [1, 2]])
    step, chosen, open_ = step_decisions(maze, walk)
    assert step.tolist() == [0, 1, 2] and chosen.tolist() == [RIGHT, RIGHT, DOWN]
    assert open_.tolist() == [[False, True, True, False], [False, True, False, True],
                              [False, False, True, True]]


def test_a_trial_that_does_not_follow_its_keys_is_named(tmp_path):
    rows = list(TRIAL_A)
    rows[3] = ("a", 0, 3, [3, 2], ">", 250)         # not where the presses before it led
    folder = write_folder(tmp_path / "exp", rows + TRIAL_B)
    with pytest.raises(DataError) as err:
        import_vgc(folder, tmp_path / "run")
    message = str(err.value)
    assert "\n" not in message and message.startswith(
        f"{folder / 'navtrials.json'}:13: participant a, maze {NAME}, step 2: trans_state "
        "[3, 2] is not (0, 2)")
    summary = import_vgc(folder, tmp_path / "run", skip_invalid=True)
    assert (summary.trials, [p.line for p in summary.skipped]) == (1, [13])


@pytest.mark.parametrize("change, expected", [
    (lambda folder: (folder / "exp-config.json").unlink(), "0 files *config.json"),
    (lambda folder: (folder / "navtrials.json").write_text('{"sessionId": {}}'),
     "navtrials.json: no column 'round'"),
    (lambda folder: (folder / "navtrials.json").write_text("{"), "navtrials.json: not JSON"),
])
def test_input_errors_are_one_line_naming_the_file(tmp_path, change, expected):
    folder = write_folder(tmp_path / "exp")
    change(folder)
    with pytest.raises(DataError, match=expected.replace("*", r"\*")) as err:
        read_vgc(folder)
    assert "\n" not in str(err.value)


def test_a_grid_the_config_lacks_is_a_problem_of_its_trials(tmp_path):
    folder = write_folder(tmp_path / "exp", grid=["S.", ".."])
    source = read_vgc(folder)
    assert [p.reason for p in source.unreadable] == [f"grid {NAME}: 0 cells G (exactly one)"] * 2


def test_the_cli_imports_and_refuses_in_one_line(tmp_path):
    from click.testing import CliRunner

    from mazesim.cli import main

    folder = write_folder(tmp_path / "exp")
    result = CliRunner().invoke(main, ["import", "vgc", str(folder), "-o",
                                       str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["bumps"] == 2
    result = CliRunner().invoke(main, ["import", "vgc", str(tmp_path), "-o",
                                       str(tmp_path / "other")])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "0 files *config.json" in result.output


def test_the_route_features_and_the_baseline(tmp_path):
    from mazesim.humans.data.vgc import parse_grid

    maze = parse_grid(NAME, GRID)
    full = parse_vision("full")
    walk = np.array([[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [2, 3], [2, 4]])
    states = make_agent("route-choice").rule_states(maze, full, walk)
    at_start = states[0, :20].reshape(4, 5)          # shorter, turns, straight, reverse, towards
    assert at_start[RIGHT].tolist() == pytest.approx([1, -2, 0, 0, 4 / math.hypot(2, 4)])
    assert at_start[DOWN].tolist() == pytest.approx([1, -1, 0, 0, 2 / math.hypot(2, 4)])
    assert at_start[UP].tolist() == [0] * 5         # closed
    base = make_agent("shortest-moves").step_probabilities(maze, full, walk)
    assert base[0].tolist() == [0, 0.5, 0.5, 0] and base[2].tolist() == [0, 0, 1, 0]
    turns = make_agent("route-choice", shorter=0, turns=1, straight=0, reverse=0,
                       towards=0).step_probabilities(maze, full, walk)
    assert turns[0, DOWN] / turns[0, RIGHT] == pytest.approx(math.e)
    with pytest.raises(AgentError, match="full view only"):
        make_agent("shortest-moves").step_probabilities(maze, parse_vision(2), walk)


@pytest.mark.slow
def test_a_route_model_is_recovered_from_its_own_walks(tmp_path):
    """Simulated people of known weights on a few grids with obstacles: the fit finds them."""
    from mazesim.humans.fitting.recovery import simulate_population
    from mazesim.humans.data.vgc import parse_grid

    grids = {"a-base": ["S......", ".00..1.", ".....1.", "..#....", ".2...3.", ".2..33.",
                        "......G"],
             "b-base": ["......G", ".0..1..", ".0.....", "...##..", "22....3", ".....3.",
                        "S......"]}
    mazes = {name: parse_grid(name, rows) for name, rows in grids.items()}
    truth = {"shorter": 2.5, "turns": 0.8, "straight": 1.2}
    agent = make_agent("route-choice", **truth, reverse=0, towards=0)
    simulate_population(mazes, agent, "full", 400, 7, tmp_path / "sim")
    report = fit_models(tmp_path / "sim", ["route-choice:reverse=0,towards=0"], level="step",
                        folds=0, starts=1)
    (model,) = report.models
    for key, value in truth.items():
        assert model.estimate.params[key] == pytest.approx(value, abs=0.25), key
    assert model.estimate.lapse < 0.01


VGC = Path("shared") / "data" / "value-guided-construal" / "experiment-1"


def vgc_folder() -> Path:
    for folder in Path(__file__).resolve().parents:
        if (folder / VGC).is_dir():
            return folder / VGC
    pytest.fail(f"value-guided construal data not found: no {VGC} above the tests")


@pytest.mark.slow
def test_the_shared_experiment_imports_with_the_reference_figures(tmp_path):
    """The data README's figures: 161 people, 1,907 trials, 44,023 moves and 2,414 bumps of
    46,437 key presses, 44 grids; uniform 1.5405 bits per step; the shortest path with a
    lapse 0.6110 bits per step in-sample (lapse 0.063)."""
    summary = import_vgc(vgc_folder(), tmp_path / "run")
    assert (summary.participants, summary.trials, summary.mazes, summary.moves, summary.bumps,
            summary.skipped, summary.unfinished) == (161, 1907, 44, 44023, 2414, (), 0)
    assert summary.moves + summary.bumps == 46437
    run = load_human_run(tmp_path / "run")
    assert round(run.decisions.baseline_bits(), 4) == 1.5405
    (model,) = fit_models(tmp_path / "run", ["shortest-moves"], folds=0).models
    assert (round(model.bits, 4), round(model.estimate.lapse, 3)) == (0.6110, 0.063)


@pytest.mark.parametrize("name", ["shortest-moves", "route-choice",
                                  "route-choice:reverse=0,towards=0"])
def test_one_probability_source_in_full_view(tmp_path, name):
    """The fit reads the agent's own step probabilities, and the agent walks with them."""
    from collections import Counter

    from mazesim.humans.fitting.models import build_model, parse_model
    from mazesim.walks import simulate_many

    import_vgc(write_folder(tmp_path / "exp"), tmp_path / "run")
    run = load_human_run(tmp_path / "run")
    spec = parse_model(name)
    theta = np.array([0.7, -1.3, 2.1, -0.4, 1.6][:len(spec.free)])
    agent = spec.make({p.name: float(x) for p, x in zip(spec.free, theta)})
    d = run.decisions
    expected = [agent.step_probabilities(run.mazes[run.trials[t].maze_id], run.trials[t].vision,
                                         run.trials[t].positions)[s, c]
                for t, s, c in zip(d.trial, d.step, d.chosen)]
    read = build_model(spec, run, None).chosen(theta, np.arange(len(d)))
    assert np.allclose(read, expected, rtol=1e-9, atol=1e-12)
    walker = make_agent(spec.agent, **{**agent.params(), "lapse": 0.2, "max_steps": 8})
    maze, n = run.mazes[0], 20_000
    batch = simulate_many(maze, walker, "full", n, seed=5, keep_positions=True)
    counts = Counter(tuple(map(tuple, walk.tolist())) for walk in batch.positions)
    for walk, seen in counts.most_common(5):
        probs = walker.step_probabilities(maze, parse_vision("full"), np.array(walk))
        _, chosen, _ = step_decisions(maze, np.array(walk))
        p = float(np.prod(probs[np.arange(len(chosen)), chosen]))
        assert abs(seen / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9, (walk, seen / n, p)


def test_the_side_of_an_obstacle_is_the_winding_of_the_closed_route():
    from mazesim.humans.predict.routes import walk_measures
    from mazesim.maze import Maze

    grid = np.zeros((5, 5), np.uint8)
    grid[2, 2] = 1
    maze = Maze(grid, (0, 0), (4, 4), {}, {"obstacles": {"0": [[2, 2]]}})
    over = np.array([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 4], [2, 4], [3, 4], [4, 4]])
    under = over[:, ::-1]                           # the mirror route, round the other side
    stairs = np.array([[0, 0], [0, 1], [1, 1], [1, 2], [1, 3], [2, 3], [3, 3], [3, 4], [4, 4]])
    moves, turns, far = walk_measures(maze, [over, under, stairs])
    assert moves.tolist() == [8, 8, 8] and turns.tolist() == [1, 1, 5]
    assert far["0"].tolist() == [False, True, False]  # the centre lies just below the diagonal


def test_predict_routes_sets_models_beside_people(tmp_path):
    from click.testing import CliRunner

    from mazesim.cli import main

    import_vgc(write_folder(tmp_path / "exp"), tmp_path / "run")
    runner = CliRunner()
    fit = runner.invoke(main, ["fit", str(tmp_path / "run"), "--model", "shortest-moves",
                               "--cv", "0", "-o", str(tmp_path / "fit")])
    assert fit.exit_code == 0, fit.output
    result = runner.invoke(main, ["predict", str(tmp_path / "run"), "--fit",
                                  str(tmp_path / "fit"), "--routes", "--walks", "50", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (people,) = data["people"]
    assert (people["walks"], people["moves"], people["turns"]) == (2, 6.0, 1.5)
    assert people["shares"] == {"0": 0.0}
    (model,) = data["models"]
    (walked,) = model["fitted"]
    assert walked["walks"] == 100 and walked["moves"] == 6.0 and model["held_out"] is None
    refused = runner.invoke(main, ["predict", str(tmp_path / "run"), "--fit",
                                   str(tmp_path / "fit"), "--routes", "--cv-mazes", "2"])
    assert refused.exit_code == 2 and "between 2 and the 1 base grids" in refused.output


def test_construals_keep_the_obstacles_a_plan_would_run_into(tmp_path):
    from mazesim.humans.compare.construal import (construal_values, obstacle_probabilities,
                                          read_probes)
    from mazesim.humans.data.vgc import parse_grid

    maze = parse_grid("g-base", ["S0G",
                                 "...",
                                 "1.."])
    labels, construals, values = construal_values(maze)
    assert labels == ("0", "1") and construals == [(), ("0",), ("1",), ("0", "1")]
    assert values[1] == pytest.approx(-4.0, abs=1e-3)        # 4 moves round obstacle 0
    assert values[0] < -1e4 and values[2] < -1e4             # planned through 0: stuck
    kept = obstacle_probabilities(labels, construals, values, beta=1.0)
    assert kept["0"] > 0.99 and kept["1"] == pytest.approx(1 / (1 + math.e))
    table = {"navgridname": {"1": "g-base", "2": "g-base", "3": "g-base"},
             "probeobs": {"1": 0, "2": 0, "3": 1}, "response": {"1": 8, "2": 6, "3": None}}
    (tmp_path / "attentiontrials.json").write_text(json.dumps(table))
    assert read_probes(tmp_path) == {("g-base", "0"): [8.0, 6.0]}
