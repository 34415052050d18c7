"""Run directories and serving rules: output errors, public hosts, links, older runs, damaged
runs at a restart."""

from __future__ import annotations

import csv
import json
import sqlite3

import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.errors import ConfigError, PlayError, RunError
from mazesim.experiment.rundir import lock_run
from mazesim.experiment.storage import RunStore
from mazesim.play.entry import participant_token
from mazesim.play.run import LINKS_FILE, open_run, open_server, start_info

from tests.play.conftest import CORRIDOR

STRONG_SEED = 2**62 + 1


def _config(tmp_path, **top):
    (tmp_path / "c.txt").write_text(CORRIDOR, encoding="utf-8")
    data = {"name": "s", "seed": STRONG_SEED, "output": "run", "mazes": [{"file": "c.txt"}],
            **top}
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")   # JSON is YAML
    return path


def test_links_and_start_info(tmp_path):
    config = _config(tmp_path, participants={"entry": "link", "ids": ["A", "B"],
                                             "pilot": ["T"]})
    server = open_server(config, "127.0.0.1", 0, "https://study.example.org/maze")
    try:
        info = start_info(server)
        port = server.socket.getsockname()[1]
        assert port > 0
        assert info == {"session": "s", "url": "https://study.example.org/maze/",
                        "host": "127.0.0.1", "port": port,
                        "dashboard": "https://study.example.org/maze/dashboard#key="
                                     + server.recorder.dashboard_key,
                        "output": str(tmp_path / "run"), "links": str(tmp_path / "run" /
                                                                     LINKS_FILE)}
        raw = (tmp_path / "run" / LINKS_FILE).read_bytes()
        assert b"\r" not in raw and raw.count(b"\n") == 4      # LF: a token cut out stays whole
        with open(tmp_path / "run" / LINKS_FILE, encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        assert rows == [["participant", "pilot", "link"]] + [
            [p, pilot, f"https://study.example.org/maze/?t={participant_token(STRONG_SEED, p)}"]
            for p, pilot in (("A", "0"), ("B", "0"), ("T", "1"))]
    finally:
        server.server_close()
        server.recorder.store.close()


@pytest.mark.parametrize("top, host, url, message", [
    ({}, "0.0.0.0", None, r"host: 0.0.0.0: not a loopback address \(a public study needs "
                          r"public_url, the address"),
    ({}, "127.0.0.1", "https://x.org", r"s.yaml: participants.entry: id \(a public study needs "
                                       r"tokens: entry link or prolific\)"),
    ({"participants": {"entry": "prolific"}, "seed": 7}, "0.0.0.0", "https://x.org",
     r"s.yaml: seed: 7 is too small to keep the tokens of a public study secret \(allowed: at "
     r"least 2\^62"),
    ({"participants": {"entry": "prolific"}}, "0.0.0.0", "ftp://x.org",
     r"public_url: 'ftp://x.org' \(allowed: an http:// or https:// URL\)"),
])
def test_public_hosts_need_a_url_and_tokens(tmp_path, top, host, url, message):
    with pytest.raises(ConfigError, match=message):
        open_server(_config(tmp_path, **top), host, 0, url)
    assert not (tmp_path / "run").exists()               # refused before anything is made


def test_a_busy_port_is_one_line_and_releases_the_run(tmp_path):
    import socket

    config = _config(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(PlayError, match=rf"host 127.0.0.1, port {port}: cannot listen"):
            open_server(config, "127.0.0.1", port)
    server = open_server(config, "127.0.0.1", 0)         # the lock was released
    server.server_close()
    server.recorder.store.close()


def test_output_that_cannot_be_made(session_factory, tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    session = session_factory([(CORRIDOR, "full")], output="file/run")
    with pytest.raises(ConfigError, match=r"output: .*file/run: cannot create \(Not a directory\)"):
        open_run(session)


def test_older_or_foreign_run_directories_are_refused(session_factory, tmp_path):
    session = session_factory([(CORRIDOR, "full")], output="old")
    session.output.mkdir()
    with RunStore(session.output, create=True) as store:
        store.set_meta(recorder="play")                 # a run of the previous recorder
    with pytest.raises(ConfigError, match=r"old: not a run of this mazesim play \(recorder "
                                          r"play, play schema None\)"):
        open_run(session)


# -- restarting on a damaged run (issue 23.11: tracebacks, or walks through walls accepted) ----
L_MAZE = "#######\n#S...G#\n###.###\n#######\n"
"""A corridor with a side cell below (1, 3): S (1, 1), G (1, 5)."""


def _recorded(session_factory):
    """A run where p1 moved right twice on maze m0, then the recorder closed."""
    session = session_factory([(L_MAZE, "full")])
    recorder = open_run(session)
    recorder.join("p1")
    recorder.start("p1", "m0")
    recorder.move("p1", "m0", 1, "right")
    recorder.move("p1", "m0", 2, "right")
    recorder.store.close()
    return session


def _sql(statement):
    def damage(run_dir):
        with sqlite3.connect(run_dir / "results.sqlite") as db:
            db.execute(statement)
    return damage


def _session_file(data: bytes | None):
    def damage(run_dir):
        path = run_dir / "session.yaml"
        path.unlink()
        path.mkdir() if data is None else path.write_bytes(data)
    return damage


HINT = " (restore the run directory from a copy, or record into another output)"
DAMAGES = [
    ("session invalid YAML", _session_file(b"name: [\n"),
     "session.yaml: damaged: 2:1: expected the node content, but found '<stream end>'"),
    ("session a list", _session_file(b"- 1\n- 2\n"),
     "session.yaml: damaged: [1, 2] is not a session (a mapping of its keys)"),
    ("session binary", _session_file(b"\xff\xfe\x00\x01"),
     "session.yaml: damaged: not UTF-8 text (byte 1)"),
    ("session a directory", _session_file(None), "session.yaml: damaged: a directory, not a file"),
    ("order not JSON", _sql("UPDATE play_participants SET maze_order = 'm0'"),
     "results.sqlite: damaged: play_participants: participant 'p1': maze_order: 'm0' is not "
     "JSON"),
    ("order a number", _sql("UPDATE play_participants SET maze_order = '5'"),
     "results.sqlite: damaged: play_participants: participant 'p1': maze_order: 5 (expected a "
     "list of str)"),
    ("order unknown maze", _sql("""UPDATE play_participants SET maze_order = '["m9"]'"""),
     "results.sqlite: damaged: play_participants: session test: no maze 'm9'"),
    ("entry not JSON", _sql("UPDATE play_participants SET entry = '{'"),
     "results.sqlite: damaged: play_participants: participant 'p1': entry: '{' is not JSON"),
    ("answer not JSON", _sql("INSERT INTO play_answers VALUES ('p1', 'age', 'old', 0)"),
     "results.sqlite: damaged: play_answers: participant 'p1', question 'age': 'old' is not "
     "JSON"),
    ("renamed participant", _sql("UPDATE play_participants SET participant = 'p2'"),
     "results.sqlite: damaged: play_progress: participant 'p1' has not joined (no "
     "play_participants row)"),
    ("moves never started", _sql("DELETE FROM play_progress"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': moves or bumps of a maze never "
     "started (no play_progress row)"),
    ("a gap", _sql("UPDATE play_moves SET seq = 3 WHERE seq = 2"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': move 2 is stored as number 3 (a gap "
     "or a reordering)"),
    ("into a wall", _sql("UPDATE play_moves SET direction = 'up', to_row = 0, to_col = 2 "
                         "WHERE seq = 2"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': move 2: up from (1, 2) runs into a "
     "wall"),
    ("cells disagree", _sql("UPDATE play_moves SET direction = 'down' WHERE seq = 2"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': move 2: stored from (1, 2) to "
     "(1, 3), replayed from (1, 2) to (2, 2)"),
    ("no direction", _sql("UPDATE play_moves SET direction = 'north' WHERE seq = 1"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': move 1: direction 'north'"),
    ("finished short", _sql("UPDATE play_progress SET finished_ms = 5"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': the walk ends at (1, 3), but the "
     "maze is stored as finished"),
    ("bump into the open", _sql("INSERT INTO play_bumps VALUES ('p1', 'm0', 1, 2, 1, 2, "
                                "'right', 0, NULL)"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': bump 1: 'right' from (1, 2) is not "
     "into a wall (the walk was at (1, 2) before move 2)"),
    ("bump after the walk", _sql("INSERT INTO play_bumps VALUES ('p1', 'm0', 1, 9, 1, 3, "
                                 "'up', 0, NULL)"),
     "results.sqlite: damaged: participant 'p1', maze 'm0': bump 1: before move 9 (allowed: 1 "
     "to 3)"),
]


@pytest.mark.parametrize("case, damage, message", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_a_damaged_run_is_refused_at_restart_in_one_line(session_factory, case, damage,
                                                         message):
    session = _recorded(session_factory)
    damage(session.output)
    with pytest.raises(RunError) as error:
        open_run(session)
    assert str(error.value) == f"{session.output}/{message}{HINT}"
    lock_run(session.output, "test").release()            # the lock was released


def test_an_intact_run_resumes_with_its_bumps(session_factory):
    session = _recorded(session_factory)
    recorder = open_run(session)
    try:
        assert recorder.bump("p1", "m0", 3, 1, "up")[0] == "accepted"
    finally:
        recorder.store.close()
    recorder = open_run(session)                            # the bump replays too
    try:
        recorder.move("p1", "m0", 3, "right")
        status, state = recorder.move("p1", "m0", 4, "right")
        assert (status, state["phase"], state["last"]["moves"]) == ("accepted", "done", 4)
    finally:
        recorder.store.close()
    recorder = open_run(session)                            # a finished walk replays too
    try:
        assert recorder.state("p1")["phase"] == "done"
    finally:
        recorder.store.close()


def test_the_play_command_names_the_damage_in_one_line(tmp_path):
    config = _config(tmp_path)
    server = open_server(config, "127.0.0.1", 0)
    server.server_close()
    server.recorder.store.close()
    (tmp_path / "run" / "session.yaml").write_text("- a list\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["play", str(config), "--port", "0"])
    assert result.exit_code == 2
    assert result.output == (f"Error: {tmp_path / 'run' / 'session.yaml'}: damaged: ['a list'] "
                             f"is not a session (a mapping of its keys){HINT}\n")
