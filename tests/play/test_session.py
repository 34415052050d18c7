"""Session configs: the demo, validation messages with key paths, per-participant orders."""

from __future__ import annotations

from pathlib import Path

import pytest

from mazesim.errors import ConfigError
from mazesim.play.session import load_session, parse_session

from tests.play.conftest import CORRIDOR

ROOT = Path(__file__).resolve().parents[2]


def test_demo_session():
    session = load_session(ROOT / "configs" / "play-demo.yaml")
    assert [m.id for m in session.practice] == ["practice"]
    assert [(m.id, str(m.vision), m.maze.shape) for m in session.mazes] == [
        ("full-31", "full", (31, 31)), ("window-branch", "2", (15, 15)),
        ("isovist-known", "isovist 10, map known", (21, 21))]
    assert session.maze("window-branch").maze.marks == {"A": (7, 1)}
    assert session.order == "latin" and session.output == ROOT / "results" / "play-demo"
    assert session.pages.consent.startswith("<h1>") and session.pages.debrief
    assert [q.id for q in session.questions] == ["age", "strategy"]
    assert session.participants.pilot == ("pilot",)


@pytest.fixture
def corridor(write_maze_file):
    return write_maze_file("c.txt", CORRIDOR)


def _session(mazes, **top):
    return parse_session({"name": "s", "mazes": mazes, **top}, source="play.yaml")


@pytest.mark.parametrize("top, message", [
    ({"ordr": "fixed"}, r"play.yaml: ordr: unknown key; did you mean 'order'"),
    ({"order": "random"}, r"play.yaml: order: 'random' is not an order \(allowed: fixed, "
                          r"shuffled, latin\)"),
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
    ({"vision": {"isovist": 0}}, r"mazes\[0\].vision.isovist: 0 \(allowed: an integer from 1"),
    ({"vision": "half"}, r"mazes\[0\].vision: 'half'"),
    ({"generator": "digging"}, r"mazes\[0\].generator: unknown key \(allowed: file, sha256, "
                               r"vision, name\)"),
    ({"vision": {"window": 2, "map": "secret"}}, r"mazes\[0\].vision.map: 'secret'"),
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


def test_orders_per_participant(tmp_path, corridor):
    mazes = [{"file": corridor, "name": f"m{i}"} for i in range(3)]
    practice = [{"file": corridor, "name": "warm-up"}]
    latin = _session(mazes, practice=practice, order="latin")
    assert [latin.order_of("p", n) for n in range(3)] == [
        ["warm-up", "m0", "m1", "m2"], ["warm-up", "m1", "m2", "m0"],
        ["warm-up", "m2", "m0", "m1"]]
    assert latin.order_of("q", 3) == ["warm-up", "m2", "m1", "m0"]      # odd: reversed rows
    with pytest.raises(ConfigError, match="participant id: 'a b'"):
        latin.order_of("a b", 0)


def test_every_vision_is_accepted(corridor):
    visions = [0, 2, {"window": 1, "occlusion": True}, {"isovist": 4},
               {"isovist": 10, "map": "known"}, {"window": 2, "map": "known", "memory": False}]
    session = _session([{"file": corridor, "vision": v} for v in visions])
    assert [m.vision.to_config() for m in session.mazes] == visions


def test_output_is_relative_to_the_session_file(tmp_path, corridor):
    (tmp_path / "sub").mkdir()
    config = tmp_path / "sub" / "s.yaml"
    config.write_text(f"name: s\noutput: ../out\nmazes: [{{file: {corridor}}}]\n",
                      encoding="utf-8")
    assert load_session(config).output == tmp_path / "out"
    config.write_text(f"name: s\nmazes: [{{file: {corridor}}}]\n", encoding="utf-8")
    assert load_session(config).output == tmp_path / "sub" / "results" / "s"
    with pytest.raises(ConfigError, match=r"play.yaml: output: '/etc/passwd': /etc/passwd is a "
                                          r"file, not a directory"):
        _session([{"file": corridor}], output="/etc/passwd")


def test_unreachable_goals_and_huge_mazes_are_refused(write_maze_file):
    walled = write_maze_file("walled.txt", "#######\n#S.#.G#\n#######\n")
    with pytest.raises(ConfigError, match=r"play.yaml: mazes\[1\]: maze cut: G \(1, 5\) cannot "
                                          r"be reached from S \(1, 1\)"):
        _session([{"file": write_maze_file("ok.txt", CORRIDOR)}, {"file": walled, "name": "cut"}])
    with pytest.raises(ConfigError, match=r"mazes\[0\]: maze maze-1: 203x203 \(allowed on a "
                                          r"screen: at most 201x201\)"):
        _session([{"generator": "digging", "size": 203, "seed": 1}])


def test_sections_of_a_study(tmp_path, corridor):
    (tmp_path / "consent.md").write_text("# Consent\n", encoding="utf-8")
    session = parse_session({
        "name": "s", "mazes": [{"file": corridor}],
        "participants": {"entry": "prolific", "pilot": ["me"]},
        "pages": {"consent": "consent.md"},
        "questions": [{"id": "age", "kind": "number", "text": "Age"}],
        "completion": {"code": "ABC"}}, source="play.yaml", base_dir=tmp_path)
    assert session.participants.entry == "prolific" and session.pages.consent == "<h1>Consent</h1>"
    assert session.config["completion"] == {"code": "ABC", "redirect": None}
    assert set(session.identity) == {"name", "seed", "order", "practice", "mazes", "questions"}
