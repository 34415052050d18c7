"""The order in which a participant meets the mazes: fixed, shuffled, or a balanced Latin square.

Practice mazes always come first, in their listed order. `fixed` keeps the listed order;
`shuffled` draws a permutation from a stream seeded by the session seed and the participant id
(the same on every reload and restart, independent of other participants); `latin` gives the
participant with number p row p of a balanced Latin square (Williams design): every maze appears
once in every position, and every maze follows every other equally often, over each block of
`len(latin_square(n))` participants (n rows for an even n, 2n for an odd n > 1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ORDERS", "FIXED", "SHUFFLED", "LATIN", "latin_square", "main_order"]

FIXED, SHUFFLED, LATIN = "fixed", "shuffled", "latin"
ORDERS = (FIXED, SHUFFLED, LATIN)


def latin_square(n: int) -> list[list[int]]:
    """The rows of a balanced Latin square of the indices 0..n-1 (Williams, 1949).

    >>> latin_square(4)
    [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]
    """
    first, low, high = [0], 1, n - 1
    while len(first) < n:                      # 0, 1, n-1, 2, n-2, ...
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(v + i) % n for v in first] for i in range(n)]
    return rows if n % 2 == 0 or n == 1 else rows + [row[::-1] for row in rows]


def main_order(order: str, maze_ids: list[str], seed: int, participant: str, number: int
               ) -> list[str]:
    """The main (non-practice) mazes of one participant in their order; `number` counts the
    participants before this one (the Latin-square row)."""
    if order == SHUFFLED:
        entropy = [seed, *participant.encode("ascii")]
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        return [maze_ids[i] for i in rng.permutation(len(maze_ids))]
    if order == LATIN:
        rows = latin_square(len(maze_ids))
        return [maze_ids[i] for i in rows[number % len(rows)]]
    return list(maze_ids)
