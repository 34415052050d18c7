"""Per-address limits of a public recorder (`guard`): address keys, join buckets, connection
counts, proxies, and the rate-limited log of refusals."""

from __future__ import annotations

import logging

import pytest

from mazesim.play import guard as guard_module
from mazesim.play.guard import (JOIN_BURST, JOIN_REFILL_SECONDS, LOG_LINES, LOG_WINDOW_SECONDS,
                                MAX_CONNECTIONS_PER_ADDRESS, Buckets, Guard, RefusalLog,
                                Throttle, ThrottleFilter, address_key)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("host, key", [
    ("203.0.113.7", "203.0.113.7"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"), ("::ffff:198.51.100.3", "198.51.100.3"),
    ("fe80::1%eth0", "fe80::/64"), (" 192.0.2.1 ", "192.0.2.1"), ("unix:/tmp/x", None),
    ("", None), (None, None)])
def test_clients_are_counted_by_ipv4_address_or_ipv6_64(host, key):
    assert address_key(host) == key


def test_a_bucket_holds_a_burst_and_refills_at_its_rate():
    clock = Clock()
    joins = Buckets(JOIN_BURST, JOIN_REFILL_SECONDS, clock)
    assert [joins.take("a") for _ in range(JOIN_BURST + 1)] == [True] * JOIN_BURST + [False]
    assert joins.take("b")                                     # other addresses are apart
    clock.now += JOIN_REFILL_SECONDS * 0.9
    assert not joins.take("a")                                 # refused tries cost nothing
    clock.now += JOIN_REFILL_SECONDS * 0.1
    assert joins.take("a") and not joins.take("a")
    clock.now += JOIN_REFILL_SECONDS * 10 * JOIN_BURST
    assert sum(joins.take("a") for _ in range(2 * JOIN_BURST)) == JOIN_BURST


def test_buckets_forget_full_ones_then_the_oldest_to_stay_bounded(monkeypatch):
    monkeypatch.setattr(guard_module, "MAX_TRACKED_ADDRESSES", 100)
    clock = Clock()
    joins = Buckets(3, 1.0, clock)
    for i in range(100):
        joins.take(f"old{i}")
    clock.now += 10                                            # the old ones are full again
    joins.take("new")
    assert len(joins) == 1
    for i in range(1000):                                      # a flood of fresh addresses
        joins.take(f"flood{i}")
        assert len(joins) <= 100
    assert not [joins.take("flood999") for _ in range(3)][-1]  # the latest are remembered


def test_the_throttle_lets_a_few_of_each_kind_through_and_counts_the_rest():
    clock = Clock()
    throttle = Throttle(lines=2, window=60, clock=clock)
    assert [throttle.admit("join") for _ in range(5)] == [0, 0, None, None, None]
    assert throttle.admit("connection") == 0
    clock.now += 60
    assert [throttle.admit("join") for _ in range(3)] == [3, 0, None]


def test_refusals_are_one_line_each_and_the_log_is_rate_limited(caplog):
    clock = Clock()
    log = RefusalLog(logging.getLogger("test.refusals"), Throttle(clock=clock))
    with caplog.at_level(logging.WARNING, "test.refusals"):
        for i in range(LOG_LINES + 5):
            log.refused("join", f"client {i}\x1b[2J")
        clock.now += LOG_WINDOW_SECONDS
        log.refused("join", "later")
    lines = [r.getMessage() for r in caplog.records]
    assert lines[:2] == ["refused join: client 0\\x1b[2J", "refused join: client 1\\x1b[2J"]
    assert lines[LOG_LINES:] == ["refused join: 5 more since the last line were not shown",
                                 "refused join: later"]
    assert all("\n" not in line for line in lines)


def test_another_library_s_warnings_are_throttled_too(caplog):
    logger = logging.getLogger("test.uvicorn")
    logger.addFilter(ThrottleFilter(Throttle(lines=3)))
    with caplog.at_level(logging.WARNING, "test.uvicorn"):
        for _ in range(50):
            logger.warning("Invalid HTTP request received.")
    assert len(caplog.records) == 3


def test_a_public_guard_caps_connections_per_address_but_not_its_proxy():
    guard = Guard(public=True)
    keys = [guard.connect("198.51.100.9") for _ in range(MAX_CONNECTIONS_PER_ADDRESS)]
    assert keys == [(True, "198.51.100.9")] * MAX_CONNECTIONS_PER_ADDRESS
    assert guard.connect("198.51.100.9") == (False, None)
    assert guard.connect("198.51.100.10") == (True, "198.51.100.10")
    assert all(guard.connect("127.0.0.1") == (True, None) for _ in range(1000))   # the proxy
    guard.disconnect("198.51.100.9")
    assert guard.connect("198.51.100.9") == (True, "198.51.100.9")
    for _ in range(MAX_CONNECTIONS_PER_ADDRESS):
        guard.disconnect("198.51.100.9")
    assert "198.51.100.9" not in guard.connections              # nothing left of it
    loopback = Guard(public=False)
    assert all(loopback.connect("127.0.0.1") == (True, None) for _ in range(1000))


def test_behind_a_proxy_the_client_is_the_last_forwarded_address(caplog):
    guard = Guard(public=True)
    assert guard.client("127.0.0.1", b"10.1.1.1, 203.0.113.5") == "203.0.113.5"   # appended
    assert guard.client("203.0.113.8", b"1.2.3.4") == "203.0.113.8"     # not a proxy: ignored
    with caplog.at_level(logging.WARNING, "mazesim.play"):
        assert guard.client("127.0.0.1", None) is None
        assert guard.client("127.0.0.1", b"junk") is None
    assert len(caplog.records) == 1 and "X-Forwarded-For" in caplog.records[0].getMessage()
    assert Guard(public=True, proxies=()).client("127.0.0.1", b"1.2.3.4") == "127.0.0.1"
    assert Guard(public=False).client("203.0.113.8", None) is None


def test_pseudonyms_name_a_client_without_its_address():
    guard, other = Guard(public=True), Guard(public=True)
    name = guard.pseudonym("203.0.113.5")
    assert len(name) == 8 and name == guard.pseudonym("203.0.113.5")
    assert name != guard.pseudonym("203.0.113.6") and "203" not in name
    assert other.pseudonym("203.0.113.5") != name                  # a new key every start
