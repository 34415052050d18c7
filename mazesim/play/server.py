"""The local web server of a human trial: the page, its static files and a small JSON API.

Standard library only (`http.server.ThreadingHTTPServer`); the page's assets ship in `static/`
and nothing is loaded from the internet. API (all POST, JSON in and out)::

    /api/join   {participant}                         -> {state}
    /api/state  {participant}                         -> {state}
    /api/start  {participant, maze}                   -> {state}
    /api/move   {participant, maze, seq, direction, t} -> {status: accepted|duplicate, state}

Refusals answer `{error}` with 400 (malformed), 409 (out of order, wrong maze) or 422 (a wall, a
jump). Only the recorder's state dicts are ever sent, and their maze part comes from `view.py`.
"""

from __future__ import annotations

import ipaddress
import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from mazesim.play.recorder import BadRequest, PlayError, Recorder

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "PlayServer", "make_server"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
MAX_BODY_BYTES = 4096
_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/static/play.js": ("play.js", "text/javascript; charset=utf-8"),
    "/static/play.css": ("play.css", "text/css; charset=utf-8"),
}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class PlayServer(ThreadingHTTPServer):
    """A threading HTTP server bound to one `Recorder`."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], recorder: Recorder) -> None:
        super().__init__(address, _Handler)
        self.recorder = recorder

    def host_allowed(self, host_header: str | None) -> bool:
        """On a loopback address only loopback Host headers are served (a web page cannot reach
        the server by DNS rebinding); on any other address (a lab network) every host is."""
        if not ipaddress.ip_address(self.server_address[0]).is_loopback:
            return True
        try:
            name = urlsplit(f"//{host_header or ''}").hostname
        except ValueError:
            return False
        return name in _LOOPBACK_NAMES

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"


def make_server(recorder: Recorder, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT
                ) -> PlayServer:
    """Bind a server for `recorder` (port 0 picks a free port); call `serve_forever` to run it."""
    return PlayServer((host, port), recorder)


class _Handler(BaseHTTPRequestHandler):
    server: PlayServer
    server_version = "mazesim-play"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base class name)
        """Quiet: moves are logged in the database, not on the terminal."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if not self.server.host_allowed(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, b"forbidden host\n", "text/plain; charset=utf-8")
            return
        entry = _STATIC.get(self.path.split("?", 1)[0])
        if entry is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
            return
        name, content_type = entry
        body = resources.files("mazesim.play").joinpath("static", name).read_bytes()
        self._send(HTTPStatus.OK, body, content_type)

    def do_POST(self) -> None:  # noqa: N802
        recorder = self.server.recorder
        try:
            if not self.server.host_allowed(self.headers.get("Host")):
                raise BadRequest("forbidden host")
            data = self._json_body()
            participant = data.get("participant")
            path = self.path.split("?", 1)[0]
            if path == "/api/join":
                reply = {"state": recorder.join(participant)}
            elif path == "/api/state":
                reply = {"state": recorder.state(participant)}
            elif path == "/api/start":
                reply = {"state": recorder.start(participant, data.get("maze"))}
            elif path == "/api/move":
                status, state = recorder.move(participant, data.get("maze"), data.get("seq"),
                                              data.get("direction"), data.get("t"))
                reply = {"status": status, "state": state}
            else:
                self._reply(HTTPStatus.NOT_FOUND, {"error": f"no API {path}"})
                return
        except PlayError as err:
            self._reply(HTTPStatus(err.status), {"error": str(err)})
            return
        self._reply(HTTPStatus.OK, reply)

    def _json_body(self) -> dict[str, Any]:
        # A JSON content type makes a cross-site POST need a CORS preflight, which this server
        # never grants: other web pages cannot send moves in a participant's name.
        if self.headers.get_content_type() != "application/json":
            raise BadRequest("Content-Type must be application/json")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise BadRequest("Content-Length is not a number") from None
        if length > MAX_BODY_BYTES:
            raise BadRequest(f"body of {length} bytes (at most {MAX_BODY_BYTES})")
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise BadRequest("body is not JSON") from None
        if not isinstance(data, dict):
            raise BadRequest("body must be a JSON object")
        return data

    def _reply(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        self._send(status, body, "application/json")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in _SECURITY_HEADERS.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)
