"""Maze orders: fixed, shuffled per participant (seeded), and the balanced Latin square."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from mazesim.play.orders import latin_square, main_order


@given(st.integers(1, 16))
def test_latin_square_is_balanced(n):
    rows = latin_square(n)
    assert len(rows) == (n if n % 2 == 0 or n == 1 else 2 * n)
    for row in rows:
        assert sorted(row) == list(range(n))
    per_position = len(rows) // n
    for j in range(n):                              # every maze once in every position
        assert Counter(row[j] for row in rows) == {m: per_position for m in range(n)}
    follows = Counter((row[j], row[j + 1]) for row in rows for j in range(n - 1))
    expected = {(a, b): len(rows) // n for a in range(n) for b in range(n) if a != b}
    assert follows == (expected if n > 1 else {})  # every maze right after every other, evenly


def test_latin_square_of_four_and_three():
    assert latin_square(4) == [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]
    assert latin_square(3) == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0], [0, 2, 1],
                               [1, 0, 2]]


def test_orders():
    ids = ["a", "b", "c", "d"]
    assert main_order("fixed", ids, 7, "p1", 5) == ids
    assert [main_order("latin", ids, 7, "any", n) for n in (0, 1, 4, 5)] == [
        ["a", "b", "d", "c"], ["b", "c", "a", "d"], ["a", "b", "d", "c"], ["b", "c", "a", "d"]]
    shuffled = {p: main_order("shuffled", ids, 9, p, 0) for p in ("p1", "p2", "p3", "p4")}
    assert all(sorted(o) == ids for o in shuffled.values())
    assert len({tuple(o) for o in shuffled.values()}) > 1
    assert main_order("shuffled", ids, 9, "p1", 3) == shuffled["p1"]      # number unused
    assert [main_order("shuffled", ids, 10, p, 0) for p in shuffled] != list(shuffled.values())
