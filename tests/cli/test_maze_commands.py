"""Tests of the maze commands: generate, analyze, solve, render, generators (CliRunner)."""

import json

import pytest
from click.testing import CliRunner
from PIL import Image

from mazesim.analysis import PARAMETERS
from mazesim.cli import main
from mazesim.maze import format_maze, read_maze

from fixture_paths import DATA

TUTORIAL = str(DATA / "tutorial_7x13.txt")
SPLIT = "#######\n#S.#.G#\n#######\n"


@pytest.fixture()
def runner():
    return CliRunner()


def error_line(result):
    """The one line a failing command prints."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


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


def test_generate_to_stdout_is_the_library_maze(runner):
    from mazesim.generators import generate

    result = runner.invoke(main, ["generate", "digging", "--size", "11x15", "--seed", "7"])
    assert result.exit_code == 0, result.output
    expected = generate("digging", (11, 15), seed=7)
    assert result.stdout == format_maze(expected)
    rows = result.stdout.splitlines()
    assert len(rows) == 11 and {len(row) for row in rows} == {15}
    assert rows[1][1] == "S" and rows[9][13] == "G"  # corners by default
    again = runner.invoke(main, ["generate", "digging", "--size", "11x15", "--seed", "7"])
    assert again.stdout == result.stdout


def test_generate_json_keeps_metadata(runner, tmp_path):
    out = tmp_path / "m.json"
    result = runner.invoke(main, ["generate", "eller", "--size", "9x9", "--seed", "3",
                                  "--braid", "0.5", "--placement", "farthest",
                                  "-p", "join=0.9", "-o", str(out)])
    maze = read_maze(out)
    assert result.exit_code == 0 and result.stdout == (
        f"wrote {out}: 9x9 eller maze, seed 3, S {maze.start}, G {maze.goal}\n")
    assert maze.meta["generator"] == "eller" and maze.meta["seed"] == 3
    assert maze.meta["options"] == {"join": 0.9} and maze.meta["braid"] == 0.5
    analyzed = runner.invoke(main, ["analyze", str(out), "--json"])  # JSON mazes read too
    assert json.loads(analyzed.stdout)["passage_cells"] == int((maze.grid == 0).sum())
    text_out = tmp_path / "m.txt"
    runner.invoke(main, ["generate", "prim", "--seed", "1", "-o", str(text_out)])
    assert read_maze(text_out).shape == (31, 31)  # the study's size by default


@pytest.mark.parametrize("args, message", [
    (["generate", "diging", "--seed", "1"], "Error: unknown generator 'diging' (known: "),
    (["generate", "digging", "--seed", "1", "--size", "10x10"], "Error: size 10x10: "),
    (["generate", "digging", "--seed", "1", "--size", "3x"], "Error: size: '3x' is not a size"),
    (["generate", "digging", "--seed", "1", "--braid", "2"],
         "Error: main generate: Invalid value for '--braid': 2.0 is not in the range 0<=x<=1."),
    (["generate", "digging", "--seed", "1", "--placement", "far"], "Error: placement: 'far'"),
    (["generate", "digging", "--seed", "1", "-p", "foo=1"], "Error: generator 'digging': "),
])
def test_generate_bad_input(runner, args, message):
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert error_line(result).startswith(message)


def test_generators_lists_every_name_with_a_description(runner):
    from mazesim.generators import GENERATORS

    result = runner.invoke(main, ["generators"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(GENERATORS)
    assert {"stick-knocking", "digging", "wall-extending", "wilson"} <= set(GENERATORS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)
    assert "穴掘り法" in lines[[line.split()[0] for line in lines].index("digging")]


def test_generate_json_is_the_maze_file_format(runner, tmp_path):
    from mazesim.maze import maze_from_json

    result = runner.invoke(main, ["generate", "digging", "--size", "9x11", "--seed", "7",
                                  "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    maze = maze_from_json(data)
    expected = runner.invoke(main, ["generate", "digging", "--size", "9x11", "--seed", "7"])
    assert format_maze(maze) == expected.stdout and data["meta"]["seed"] == 7
    out = tmp_path / "m.txt"
    both = runner.invoke(main, ["generate", "digging", "--size", "9x11", "--seed", "7",
                                "--json", "-o", str(out)])
    assert json.loads(both.stdout) == data and out.read_text() == expected.stdout


def test_generators_json(runner):
    from mazesim.generators import GENERATORS

    listing = json.loads(runner.invoke(main, ["generators", "--json"]).stdout)
    assert list(listing) == list(GENERATORS)
    assert listing["digging"]["description"] == GENERATORS["digging"].description
    assert listing["eller"]["options"] == dict(GENERATORS["eller"].options)


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
