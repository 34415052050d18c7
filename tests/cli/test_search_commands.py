"""Tests of the search commands: knight, terrain, chase (CliRunner)."""

import json

import pytest
from PIL import Image

from mazesim.cli import main
from mazesim.search.knight import MAX_PATH_BOARD

from fixture_paths import DATA

TERRAIN = str(DATA / "terrain_4x7.txt")
TUTORIAL = str(DATA / "tutorial_7x13.txt")


def error_line(result):
    """The one line a failing command prints (exit code 2)."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_knight_source_003(runner):
    result = runner.invoke(main, ["knight", "--board", "30", "--from", "1,1", "--to", "30,30",
                                  "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["moves"] == 20
    assert report["path"][0] == [1, 1] and report["path"][-1] == [30, 30]
    assert len(report["path"]) == 21


def test_knight_text_and_huge_board(runner):
    result = runner.invoke(main, ["knight", "--board", "8", "--from", "1,1", "--to", "2,2"])
    assert result.stdout.splitlines()[0] == "moves: 4"
    assert result.stdout.splitlines()[1].startswith("path: (1,1) ")
    n = str(10**9)
    result = runner.invoke(main, ["knight", "--board", n, "--from", "1,1", "--to", f"{n},{n}",
                                  "--json"])
    assert json.loads(result.stdout) == {"moves": 666_666_666}       # no path on huge boards
    big = str(MAX_PATH_BOARD + 1)
    result = runner.invoke(main, ["knight", "--board", big, "--from", "1,1", "--to", "1,2"])
    assert result.stdout == "moves: 3\n"


def test_knight_errors(runner):
    result = runner.invoke(main, ["knight", "--board", "3", "--from", "1,1", "--to", "2,2"])
    assert error_line(result) == ("Error: board 3x3: a knight cannot go between these squares "
                                  "(on a 3x3 board the centre square is cut off from the others)")
    result = runner.invoke(main, ["knight", "--board", "8", "--from", "0,1", "--to", "2,2"])
    assert "--from: square 0,1 is off the 8x8 board (rows and columns 1..8)" in error_line(result)


def test_terrain_source_002(runner):
    result = runner.invoke(main, ["terrain", TERRAIN, "--from", "3,0", "--to", "1,6",
                                  "--convention", "leave", "--table", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "cost": 12,
        "route": [[3, 0], [2, 0], [2, 1], [1, 1], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6]],
        "table": [[12, 8, 5, 4, 3, 3, 3], [10, 7, 5, 4, 2, 1, 0], [10, 8, 8, 7, 4, 4, 2],
                  [12, 11, 13, 9, 6, 8, 5]],
    }


def test_terrain_text(runner, tmp_path):
    costs = tmp_path / "costs.csv"
    costs.write_text("1,#,1\n1,2.5,1\n")
    result = runner.invoke(main, ["terrain", str(costs), "--from", "0,0", "--to", "0,2",
                                  "--table"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "cost: 5.5", "route: (0,0) (1,0) (1,1) (1,2) (0,2)",
        "5.5   -   0", "4.5   2   1",
    ]
    result = runner.invoke(main, ["terrain", str(costs), "--from", "0,0", "--to", "0,2", "--json"])
    assert "table" not in json.loads(result.stdout)
    result = runner.invoke(main, ["terrain", str(costs), "--from", "0,0", "--to", "0,2", "--json",
                                  "--table"])
    assert json.loads(result.stdout)["table"] == [[5.5, None, 0], [4.5, 2, 1]]   # None: no route


def test_terrain_errors(runner, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3 -4\n")
    result = runner.invoke(main, ["terrain", str(bad), "--from", "0,0", "--to", "1,1"])
    assert error_line(result) == (f"Error: {bad}:2:3: cell (1, 1): cost -4 "
                                  "(allowed: a number >= 0, inf or #)")
    result = runner.invoke(main, ["terrain", TERRAIN, "--from", "9,0", "--to", "1,6"])
    assert "start: cell (9, 0) is outside the 4x7 grid" in error_line(result)
    result = runner.invoke(main, ["terrain", str(tmp_path / "none.txt"), "--from", "0,0",
                                  "--to", "0,0"])
    assert "no such file" in error_line(result)


def test_chase_text(runner):
    result = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "3", "--steps", "40",
                                  "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].startswith("#@")                      # the player stays at S
    assert len(lines) == 7 + 3
    assert all(line.split(": ")[1].startswith("caught at step") for line in lines[7:])
    again = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "3", "--steps", "40",
                                 "--seed", "1"])
    assert again.stdout == result.stdout


def test_chase_png(runner, tmp_path):
    out = tmp_path / "chase.png"
    result = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "2", "--steps", "5",
                                  "--wander", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert Image.open(out).size == (130, 70)
    *chasers, last = result.stdout.splitlines()
    assert [line[:1] for line in chasers] == ["A", "B"] and last == f"wrote {out}"


def test_chase_json(runner):
    result = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "3", "--steps", "5",
                                  "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"steps": 5, "player": [1, 1], "chasers": [
        {"name": "A", "cell": [1, 3], "distance": 2, "caught": None},
        {"name": "B", "cell": [1, 1], "distance": 0, "caught": 4},
        {"name": "C", "cell": [2, 1], "distance": 1, "caught": None}]}
    text = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "3", "--steps", "5",
                                "--seed", "1"])
    assert text.stdout.splitlines()[7:] == ["A (1,3): 2 moves away", "B (1,1): caught at step 4",
                                            "C (2,1): 1 move away"]


def test_chase_json_no_route(runner, tmp_path):
    split = tmp_path / "split.txt"
    split.write_text("#######\n#S.#.G#\n#######\n")
    result = runner.invoke(main, ["chase", str(split), "--chasers", "3", "--steps", "2",
                                  "--json"])
    chasers = json.loads(result.stdout)["chasers"]
    assert sorted((c["cell"], c["distance"], c["caught"]) for c in chasers) == [
        ([1, 1], 0, 1), ([1, 4], None, None), ([1, 5], None, None)]


def test_chase_refuses_a_pursuit_too_long_before_any_work(runner):
    result = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "3", "--steps", str(10**9)])
    assert error_line(result) == (
        "Error: steps: 1000000000 with 3 chasers is too long a pursuit: (steps + 1) x "
        "(chasers + 1) = 4,000,000,004 cells to record (at most 2,000,000)")


@pytest.mark.parametrize("command", ["knight", "terrain", "chase", "sokoban"])
def test_every_command_has_help(runner, command):
    result = runner.invoke(main, [command, "--help"])
    assert result.exit_code == 0 and result.stdout.startswith(f"Usage: main {command} ")
    assert "--json" in result.stdout


def test_terrain_refuses_costs_that_overflow(runner, tmp_path):
    costs = tmp_path / "costs.txt"
    costs.write_text("1 1\n1 1e400\n")
    result = runner.invoke(main, ["terrain", str(costs), "--from", "0,0", "--to", "0,1"])
    assert error_line(result) == (f"Error: {costs}:2:3: cell (1, 1): 1e400 overflows to infinity "
                                  "(impassable cells are written inf or #; the largest cost is "
                                  "1e+300)")
    costs.write_text("1e308 1e308 1e308\n")
    result = runner.invoke(main, ["terrain", str(costs), "--from", "0,0", "--to", "0,2"])
    assert error_line(result) == (f"Error: {costs}:1:1: cell (0, 0): cost 1e308 is above the "
                                  "largest cost 1e+300 (route sums must stay finite)")


def test_chase_errors(runner, tmp_path):
    result = runner.invoke(main, ["chase", TUTORIAL, "--chasers", "27", "--steps", "5"])
    assert result.exit_code == 2                          # click's range: at most 26 letters
    small = tmp_path / "small.txt"
    small.write_text("#####\n#S.G#\n#####\n")
    result = runner.invoke(main, ["chase", str(small), "--chasers", "3", "--steps", "5"])
    assert error_line(result) == "Error: chasers: 3 do not fit on the 2 free passage cells"
