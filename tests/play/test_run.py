"""Run directories and serving rules: output errors, public hosts, links, older runs."""

from __future__ import annotations

import csv
import json

import pytest

from mazesim.errors import ConfigError, PlayError
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
    ({}, "0.0.0.0", None, r"--host 0.0.0.0: not a loopback address \(a public study needs "
                          r"--public-url URL"),
    ({}, "127.0.0.1", "https://x.org", r"s.yaml: participants.entry: id \(a public study needs "
                                       r"tokens: entry link or prolific\)"),
    ({"participants": {"entry": "prolific"}, "seed": 7}, "0.0.0.0", "https://x.org",
     r"s.yaml: seed: 7 is too small to keep the tokens of a public study secret \(allowed: at "
     r"least 2\^62"),
    ({"participants": {"entry": "prolific"}}, "0.0.0.0", "ftp://x.org",
     r"--public-url: 'ftp://x.org' \(allowed: an http:// or https:// URL\)"),
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
        with pytest.raises(PlayError, match=rf"--host 127.0.0.1 --port {port}: cannot listen"):
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
