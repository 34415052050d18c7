"""The web server of a human trial: an ASGI app (the page, its static files, the JSON API and the
experimenter's dashboard) served by uvicorn.

Every request is checked before any work: its Host header (only loopback names on a loopback
server without a public URL, which a web page cannot reach by DNS rebinding; exactly the public
URL's host with one), its size (`MAX_BODY_BYTES`, checked on the declared length and while
reading) and its JSON (an object; no NaN or infinite numbers; nesting refused cleanly). API
requests are POSTs of JSON (a cross-site page cannot send one without a CORS preflight, which is
never granted) to `/api/<action>`, answered with the recorder's reply once its rows are committed
(the rows of every request of one event-loop turn share a transaction),
or `{error}` with 400, 403, 404, 409 (with `code: other-tab` for a replaced tab), 422, 429 or
503. The page's assets ship in `static/`; nothing is loaded from the internet.

What one client may take is limited below the app (`mazesim.play.protocol`: time and size of a
request, connections per address) and in it (`mazesim.play.guard`: joins per address); every
403 and 429 is logged in one line, the logging itself rate-limited.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import ipaddress
import json
import math
import socket
import threading
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import uvicorn

from mazesim.play.guard import PROXIES, Guard, throttle_log
from mazesim.play.protocol import GuardedProtocol
from mazesim.play.recorder import ACTIONS, Recorder
from mazesim.play.refusals import BadRequest, Forbidden, PlayError, TooMany, Unavailable

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "MAX_BODY_BYTES", "BACKLOG", "PlayApp", "PlayServer",
           "HostRule", "make_server", "is_loopback"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
MAX_BODY_BYTES = 4096
"""Largest request body: a move is about 150 bytes, a page of answers a few thousand."""
BACKLOG = 2048
"""Pending connections the listening socket holds (the standard library's server held 5)."""
MAX_CONNECTIONS = 4000
"""Open connections and requests at once; uvicorn answers 503 beyond (a complete head)."""
KEEP_ALIVE_SECONDS = 30
MAX_HOST_NAMES = 64
"""Host headers whose verdict is remembered."""
SHUTDOWN_SECONDS = 10
DASHBOARD, INFO, JOIN = "dashboard", "info", "join"
_UVICORN_LOG = "uvicorn.error"
"""Where uvicorn warns of each malformed request and each 503 (rate-limited like ours)."""
_LOGGED = (403, 429)
"""Refusals the server logs (a wrong token, key or host; too many joins or connections)."""
_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/dashboard": ("dashboard.html", "text/html; charset=utf-8"),
    "/static/play.js": ("play.js", "text/javascript; charset=utf-8"),
    "/static/play.css": ("play.css", "text/css; charset=utf-8"),
    "/static/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_API_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store")]
"""Headers of every reply; pages get `_PAGE_HEADERS` too (a JSON reply needs no policy)."""
_PAGE_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                 b"frame-ancestors 'none'; form-action 'self'"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
_JSON = "application/json"
_TEXT = "text/plain; charset=utf-8"


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or `localhost`) is this computer only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HostRule:
    """Which Host headers are served: loopback names, or exactly the public URL's host."""

    def __init__(self, public_url: str | None = None) -> None:
        self._seen: dict[str | None, bool] = {}
        self.public: tuple[str, int] | None = None
        if public_url is not None:
            parts = urlsplit(public_url)
            self.public = (parts.hostname or "", parts.port or _DEFAULT_PORTS[parts.scheme])

    def allows(self, header: str | None) -> bool:
        known = self._seen.get(header)
        if known is None:
            known = self._allows(header)
            if len(self._seen) < MAX_HOST_NAMES:      # a few names: remembered, not re-parsed
                self._seen[header] = known
        return known

    def _allows(self, header: str | None) -> bool:
        try:
            parts = urlsplit(f"//{header or ''}")
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        if self.public is None:
            return name in _LOOPBACK_NAMES
        return (name, port or self.public[1]) == self.public


class PlayApp:
    """The ASGI application of one `Recorder`; `guard` limits joins per client address."""

    def __init__(self, recorder: Recorder, hosts: HostRule, guard: Guard | None = None) -> None:
        self.recorder = recorder
        self.hosts = hosts
        self.guard = guard or Guard(public=False)
        self.batch = _Batch(recorder.store)
        folder = resources.files("mazesim.play").joinpath("static")
        self.files = {path: (folder.joinpath(name).read_bytes(), kind)
                      for path, (name, kind) in _STATIC.items()}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        headers = dict(scope["headers"])
        api = path.startswith("/api/")
        try:
            if not self.hosts.allows(headers.get(b"host", b"").decode("latin-1")):
                raise Forbidden("forbidden host")
            if api:
                if method != "POST":
                    await _send(send, 405, _json({"error": f"{path}: use POST"}), _JSON,
                                [(b"allow", b"POST")])
                    return
                reply = await self._api(path[len("/api/"):], scope, headers, receive)
                await _send(send, 200, _json(reply), _JSON)
                return
            entry = self.files.get(path)
            if method not in ("GET", "HEAD"):
                await _send(send, 405, b"method not allowed\n", _TEXT, [(b"allow", b"GET")])
            elif entry is None:
                await _send(send, 404, b"not found\n", _TEXT)
            else:
                await _send(send, 200, *entry)
        except PlayError as err:
            if err.status in _LOGGED:
                self._log(err, scope, headers)
            payload = {"error": str(err)}
            if getattr(err, "code", None):
                payload["code"] = err.code
            if api:
                await _send(send, err.status, _json(payload), _JSON)
            else:
                await _send(send, err.status, f"{err}\n".encode(), _TEXT)

    async def _api(self, action: str, scope: dict, headers: dict, receive: Any) -> dict:
        if action not in (DASHBOARD, INFO, *ACTIONS):
            raise _NotFound(f"no API /api/{action[:40]}")
        if action == JOIN and not self.guard.allow_join(self._client(scope, headers)):
            raise TooMany("too many people joined from this address just now; please wait a "
                          "minute and reload the page")
        body = _parse(await _read_body(headers, receive))
        if action == DASHBOARD:
            return self.recorder.dashboard(body.get("key"))
        if action == INFO:
            return self.recorder.info()
        reply, works = self.recorder.prepare(action, body)
        if works:
            await self.batch.write(works)
        return reply

    def _client(self, scope: dict, headers: dict) -> str | None:
        peer = scope.get("client")
        return self.guard.client(peer[0] if peer else None, headers.get(b"x-forwarded-for"))

    def _log(self, err: PlayError, scope: dict, headers: dict) -> None:
        where = scope["path"][:40]
        who = self.guard.pseudonym(self._client(scope, headers)) if self.guard.public else "-"
        kind = "join" if where == f"/api/{JOIN}" else "request"
        self.guard.log.refused(kind, f"{err.status} {where} (client {who}): {err}")


class _NotFound(PlayError):
    status = 404


class _Batch:
    """Group commit: the rows of every request prepared in one turn of the event loop are
    written in one transaction, and each request is answered once it is committed."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.works: list = []
        self.waiting: list[asyncio.Future] = []

    async def write(self, works: list) -> None:
        loop = asyncio.get_running_loop()
        if not self.waiting:
            loop.call_soon(self._flush)          # after the requests ready in this turn
        future = loop.create_future()
        self.works += works
        self.waiting.append(future)
        await future

    def _flush(self) -> None:
        works, waiting, self.works, self.waiting = self.works, self.waiting, [], []
        try:
            self.store.write(works)
        except Unavailable as err:
            for future in waiting:
                future.set_exception(Unavailable(str(err)))
            return
        for future in waiting:
            future.set_result(None)


class PlayServer:
    """A uvicorn server of one recorder on a socket bound at creation (port 0: any free one).

    With a public URL, clients are counted per address (`guard.Guard`), a peer in `proxies`
    being a reverse proxy that names the client in `X-Forwarded-For`."""

    def __init__(self, recorder: Recorder, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 public_url: str | None = None, proxies: tuple[str, ...] = PROXIES) -> None:
        self.recorder = recorder
        self.public_url = public_url
        self.socket = _listen(host, port)
        self.guard = Guard(public=public_url is not None, proxies=proxies)
        self.app = PlayApp(recorder, HostRule(public_url), self.guard)
        # No access log and no proxy headers: addresses are counted in memory (guard), never
        # logged or stored.
        config = uvicorn.Config(self.app, lifespan="off", access_log=False, log_config=None,
                                http=functools.partial(GuardedProtocol, guard=self.guard),
                                log_level="warning", server_header=False, proxy_headers=False,
                                backlog=BACKLOG,
                                limit_concurrency=MAX_CONNECTIONS,
                                timeout_keep_alive=KEEP_ALIVE_SECONDS,
                                timeout_graceful_shutdown=SHUTDOWN_SECONDS)
        self._server = uvicorn.Server(config)
        throttle_log(_UVICORN_LOG)
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        """Where participants open the page: the public URL, else the bound address."""
        if self.public_url is not None:
            return self.public_url if self.public_url.endswith("/") else self.public_url + "/"
        host, port = self.socket.getsockname()[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"

    @property
    def dashboard_url(self) -> str:
        """The experimenter's dashboard; its key is in the fragment (never sent in logs)."""
        return f"{self.url}{DASHBOARD}#key={self.recorder.dashboard_key}"

    def serve_forever(self) -> None:
        """Serve until `stop_soon` or `shutdown` (the command calls `stop_soon` on a signal).

        Everything alive now (the libraries, the session, every participant) is frozen out of
        the garbage collector first: a full collection over numba's and scipy's objects took
        70 ms, a pause every participant would wait through."""
        gc.freeze()
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._stopped.set()

    def stop_soon(self) -> None:
        """Ask `serve_forever` to return (safe in a signal handler; before it starts too);
        requests in flight are answered first."""
        self._server.should_exit = True

    def shutdown(self) -> None:
        """Stop serving (from another thread) and wait until it has."""
        self.stop_soon()
        self._stopped.wait(SHUTDOWN_SECONDS + 5)

    def server_close(self) -> None:
        self.socket.close()


def make_server(recorder: Recorder, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                public_url: str | None = None, proxies: tuple[str, ...] = PROXIES
                ) -> PlayServer:
    """Bind a server for `recorder`; call `serve_forever` to run it."""
    return PlayServer(recorder, host, port, public_url, proxies)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


async def _read_body(headers: dict, receive: Any) -> bytes:
    content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    # A JSON content type makes a cross-site POST need a CORS preflight, which this server
    # never grants: other web pages cannot send moves in a participant's name.
    if content_type != _JSON.encode():
        raise BadRequest("Content-Type must be application/json")
    declared = headers.get(b"content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest("Content-Length is not a number of bytes")
        if int(declared) > MAX_BODY_BYTES:
            raise BadRequest(f"body of {int(declared):,} bytes (at most {MAX_BODY_BYTES:,})")
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BadRequest("the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BadRequest(f"body of more than {MAX_BODY_BYTES:,} bytes")
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _parse(raw: bytes) -> dict[str, Any]:
    """The JSON object of a body; one-line BadRequest for anything else."""
    try:
        data = json.loads(raw or b"{}", parse_constant=_constant, parse_float=_float)
    except PlayError:
        raise
    except RecursionError:
        raise BadRequest("body is nested too deeply") from None
    except ValueError:                     # not JSON, not UTF-8
        raise BadRequest("body is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("body must be a JSON object")
    return data


def _constant(name: str) -> Any:
    raise BadRequest(f"{name} is not a number (JSON has no NaN or Infinity)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadRequest(f"{text[:40]} is out of range (numbers must be finite)")
    return value


def _json(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":"), allow_nan=False).encode("utf-8")


async def _send(send: Any, status: int, body: bytes, content_type: str,
                extra: list[tuple[bytes, bytes]] = ()) -> None:
    headers = [(b"content-type", content_type.encode()),
               (b"content-length", str(len(body)).encode()), *_API_HEADERS, *extra]
    if content_type != _JSON:
        headers += _PAGE_HEADERS
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
