"""Session configs: the demo, validation messages with key paths, per-participant orders."""

from __future__ import annotations

from pathlib import Path

import pytest

from mazesim.errors import ConfigError
from mazesim.play.session import (PARTICIPANT_MAX_LENGTH, check_participant, load_session,
                                  maze_order, parse_session)

from tests.play.conftest import CORRIDOR

ROOT = Path(__file__).resolve().parents[2]


def test_demo_session():
    session = load_session(ROOT / "configs" / "play-demo.yaml")
    assert [m.id for m in session.practice] == ["practice"]
    assert [(m.id, str(m.vision), m.maze.shape) for m in session.mazes] == [
        ("full-21", "full", (21, 21)), ("window-branch", "2", (15, 15))]
    assert session.maze("window-branch").maze.marks == {"A": (7, 1)}
    assert session.maze("full-21").k is None and session.maze("window-branch").k == 2
    assert session.order == "shuffled" and session.output == Path("results/play-demo")


@pytest.fixture
def corridor(write_maze_file):
    return write_maze_file("c.txt", CORRIDOR)


def _session(mazes, **top):
    return parse_session({"name": "s", "mazes": mazes, **top}, source="play.yaml")


@pytest.mark.parametrize("top, message", [
    ({"ordr": "fixed"}, r"play.yaml: ordr: unknown key; did you mean 'order'"),
    ({"order": "random"}, r"play.yaml: order: 'random' is not an order \(allowed: fixed, "
                          r"shuffled\)"),
    ({"seed": -1}, r"play.yaml: seed: -1 \(allowed: an integer from 0 to 2\^63 - 1\)"),
    ({"name": "a/b"}, r"play.yaml: name: 'a/b'"),
    ({"output": 3}, r"play.yaml: output: 3"),
    ({"practice": {"file": "x"}}, r"play.yaml: practice: \{'file': 'x'\} \(allowed: a list "
                                  r"of mazes\)"),
])
def test_top_level_errors_name_the_key(corridor, top, message):
    with pytest.raises(ConfigError, match=message):
        _session([{"file": corridor}], **top)


@pytest.mark.parametrize("entry, message", [
    ({"vision": -2}, r"play.yaml: mazes\[0\].vision: -2 \(allowed: full or an integer from 0 "
                     r"to 10,000\)"),
    ({"vision": {"isovist": 3}}, r"mazes\[0\].vision: isovist 3 \(allowed here: full or a "
                                 r"window k\)"),
    ({"vision": "half"}, r"mazes\[0\].vision: 'half'"),
    ({"generator": "digging"}, r"mazes\[0\].generator: unknown key \(allowed: file, sha256, "
                               r"vision, name\)"),
    ({"seed": 3}, r"mazes\[0\].seed: unknown key \(allowed: file, sha256, vision, name\)"),
    ({"name": "../x"}, r"mazes\[0\].name: '../x'"),
])
def test_maze_entry_errors_name_the_key(corridor, entry, message):
    with pytest.raises(ConfigError, match=message):
        _session([{"file": corridor, **entry}])


def test_maze_file_and_generator_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"mazes\[0\].file: .*nothere.txt': no such file"):
        _session([{"file": str(tmp_path / "nothere.txt")}])
    with pytest.raises(ConfigError, match=r"mazes\[0\].generator: 'digginz' is not a generator"):
        _session([{"generator": "digginz", "size": 7, "seed": 1}])
    with pytest.raises(ConfigError, match=r"mazes\[0\].braid: 2"):
        _session([{"generator": "digging", "size": 7, "seed": 1, "braid": 2}])
    with pytest.raises(ConfigError, match=r"mazes: \[\] \(allowed: a non-empty list of mazes\)"):
        _session([])
    with pytest.raises(ConfigError, match=r"play.yaml: \[.x.\] is not a mapping"):
        parse_session(["x"], source="play.yaml")


def test_duplicate_names_and_bad_yaml(corridor, tmp_path):
    with pytest.raises(ConfigError, match="maze name 'm' is used twice"):
        _session([{"file": corridor, "name": "m"}, {"file": corridor, "name": "m"}])
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: s\nmazes: [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml:3:1: expected the node content"):
        load_session(bad)
    with pytest.raises(ConfigError, match="no such file"):
        load_session(tmp_path / "none.yaml")


def test_generator_blocks_are_deterministic_and_relative_files_resolve(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "c.txt").write_text(CORRIDOR, encoding="utf-8")
    data = {"name": "s", "seed": 5, "mazes": [
        {"file": "m/c.txt"}, {"generator": "digging", "size": 9, "seed": 4, "vision": 0}]}
    one = parse_session(data, base_dir=tmp_path)
    two = parse_session(data, base_dir=tmp_path)
    assert (one.mazes[1].maze.grid == two.mazes[1].maze.grid).all()
    assert one.mazes[1].vision.k == 0 and one.mazes[0].id == "maze-1"
    assert one.config["mazes"][1]["seed"] == 4


def test_orders_fixed_and_shuffled_per_participant(tmp_path, corridor):
    mazes = [{"file": corridor, "name": f"m{i}"} for i in range(6)]
    practice = [{"file": corridor, "name": "warm-up"}]
    fixed = _session(mazes, practice=practice)
    assert maze_order(fixed, "p1") == ["warm-up"] + [f"m{i}" for i in range(6)]
    shuffled = _session(mazes, practice=practice, order="shuffled", seed=9)
    orders = {p: maze_order(shuffled, p) for p in ("p1", "p2", "p3", "p4")}
    assert all(o[0] == "warm-up" and sorted(o[1:]) == [f"m{i}" for i in range(6)]
               for o in orders.values())
    assert len({tuple(o) for o in orders.values()}) > 1
    assert maze_order(shuffled, "p1") == orders["p1"]
    other_seed = _session(mazes, practice=practice, order="shuffled", seed=10)
    assert [maze_order(other_seed, p) for p in orders] != list(orders.values())


@pytest.mark.parametrize("good", ["a", "P-01_x", "9" * PARTICIPANT_MAX_LENGTH])
def test_good_participant_ids(good):
    assert check_participant(good) == good


@pytest.mark.parametrize("bad, message", [
    ("", "required"), (None, "required"), ("a/b", "allowed: letters"), ("x\n", "allowed"),
    ("x" * (PARTICIPANT_MAX_LENGTH + 1), "65 characters"), ("naïve", "allowed"),
])
def test_bad_participant_ids(bad, message):
    with pytest.raises(ConfigError, match=f"participant id: .*{message}"):
        check_participant(bad)
