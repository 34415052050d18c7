"""The play server over HTTP (no browser): move validation, dedup, windows, ids, resume."""

from __future__ import annotations

import json
import sqlite3
import threading

import numpy as np
import pytest

from mazesim.analysis import shortest_path
from mazesim.errors import ConfigError
from mazesim.maze import DELTAS, DIRECTIONS, format_maze, parse_maze
from mazesim.play.recorder import Recorder
from mazesim.play.run import open_run
from mazesim.play.store import DATABASE

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
    status, body = client.move("p1", "m0", 1, "right")
    assert status == 200 and body["status"] == "accepted"
    assert body["state"]["view"]["position"] == [1, 2] and body["state"]["seq"] == 2
    (row,) = recorder.store.moves("p1", "m0")
    assert (row.seq, row.source, row.target, row.direction) == (1, (1, 1), (1, 2), "right")
    assert row.server_ms > 1_600_000_000_000


def test_moves_into_walls_and_jumps_are_refused(tutorial):
    client, recorder = tutorial
    status, body = client.move("p1", "m0", 1, "up")
    assert status == 422 and "wall" in body["error"]
    for bad in ("up-right", "jump", [0, 2], None, "RIGHT"):
        status, body = client.move("p1", "m0", 1, bad)
        assert status == 422, bad
        assert "direction" in body["error"]
    assert stored_moves(recorder, "p1", "m0") == []
    assert client.move("p1", "m0", 1, "down")[0] == 200


def test_duplicates_are_ignored_and_conflicting_repeats_refused(tutorial):
    client, recorder = tutorial
    assert client.move("p1", "m0", 1, "right")[1]["status"] == "accepted"
    status, body = client.move("p1", "m0", 1, "right")
    assert status == 200 and body["status"] == "duplicate"
    assert body["state"]["view"]["position"] == [1, 2] and body["state"]["seq"] == 2
    status, body = client.move("p1", "m0", 1, "left")
    assert status == 409 and "already right" in body["error"]
    assert stored_moves(recorder, "p1", "m0") == ["right"]


def test_out_of_order_and_malformed_numbers_are_refused(tutorial):
    client, recorder = tutorial
    status, body = client.move("p1", "m0", 2, "right")
    assert status == 409 and "expected 1" in body["error"]
    for bad in (0, -1, "1", 1.5, True, None):
        assert client.move("p1", "m0", bad, "right")[0] == 400, bad
    assert stored_moves(recorder, "p1", "m0") == []


def test_moves_need_the_current_started_maze(session_factory, serve):
    client, recorder = serve(session_factory([(CORRIDOR, "full"), (CORRIDOR, 1)]))
    client.join("p1")
    status, body = client.move("p1", "m0", 1, "right")
    assert status == 409 and "not been started" in body["error"]
    client.start("p1", "m0")
    status, body = client.move("p1", "m1", 1, "right")
    assert status == 409 and "not the current maze" in body["error"]
    status, body = client.move("nobody", "m0", 1, "right")
    assert status == 409 and "has not joined" in body["error"]


@pytest.mark.parametrize("bad", ["", "a/b", "../etc", "x" * 65, "a b", "é", "a.b", 7, None])
def test_bad_participant_ids_are_refused(session_factory, serve, bad):
    client, recorder = serve(session_factory([(CORRIDOR, "full")]))
    status, body, _ = client.post("/api/join", {"participant": bad})
    assert status == 400 and "participant id" in body["error"]
    assert recorder.store.participants() == []


def test_ids_at_the_length_bound_are_accepted(session_factory, serve):
    client, _ = serve(session_factory([(CORRIDOR, "full")]))
    assert client.join("A_z-9" + "x" * 59)["phase"] == "ready"


def test_malformed_http_requests(session_factory, serve):
    client, _ = serve(session_factory([(CORRIDOR, "full")]))
    assert client.post("/api/join", b"{not json")[0] == 400
    assert client.post("/api/join", b"[1, 2]")[0] == 400
    assert client.post("/api/join", json.dumps({"participant": "x" * 5000}).encode())[0] == 400
    assert client.post("/api/nothing", {"participant": "p"})[0] == 404
    status, body, _ = client.post("/api/join", {"participant": "p"}, "text/plain")
    assert status == 400 and "Content-Type must be application/json" in body["error"]
    for path in ("/static/../run.py", "/static/run.py", "/results.sqlite", "/session.yaml"):
        assert client.get(path)[0] == 404, path
    status, body, headers = client.get("/")
    assert status == 200 and b"/static/play.js" in body
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_foreign_host_headers_are_refused_on_loopback(session_factory, serve):
    import http.client
    from urllib.parse import urlsplit

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
    assert response.status == 400 and b"forbidden host" in response.read()
    assert recorder.store.participants() == []


def test_finishing_stores_a_trajectory_with_choice_records(session_factory, serve):
    session = session_factory([(TUTORIAL, 2), (CORRIDOR, "full")], practice=[(CORRIDOR, 0)])
    client, recorder = serve(session)
    client.join("p1")
    client.start("p1", "p0")
    for seq, d in enumerate(["right"] * 3, 1):
        state = client.move("p1", "p0", seq, d)[1]["state"]
    assert state["phase"] == "ready" and state["maze"]["id"] == "m0"
    assert state["last"] == {"id": "p0", "moves": 3, "practice": True}
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
    trials = db.execute("SELECT maze_id, agent, vision, trial, seed, moves, reached, capped "
                        "FROM trials").fetchall()
    assert trials == [(0, "human", "2", 0, "p1", len(walk), 1, 0)]  # practice: no trial
    choices = db.execute("SELECT mark, step, row, col, arrival, direction, first, open, "
                         "unexplored FROM choices ORDER BY step").fetchall()
    assert choices[:2] == [("A", 6, 5, 3, "down", "left", 1, "up+right+left", "right+left"),
                           ("A", 10, 5, 3, "right", "right", 0, "up+right+left", "right")]
    assert all(row[0] == "" for row in choices[2:])       # every junction, not only marks
    positions = recorder.store.moves("p1", "m0")
    assert [m.direction for m in positions] == walk
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
    again = client.join("p1")                      # a reload: the page joins again
    assert again == before and again["seq"] == 4 and again["phase"] == "playing"
    recorder.store.close()
    fresh = open_run(session)                      # a crashed and restarted server
    try:
        assert fresh.join("p1") == before
        assert fresh.move("p1", "m0", 4, "right")[0] == "accepted"
        assert fresh.move("p1", "m0", 2, "down")[0] == "duplicate"
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
    recorder.store.close()
    fresh = open_run(session)
    try:
        assert fresh.join("p1") == state
    finally:
        fresh.store.close()


def test_concurrent_participants_are_kept_apart(session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, 2)]))
    walks = {"alice": route(TUTORIAL), "bob": ["down", "up"] * 6 + route(TUTORIAL),
             "carol": ["right", "left"] * 9}
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
    assert client.join("carol")["view"]["rows"] == client.join("carol")["view"]["rows"]
    assert client.join("alice")["phase"] == "done"


def _windows_union(maze_text: str, walk: list[str], k: int) -> np.ndarray:
    maze = parse_maze(maze_text)
    seen = np.zeros(maze.shape, bool)
    r, c = maze.start
    for d in [None] + walk:
        if d is not None:
            dr, dc = DELTAS[DIRECTIONS.index(d)]
            r, c = r + dr, c + dc
        seen[max(r - k, 0):r + k + 1, max(c - k, 0):c + k + 1] = True
    return seen


def test_nothing_outside_the_window_reaches_the_browser(session_factory, serve):
    """Two mazes equal inside every window of a walk but different outside (other walls, the
    goal elsewhere) give byte-identical responses: nothing outside the window is sent."""
    k, walk = 1, ["down", "down", "right", "right", "down", "down", "right"]
    seen = _windows_union(TUTORIAL, walk, k)
    a = parse_maze(TUTORIAL)
    grid = np.where(seen, a.grid, 1 - a.grid)      # flip every cell never in view
    grid[1, 9] = grid[1, 11] = 0
    b = type(a)(grid, a.start, (1, 9), {})         # and move the goal
    text_b = format_maze(b)
    assert text_b != TUTORIAL
    bodies = []
    for text, output in ((TUTORIAL, "a"), (text_b, "b")):
        client, _ = serve(session_factory([(text, k)], output=output))
        replies = [client.post("/api/join", {"participant": "p"})[2],
                   client.post("/api/start", {"participant": "p", "maze": "m0"})[2]]
        for seq, d in enumerate(walk, 1):
            replies.append(client.post("/api/move", {"participant": "p", "maze": "m0",
                                                     "seq": seq, "direction": d})[2])
        replies.append(client.post("/api/move", {"participant": "p", "maze": "m0", "seq": 1,
                                                 "direction": "down"})[2])
        replies.append(client.post("/api/state", {"participant": "p"})[2])
        bodies.append(replies)
    assert bodies[0] == bodies[1]
    last = json.loads(bodies[0][-1])["state"]
    assert set(last) == {"participant", "index", "total", "last", "phase", "seq", "moves",
                         "maze", "view"}
    assert set(last["view"]) == {"kind", "k", "rows", "start", "goal", "open"}
    assert last["view"]["rows"] == [".##", "...", "###"] and last["view"]["goal"] is None


def test_full_vision_sends_the_whole_maze(tutorial):
    client, _ = tutorial
    view = client.join("p1")["view"]
    assert view["rows"] == [row.replace("S", ".").replace("G", ".").replace("A", ".")
                            for row in TUTORIAL.splitlines()]
    assert (view["start"], view["goal"], view["position"]) == ([1, 1], [1, 11], [1, 1])


def test_run_directory_of_another_session_is_refused(session_factory, serve):
    serve(session_factory([(CORRIDOR, "full")], output="same"))
    with pytest.raises(ConfigError, match="same: holds a different session .maze m0"):
        open_run(session_factory([(TUTORIAL, "full")], output="same"))
    assert (session_factory([(CORRIDOR, "full")], output="same").output / DATABASE).exists()
