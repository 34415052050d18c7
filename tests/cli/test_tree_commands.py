"""Tests of `mazesim tree` (CliRunner): the JSON of a tree, the summary line, the picture, the
two kinds of maze file, and errors in one line."""

import json

import numpy as np
import pytest
from PIL import Image

from mazesim.agents.trees import MAX_TREE_NODES
from mazesim.cli import main
from mazesim.maze import maze_to_json, parse_maze
from mazesim.render import DECISION_COLOUR, TREE_SCALE

from tests.humans.mst_data import mst_folder, replication_mazes

from cli_errors import error_line

FORK = "#######\n###S###\n###.###\n#.....#\n#.###.#\n#G###.#\n#######\n"
RING = "3\n3\n665\n636\n626\n"                     # a Maze Search Task map
PILLARS = "9\n9\n" + "030303030\n000000000\n" * 4 + "000050002\n"


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, text in (("fork.txt", FORK), ("ring.txt", RING), ("pillars.txt", PILLARS)):
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    (tmp_path / "fork.json").write_text(json.dumps(maze_to_json(parse_maze(FORK))))
    out["fork.json"] = str(tmp_path / "fork.json")
    return out


def test_tree_json_of_a_mazesim_maze(runner, files):
    result = runner.invoke(main, ["tree", files["fork.txt"], "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["maze"], data["vision"], data["decisions"]) == ("fork", "sweep, map known", 1)
    assert len(data["nodes"]) == 6
    assert set(data["nodes"][1]) == {"index", "name", "cell", "parent", "depth", "steps",
                                     "steps_from_root", "path", "cells", "revealed",
                                     "remaining", "children"}
    assert data["nodes"][1] == {"index": 1, "name": "1", "cell": [3, 3], "parent": 0,
                                "depth": 1, "steps": 2, "steps_from_root": 2,
                                "path": [[1, 3], [2, 3], [3, 3]], "cells": 4,
                                "revealed": [[3, 1], [3, 2], [3, 4], [3, 5]], "remaining": 4,
                                "children": [2, 3]}
    again = runner.invoke(main, ["tree", files["fork.json"], "--json"])
    assert json.loads(again.stdout)["nodes"] == data["nodes"]


def test_tree_of_a_maze_search_task_map_and_its_summary(runner, files):
    result = runner.invoke(main, ["tree", files["ring.txt"]])
    assert result.exit_code == 0, result.output
    assert result.stdout == "ring (sweep, map known): 3 nodes, 1 decisions, 2 leaves, depth 1\n"


def test_tree_of_an_experiment_1_map(runner):
    result = runner.invoke(main, ["tree", str(mst_folder() / "mazes" / "4ways.txt")])
    assert result.stdout == ("4ways (sweep, map known): 171 nodes, 45 decisions, 60 leaves, "
                             "depth 5\n")


def test_merged_tree_of_an_experiment_1_map_and_of_a_replication_map(runner):
    result = runner.invoke(main, ["tree", str(mst_folder() / "mazes" / "4ways.txt"),
                                  "--merged"])
    assert result.stdout == ("4ways (sweep, map known, merged): 97 nodes, 53 states, 33 "
                             "decisions, 4 leaves, depth 5\n")
    big = str(replication_mazes()[1])
    assert "map02': the tree passes 50,000 nodes" in error_line(runner.invoke(main, ["tree",
                                                                                    big]))
    data = json.loads(runner.invoke(main, ["tree", big, "--merged", "--json"]).stdout)
    assert (data["maze"], data["merged"], data["states"], len(data["nodes"])) == (
        "map02", True, 331, 1_196)
    states = {n["state"] for n in data["nodes"]}
    assert len(states) == 331 and all(data["nodes"][k]["state"] == k for k in states)


def test_tree_under_another_vision(runner, files):
    result = runner.invoke(main, ["tree", files["fork.txt"], "--vision", "2, map known",
                                  "--json"])
    data = json.loads(result.stdout)
    assert data["vision"] == "2, map known" and len(data["nodes"]) == 3
    pairs = runner.invoke(main, ["tree", files["fork.txt"], "--vision", "window=2,map=known",
                                 "--json"])
    assert pairs.output == result.output                   # the same vision, key=value


def test_tree_picture(runner, files, tmp_path):
    out = tmp_path / "tree.png"
    result = runner.invoke(main, ["tree", files["fork.txt"], "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"wrote {out}\n")          # it wrote in silence
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (7 * TREE_SCALE, 7 * TREE_SCALE, 3)
    ring = np.all(image[3 * TREE_SCALE:4 * TREE_SCALE, 3 * TREE_SCALE:4 * TREE_SCALE]
                  == DECISION_COLOUR, axis=2)
    assert ring.any()                                # the fork is ringed
    assert not np.all(image[:TREE_SCALE, :TREE_SCALE] == DECISION_COLOUR, axis=2).any()
    small = tmp_path / "small.png"
    runner.invoke(main, ["tree", files["ring.txt"], "-o", str(small), "--scale", "10"])
    assert Image.open(small).size == (30, 30)


@pytest.mark.parametrize("args, message", [
    (["pillars.txt"], "Error: decision tree of maze 'pillars': the tree passes "
                      f"{MAX_TREE_NODES:,} nodes (the ceiling; allowed: max_nodes up to "),
    (["fork.txt", "--vision", "2"], "Error: vision: '2' leaves the map unknown"),
    (["fork.txt", "--vision", "far"], "Error: main tree: Invalid value for '--vision': 'far' "
                                      "(allowed: full or an integer"),
    (["fork.txt", "--vision", "isovist=3"], "Error: vision: 'isovist 3' leaves the map unknown"),
    (["bad.txt"], "Error: "),
    (["missing.txt"], "Error: "),
])
def test_tree_errors_are_one_line(runner, files, tmp_path, args, message):
    (tmp_path / "bad.txt").write_text("3\n2\n353\n9\n")
    files["bad.txt"] = str(tmp_path / "bad.txt")
    files["missing.txt"] = str(tmp_path / "missing.txt")
    result = runner.invoke(main, ["tree", files[args[0]], *args[1:]])
    assert result.exit_code == 2
    assert error_line(result).startswith(message), error_line(result)


def test_bad_files_name_the_place(runner, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("3\n2\n353\n9\n")
    assert "bad.txt:4:1: unknown code '9'" in error_line(runner.invoke(main, ["tree", str(bad)]))
    text = tmp_path / "text.txt"
    text.write_text("#####\n#S%G#\n#####\n")
    assert "text.txt:2:3: unknown character '%'" in error_line(
        runner.invoke(main, ["tree", str(text)]))
    assert "no such file" in error_line(runner.invoke(main, ["tree", str(tmp_path / "no")]))


@pytest.mark.parametrize("command", [["tree"], ["simulate", "--agent", "random"]])
def test_too_many_cells_shown_at_the_start_are_one_line(runner, tmp_path, command):
    """Issue 33, point 17: a JSON maze listing more cells shown at the start than its grid has
    is refused in one line naming the file (counted before the list is parsed)."""
    data = maze_to_json(parse_maze(FORK))
    data["meta"]["seen_at_start"] = [[1, 3]] * 50_000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(main, [*command, str(path)])
    assert result.exit_code == 2
    assert error_line(result) == (f"Error: {path}: meta seen_at_start: 50,000 cells (allowed: "
                                  "at most the 49 cells of the 7x7 grid)")
