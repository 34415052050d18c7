"""Sokoban solvers (DESIGN.md section 10): move-optimal BFS and push-based A*.

``bfs`` is the tutorial's search (source 001) on the generic layer: states (player, boxes), moves
tried up, down, left, right, the count being the seen set when the solved state is taken from the
queue. ``astar`` searches pushes: the player is normalised to the smallest square of its region,
boxes may not enter dead squares (reverse pulls) nor freeze off a goal, and the lower bound is a
minimum-cost matching of boxes to goals on push distances. A* runs first (push-optimal); when it
has used its share of the time limit, a greedy search takes the rest (then ``optimal`` is false).
Every solution is replayed before it is returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from mazesim.errors import LevelError, SearchError
from mazesim.maze import DELTAS
from mazesim.search import _sokoban_kernels as _k
from mazesim.search import generic
from mazesim.search.sokoban import LURD, SEED_ORDER, Board, Level, replay
from mazesim.search.sokoban_deadlocks import PRUNES, dead_mask, dead_squares, is_frozen, \
    push_distances

__all__ = ["METHODS", "PRUNES", "DEFAULT_PRUNE", "SokobanResult", "solve"]

METHODS = ("bfs", "astar")
DEFAULT_PRUNE = {"bfs": "dead-squares", "astar": "full"}
OPTIMAL_SHARE = 0.5
"""Share of a time limit given to optimal A* before the greedy search takes over."""
MAX_NODES = 1 << 26
"""Most states the push search keeps (memory bound: about 100 bytes each)."""
ZOBRIST_SEED = 20001
"""Seed of the Zobrist keys (fixed, so runs are repeatable)."""
_TIME_CHECK = 4096
_OPTIMAL, _GREEDY = (1, 1), (0, 1)


@dataclass(frozen=True)
class SokobanResult:
    """The outcome of one solve.

    ``optimal`` is true only for a move-optimal BFS or a push-optimal A* solution; ``states`` is
    the number of distinct states seen; ``timed_out`` tells a time-limit stop from a level proven
    unsolvable (both have ``solved`` false and an empty ``solution``).
    """

    solved: bool
    optimal: bool
    moves: int
    pushes: int
    solution: str
    states: int
    seconds: float
    method: str
    prune: str
    timed_out: bool = False

    def to_dict(self) -> dict:
        return {"solved": self.solved, "optimal": self.optimal, "moves": self.moves,
                "pushes": self.pushes, "solution": self.solution, "states": self.states,
                "seconds": round(self.seconds, 4), "timed_out": self.timed_out}


class _TimeUp(Exception):
    """Raised inside a generic search when its time limit has passed."""


def solve(level: Level, *, method: str = "astar", prune: str | None = None,
          time_limit: float | None = None) -> SokobanResult:
    """Solve `level`; see the module text for the methods. `time_limit` in seconds (None: none)."""
    if method not in METHODS:
        raise SearchError(f"unknown method {method!r} (allowed: {', '.join(METHODS)})")
    prune = DEFAULT_PRUNE[method] if prune is None else prune
    if prune not in PRUNES:
        raise SearchError(f"unknown pruning {prune!r} (allowed: {', '.join(PRUNES)})")
    if time_limit is not None and not time_limit > 0:
        raise SearchError(f"time limit must be > 0 seconds, got {time_limit}")
    board = level.board()
    start = time.perf_counter()
    if not board.solvable_outside():
        solution, optimal, states, timed_out = None, False, 0, False
    elif method == "bfs":
        solution, states, timed_out = _move_bfs(board, prune, start, time_limit)
        optimal = solution is not None
    else:
        solution, optimal, states, timed_out = _push_search(board, prune, start, time_limit)
    seconds = time.perf_counter() - start
    if solution is None:
        return SokobanResult(False, False, 0, 0, "", states, seconds, method, prune, timed_out)
    if not replay(level, solution):
        raise AssertionError(f"{level.source}: solver produced a non-solution {solution!r}")
    pushes = sum(ch.isupper() for ch in solution)
    return SokobanResult(True, optimal, len(solution), pushes, solution, states, seconds,
                         method, prune)


def _move_bfs(board: Board, prune: str, start: float, time_limit: float | None):
    """The tutorial's BFS over (player, boxes) on the generic layer."""
    nbr, goals = board.nbr, frozenset(np.flatnonzero(board.goal).tolist())
    dead = dead_mask(board, prune)
    freeze_dead = dead_squares(board) if prune == "full" else None
    calls = [0]

    def neighbours(state):
        calls[0] += 1
        if time_limit is not None and calls[0] % _TIME_CHECK == 0 \
                and time.perf_counter() - start > time_limit:
            raise _TimeUp
        player, boxes = state
        for d in SEED_ORDER:
            nxt = nbr[player, d]
            if nxt < 0:
                continue
            if nxt in boxes:
                ahead = int(nbr[nxt, d])
                if ahead < 0 or ahead in boxes or dead[ahead]:
                    continue
                moved = (boxes - {nxt}) | {ahead}
                if freeze_dead is not None and is_frozen(board, moved, ahead, freeze_dead):
                    continue
                yield int(nxt), moved
            else:
                yield int(nxt), boxes

    try:
        result = generic.bfs((board.player, frozenset(board.boxes)), neighbours,
                             lambda state: state[1] == goals)
    except _TimeUp:
        return None, calls[0], True
    if not result.found:
        return None, result.seen, False
    letters = []
    for (a, boxes), (b, moved) in zip(result.path, result.path[1:]):
        d = int(np.flatnonzero(nbr[a] == b)[0])
        letters.append(LURD[d].upper() if moved != boxes else LURD[d])
    return "".join(letters), result.seen, False


def _push_search(board: Board, prune: str, start: float, time_limit: float | None):
    """Push-optimal A*, then greedy on a timeout; returns (LURD or None, optimal, states, timed out)."""
    dist = push_distances(board)
    dead = dead_mask(board, prune).astype(np.uint8)
    freeze = prune == "full"
    rng = np.random.default_rng(ZOBRIST_SEED)
    zbox, zplayer = (rng.integers(0, 1 << 62, board.size, dtype=np.int64) for _ in range(2))
    boxes = np.array(board.boxes, np.int16)
    goal = board.goal.astype(np.uint8)
    limit = np.inf if time_limit is None else time_limit
    states = 0
    for (wg, wh), share in ((_OPTIMAL, OPTIMAL_SHARE), (_GREEDY, 1.0)):
        budget = limit * share - (time.perf_counter() - start) if time_limit else np.inf
        status, pushes, seen, _ = _k.push_search(board.nbr, goal, dead, dist, boxes, board.player,
                                                 zbox, zplayer, wg, wh, freeze, budget, MAX_NODES)
        states += seen
        if status >= 0:
            break
    if status <= 0:
        return None, False, states, status < 0
    return _lurd(board, pushes), (wg, wh) == _OPTIMAL, states, False


def _lurd(board: Board, pushes: np.ndarray) -> str:
    """Expand pushes (box square, direction) to a LURD string; the player walks by BFS between."""
    nbr = board.nbr
    player, boxes = board.player, set(board.boxes)
    letters: list[str] = []
    for b, d in pushes.tolist():
        behind = int(nbr[b, (d + 2) % len(DELTAS)])
        walk = generic.bfs(player, lambda c: (int(m) for m in nbr[c] if m >= 0 and m not in boxes),
                           lambda c: c == behind)
        if not walk.found:
            raise LevelError(f"internal: push from square {b} unreachable")
        for a, c in zip(walk.path, walk.path[1:]):
            letters.append(LURD[int(np.flatnonzero(nbr[a] == c)[0])])
        letters.append(LURD[d].upper())
        boxes.remove(b)
        boxes.add(int(nbr[b, d]))
        player = b
    return "".join(letters)
