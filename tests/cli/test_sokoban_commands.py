"""The `mazesim sokoban` command: text and JSON output, the time limit, errors as one line."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim.cli import main

TUTORIAL = str(Path(__file__).parents[1] / "data" / "sokoban_tutorial_9x6.txt")


def _run(*args):
    return CliRunner().invoke(main, ["sokoban", *args])


def test_json_bfs_tutorial():
    result = _run(TUTORIAL, "--method", "bfs", "--prune", "corners", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert (data["solved"], data["optimal"], data["moves"], data["pushes"]) == (True, True, 14, 5)
    assert (data["solution"], data["states"]) == ("ruLulDDullulDD", 907)
    assert data["seconds"] >= 0


def test_text_astar_tutorial():
    result = _run(TUTORIAL, "--level", "1")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].endswith("level 1: solved (push-optimal)")
    assert "pushes: 5" in lines and any(line.startswith("solution: ") for line in lines)


def test_unsolvable_level_is_one_clear_line(tmp_path):
    path = tmp_path / "stuck.txt"
    path.write_text("######\n#@  $#\n#.   #\n######\n")
    result = _run(str(path), "--json")
    assert result.exit_code == 0 and json.loads(result.output)["solved"] is False
    result = _run(str(path))
    assert result.exit_code == 0
    assert result.output.count("\n") == 1
    assert "no solution: the level is unsolvable" in result.output


def test_bad_level_number_and_bad_file(tmp_path):
    result = _run(TUTORIAL, "--level", "2")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].endswith("no level 2 (the file has 1: 1 to 1)")
    bad = tmp_path / "bad.txt"
    bad.write_text("#####\n#@$.#\n##x##\n")
    result = _run(str(bad))
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: {bad}:3:3: unknown character 'x' " \
                                    "(allowed: # @ + $ * . space - _)"


def test_bad_options_exit_2():
    assert _run(TUTORIAL, "--method", "dfs").exit_code == 2
    assert _run(TUTORIAL, "--time-limit", "0").exit_code == 2


SHARED_LEVELS = Path("shared") / "levels" / "microban.txt"


@pytest.fixture(scope="module")
def microban() -> str:
    """The nearest ../shared/levels/microban.txt above the tests; a missing set fails, never skips."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SHARED_LEVELS).is_file():
            return str(folder / SHARED_LEVELS)
    pytest.fail(f"Microban levels not found: no {SHARED_LEVELS} in any folder above the tests")


def test_time_limit_hit_is_clear_and_exits_0(microban):
    result = _run(microban, "--level", "153", "--time-limit", "0.2")
    assert result.exit_code == 0
    assert "level 153: not solved within the time limit" in result.output
    data = json.loads(_run(microban, "--level", "153", "--time-limit", "0.2",
                           "--json").output)
    assert data["solved"] is False and data["timed_out"] is True and data["solution"] == ""
