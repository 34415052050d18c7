"""Importing recorded trajectories: every trial checked, a run of people written like a play run."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mazesim.agents.vision import SEEN_AT_START
from mazesim.errors import DataError
from mazesim.experiment.storage import RunStore
from mazesim.humans import import_csv, import_mst, load_human_run, node_decisions
from mazesim.humans.data.importer import check_recording, format_summary
from mazesim.humans.data.sources import Recording
from mazesim.maze import parse_maze

from tests.humans.conftest import GOOD

WALL_ROW = ("s3", "fork", 4, "p(2,0)p(2,1);p(2,2);", "1;1;")        # (2, 2) is a wall


def test_an_mst_folder_becomes_a_run_of_people(write_mst, tmp_path):
    summary = import_mst(write_mst(), tmp_path / "run")
    assert (summary.trials, summary.participants, summary.mazes, summary.decisions,
            summary.unfinished, summary.skipped) == (3, 2, 2, 3, 0, ())
    assert "numpy" in (tmp_path / "run" / "environment.json").read_text(encoding="utf-8")
    with RunStore(tmp_path / "run") as store:
        assert (store.meta("kind"), store.meta("recorder"), store.meta("format")) == (
            "human", "import", "mst")
        assert store.meta("config")["vision"] == [{"isovist": 10, "map": "known"}]
        trials = store.query("SELECT trial_id, maze_id, agent, vision, trial, seed, moves, "
                             "reached, capped, participant FROM trials ORDER BY trial_id")
        assert trials == [(0, 0, "human", "isovist 10, map known", 0, "", 5, 1, 0, "s1"),
                          (1, 1, "human", "isovist 10, map known", 0, "", 3, 1, 0, "s1"),
                          (2, 0, "human", "isovist 10, map known", 1, "", 7, 1, 0, "s2")]
        choices = store.query("SELECT trial_id, step, row, col, arrival, direction, first, open,"
                              " unexplored FROM choices ORDER BY trial_id, step")
        assert choices == [(0, 1, 1, 2, "down", "left", 1, "up+right+left", "right+left"),
                           (2, 1, 1, 2, "down", "right", 1, "up+right+left", "right+left"),
                           (2, 3, 1, 2, "left", "left", 0, "up+right+left", "left")]
        assert store.sample(2).tolist() == [[0, 2], [1, 2], [1, 3], [1, 2], [1, 1], [1, 0],
                                            [2, 0], [3, 0]]
        times = store.query("SELECT step, t_ms FROM import_times WHERE trial_id = 2 "
                            "ORDER BY step")
        assert times == [(0, 800.0), (1, 600.0), (2, 1500.0), (3, 400.0), (4, 300.0),
                         (5, 300.0), (6, 300.0)]
        assert store.query("SELECT * FROM import_trials ORDER BY trial_id") == [
            (0, "s1", 1, 2), (1, "s1", 2, 3), (2, "s2", 1, 4)]
        (fork,) = [m for m in store.mazes() if m.source == "fork"]
        assert fork.meta[SEEN_AT_START] == [[1, 1], [1, 2], [1, 3]]
        assert fork.parameters["branch_points"] == 1
    assert format_summary(summary).startswith(f"wrote {tmp_path / 'run'}: 3 trials of 2 "
                                              "participants on 2 mazes, 3 junction decisions")


def test_the_report_reads_an_imported_run(write_mst, tmp_path):
    from mazesim.play.report import build_run_report

    import_mst(write_mst(), tmp_path / "run")
    text = build_run_report(tmp_path / "run").path.read_text(encoding="utf-8")
    assert "| human | isovist 10, map known | 3 |" in text


@pytest.mark.parametrize("path, step, reason", [
    ("p(2,0)p(2,1);p(2,2);", 2, "(2, 2) is a wall"),
    ("p(2,0)p(2,1);p(2,5);", 2, "(5, 2) is off the 4x5 grid"),
    ("p(1,1)p(2,1);", 0, "starts at (1, 1), not at S (0, 2)"),
    ("p(2,0)p(1,1);", 1, "(1, 1) is not next to (0, 2)"),
    ("p(2,0)p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);p(0,2);", 6, "goes on after reaching G at "
                                                           "step 5"),
])
def test_the_first_bad_trial_stops_the_import_naming_it(write_mst, tmp_path, path, step,
                                                        reason):
    times = ";".join(["1"] * (path.count("p(") - 1)) + ";"
    folder = write_mst(GOOD + [("s3", "fork", 4, path, times)])
    with pytest.raises(DataError) as err:
        import_mst(folder, tmp_path / "run")
    assert str(err.value) == (f"{folder / 'plandata.csv'}:5: participant s3, maze fork, step "
                              f"{step}: {reason} (skip_invalid imports the valid trials and "
                              "lists the others)")
    assert not (tmp_path / "run").exists()


def test_skip_invalid_imports_the_rest_and_lists_every_skipped_trial(write_mst, tmp_path):
    folder = write_mst([WALL_ROW] + GOOD + [("s4", "nowhere", 1, "p(0,0)", "")],
                       )
    summary = import_mst(folder, tmp_path / "run", skip_invalid=True)
    assert (summary.trials, summary.participants) == (3, 2)
    assert summary.to_json()["skipped"] == [
        {"line": 2, "participant": "s3", "maze": "fork", "step": 2,
         "reason": "(2, 2) is a wall"},
        {"line": 6, "participant": "s4", "maze": "nowhere", "step": None,
         "reason": f"no maze file {folder / 'mazes' / 'nowhere.txt'}"}]
    with RunStore(tmp_path / "run") as store:
        assert store.meta("skipped") == 2


def test_a_missing_maze_file_stops_the_import(write_mst, tmp_path):
    folder = write_mst(mazes={"fork": "5\n4\n33533\n06660\n03330\n23330\n"})
    with pytest.raises(DataError, match=re.escape(
            f"plandata.csv:3: participant s1, maze line: no maze file "
            f"{folder / 'mazes' / 'line.txt'}")):
        import_mst(folder, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_trial_that_stops_before_the_exit_is_imported_as_unfinished(write_mst, tmp_path):
    summary = import_mst(write_mst([("s1", "fork", 1, "p(2,0)p(2,1);p(1,1);", "5;5;")]),
                         tmp_path / "run")
    assert summary.unfinished == 1
    with RunStore(tmp_path / "run") as store:
        assert store.query("SELECT moves, reached, capped FROM trials") == [(2, 0, 0)]


def test_an_existing_run_is_never_overwritten(write_mst, tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "keep.txt").write_text("mine")
    with pytest.raises(DataError, match="exists and is not an empty folder"):
        import_mst(write_mst(), tmp_path / "run")
    assert (tmp_path / "run" / "keep.txt").read_text() == "mine"


def test_nothing_valid_is_nothing_to_import(write_mst, tmp_path):
    with pytest.raises(DataError, match="no valid trial to import"):
        import_mst(write_mst([WALL_ROW]), tmp_path / "run", skip_invalid=True)
    assert not (tmp_path / "run").exists()


def test_a_long_csv_imports_with_its_vision_and_times(tmp_path):
    (tmp_path / "mazes").mkdir()
    (tmp_path / "mazes" / "t.txt").write_text("#######\n#S.A.G#\n###.###\n#######\n")
    (tmp_path / "walks.csv").write_text(
        "participant,maze,trial,step,row,col,t_ms\n"
        + "".join(f"p,t,7,{k},1,{k + 1},{'' if k == 0 else 100 * k}\n" for k in range(5)))
    summary = import_csv(tmp_path / "walks.csv", tmp_path / "mazes", tmp_path / "run",
                         vision=2)
    assert (summary.trials, summary.decisions) == (1, 1)
    with RunStore(tmp_path / "run") as store:
        assert store.query("SELECT vision, moves FROM trials") == [("2", 4)]
        assert store.query("SELECT mark, direction FROM choices") == [("A", "right")]
        assert store.query("SELECT t_ms FROM import_times ORDER BY step") == [
            (100.0,), (200.0,), (300.0,), (400.0,)]
        assert store.meta("config")["analysis"]["branch_choices"] == [{"mark": "A",
                                                                      "human": {}}]


def test_check_recording_accepts_a_valid_walk_only():
    maze = parse_maze("#####\n#S.G#\n#####\n")
    walk = Recording(1, "p", "m", 1, np.array([[1, 1], [1, 2], [1, 3]]), np.ones(3, int))
    assert check_recording(maze, walk) is None
    empty = Recording(1, "p", "m", 1, np.zeros((0, 2), int), np.zeros(0, int))
    assert check_recording(maze, empty).reason == "no cells"


def test_experiment_1_imports_whole(experiment_1_run):
    with RunStore(experiment_1_run) as store:
        assert store.query("SELECT COUNT(*), COUNT(DISTINCT participant), "
                           "COUNT(DISTINCT maze_id), "
                           "SUM(reached) FROM trials") == [(4758, 119, 40, 4758)]
        assert store.query("SELECT COUNT(*) FROM choices") == [(9927,)]
        assert store.meta("skipped") == 0


def test_skipped_trials_are_listed_with_control_characters_escaped(write_mst, tmp_path):
    evil = ("s3\x1b]0;owned\x07\x1b[2J", *WALL_ROW[1:])
    summary = import_mst(write_mst([evil] + GOOD), tmp_path / "run", skip_invalid=True)
    assert summary.skipped[0].participant == evil[0]          # the data itself is kept
    assert format_summary(summary).splitlines()[1] == (
        "skipped line 2: participant s3\\x1b]0;owned\\x07\\x1b[2J, maze fork, step 2: (2, 2) is "
        "a wall")


def test_a_run_imported_with_the_exit_on_arrival_is_cut_on_trees_that_show_it_so(tmp_path):
    (tmp_path / "mazes").mkdir()
    (tmp_path / "mazes" / "fork.txt").write_text(
        "#######\n###S###\n###.###\n#.....#\n#.###.#\n#G###.#\n#######\n")
    walk = [(1, 3), (2, 3), (3, 3), (3, 2), (3, 1), (4, 1), (5, 1)]
    (tmp_path / "walks.csv").write_text("participant,maze,trial,step,row,col\n" + "".join(
        f"p,fork,1,{k},{r},{c}\n" for k, (r, c) in enumerate(walk)))
    cut = {}
    for name, vision in (("seen", "sweep, map known"),
                         ("arrival", "{sweep: true, map: known, exit: arrival}")):
        import_csv(tmp_path / "walks.csv", tmp_path / "mazes", tmp_path / name, vision=vision)
        run = load_human_run(tmp_path / name)
        cut[name] = (str(run.trials[0].vision), node_decisions(run).node.tolist())
    assert cut == {"seen": ("sweep, map known", [0, 1]),
                   "arrival": ("sweep, map known, exit on arrival", [0, 1, 3])}
