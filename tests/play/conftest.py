"""Fixtures of the play tests: small mazes, sessions in a temporary run directory, a live server."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mazesim.play.guard import PROXIES
from mazesim.play.run import open_run
from mazesim.play.server import make_server
from mazesim.play.session import parse_session

# The tutorial maze (7x13) with mark A on the branch point (5, 3); S (1, 1), G (1, 11).
TUTORIAL = """\
#############
#S....#....G#
#.###.#.###.#
#...#...#...#
###.#####.###
#..A........#
#############
"""
# A corridor: three moves right reach G.
CORRIDOR = """\
######
#S..G#
######
"""

# An 11x11 perfect maze: S (1, 1), G (9, 9).
WINDOW_MAZE = """\
###########
#S..#.....#
#.###.###.#
#.#.....#.#
#.#####.#.#
#.......#.#
#########.#
#.......#.#
#.###.###.#
#...#....G#
###########
"""


class Client:
    """JSON POSTs to a running play server; returns (status, decoded body, raw body)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def post(self, path: str, body: Any, content_type: str = "application/json"
             ) -> tuple[int, dict, bytes]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data, {"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                return response.status, json.loads(raw), raw
        except urllib.error.HTTPError as err:
            raw = err.read()
            return err.code, json.loads(raw), raw

    def get(self, path: str) -> tuple[int, bytes, dict]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as err:
            return err.code, err.read(), dict(err.headers)

    def join(self, participant: str) -> dict:
        return self.post("/api/join", {"participant": participant})[1]["state"]

    def start(self, participant: str, maze: str) -> dict:
        return self.post("/api/start", {"participant": participant, "maze": maze})[1]["state"]

    def move(self, participant: str, maze: str, seq: int, direction: str, **extra
             ) -> tuple[int, dict]:
        status, body, _ = self.post("/api/move", {"participant": participant, "maze": maze,
                                                   "seq": seq, "direction": direction, **extra})
        return status, body

    def bump(self, participant: str, maze: str, seq: int, bump: int, direction: str, **extra
             ) -> tuple[int, dict]:
        status, body, _ = self.post("/api/bump", {"participant": participant, "maze": maze,
                                                   "seq": seq, "bump": bump,
                                                   "direction": direction, **extra})
        return status, body

    def raw(self, request: bytes) -> bytes:
        """Send raw bytes on a new connection; everything the server answers until it closes
        (or stops talking for a second)."""
        host, port = urlsplit(self.url).hostname, urlsplit(self.url).port
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(request)
            sock.settimeout(1.0)
            chunks = []
            try:
                while chunk := sock.recv(65536):
                    chunks.append(chunk)
            except socket.timeout:
                pass
        return b"".join(chunks)


@pytest.fixture
def write_maze_file(tmp_path: Path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)
    return write


@pytest.fixture
def session_factory(tmp_path: Path, write_maze_file):
    """session_factory(mazes=[(text, vision), ...], practice=[...], order=..., **top) -> Session;
    `top` adds session keys (participants, pages, questions, completion)."""
    def make(mazes, practice=(), order="fixed", output="run", seed=0, **top):
        def entries(items, prefix):
            return [{"file": write_maze_file(f"{prefix}{i}.txt", text), "vision": vision,
                     "name": f"{prefix}{i}"} for i, (text, vision) in enumerate(items)]
        data = {"name": "test", "seed": seed, "order": order,
                "output": str(tmp_path / output),
                "mazes": entries(mazes, "m"), "practice": entries(practice, "p"), **top}
        return parse_session(data, source="test.yaml", base_dir=tmp_path)
    return make


@pytest.fixture
def serve():
    """serve(session or recorder, public_url=None, port=0, proxies=PROXIES) -> (Client,
    Recorder): a live server on a loopback port (0: any free one); `serve.stop(client)` ends
    one early (its recorder stays open, its port free for a restart); `serve.server(client)` is
    its PlayServer."""
    started = {}

    def start(what, public_url=None, port=0, proxies=PROXIES):
        recorder = open_run(what) if hasattr(what, "mazes") else what
        server = make_server(recorder, "127.0.0.1", port, public_url, proxies)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        client = Client(_bound_url(server))
        if client.url in started:           # a restart on the same port
            started[client.url + "#" + str(len(started))] = started.pop(client.url)
        started[client.url] = (server, thread, recorder)
        return client, recorder

    def stop(client):
        server, thread, _ = started[client.url]
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)

    start.stop = stop
    start.server = lambda client: started[client.url][0]
    yield start
    for server, thread, recorder in started.values():
        if thread.is_alive():
            server.shutdown()
            thread.join(timeout=10)
        server.server_close()
        recorder.store.close()


def _bound_url(server) -> str:
    host, port = server.socket.getsockname()[:2]
    return f"http://{host}:{port}/"
