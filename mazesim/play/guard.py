"""What one client may take of a public recorder: connections, joins, and the refusals' log.

A public server (`--public-url`) counts per client address, IPv4 as it is and IPv6 by its /64
(the share of one host): at most `MAX_CONNECTIONS_PER_ADDRESS` open connections (more are
answered 429 and closed at once, `mazesim.play.protocol`) and joins from a token bucket of
`JOIN_BURST`, one more every `JOIN_REFILL_SECONDS` (a participant joins once, and again on each
reload; a university's or a mobile carrier's shared address holds many people). Behind a
reverse proxy on this computer (a loopback peer, `PROXIES`) the client is the last address of
its `X-Forwarded-For` header, which the proxy appends; the proxy itself is never capped. A
loopback server without a public URL serves this computer only and counts nothing.

Addresses stay in memory as counts and buckets (at most `MAX_TRACKED_ADDRESSES`), never on disk:
the log names a client by a pseudonym, a keyed hash whose key is new at every start. Every
refusal is one log line (`RefusalLog`), at most `LOG_LINES` of each kind a `LOG_WINDOW_SECONDS`
(`Throttle`; the first line of a later window counts those left out), and uvicorn's own
warnings (one per malformed request) are throttled alike (`throttle_log`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import secrets
import time
from collections import OrderedDict
from typing import Callable, Iterable

from mazesim.errors import printable

__all__ = ["MAX_CONNECTIONS_PER_ADDRESS", "JOIN_BURST", "JOIN_REFILL_SECONDS",
           "MAX_TRACKED_ADDRESSES", "PROXIES", "LOG_LINES", "LOG_WINDOW_SECONDS", "LOGGER",
           "address_key", "Buckets", "Throttle", "RefusalLog", "ThrottleFilter", "throttle_log",
           "Guard"]

MAX_CONNECTIONS_PER_ADDRESS = 256
"""Open connections of one client address (a browser keeps one or two to a site; a shared
address of a hundred participants stays below it)."""
JOIN_BURST = 30
"""Joins one client address may make at once (a lab's room of people behind one address)."""
JOIN_REFILL_SECONDS = 2.0
"""One more join every this many seconds: 30 a minute, 1,800 an hour from one address."""
MAX_TRACKED_ADDRESSES = 65_536
"""Addresses whose join buckets are remembered (full buckets are forgotten first)."""
PROXIES = ("127.0.0.0/8", "::1/128")
"""Peers that are a reverse proxy: their `X-Forwarded-For` names the client."""
LOG_LINES = 10
LOG_WINDOW_SECONDS = 60.0
LOGGER = "mazesim.play"
_PSEUDONYM_BYTES = 4
_IPV6_HOST_PREFIX = 64


def address_key(host: str | None) -> str | None:
    """The address a client is counted by: IPv4 as it is, IPv6 by its /64 network (an IPv4
    address mapped into IPv6 as that IPv4); None for what is not an address."""
    try:
        ip = ipaddress.ip_address((host or "").split("%", 1)[0].strip())
    except ValueError:
        return None
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{_IPV6_HOST_PREFIX}", strict=False))
    return str(ip)


class Buckets:
    """A token bucket per key: `burst` tokens, one more every `refill_seconds`; `take` spends
    one. Memory is bounded: past `MAX_TRACKED_ADDRESSES` keys, full buckets (the same as none)
    are forgotten, and if that is not enough the least recently used half."""

    def __init__(self, burst: int, refill_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.refill_seconds, self.clock = burst, refill_seconds, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> bool:
        """Spend a token of `key`'s bucket; False (nothing spent) when it is empty."""
        now = self.clock()
        tokens = self._level(key, now)
        allowed = tokens >= 1
        self._buckets.pop(key, None)                # the most recently used last
        self._buckets[key] = (tokens - 1 if allowed else tokens, now)
        if len(self._buckets) > MAX_TRACKED_ADDRESSES:
            self._forget(now)
        return allowed

    def __len__(self) -> int:
        return len(self._buckets)

    def _level(self, key: str, now: float) -> float:
        tokens, when = self._buckets.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - when) / self.refill_seconds)

    def _forget(self, now: float) -> None:
        for key in [k for k in self._buckets if self._level(k, now) >= self.burst]:
            del self._buckets[key]
        while len(self._buckets) > MAX_TRACKED_ADDRESSES // 2:
            self._buckets.popitem(last=False)


class Throttle:
    """At most `lines` of each kind of event per `window` seconds (the log's own rate limit)."""

    def __init__(self, lines: int = LOG_LINES, window: float = LOG_WINDOW_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines, self.window, self.clock = lines, window, clock
        self._kinds: dict[str, tuple[float, int, int]] = {}

    def admit(self, kind: str) -> int | None:
        """None to hold this event back; else how many of its kind were held back before it
        (counted since the last one admitted, told once when a new window starts)."""
        now = self.clock()
        start, shown, held = self._kinds.get(kind, (now, 0, 0))
        told = 0
        if now - start >= self.window:
            start, shown, told, held = now, 0, held, 0
        if shown >= self.lines:
            self._kinds[kind] = (start, shown, held + 1)
            return None
        self._kinds[kind] = (start, shown + 1, held)
        return told


class RefusalLog:
    """One warning line per refusal of the server, rate-limited by kind (`Throttle`)."""

    def __init__(self, logger: logging.Logger | None = None,
                 throttle: Throttle | None = None) -> None:
        self.logger = logger or logging.getLogger(LOGGER)
        self.throttle = throttle or Throttle()

    def refused(self, kind: str, detail: str) -> None:
        """Log that a request of `kind` (a fixed word: join, connection, ...) was refused."""
        held = self.throttle.admit(kind)
        if held is None:
            return
        if held:
            self.logger.warning("refused %s: %d more since the last line were not shown", kind,
                                held)
        self.logger.warning("refused %s: %s", kind, printable(detail))


class ThrottleFilter(logging.Filter):
    """A `Throttle` for another library's log (uvicorn warns once per bad request)."""

    def __init__(self, throttle: Throttle | None = None) -> None:
        super().__init__()
        self.throttle = throttle or Throttle()

    def filter(self, record: logging.LogRecord) -> bool:
        held = self.throttle.admit(str(record.msg))
        if held:
            record.msg = f"{record.msg} ({held} more like it not shown)"
        return held is not None


def throttle_log(name: str) -> None:
    """Rate-limit the logger `name` (once; a second call changes nothing)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, ThrottleFilter) for f in logger.filters):
        logger.addFilter(ThrottleFilter())


class Guard:
    """The per-address limits of one server (see the module docstring); `public` False counts
    nothing. `proxies`: networks of reverse proxies (default `PROXIES`)."""

    def __init__(self, public: bool, proxies: Iterable[str] = PROXIES,
                 log: RefusalLog | None = None, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.public = public
        self.proxies = tuple(ipaddress.ip_network(p) for p in proxies)
        self.log = log or RefusalLog()
        self.joins = Buckets(JOIN_BURST, JOIN_REFILL_SECONDS, clock)
        self.connections: dict[str, int] = {}
        self._secret = secrets.token_bytes(16)
        self._warned_proxy = False

    def connect(self, peer: str | None) -> tuple[bool, str | None]:
        """Whether a new connection from `peer` is accepted, and the key it is counted under
        (None: not counted); `disconnect(key)` when it closes."""
        key = address_key(peer) if self.public and not self._is_proxy(peer) else None
        if key is None:
            return True, None
        if self.connections.get(key, 0) >= MAX_CONNECTIONS_PER_ADDRESS:
            self.log.refused("connection", f"{MAX_CONNECTIONS_PER_ADDRESS} connections are open "
                             f"from client {self.pseudonym(key)}")
            return False, None
        self.connections[key] = self.connections.get(key, 0) + 1
        return True, key

    def disconnect(self, key: str) -> None:
        left = self.connections.pop(key) - 1
        if left:
            self.connections[key] = left

    def client(self, peer: str | None, forwarded: bytes | None) -> str | None:
        """The address key of a request's client (None: not counted): the peer, or behind a
        proxy the last address of `X-Forwarded-For`."""
        if not self.public:
            return None
        if not self._is_proxy(peer):
            return address_key(peer)
        last = (forwarded or b"").decode("latin-1").rsplit(",", 1)[-1]
        key = address_key(last)
        if key is None and not self._warned_proxy:
            self._warned_proxy = True
            self.log.logger.warning("requests come through a proxy that sends no "
                                    "X-Forwarded-For: joins are not counted per address "
                                    "(README, Deployment)")
        return key

    def allow_join(self, client: str | None) -> bool:
        """Whether `client` may join now (spends one of its joins)."""
        return client is None or self.joins.take(client)

    def pseudonym(self, key: str | None) -> str:
        """What the log calls a client: 8 hex digits, the same for one address until restart."""
        if key is None:
            return "-"
        return hashlib.blake2b(key.encode(), key=self._secret,
                               digest_size=_PSEUDONYM_BYTES).hexdigest()

    def _is_proxy(self, peer: str | None) -> bool:
        try:
            ip = ipaddress.ip_address((peer or "").split("%", 1)[0])
        except ValueError:
            return False
        return any(ip in network for network in self.proxies)
