"""Load benchmark of the human-trial server: many participants typing fast on loopback.

`mazesim play` runs in its own process (as in a study) on a session of three 31x31 mazes (full
vision, the study's window k = 2, full). Each simulated participant keeps one HTTP/1.1
connection, joins, starts its maze and sends a legal move every 50 ms (a fast typist: a random
walk over the open directions its state names), waiting for each reply as the page does; 5 % of
the moves are sent a second time (a lost reply), which the server must answer as duplicates.
Afterwards the database must hold exactly the moves the server accepted, per participant.

Targets (the issue's): no lost or doubled move, no connection reset, p99 round trip <= 50 ms,
median <= 5 ms.

    python benchmarks/bench_play.py                          # 200 participants for 60 s
    python benchmarks/bench_play.py --participants 50 --seconds 20
    python benchmarks/bench_play.py --quick                  # 20 participants, 3 s

Exits 1 when a move is lost or doubled or a connection was reset, and (not with --quick) when a
latency target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PERIOD_S = 0.05
RESEND_SHARE = 0.05
TARGET_MEDIAN_MS, TARGET_P99_MS = 5.0, 50.0
QUICK = {"participants": 20, "seconds": 3.0}
"""--quick: small enough to run in a few seconds, so the script cannot rot unnoticed."""
SESSION = """\
name: bench
seed: 1
output: run
mazes:
  - {name: full-a, generator: stick-knocking, size: 31, seed: 1, vision: full}
  - {name: window, generator: stick-knocking, size: 31, seed: 2, vision: 2}
  - {name: full-b, generator: digging, size: 31, seed: 3, vision: full}
"""


@dataclass
class Tally:
    """One participant's view of the run."""

    latencies: list[float] = field(default_factory=list)
    accepted: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    resets: int = 0
    refused: list[str] = field(default_factory=list)


class Connection(asyncio.Protocol):
    """A minimal keep-alive HTTP/1.1 client, one request at a time like a page: a bare
    protocol, so that the load generator takes as little of the machine as it can."""

    def __init__(self, host: str, port: int) -> None:
        self.head = (b"POST %%s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %%d\r\n\r\n" % (host.encode(), port))
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.reply: asyncio.Future | None = None

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        loop = asyncio.get_running_loop()
        return (await loop.create_connection(lambda: cls(host, port), host, port))[1]

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.reply is not None and not self.reply.done():
            self.reply.set_exception(ConnectionResetError("connection lost"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = self.buffer[:end].split(b"\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in lines[1:]
                      if line[:15].lower() == b"content-length:")
        if len(self.buffer) >= end + 4 + length:
            body, self.buffer = self.buffer[end + 4:end + 4 + length], b""
            self.reply.set_result((int(lines[0].split(b" ", 2)[1]), body))

    async def post(self, path: str, payload: dict) -> tuple[int, dict]:
        body = json.dumps(payload, separators=(",", ":")).encode()
        self.reply = asyncio.get_running_loop().create_future()
        self.transport.write(self.head % (path.encode(), len(body)) + body)
        status, raw = await self.reply
        return status, json.loads(raw)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def participant(i: int, host: str, port: int, seconds: float, offset: float,
                      rng: np.random.Generator) -> Tally:
    tally = Tally()
    pid = f"b{i:03d}"
    conn: Connection | None = None
    try:
        conn = await Connection.open(host, port)
        state = (await conn.post("/api/join", {"participant": pid}))[1]["state"]
        deadline = time.perf_counter() + seconds
        next_send = time.perf_counter() + offset
        while time.perf_counter() < deadline and state["phase"] != "done":
            if state["phase"] == "ready":
                state = (await conn.post("/api/start", {"participant": pid, "maze":
                                                        state["maze"]["id"]}))[1]["state"]
                continue
            await asyncio.sleep(max(0.0, next_send - time.perf_counter()))
            next_send += PERIOD_S
            message = {"participant": pid, "maze": state["maze"]["id"], "seq": state["seq"],
                       "direction": str(rng.choice(state["view"]["open"])),
                       "t": time.time() * 1000, "tab": state["tab"]}
            for attempt in range(2 if rng.random() < RESEND_SHARE else 1):
                began = time.perf_counter()
                status, reply = await conn.post("/api/move", message)
                tally.latencies.append(time.perf_counter() - began)
                if status != 200:
                    tally.refused.append(f"{pid} seq {message['seq']}: {status} {reply}")
                    return tally
                if reply["status"] == "accepted":
                    tally.accepted[message["maze"]] = tally.accepted.get(message["maze"], 0) + 1
                else:
                    tally.duplicates += 1
                if attempt == 0:
                    state = reply["state"]
    except (ConnectionError, asyncio.IncompleteReadError, OSError):
        tally.resets += 1
    finally:
        if conn is not None:
            conn.close()
    return tally


async def load(host: str, port: int, participants: int, seconds: float, seed: int
               ) -> list[Tally]:
    streams = np.random.SeedSequence(seed).spawn(participants)
    return await asyncio.gather(*(
        participant(i, host, port, seconds, PERIOD_S * i / participants,
                    np.random.default_rng(streams[i])) for i in range(participants)))


def _run_loop(coroutine):
    """asyncio.run on uvloop when installed (the clients must not be the bottleneck)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def stored_moves(run_dir: Path) -> dict[tuple[str, str], int]:
    with sqlite3.connect(run_dir / "results.sqlite") as db:
        return {(p, m): n for p, m, n in db.execute(
            "SELECT participant, maze_id, COUNT(*) FROM play_moves GROUP BY participant, maze_id")}


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(participants: int, seconds: float, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "bench.yaml"
        config.write_text(SESSION, encoding="utf-8")
        server = subprocess.Popen([sys.executable, "-m", "mazesim", "play", str(config),
                                   "--port", "0", "--json"], stdout=subprocess.PIPE, text=True)
        try:
            info = json.loads(server.stdout.readline())
            host, port = info["url"].split("//")[1].rstrip("/").rsplit(":", 1)
            gc.freeze()                    # the clients' own collector pauses are not the server's
            cpu_before, began = cpu_seconds(server.pid), time.perf_counter()
            mine = time.process_time()
            tallies = _run_loop(load(host, int(port), participants, seconds, seed))
            wall = time.perf_counter() - began
            cpu = cpu_seconds(server.pid) - cpu_before
            client_cpu = time.process_time() - mine
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:       # never left running
                server.kill()
                server.wait()
                raise
        stored = stored_moves(Path(info["output"]))
    accepted = {(f"b{i:03d}", m): n for i, t in enumerate(tallies) for m, n in t.accepted.items()}
    latencies = sorted(x * 1000 for t in tallies for x in t.latencies)
    return {
        "participants": participants, "seconds": seconds, "requests": len(latencies),
        "rate": len(latencies) / wall, "server_cpu": cpu / wall, "client_cpu": client_cpu / wall,
        "median_ms": statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "max_ms": latencies[-1] if latencies else float("nan"),
        "duplicates": sum(t.duplicates for t in tallies),
        "resets": sum(t.resets for t in tallies),
        "refused": [r for t in tallies for r in t.refused],
        "lost": sum(max(0, n - stored.get(k, 0)) for k, n in accepted.items()),
        "doubled": sum(max(0, n - accepted.get(k, 0)) for k, n in stored.items()),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK['participants']} participants for {QUICK['seconds']:g} s")
    args = parser.parse_args()
    participants, seconds = ((QUICK["participants"], QUICK["seconds"]) if args.quick
                             else (args.participants, args.seconds))
    load_before = os.getloadavg()[0]
    r = run(participants, seconds, args.seed)
    print(f"{r['participants']} participants, {r['seconds']:g} s, one move per "
          f"{PERIOD_S * 1000:.0f} ms, {RESEND_SHARE:.0%} resent")
    print(f"requests {r['requests']:,} ({r['rate']:,.0f}/s); CPU: server {r['server_cpu']:.0%}, "
          f"clients {r['client_cpu']:.0%} of a core; load average {load_before:.2f} before, "
          f"{r['load']:.2f} after")
    print(f"round trip: median {r['median_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, max "
          f"{r['max_ms']:.1f} ms (targets {TARGET_MEDIAN_MS:g} / {TARGET_P99_MS:g} ms)")
    print(f"duplicates answered {r['duplicates']:,}; lost {r['lost']}, doubled {r['doubled']}, "
          f"connection resets {r['resets']}, refused {len(r['refused'])}")
    for line in r["refused"][:5]:
        print("  refused:", line)
    correct = r["lost"] == r["doubled"] == r["resets"] == 0 and not r["refused"]
    fast = r["median_ms"] <= TARGET_MEDIAN_MS and r["p99_ms"] <= TARGET_P99_MS
    sys.exit(0 if correct and (fast or args.quick) else 1)


if __name__ == "__main__":
    main()
