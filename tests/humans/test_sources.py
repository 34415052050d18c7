"""Readers of recorded trajectories: Maze Search Task files and the long CSV."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mazesim.agents.vision import MST_VISION, SEEN_AT_START, Vision
from mazesim.errors import DataError
from mazesim.humans.data.sources import parse_mst_maze, read_csv, read_mst
from mazesim.maze import parse_maze, write_maze

from tests.humans.conftest import FORK, GOOD

TUTORIAL = "#######\n#S...G#\n###.###\n#######\n"


def test_an_mst_map_becomes_a_maze_with_what_it_shows_at_the_start():
    maze = parse_mst_maze(FORK, "fork.txt")
    assert maze.start == (0, 2) and maze.goal == (3, 0)
    assert maze.grid.tolist() == [[1, 1, 0, 1, 1], [0, 0, 0, 0, 0], [0, 1, 1, 1, 0],
                                  [0, 1, 1, 1, 0]]
    assert maze.meta[SEEN_AT_START] == [[1, 1], [1, 2], [1, 3]]
    assert maze.meta["name"] == "fork"


def test_cells_beyond_a_short_row_are_walls_and_the_last_newline_may_be_missing():
    maze = parse_mst_maze("4\n2\n5\n0002", "short.txt")
    assert maze.grid.tolist() == [[0, 1, 1, 1], [0, 0, 0, 0]]
    assert maze.start == (0, 0) and maze.goal == (1, 3)


@pytest.mark.parametrize("text, where", [
    ("5\n", "short.txt: expected the width and the height"),
    ("x\n1\n52", "short.txt:1: not a width from 1 to 5,000"),
    ("2\n1\n5 2", "short.txt:3:3: row longer than the width 2"),
    ("3\n1\n5x2", "short.txt:3:2: unknown code 'x'"),
    ("3\n1\n502\n000", "short.txt:4: more than the 1 rows"),
    ("3\n1\n500", "short.txt: 0 cells coded 2 (exit)"),
    ("3\n1\n552", "short.txt: 2 cells coded 5 (start)"),
])
def test_bad_mst_maps_name_the_place(text, where):
    with pytest.raises(DataError, match="^" + re.escape(where)):
        parse_mst_maze(text, "short.txt")


def test_plandata_rows_become_recordings(write_mst):
    source = read_mst(write_mst())
    assert source.format == "mst" and source.vision == MST_VISION
    assert [(r.line, r.participant, r.maze, r.number) for r in source.recordings] == [
        (2, "s1", "fork", 1), (3, "s1", "line", 2), (4, "s2", "fork", 1)]
    first = source.recordings[0]
    assert first.positions.tolist() == [[0, 2], [1, 2], [1, 1], [1, 0], [2, 0], [3, 0]]
    assert first.times.tolist() == [900, 500, 400, 300, 200]
    assert set(source.mazes) == {"fork", "line"} and not source.missing and not source.unreadable


@pytest.mark.parametrize("path, times, reason", [
    ("p(2,0)p(2,1);x(1,1);", "1;2;", "path 'p(2,0)p(2,1);x(1,1);' is not p(x,y) cells "
                                     "separated by ';'"),
    ("p(2,0)p(2,1);", "1;2;", "2 times for 1 moves"),
    ("p(2,0)p(2,1);", "-5;", "times '-5' is not a number >= 0"),
])
def test_an_unreadable_row_is_a_problem_of_its_trial(write_mst, path, times, reason):
    source = read_mst(write_mst([GOOD[1], ("s9", "fork", 3, path, times)]))
    assert len(source.recordings) == 1
    (problem,) = source.unreadable
    assert (problem.line, problem.participant, problem.maze, problem.step) == (3, "s9", "fork",
                                                                               None)
    assert problem.reason == reason


def test_a_maze_without_a_file_is_listed_as_missing(write_mst):
    source = read_mst(write_mst(mazes={"fork": FORK}))
    assert source.missing["line"].startswith("no maze file ")
    assert source.missing["line"].endswith("line.txt")


def test_plandata_needs_its_columns_and_a_header(write_mst, tmp_path):
    folder = write_mst()
    (folder / "plandata.csv").write_text("subject\tmaze\ttrialNo\tpath\ttimes\n")
    with pytest.raises(DataError, match=r"plandata.csv:1: no column 'world' \(expected "
                                        "subject, world, trialNo, path, times\\)"):
        read_mst(folder)
    (folder / "plandata.csv").write_text("")
    with pytest.raises(DataError, match="plandata.csv: empty file"):
        read_mst(folder)
    with pytest.raises(DataError, match="not a folder"):
        read_mst(tmp_path / "nowhere")


def _csv(tmp_path, text, mazes=None):
    folder = tmp_path / "mazes"
    folder.mkdir(exist_ok=True)
    for name, maze in (mazes or {"m": TUTORIAL}).items():
        (folder / f"{name}.txt").write_text(maze, encoding="utf-8")
    path = tmp_path / "walks.csv"
    path.write_text(text, encoding="utf-8")
    return path, folder


def test_long_csv_rows_in_any_order_become_trials(tmp_path):
    path, folder = _csv(tmp_path, "participant,maze,trial,step,row,col,t_ms,vision\n"
                                  "a,m,1,1,1,2,350,2\n"
                                  "b,m,1,0,1,1,,\n"
                                  "a,m,1,0,1,1,,2\n"
                                  "b,m,1,1,1,2,800,\n")
    source = read_csv(path, folder, vision="full")
    a, b = source.recordings
    assert (a.participant, a.maze, a.number, a.line) == ("a", "m", 1, 4)
    assert a.positions.tolist() == [[1, 1], [1, 2]] and a.lines.tolist() == [4, 2]
    assert a.times.tolist() == [350] and a.vision == Vision(k=2)
    assert b.vision is None and source.vision == Vision() and b.times.tolist() == [800]


@pytest.mark.parametrize("rows, line, step, reason", [
    ("a,m,1,0,1,1\na,m,1,2,1,2\n", 3, 1, "no step 1 (steps must be 0, 1, 2, ...)"),
    ("a,m,1,0,1,1\na,m,1,0,1,2\n", 3, 0, "step 0 twice (lines 2 and 3)"),
    ("a,m,1,0,1,1\na,m,1,1,one,2\n", 3, 1, "row 'one' is not an integer"),
    ("a,m,x,0,1,1\n", 2, None, "trial 'x' is not an integer"),
])
def test_bad_csv_trials_name_their_line_and_step(tmp_path, rows, line, step, reason):
    path, folder = _csv(tmp_path, "participant,maze,trial,step,row,col\n" + rows)
    (problem,) = read_csv(path, folder).unreadable
    assert (problem.line, problem.participant, problem.maze, problem.step, problem.reason) == (
        line, "a", "m", step, reason)


def test_csv_columns_are_checked(tmp_path):
    path, folder = _csv(tmp_path, "subject,maze,trial,step,row,col\n")
    with pytest.raises(DataError, match=r"walks.csv:1: unknown column 'subject' \(expected "
                                        "participant, maze, trial, step, row, col; optional "
                                        "t_ms, vision\\)"):
        read_csv(path, folder)
    path.write_text("participant,maze,trial,step,row\n")
    with pytest.raises(DataError, match="walks.csv:1: no column 'col'"):
        read_csv(path, folder)
    path.write_text("")
    with pytest.raises(DataError, match="walks.csv: empty file"):
        read_csv(path, folder)


def test_csv_mazes_are_mazesim_files_by_name_json_carrying_meta(tmp_path):
    maze = parse_maze(TUTORIAL)
    path, folder = _csv(tmp_path, "participant,maze,trial,step,row,col\na,j,1,0,1,1\n"
                                  "a,../m,1,0,1,1\n")
    from mazesim.maze import Maze

    write_maze(Maze(maze.grid, maze.start, maze.goal, meta={SEEN_AT_START: [[1, 2]]}),
               folder / "j.json")
    source = read_csv(path, folder)
    assert source.mazes["j"].meta[SEEN_AT_START] == [[1, 2]]
    assert source.missing["../m"].startswith("maze name '../m' (allowed: letters")


def test_a_csv_vision_must_be_one_per_trial(tmp_path):
    path, folder = _csv(tmp_path, "participant,maze,trial,step,row,col,vision\n"
                                  "a,m,1,0,1,1,2\na,m,1,1,1,2,full\n")
    (problem,) = read_csv(path, folder).unreadable
    assert problem.reason == "vision changes within the trial (2, full)"


def test_positions_are_row_col_from_x_y(write_mst):
    rec = read_mst(write_mst()).recordings[2]
    assert np.array_equal(rec.positions[:3], [[0, 2], [1, 2], [1, 3]])


def test_any_maze_file_is_told_apart_by_its_first_line(tmp_path):
    from mazesim.humans.data.sources import read_any_maze

    (tmp_path / "fork.txt").write_text(FORK)
    (tmp_path / "tutorial.txt").write_text(TUTORIAL)
    write_maze(parse_maze(TUTORIAL), tmp_path / "tutorial.json")
    mst = read_any_maze(tmp_path / "fork.txt")
    assert mst.meta[SEEN_AT_START] == [[1, 1], [1, 2], [1, 3]] and mst.meta["name"] == "fork"
    text = read_any_maze(tmp_path / "tutorial.txt")
    assert text.start == (1, 1) and text.meta["name"] == "tutorial"
    assert read_any_maze(tmp_path / "tutorial.json").meta["name"] == "tutorial"
    (tmp_path / "blank.txt").write_text("\n\n" + TUTORIAL)     # text may start blank
    assert read_any_maze(tmp_path / "blank.txt").goal == (1, 5)
