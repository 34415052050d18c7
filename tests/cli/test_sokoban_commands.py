"""The `mazesim sokoban` command: text and JSON output, the time limit, errors as one line."""

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.search.sokoban import parse_levels, solve
from mazesim.search.sokoban.solver import WARM_UP_LEVEL

TUTORIAL = str(Path(__file__).parents[1] / "data" / "sokoban_tutorial_9x6.txt")
SHARED_LEVELS = Path("shared") / "levels" / "microban.txt"
BOX_SPACING = 3
SLACK_SECONDS = 1.0
"""A time limit holds within a second of wall time on a loaded machine (the exact figures are in
``benchmarks/bench_sokoban.py --deadline``)."""


def _run(*args):
    return CliRunner().invoke(main, ["sokoban", *args])


def _error_line(result):
    """The one line a failing command prints (exit code 2)."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def _room(tmp_path, size: int, boxes: int) -> str:
    """A level file: an open `size` x `size` room, boxes on rows from the top (every third
    column, every other row), their goals as many rows up from the bottom."""
    inner, per_row = size - 2, (size - 4) // BOX_SPACING
    rows = [list("#" * size)] + [list("#" + " " * inner + "#") for _ in range(inner)] + \
        [list("#" * size)]
    for i in range(boxes):
        band, col = 2 * (i // per_row), BOX_SPACING * (i % per_row + 1)
        rows[3 + band][col] = "$"
        rows[size - 4 - band][col] = "."
    rows[1][1] = "@"
    path = tmp_path / f"room_{size}_{boxes}.txt"
    path.write_text("\n".join("".join(row) for row in rows) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def microban() -> str:
    """The nearest shared/levels/microban.txt above the tests; a missing set fails, never skips."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SHARED_LEVELS).is_file():
            return str(folder / SHARED_LEVELS)
    pytest.fail(f"Microban levels not found: no {SHARED_LEVELS} in any folder above the tests")


def test_json_bfs_tutorial():
    result = _run(TUTORIAL, "--method", "bfs", "--prune", "corners", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["solved"], data["optimal"], data["moves"], data["pushes"]) == (True, True, 14, 5)
    assert (data["solution"], data["states"], data["stage"]) == ("ruLulDDullulDD", 907, None)
    assert data["seconds"] >= 0


@pytest.mark.slow
def test_text_astar_tutorial():
    result = _run(TUTORIAL, "--level", "1")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].endswith("level 1: solved (push-optimal)")
    assert "pushes: 5" in lines and any(line.startswith("solution: ") for line in lines)
    assert lines[-1] == "stage: astar-forward"
    assert json.loads(_run(TUTORIAL, "--json").stdout)["stage"] == "astar-forward"


def test_unsolvable_level_is_one_clear_line(tmp_path):
    path = tmp_path / "stuck.txt"
    path.write_text("######\n#@  $#\n#.   #\n######\n")
    result = _run(str(path), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["solved"] is False
    result = _run(str(path))
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert "no solution: the level is unsolvable" in result.stdout


def test_bad_level_number_and_bad_file(tmp_path):
    result = _run(TUTORIAL, "--level", "2")
    assert _error_line(result).endswith("no level 2 (the file has 1: 1 to 1)")
    bad = tmp_path / "bad.txt"
    bad.write_text("#####\n#@$.#\n##x##\n")
    assert _error_line(_run(str(bad))) == (f"Error: {bad}:3:3: unknown character 'x' "
                                           "(allowed: # @ + $ * . space - _)")
    missing = tmp_path / "missing.txt"
    assert _error_line(_run(str(missing))) == f"Error: {missing}: no such file"


def test_bad_options_exit_2():
    assert _error_line(_run(TUTORIAL, "--method", "dfs")).startswith(
        "Error: main sokoban: Invalid value for '--method': 'dfs' is not one of")
    assert "Invalid value for '--time-limit': 0.0 is not in the range x>0." in _error_line(
        _run(TUTORIAL, "--time-limit", "0"))


def test_levels_above_the_ceilings_are_one_line(tmp_path):
    big = _room(tmp_path, 182, 2)
    assert _error_line(_run(big, "--time-limit", "100")) == (
        f"Error: {big}: level 1 (line 1): 181x182 = 32942 cells by line 181, too large "
        "(at most 32768 cells)")
    crowded = _room(tmp_path, 60, 65)
    assert _error_line(_run(crowded)).endswith("65 boxes are too many to solve (at most 64)")


def test_a_time_limit_holds_from_the_command_line(tmp_path):
    assert solve(parse_levels(WARM_UP_LEVEL)[0], time_limit=10).solved   # compile or load first
    room = _room(tmp_path, 150, 40)
    start = time.perf_counter()
    result = _run(room, "--time-limit", "0.5", "--json")
    assert time.perf_counter() - start < 0.5 + SLACK_SECONDS
    data = json.loads(result.stdout)
    assert data["timed_out"] is True and data["solved"] is False and data["stage"] is None
    assert data["optimal"] is False and 0.5 <= data["seconds"] < 0.5 + SLACK_SECONDS
    assert "not solved within the time limit" in _run(room, "--time-limit", "0.5").stdout


def test_time_limit_hit_is_clear_and_exits_0(microban):
    result = _run(microban, "--level", "153", "--time-limit", "0.2")
    assert result.exit_code == 0
    assert "level 153: not solved within the time limit" in result.stdout
    data = json.loads(_run(microban, "--level", "153", "--time-limit", "0.2", "--json").stdout)
    assert data["solved"] is False and data["timed_out"] is True and data["solution"] == ""
