"""Tests of the maze-file commands: analyze, solve, render (CliRunner)."""

import json

import pytest
from PIL import Image

from mazesim.analysis import PARAMETERS
from mazesim.cli import main
from mazesim.maze import read_maze

from cli_errors import error_line
from fixture_paths import DATA

TUTORIAL = str(DATA / "tutorial_7x13.txt")
SPLIT = "#######\n#S.#.G#\n#######\n"


def test_analyze_json_keys_are_the_parameters(runner):
    result = runner.invoke(main, ["analyze", TUTORIAL, "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert tuple(values) == PARAMETERS
    assert values["solution_length"] == 14 and values["max_depth"] == 16


def test_analyze_table(runner):
    result = runner.invoke(main, ["analyze", TUTORIAL])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(PARAMETERS)
    assert lines[0].split()[:2] == ["solution_length", "14"]
    assert lines[7].split()[:2] == ["dead_end_ratio", "0.05556"]


def test_analyze_unreachable_goal_gives_nulls(runner, tmp_path):
    path = tmp_path / "split.txt"
    path.write_text(SPLIT)
    values = json.loads(runner.invoke(main, ["analyze", str(path), "--json"]).stdout)
    assert values["solution_length"] is None and values["detour_depth"] is None
    assert values["max_depth"] == 1 and values["dead_ends"] == 4
    table = runner.invoke(main, ["analyze", str(path)]).stdout.splitlines()
    assert table[0].split()[:2] == ["solution_length", "-"]


def test_solve_bfs_text_is_the_tutorial_picture(runner):
    result = runner.invoke(main, ["solve", TUTORIAL])
    assert result.exit_code == 0
    assert result.stdout == (
        "#############\n#S****#****G#\n#.###*#*###.#\n#...#***#...#\n"
        "###.#####.###\n#...........#\n#############\nmoves: 14\n")


def test_solve_dfs_json(runner):
    result = runner.invoke(main, ["solve", TUTORIAL, "--method", "dfs", "--order",
                                  "down,right,up,left", "--json"])
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["moves"] == 18 and len(answer["path"]) == 19
    assert answer["path"][0] == [1, 1] and answer["path"][-1] == [1, 11]
    default = json.loads(runner.invoke(main, ["solve", TUTORIAL, "--method", "dfs",
                                              "--json"]).stdout)
    assert default == answer  # the tutorial's order is the default
    bfs = json.loads(runner.invoke(main, ["solve", TUTORIAL, "--json"]).stdout)
    assert bfs["moves"] == 14 and bfs["path"][5] == [2, 5]


@pytest.mark.parametrize("args, message", [
    (["solve", "missing.txt"], "Error: missing.txt: no such file"),
    (["analyze", "missing.txt"], "Error: missing.txt: no such file"),
    (["render", "missing.txt", "-o", "x.png"], "Error: missing.txt: no such file"),
    (["solve", TUTORIAL, "--order", "up,down,left,right"],
     "Error: --order applies only to --method dfs"),
    (["solve", TUTORIAL, "--method", "dfs", "--order", "down,down"],
     "Error: dfs order: 'down,down' (allowed: each of up, right, down, left once)"),
])
def test_bad_input_is_one_line_exit_2(runner, args, message):
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert error_line(result) == message


def test_malformed_maze_names_line_and_column(runner, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("#####\n#S.G#\n#.%.#\n#####\n")
    for command in (["analyze"], ["solve"], ["render", "-o", str(tmp_path / "x.png")]):
        result = runner.invoke(main, command[:1] + [str(path)] + command[1:])
        assert result.exit_code == 2
        assert error_line(result) == (f"Error: {path}:3:3: unknown character '%' "
                                      "(allowed: # . space S G A-Z)")


def test_solve_unreachable_goal(runner, tmp_path):
    path = tmp_path / "split.txt"
    path.write_text(SPLIT)
    result = runner.invoke(main, ["solve", str(path)])
    assert result.exit_code == 2
    assert error_line(result) == "Error: no route from (1, 1) to (1, 5)"


def test_render_png(runner, tmp_path):
    out = tmp_path / "maze.png"
    result = runner.invoke(main, ["render", TUTORIAL, "-o", str(out), "--path", "--scale", "6"])
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"wrote {out}: 78x42 pixels, 6 per cell, the shortest route "
                             "(14 moves)\n")
    with Image.open(out) as image:
        assert image.size == (13 * 6, 7 * 6)
        assert image.getpixel((3 * 6 + 3, 1 * 6 + 3)) != (255, 255, 255)  # the route
    result = runner.invoke(main, ["render", TUTORIAL, "-o", str(out), "--json"])
    assert json.loads(result.stdout) == {"output": str(out), "width": 130, "height": 70,
                                         "scale": 10, "moves": None}
    with Image.open(out) as image:
        assert image.size == (130, 70)  # default scale 10
        assert image.getpixel((33, 13)) == (255, 255, 255)  # no route drawn


def test_render_bad_scale_and_output(runner, tmp_path):
    result = runner.invoke(main, ["render", TUTORIAL, "-o", str(tmp_path / "x.png"),
                                  "--scale", "0"])
    assert result.exit_code == 2 and "0 is not in the range 1<=x<=10000" in result.stderr
    result = runner.invoke(main, ["render", TUTORIAL, "-o", str(tmp_path / "x.bmpx")])
    assert result.exit_code == 2
    assert error_line(result).startswith(f"Error: {tmp_path / 'x.bmpx'}: cannot write image")


def test_control_characters_of_file_names_are_escaped_in_the_error_line(runner, tmp_path):
    evil = tmp_path / "m\x1b]0;owned\x07\x1b[2J.txt"
    evil.write_text("#####\n#S.G#\n#.%.#\n#####\n")
    result = runner.invoke(main, ["analyze", str(evil)])
    assert result.exit_code == 2
    line = error_line(result)
    assert "\x1b" not in line and "\x07" not in line
    assert line == (f"Error: {tmp_path}/m\\x1b]0;owned\\x07\\x1b[2J.txt:3:3: unknown character "
                    "'%' (allowed: # . space S G A-Z)")
    result = runner.invoke(main, ["analyze", str(tmp_path / "gone\x1b[31m\x9b.txt")])
    assert result.exit_code == 2 and "\x1b" not in result.stderr and "\x9b" not in result.stderr
    assert "gone\\x1b[31m\\x9b.txt" in error_line(result)     # click's own "does not exist"
