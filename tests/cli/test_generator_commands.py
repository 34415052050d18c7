"""Tests of the generator commands: generate, generators (CliRunner)."""

import json

import pytest

from mazesim.cli import main
from mazesim.maze import format_maze, read_maze

from cli_errors import error_line


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
