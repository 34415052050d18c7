"""The play server over HTTP (no browser): validation, dedup, bumps, tabs, hosts, hardening."""

from __future__ import annotations

import http.client
import json
import logging
import sqlite3
import threading
import time
from urllib.parse import urlsplit

import numpy as np
import pytest

from mazesim.analysis import shortest_path
from mazesim.maze import DELTAS, DIRECTIONS, parse_maze
from mazesim.play.recorder import Recorder
from mazesim.play.run import open_run
from mazesim.play.server import BACKLOG, MAX_BODY_BYTES

from tests.play.conftest import CORRIDOR, TUTORIAL


def route(text: str) -> list[str]:
    """Direction names of the canonical shortest path of a maze text."""
    path = shortest_path(parse_maze(text))
    steps = np.diff(path, axis=0).tolist()
    return [DIRECTIONS[DELTAS.tolist().index(step)] for step in steps]


def stored_moves(recorder: Recorder, participant: str, maze: str) -> list[str]:
    return [m.direction for m in recorder.store.moves(participant, maze)]


@pytest.fixture
def tutorial(session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    client.join("p1")
    client.start("p1", "m0")
    return client, recorder


def test_legal_moves_are_stored_with_positions_and_timestamps(tutorial):
    client, recorder = tutorial
    before = time.time() * 1000
    status, body = client.move("p1", "m0", 1, "right", t=1_700_000_000_123.25)
    assert status == 200 and body["status"] == "accepted"
    assert body["state"]["view"]["position"] == [1, 2] and body["state"]["seq"] == 2
    (row,) = recorder.store.moves("p1", "m0")         # committed before the reply was sent
    assert (row.seq, row.source, row.target, row.direction) == (1, (1, 1), (1, 2), "right")
    assert before - 1 <= row.server_ms <= time.time() * 1000 + 1
    assert row.client_ms == 1_700_000_000_123.25


def test_moves_into_walls_and_jumps_are_refused(tutorial):
    client, recorder = tutorial
    status, body = client.move("p1", "m0", 1, "up")
    assert (status, body) == (422, {"error": "move 1: up runs into a wall"})
    for bad in ("up-right", "jump", [0, 2], None, "RIGHT"):
        status, body = client.move("p1", "m0", 1, bad)
        assert status == 422 and body["error"].startswith("direction: "), bad
    assert stored_moves(recorder, "p1", "m0") == []
    assert client.move("p1", "m0", 1, "down")[0] == 200


def test_duplicates_are_ignored_and_conflicting_repeats_refused(tutorial):
    client, recorder = tutorial
    assert client.move("p1", "m0", 1, "right")[1]["status"] == "accepted"
    status, body = client.move("p1", "m0", 1, "right")
    assert status == 200 and body["status"] == "duplicate"
    assert body["state"]["view"]["position"] == [1, 2] and body["state"]["seq"] == 2
    status, body = client.move("p1", "m0", 1, "left")
    assert (status, body) == (409, {"error": "move 1 of m0 was already right"})
    assert stored_moves(recorder, "p1", "m0") == ["right"]


def test_out_of_order_and_malformed_numbers_are_refused(tutorial):
    client, recorder = tutorial
    status, body = client.move("p1", "m0", 2, "right")
    assert (status, body) == (409, {"error": "move 2 out of order (expected 1)"})
    for bad in (0, -1, "1", 1.5, True, None, 10**30, 1_000_001):
        status, body = client.move("p1", "m0", bad, "right")
        assert status == 400 and body["error"].startswith("seq: "), bad
        assert "allowed: an integer from 1 to 1,000,000" in body["error"]
    assert stored_moves(recorder, "p1", "m0") == []


@pytest.mark.parametrize("bad, reason", [
    ("1e400", "1e400 is out of range (numbers must be finite)"),
    ("NaN", "NaN is not a number (JSON has no NaN or Infinity)"),
    ("-Infinity", "-Infinity is not a number (JSON has no NaN or Infinity)"),
    ("1" + "0" * 30, "t: 1000000000000000000000000000000 (allowed: milliseconds from 0 to 2^53)"),
    ("-5", "t: -5 (allowed: milliseconds from 0 to 2^53)"),
    ('"noon"', "t: 'noon' (allowed: milliseconds from 0 to 2^53)"),
])
def test_bad_timestamps_get_a_400_with_the_reason(tutorial, bad, reason):
    client, recorder = tutorial
    body = ('{"participant": "p1", "maze": "m0", "seq": 1, "direction": "right", "t": %s}'
            % bad).encode()
    status, reply, _ = client.post("/api/move", body)
    assert (status, reply) == (400, {"error": reason})
    assert stored_moves(recorder, "p1", "m0") == []


def test_deep_nesting_and_huge_numbers_get_a_400(tutorial):
    client, recorder = tutorial
    status, reply, _ = client.post("/api/move", b"[" * 2000 + b"]" * 2000)
    assert (status, reply) == (400, {"error": "body is nested too deeply"})
    status, reply, _ = client.post("/api/move", json.dumps(
        {"participant": "p1", "maze": "m0", "seq": 10**30, "direction": "right"}).encode())
    assert status == 400 and reply["error"].startswith("seq: 1000000000000000000000000000000")
    status, reply = client.bump("p1", "m0", 1, 10**30, "up")
    assert status == 400 and reply["error"].startswith("bump: 10000")
    assert client.move("p1", "m0", 1, "right")[0] == 200      # the connection pool still works


def test_body_size_is_limited_before_reading(tutorial):
    client, _ = tutorial
    headers = ("POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               "Content-Length: {}\r\n\r\n")
    reply = client.raw(headers.format(-1).encode() + b"{}")
    assert reply.startswith(b"HTTP/1.1 400 ")
    started = time.perf_counter()
    reply = client.raw(headers.format(50 * 2**20).encode() + b"{" * 65536)
    assert reply.startswith(b"HTTP/1.1 400 ")
    assert b"body of 52,428,800 bytes (at most 4,096)" in reply
    assert time.perf_counter() - started < 5
    chunked = ("POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               "Transfer-Encoding: chunked\r\n\r\n").encode()
    chunk = b" " * 3000
    reply = client.raw(chunked + (b"%x\r\n%s\r\n" % (len(chunk), chunk)) * 3 + b"0\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 400 ") and b"more than 4,096 bytes" in reply
    status, body, _ = client.post("/api/join", json.dumps({"participant": "x" * MAX_BODY_BYTES})
                                  .encode())
    assert status == 400 and "at most 4,096" in body["error"]


def test_moves_need_the_current_started_maze(session_factory, serve):
    client, recorder = serve(session_factory([(CORRIDOR, "full"), (CORRIDOR, 1)]))
    client.join("p1")
    status, body = client.move("p1", "m0", 1, "right")
    assert (status, body) == (409, {"error": "maze m0 has not been started"})
    client.start("p1", "m0")
    status, body = client.move("p1", "m1", 1, "right")
    assert (status, body) == (409, {"error": "maze: 'm1' is not the current maze (m0)"})
    status, body = client.move("nobody", "m0", 1, "right")
    assert (status, body) == (409, {"error": "participant nobody has not joined"})


@pytest.mark.parametrize("bad", ["", "a/b", "../etc", "x" * 65, "a b", "é", "a.b", 7, None])
def test_bad_participant_ids_are_refused(session_factory, serve, bad):
    client, recorder = serve(session_factory([(CORRIDOR, "full")]))
    status, body, _ = client.post("/api/join", {"participant": bad})
    assert status == 400 and body["error"].startswith("participant id: ")
    assert "\n" not in body["error"]
    assert recorder.store.participants() == []


def test_ids_at_the_length_bound_are_accepted(session_factory, serve):
    client, _ = serve(session_factory([(CORRIDOR, "full")]))
    assert client.join("A_z-9" + "x" * 59)["phase"] == "ready"


def test_malformed_http_requests(session_factory, serve):
    client, _ = serve(session_factory([(CORRIDOR, "full")]))
    assert client.post("/api/join", b"{not json") == (400, {"error": "body is not JSON"},
                                                       b'{"error":"body is not JSON"}')
    assert client.post("/api/join", b"[1, 2]")[:2] == (400, {"error": "body must be a JSON "
                                                                       "object"})
    assert client.post("/api/join", b"\xff\xfe")[:2] == (400, {"error": "body is not JSON"})
    assert client.post("/api/nothing", {"participant": "p"})[:2] == (
        404, {"error": "no API /api/nothing"})
    status, body, _ = client.post("/api/join", {"participant": "p"}, "text/plain")
    assert (status, body) == (400, {"error": "Content-Type must be application/json"})
    assert client.get("/api/join")[0] == 405
    for path in ("/static/../run.py", "/static/run.py", "/results.sqlite", "/session.yaml",
                 "/writer.lock"):
        assert client.get(path)[0] == 404, path
    status, body, headers = client.get("/")
    assert status == 200 and b'src="static/play.js"' in body
    assert headers["content-security-policy"].startswith("default-src 'self'")
    assert headers["x-frame-options"] == "DENY" and "server" not in headers


def test_foreign_host_headers_are_refused_on_loopback(session_factory, serve):
    client, recorder = serve(session_factory([(CORRIDOR, "full")]))
    port = urlsplit(client.url).port
    for host, expected in ((f"localhost:{port}", 200), (f"127.0.0.1:{port}", 200),
                           (f"evil.example:{port}", 403), ("", 403)):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.putrequest("GET", "/", skip_host=True)
        if host:
            connection.putheader("Host", host)
        connection.endheaders()
        assert connection.getresponse().status == expected, host
        connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/api/join", body=b'{"participant": "p"}',
                       headers={"Host": "evil.example", "Content-Type": "application/json"})
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())) == (403, {"error": "forbidden host"})
    assert recorder.store.participants() == []


def test_a_public_url_allows_exactly_its_host(session_factory, serve):
    session = session_factory([(CORRIDOR, "full")], participants={"entry": "prolific"})
    client, _ = serve(session, public_url="https://study.example.org/maze/")
    port = urlsplit(client.url).port
    for host, expected in (("study.example.org", 200), ("study.example.org:443", 200),
                           ("STUDY.example.org", 200), ("study.example.org:8443", 403),
                           (f"127.0.0.1:{port}", 403), ("localhost", 403),
                           ("evil.example", 403)):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/", headers={"Host": host})
        assert connection.getresponse().status == expected, host
        connection.close()


def test_bumps_are_recorded_apart_from_moves(tutorial):
    client, recorder = tutorial
    status, body = client.bump("p1", "m0", 1, 1, "up", t=5.0)
    assert status == 200 and body["status"] == "accepted"
    state = body["state"]
    assert (state["seq"], state["moves"], state["bumps"]) == (1, 0, 1)
    assert client.bump("p1", "m0", 1, 1, "up")[1]["status"] == "duplicate"
    assert client.bump("p1", "m0", 1, 1, "left") == (
        409, {"error": "bump 1 of m0 was already up before move 1"})
    assert client.bump("p1", "m0", 1, 3, "up") == (
        409, {"error": "bump 3 out of order (expected 2)"})
    assert client.bump("p1", "m0", 1, 2, "right") == (
        422, {"error": "bump 2: right is open (send a move)"})
    assert client.bump("p1", "m0", 2, 2, "up") == (
        409, {"error": "bump 2 before move 2: the next move is 1"})
    client.move("p1", "m0", 1, "right")
    status, body = client.bump("p1", "m0", 2, 2, "down")        # (1, 2): a wall below
    assert status == 200 and body["state"]["bumps"] == 2 and body["state"]["moves"] == 1
    bumps = recorder.store.bumps("p1", "m0")
    assert [(b.bump, b.seq, b.cell, b.direction, b.client_ms) for b in bumps] == [
        (1, 1, (1, 1), "up", 5.0), (2, 2, (1, 2), "down", None)]
    assert stored_moves(recorder, "p1", "m0") == ["right"]


def test_an_older_tab_is_told_another_tab_has_the_session(tutorial):
    client, _ = tutorial
    first = client.join("p1")["tab"]
    second = client.join("p1")["tab"]
    assert second == first + 1
    status, body = client.move("p1", "m0", 1, "right", tab=first)
    assert status == 409 and body == {
        "error": "this session is open in another tab or window (reload this one to continue "
                 "here)", "code": "other-tab"}
    assert client.move("p1", "m0", 1, "right", tab=second)[0] == 200
    assert client.move("p1", "m0", 2, "right")[0] == 200         # scripts need no tab
    assert client.move("p1", "m0", 3, "right", tab="x")[0] == 400


def test_finishing_stores_a_trajectory_with_choice_records(session_factory, serve):
    session = session_factory([(TUTORIAL, 2), (CORRIDOR, "full")], practice=[(CORRIDOR, 0)])
    client, recorder = serve(session)
    client.join("p1")
    client.start("p1", "p0")
    for seq, d in enumerate(["right"] * 3, 1):
        state = client.move("p1", "p0", seq, d)[1]["state"]
    assert state["phase"] == "ready" and state["maze"]["id"] == "m0"
    assert state["last"] == {"id": "p0", "moves": 3, "practice": True}
    assert state["maze"] == {"id": "m0", "practice": False, "vision": 2, "number": 1, "of": 2}
    client.start("p1", "m0")
    # a detour: at A (after 6 moves) left into the dead end (5, 1), back, then on to G
    walk = ["down", "down", "right", "right", "down", "down", "left", "left", "right", "right",
            "right", "right", "right", "right", "right", "right", "up", "up", "right", "right",
            "up", "up"]
    for seq, d in enumerate(walk, 1):
        status, body = client.move("p1", "m0", seq, d)
        assert status == 200, body
    assert body["state"]["maze"]["id"] == "m1" and body["state"]["last"]["moves"] == len(walk)
    db = sqlite3.connect(recorder.store.path)
    trials = db.execute("SELECT maze_id, agent, vision, trial, seed, moves, reached, capped, "
                        "participant FROM trials").fetchall()
    assert trials == [(0, "human", "2", 0, "", len(walk), 1, 0, "p1")]  # practice: no trial
    choices = db.execute("SELECT mark, step, row, col, arrival, direction, first, open, "
                         "unexplored FROM choices ORDER BY step").fetchall()
    assert choices[:2] == [("A", 6, 5, 3, "down", "left", 1, "up+right+left", "right+left"),
                           ("A", 10, 5, 3, "right", "right", 0, "up+right+left", "right")]
    assert all(row[0] == "" for row in choices[2:])       # every junction, not only marks
    assert [m.direction for m in recorder.store.moves("p1", "m0")] == walk
    from mazesim.experiment.storage import RunStore
    with RunStore(recorder.store.path.parent) as runs:
        sample = runs.sample(0)
    assert sample[0].tolist() == [1, 1] and sample[-1].tolist() == [1, 11]
    assert len(sample) == len(walk) + 1


def test_reload_and_server_restart_resume_where_the_participant_was(session_factory, serve):
    session = session_factory([(TUTORIAL, 1)])
    client, recorder = serve(session)
    client.join("p1")
    client.start("p1", "m0")
    for seq, d in enumerate(["down", "down", "right"], 1):
        before = client.move("p1", "m0", seq, d)[1]["state"]
    client.bump("p1", "m0", 4, 1, "up")
    again = client.join("p1")                      # a reload: the page joins again
    assert again == {**before, "tab": 2, "bumps": 1}
    serve.stop(client)
    recorder.store.close()
    fresh = open_run(session)                      # a crashed and restarted server
    try:
        assert fresh.state("p1") == again
        assert fresh.move("p1", "m0", 4, "right")[0] == "accepted"
        assert fresh.move("p1", "m0", 2, "down")[0] == "duplicate"
        assert fresh.bump("p1", "m0", 4, 1, "up")[0] == "duplicate"
    finally:
        fresh.store.close()


def test_a_restart_remembers_the_last_finished_maze(session_factory, serve):
    session = session_factory([(CORRIDOR, "full"), (CORRIDOR, 2)])
    client, recorder = serve(session)
    client.join("p1")
    client.start("p1", "m0")
    for seq in (1, 2, 3):
        state = client.move("p1", "m0", seq, "right")[1]["state"]
    assert state["phase"] == "ready" and state["last"]["moves"] == 3
    serve.stop(client)
    recorder.store.close()
    fresh = open_run(session)
    try:
        assert fresh.state("p1") == state
    finally:
        fresh.store.close()


def test_concurrent_participants_are_kept_apart(session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, 2)]))
    walks = {f"p{i}": (route(TUTORIAL) if i % 3 == 0 else ["down", "up"] * i + route(TUTORIAL)
                       if i % 3 == 1 else ["right", "left"] * 9) for i in range(20)}
    errors = []

    def play(participant):
        client.join(participant)
        client.start(participant, "m0")
        for seq, d in enumerate(walks[participant], 1):
            for _ in range(2):                     # every message twice: duplicates ignored
                status, body = client.move(participant, "m0", seq, d)
                if status != 200:
                    errors.append((participant, seq, body))

    threads = [threading.Thread(target=play, args=(p,)) for p in walks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for participant, walk in walks.items():
        assert stored_moves(recorder, participant, "m0") == walk
    assert sorted(recorder.store.participants()) == sorted(walks)
    assert client.join("p0")["phase"] == "done"


def test_twenty_simultaneous_connections_are_all_served(session_factory, serve):
    """Twenty clients connect at once (the old server's backlog of 5 reset some)."""
    import socket

    client, _ = serve(session_factory([(CORRIDOR, "full")]))
    assert BACKLOG >= 1024
    port = urlsplit(client.url).port
    barrier = threading.Barrier(20)
    replies, failures = [], []

    def join(i):
        barrier.wait()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                body = json.dumps({"participant": f"c{i}"}).encode()
                sock.sendall(b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                             b"application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                             % len(body) + body)
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
                replies.append(data.split(b"\r\n", 1)[0])
        except OSError as err:
            failures.append(err)

    threads = [threading.Thread(target=join, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and replies == [b"HTTP/1.1 200 OK"] * 20


def test_full_vision_sends_the_whole_maze(tutorial):
    client, _ = tutorial
    view = client.join("p1")["view"]
    assert view["rows"] == [row.replace("S", ".").replace("G", ".").replace("A", ".")
                            for row in TUTORIAL.splitlines()]
    assert (view["start"], view["goal"], view["position"]) == ([1, 1], [1, 11], [1, 1])


def test_dashboard_needs_its_key(tutorial):
    client, recorder = tutorial
    client.move("p1", "m0", 1, "right")
    client.bump("p1", "m0", 2, 1, "down")
    status, body, _ = client.post("/api/dashboard", {"key": "0" * 32})
    assert (status, body) == (403, {"error": "dashboard key: wrong or missing"})
    status, body, _ = client.post("/api/dashboard", {"key": recorder.dashboard_key})
    assert status == 200 and body["session"] == "test" and body["failure"] is None
    (row,) = body["participants"]
    assert {k: v for k, v in row.items() if k != "active_ms"} == {
        "participant": "p1", "pilot": False, "phase": "playing", "maze": "m0", "position": 1,
        "total": 1, "moves": 1, "bumps": 1, "finished": 0}
    status, page, _ = client.get("/dashboard")
    assert status == 200 and b'src="static/dashboard.js"' in page


def test_a_failed_database_write_stops_the_recorder(tutorial):
    client, recorder = tutorial
    db = sqlite3.connect(recorder.store.path)
    db.execute("CREATE TRIGGER boom BEFORE INSERT ON play_moves BEGIN "
               "SELECT RAISE(ABORT, 'disk on fire'); END")
    db.commit()
    status, body = client.move("p1", "m0", 1, "right")
    assert status == 503 and body["error"].startswith(
        "the results database failed (IntegrityError: disk on fire)")
    assert client.post("/api/state", {"participant": "p1"})[0] == 503
    assert stored_moves(recorder, "p1", "m0") == []


def test_run_directory_of_another_session_is_refused(session_factory, serve):
    first = open_run(session_factory([(CORRIDOR, "full")], output="same"))
    from mazesim.errors import ConfigError, RunError

    with pytest.raises(RunError, match=r"same: pid \d+ \(mazesim play\) is writing this run; "
                                       r"wait for it to finish or stop it"):
        open_run(session_factory([(CORRIDOR, "full")], output="same"))
    first.store.close()
    with pytest.raises(ConfigError, match="same: holds a different session .maze m0"):
        open_run(session_factory([(TUTORIAL, "full")], output="same"))
    with pytest.raises(ConfigError, match="same: holds a different session .session.yaml "
                                          "differs in order"):
        open_run(session_factory([(CORRIDOR, "full")], output="same", order="shuffled"))
    open_run(session_factory([(CORRIDOR, "full")], output="same")).store.close()


LEAK_WALK = ["down", "down", "right", "right", "down", "down", "right"]


def _seen_along(maze, walk: list[str], vision) -> np.ndarray:
    """Every cell the participant may see somewhere along `walk` (agents' perception)."""
    from mazesim.agents import parse_vision
    from mazesim.agents.vision import seen_cells

    cells = [maze.start]
    for d in walk:
        dr, dc = DELTAS[DIRECTIONS.index(d)]
        cells.append((cells[-1][0] + int(dr), cells[-1][1] + int(dc)))
    return seen_cells(maze, cells, parse_vision(vision))


def _unseen_changed(maze, walk: list[str], vision, known: bool):
    """`maze` with the goal moved to a cell never seen and, unless the layout is known, every
    unseen cell flipped whose flip leaves the sight along the walk and the route to G alone."""
    from mazesim.analysis import distance_map
    from mazesim.maze import Maze

    seen = _seen_along(maze, walk, vision)
    goal = next(tuple(c) for c in np.argwhere(~seen & (maze.grid == 0))[::-1])
    other = Maze(maze.grid, maze.start, goal, {})
    flips = 0
    for cell in ([] if known else map(tuple, np.argwhere(~seen))):
        if cell in (maze.start, goal):
            continue
        grid = other.grid.copy()
        grid[cell] = 1 - grid[cell]
        trial = Maze(grid, maze.start, goal, {})
        if (np.array_equal(_seen_along(trial, walk, vision), seen)
                and distance_map(trial)[goal] >= 0):
            other, flips = trial, flips + 1
    assert known or flips > 10
    return other, seen


def _replies(client, walk: list[str]) -> list[bytes]:
    replies = [client.post("/api/join", {"participant": "p"})[2],
               client.post("/api/start", {"participant": "p", "maze": "m0"})[2]]
    for seq, d in enumerate(walk, 1):
        replies.append(client.post("/api/move", {"participant": "p", "maze": "m0", "seq": seq,
                                                 "direction": d})[2])
    replies.append(client.post("/api/bump", {"participant": "p", "maze": "m0",
                                             "seq": len(walk) + 1, "bump": 1,
                                             "direction": "down"})[2])
    replies.append(client.post("/api/move", {"participant": "p", "maze": "m0", "seq": 1,
                                             "direction": "down"})[2])
    replies.append(client.post("/api/state", {"participant": "p"})[2])
    return replies


@pytest.mark.parametrize("vision, known", [
    (1, False), ({"isovist": 3}, False), ({"window": 2, "occlusion": True}, False),
    ({"isovist": 3, "map": "known"}, True), ({"window": 1, "map": "known"}, True)])
def test_nothing_the_participant_may_not_see_reaches_the_browser(session_factory, serve, vision,
                                                                 known):
    """Two mazes equal in everything the participant may see along a walk, but different
    elsewhere (other walls unless the layout is known, the goal elsewhere), get byte-identical
    replies: nothing else is sent."""
    from mazesim.maze import format_maze

    a = parse_maze(TUTORIAL)
    b, seen = _unseen_changed(a, LEAK_WALK, vision, known)
    assert not seen[a.goal] and format_maze(b) != format_maze(a)
    bodies = []
    for maze, output in ((a, "a"), (b, "b")):
        client, _ = serve(session_factory([(format_maze(maze), vision)], output=output))
        bodies.append(_replies(client, LEAK_WALK))
    assert bodies[0] == bodies[1]
    last = json.loads(bodies[0][-1])["state"]
    assert set(last) == {"participant", "phase", "tab", "index", "total", "last", "seq", "moves",
                         "bumps", "maze", "view"}
    view = last["view"]
    assert view["goal"] is None
    if known:
        assert view["kind"] == "known" and view["rows"][1] == "#.....#.....#"
        assert view["seen"] == ["".join("1" if v else "0" for v in row) for row in seen.tolist()]
    else:
        assert view["kind"] == "window" and "position" not in view


def test_requests_of_one_loop_turn_share_a_transaction():
    import asyncio

    from mazesim.play.refusals import Unavailable
    from mazesim.play.server import _Batch

    class Store:
        def __init__(self, fail):
            self.fail, self.writes = fail, []

        def write(self, works):
            self.writes.append(list(works))
            if self.fail:
                raise Unavailable("the results database failed (disk full)")

    async def three(batch):
        first = await asyncio.gather(batch.write(["a"]), batch.write(["b", "c"]),
                                     return_exceptions=True)
        return first, await asyncio.gather(batch.write(["d"]), return_exceptions=True)

    store = Store(fail=False)
    assert asyncio.run(three(_Batch(store))) == ([None, None], [None])
    assert store.writes == [["a", "b", "c"], ["d"]]
    store = Store(fail=True)
    first, _ = asyncio.run(three(_Batch(store)))
    assert [str(e) for e in first] == ["the results database failed (disk full)"] * 2


STRONG_SEED = 2**62 + 12345
PUBLIC_HOST = "study.example.org"
PROLIFIC_QUERY = {"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4", "STUDY_ID": "s-1",
                  "SESSION_ID": "x9"}


def _public_join(port: int, body: dict, forwarded: str | None = None,
                 source: str = "127.0.0.1") -> tuple[int, dict]:
    """A join as a public client: the public Host, from `source`, through a proxy that says
    `forwarded` (X-Forwarded-For) when given."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                            source_address=(source, 0))
    headers = {"Host": PUBLIC_HOST, "Content-Type": "application/json"}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    connection.request("POST", "/api/join", body=json.dumps(body).encode(), headers=headers)
    response = connection.getresponse()
    reply = response.status, json.loads(response.read())
    connection.close()
    return reply


def _fake(i: int) -> dict:
    return {"prolific": {"PROLIFIC_PID": f"made-up-{i}", "STUDY_ID": "s", "SESSION_ID": f"x{i}"}}


@pytest.fixture
def prolific_public(session_factory, serve):
    session = session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                              participants={"entry": "prolific"})
    client, recorder = serve(session, public_url=f"https://{PUBLIC_HOST}/")
    return urlsplit(client.url).port, recorder


def test_made_up_ids_from_one_address_are_slowed_to_its_join_rate(prolific_public, caplog):
    """Issue 23, point 2: 100,000 made-up Prolific ids joined in 48 s. One address (behind the
    proxy: the last X-Forwarded-For entry) gets JOIN_BURST joins, then one every
    JOIN_REFILL_SECONDS; a real participant from another address is let in."""
    from mazesim.play.guard import JOIN_BURST

    port, recorder = prolific_public
    caplog.set_level(logging.WARNING, "mazesim.play")
    replies = [_public_join(port, _fake(i), "10.9.9.9, 203.0.113.66") for i in range(50)]
    assert [status for status, _ in replies] == [200] * JOIN_BURST + [429] * (50 - JOIN_BURST)
    assert replies[-1][1] == {"error": "too many people joined from this address just now; "
                                       "please wait a minute and reload the page"}
    assert len(recorder.store.participants()) == JOIN_BURST
    status, body = _public_join(port, {"prolific": PROLIFIC_QUERY}, "198.51.100.20")
    assert status == 200 and body["state"]["participant"] == PROLIFIC_QUERY["PROLIFIC_PID"]
    refusals = [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused")]
    assert refusals[0].startswith("refused join: 429 /api/join (client ")
    assert "203.0.113" not in " ".join(refusals)                 # no address in the log
    assert len(refusals) == 10                                   # the log's own limit


def test_a_prolific_rejoin_from_elsewhere_is_refused_and_logged(prolific_public, caplog):
    port, recorder = prolific_public
    caplog.set_level(logging.WARNING, "mazesim.play")
    status, victim = _public_join(port, {"prolific": PROLIFIC_QUERY}, "198.51.100.20")
    assert status == 200
    status, body = _public_join(port, {"prolific": {**PROLIFIC_QUERY, "SESSION_ID": "evil"}},
                                "203.0.113.66")
    assert status == 403 and "token" not in body and "another session" in body["error"]
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("refused join: 403 /api/join (client ") and "another session" in line
    assert recorder.state(PROLIFIC_QUERY["PROLIFIC_PID"], token=victim["token"],
                          tab=victim["state"]["tab"])["tab"] == victim["state"]["tab"]


def test_without_a_proxy_the_peer_address_is_counted(session_factory, serve):
    from mazesim.play.guard import JOIN_BURST

    session = session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                              participants={"entry": "prolific"})
    client, _ = serve(session, public_url=f"https://{PUBLIC_HOST}/", proxies=())
    port = urlsplit(client.url).port
    statuses = [_public_join(port, _fake(i), "192.0.2.1", "127.0.0.5")[0]   # header ignored
                for i in range(JOIN_BURST + 1)]
    assert statuses == [200] * JOIN_BURST + [429]
    assert _public_join(port, _fake(99), source="127.0.0.6")[0] == 200


def test_a_loopback_server_counts_no_address(session_factory, serve):
    from mazesim.play.guard import JOIN_BURST

    client, recorder = serve(session_factory([(CORRIDOR, "full")]))
    assert all(client.post("/api/join", {"participant": f"p{i}"})[0] == 200
               for i in range(2 * JOIN_BURST))
