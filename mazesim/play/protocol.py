"""uvicorn's HTTP protocol (httptools) with the limits it lacks: time and bytes of a request.

Measured on uvicorn 0.54 with httptools (`limit_concurrency` 4,000, `timeout_keep_alive` 30 s):
4,100 connections that sent a request line and a Host header and then nothing were all still
open after 35 s, and while they stayed every other client was answered 503; a header of 200 MB
grew the server by 259 MB. `timeout_keep_alive` only runs between requests, `limit_concurrency`
answers 503 once a head is complete, and `h11_max_incomplete_event_size` belongs to the slower
h11 protocol, which has no head timeout either. So this protocol adds:

- a request head must be complete within `HEAD_SECONDS` of the connection (or, on a kept-alive
  connection, of its first byte), its body within `BODY_SECONDS` of the head: else the
  connection is closed, with a 408 when part of a head came (a connection that sent nothing,
  such as a browser's spare one, is closed quietly);
- a head of more than `MAX_HEAD_BYTES` is answered 431 and the connection closed (the server
  holds at most that and one read of the socket per connection): counted across reads while
  the head is incomplete, and by its URL and headers once it is complete (a whole head can
  come in one read);
- a connection the `Guard` refuses (too many from one address) is answered 429 and closed
  before anything is read.

Each refusal but the quiet close is logged (`guard.RefusalLog`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from mazesim.play.guard import Guard

__all__ = ["HEAD_SECONDS", "BODY_SECONDS", "MAX_HEAD_BYTES", "GuardedProtocol"]

HEAD_SECONDS = 5.0
"""Time for a request head (about 1 KB from a browser) from the connection or its first byte."""
BODY_SECONDS = 10.0
"""Time for a request body (at most 4,096 bytes, `server.MAX_BODY_BYTES`) after its head."""
MAX_HEAD_BYTES = 16 * 1024
"""Largest request head: request line and headers (a browser sends about 1 KB here)."""
_REASONS = {408: b"the request took too long\n", 429: b"too many connections from one address\n",
            431: b"the request head is too large\n"}


class GuardedProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` with a deadline per request head and body, a head size limit and
    the guard's per-address connection count (see the module docstring)."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._counted: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._body_due = 0.0                   # loop time by which the body must be in
        self._in_head = False
        self._head_bytes = 0                   # bytes read since the head began
        self._head_size = 0                    # the head's URL and headers, as parsed
        self._read = 0
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        accepted, self._counted = self.guard.connect(peer[0] if peer else None)
        if not accepted:
            self.transport = transport
            self._refuse(429)
            return
        super().connection_made(transport)
        self._arm(HEAD_SECONDS)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        if self._counted is not None:
            self.guard.disconnect(self._counted)
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        self._read = len(data)
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._in_head and self._head_bytes > MAX_HEAD_BYTES and not self._refused:
            self.guard.log.refused("request", f"a head of more than {MAX_HEAD_BYTES:,} bytes"
                                   f"{self._client()}")
            self._refuse(431)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = self._read          # at most this read's bytes belong to the head
        self._head_size = 0
        if self._deadline is None:
            self._arm(HEAD_SECONDS)

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4          # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        # the head's timer stays: most bodies come with their head, and one timer a request
        # is cheaper (1.7 us to arm and cancel); when it fires, it waits out the body's time
        self._in_head = False
        if self._refused:
            return
        if self._head_size > MAX_HEAD_BYTES:               # a whole head in one read
            self.guard.log.refused("request", f"a head of more than {MAX_HEAD_BYTES:,} bytes"
                                   f"{self._client()}")
            self._refuse(431)
            return
        self._body_due = self.loop.time() + BODY_SECONDS
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel()
        if not self._refused:
            super().on_message_complete()

    def _arm(self, seconds: float) -> None:
        self._cancel()
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._in_head:
            self.guard.log.refused("request", f"no complete request head within "
                                   f"{HEAD_SECONDS:g} s{self._client()}")
            if self.cycle is None or self.cycle.response_complete:
                self._refuse(408)
            else:                              # a response is being sent: no second one
                self.transport.close()
            return
        if self.cycle is None or self.cycle.more_body is False:
            self.transport.close()             # nothing sent: an idle connection
            return
        left = self._body_due - self.loop.time()
        if left > 0:
            self._arm(left)
            return
        self.guard.log.refused("request", f"no complete request body within {BODY_SECONDS:g} s"
                               f"{self._client()}")
        self.transport.close()                 # the app, waiting for the body, is told so

    def _client(self) -> str:
        """The client's pseudonym for the log, where the guard counts it."""
        return "" if self._counted is None else f" (client {self.guard.pseudonym(self._counted)})"

    def _refuse(self, status: int) -> None:
        """Answer `status` with its one-line reason and close the connection."""
        self._refused = True
        self._cancel()
        body = _REASONS[status]
        self.transport.write(b"".join([
            STATUS_LINE[status], b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n", body]))
        self.transport.close()
