"""`mazesim simulate` and `mazesim agents`."""

import json
import re
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from mazesim.cli import main

DATA = Path(__file__).parent.parent / "data"
TUTORIAL = str(DATA / "tutorial_7x13.txt")
T_MAZE = "#####\n#.#G#\n#.#.#\n#A..#\n#.###\n#.###\n#.###\n#S###\n#####\n"


def _run(*args):
    return CliRunner().invoke(main, list(args))


def test_simulate_tutorial_dfs_json():
    result = _run("simulate", TUTORIAL, "--agent", "dfs", "--vision", "0",
                  "--param", "order=down,right,up,left", "--param", "goal_seeking=false",
                  "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["trials"] == [{"trial": 0, "moves": 22, "reached": True, "capped": False}]
    assert report["summary"]["mean_moves"] == 22.0 and report["first_choices"] == {}


def test_simulate_first_choices_at_a_mark(tmp_path):
    maze = tmp_path / "t.txt"
    maze.write_text(T_MAZE)
    result = _run("simulate", str(maze), "--agent", "weighted-walker", "--vision", "2",
                  "--trials", "600", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    counts = report["first_choices"]["A"]
    assert len(report["trials"]) == 600 and counts["up"] + counts["right"] == 600
    assert abs(counts["up"] - 500) < 4.5 * (600 * 5 / 36) ** 0.5
    text = _run("simulate", str(maze), "--agent", "weighted-walker", "--vision", "2",
                "--trials", "600", "--seed", "3")
    assert text.exit_code == 0
    assert f"first choice at A: up {counts['up']}, right {counts['right']}" in text.output
    assert "reached: 100.0% (0 capped)" in text.output


def test_simulate_text_summary_and_picture(tmp_path):
    out = tmp_path / "walk.png"
    result = _run("simulate", TUTORIAL, "--agent", "shortest", "--trials", "3", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "moves: mean 14.0, median 14, min 14, max 14" in result.output
    assert result.output.endswith(f"wrote {out}\n")
    image = Image.open(out)
    assert image.size == (130, 70)
    one = tmp_path / "one.png"
    assert _run("simulate", TUTORIAL, "--agent", "dfs", "-o", str(one)).exit_code == 0
    assert Image.open(one).getpixel((15, 15)) == (0, 160, 60)        # the start


def test_simulate_same_seed_same_result():
    args = ("simulate", TUTORIAL, "--agent", "random-walk", "--vision", "1", "--trials", "5",
            "--seed", "8", "--json")
    assert _run(*args).output == _run(*args).output


def test_simulate_bad_input_is_one_error_line():
    cases = [
        (("--agent", "weighted-walke"), "Error: unknown agent 'weighted-walke'"),
        (("--agent", "dfs", "--param", "depth=3"), "Error: dfs: unknown parameter 'depth'"),
        (("--agent", "turn-bias", "--param", "p_reverse=2"),
         "Error: turn-bias: p_reverse: 2 (allowed"),
    ]
    for extra, message in cases:
        result = _run("simulate", TUTORIAL, *extra)
        assert result.exit_code == 2
        assert result.output.strip().splitlines()[-1].startswith(message), result.output
    bad_vision = _run("simulate", TUTORIAL, "--agent", "dfs", "--vision", "-2")
    assert bad_vision.exit_code == 2
    assert "allowed: full or an integer from 0 to 10,000" in bad_vision.output
    missing = _run("simulate", "no-such-maze.txt", "--agent", "dfs")
    assert missing.exit_code == 2 and "no-such-maze.txt: no such file" in missing.output


def test_agents_lists_every_agent_with_defaults():
    result = _run("agents")
    assert result.exit_code == 0
    assert "weighted-walker" in result.output
    assert ("goal_seeking=false, max_steps=null, lapse=0.0, initial_count=1, count_backtrack=true, "
            "backtrack=retrace") in result.output
    listing = json.loads(_run("agents", "--json").output)
    assert len(listing) == 22 and listing["finite-memory"]["horizon"] == 7
    assert listing["du"] == {"goal_seeking": True, "max_steps": None, "lapse": 0.0,
                             "tau": 1.74, "gamma": 0.76}


def test_agents_speaks_the_user_s_words():
    """It printed node-choice's weights as 9 unnamed numbers and cited "DESIGN section 6" and
    "WallFollower", which a user does not have."""
    from mazesim.agents.node_features import NODE_FEATURES

    text = _run("agents").output
    assert "DESIGN" not in text and "WallFollower" not in text
    weights = re.search(r"weights=\{(.*)\}", text).group(1)
    assert [pair.split(": ")[0] for pair in weights.split(", ")] == list(NODE_FEATURES)
    assert "revisit: -1.1" in weights


def test_simulate_takes_every_vision_in_one_canonical_form():
    """Labels and the config's keys as key=value pairs give the same vision, stored and printed
    as its label (issue 22.4: an isovist could not be asked for)."""
    forms = {
        "isovist 3, map known": ["isovist=3,map=known", " isovist 3 ,  map known", "ISOVIST 3, "
                                 "MAP KNOWN", "map=known,isovist=3"],
        "2, occlusion, no memory": ["window=2,occlusion=true,memory=false", "2, no memory, "
                                    "occlusion"],
        "sweep, map known": ["sweep=true,map=known"],
        "2": ["window=2", "2"],
        "full": ["full"],
    }
    for label, spellings in forms.items():
        reports = [json.loads(_run("simulate", TUTORIAL, "--agent", "bfs", "--vision", form,
                                   "--trials", "3", "--json").output)
                   for form in [label, *spellings]]
        assert all(r == reports[0] for r in reports) and reports[0]["vision"] == label
    isovist = json.loads(_run("simulate", TUTORIAL, "--agent", "bfs", "--vision", "isovist 3",
                              "--json").output)
    window = json.loads(_run("simulate", TUTORIAL, "--agent", "bfs", "--vision", "3",
                             "--json").output)
    assert (isovist["vision"], window["vision"]) == ("isovist 3", "3")
    assert isovist["trials"][0]["moves"] != window["trials"][0]["moves"]     # another sight
    flags = _run("simulate", TUTORIAL, "--agent", "bfs", "--vision", "isovist=3", "--no-memory",
                 "--json")
    assert json.loads(flags.output)["vision"] == "isovist 3, no memory"


def test_bad_visions_are_one_line():
    cases = [
        ("isovist=3,occlusion=true", "Invalid value for '--vision': occlusion: an isovist is "
                                     "always occluded (leave it out)"),
        ("isovist=3,colour=red", "Invalid value for '--vision': colour: unknown key (allowed: "
                                 "window, isovist, sweep, occlusion, memory, map, exit)"),
        ("window=2,isovist=3", "Invalid value for '--vision': give exactly one of 'window', "
                               "'isovist' or 'sweep'"),
        ("window=[2]", "Invalid value for '--vision': window: '[2]': no brackets"),
        ("window=2,map=maybe", "Invalid value for '--vision': map: 'maybe' (allowed: unknown, "
                               "known)"),
        ("2, foggy", "Invalid value for '--vision': '2, foggy': unknown setting 'foggy'"),
    ]
    for vision, message in cases:
        result = _run("simulate", TUTORIAL, "--agent", "bfs", "--vision", vision)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert message in result.stderr, result.stderr
    result = _run("simulate", TUTORIAL, "--agent", "bfs", "--vision", "isovist 3", "--occlusion")
    assert result.exit_code == 2
    assert result.stderr == ("Error: vision.occlusion: an isovist is always occluded (leave it "
                             "out)\n")


FORK = "#########\n###S#####\n###.#####\n#.......#\n#.#####.#\n#G#####.#\n#########\n"


def test_simulate_a_planner_with_the_map_known(tmp_path):
    """`du` walks its decision tree: left to the exit (6 moves) or right first (14)."""
    maze = tmp_path / "fork.txt"
    maze.write_text(FORK)
    args = ("simulate", str(maze), "--agent", "du", "--vision", "sweep", "--map-known",
            "--trials", "200", "--seed", "3", "-p", "tau=0.5", "-p", "gamma=0.9", "--json")
    result = _run(*args)
    assert result.exit_code == 0, result.output
    moves = [t["moves"] for t in json.loads(result.output)["trials"]]
    assert set(moves) == {6, 14} and 100 < moves.count(6) < 200
    assert _run(*args).output == result.output
    text = _run("simulate", str(maze), "--agent", "steps", "--vision", "2", "--map-known")
    assert text.exit_code == 0 and "reached: 100.0%" in text.output
    unknown = _run("simulate", str(maze), "--agent", "du", "--vision", "2")
    assert unknown.exit_code == 2
    assert unknown.output.strip().splitlines()[-1] == (
        "Error: du: vision: '2' leaves the map unknown: the children's search walks the known "
        "floor plan (allowed: a limited vision with map: known and memory, such as {sweep: "
        "true, map: known})")


def test_simulate_a_maze_search_task_map(tmp_path):
    """A Maze Search Task map (width, height, rows of codes; 6: floor shown at the start)."""
    maze = tmp_path / "tiny.txt"
    maze.write_text("5\n3\n33333\n35002\n33333\n")
    result = _run("simulate", str(maze), "--agent", "eu", "--vision", "sweep", "--map-known",
                  "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["trials"][0]["moves"] == 3
