"""Sokoban solvers (DESIGN.md section 10): move-optimal BFS and push-based A*.

``bfs`` is the tutorial's search (source 001) on the generic layer: states (player, boxes), moves
tried up, down, left, right, the count being the seen set when the solved state is taken from the
queue. ``astar`` searches pushes: the player is normalised to the smallest square of its region,
boxes may not enter dead squares (reverse pulls) nor freeze off a goal, and the lower bound is a
minimum-cost matching of boxes to goals on push distances. With a time limit, A* runs forward and
then backward (pulling boxes off the goals; both push-optimal), then greedy searches take the rest
(then ``optimal`` is false); see `STAGES`. Every solution is replayed before it is returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from mazesim.errors import LevelError, SearchError
from mazesim.maze import DELTAS
from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban import _search
from mazesim.search import generic
from mazesim.search.sokoban import reference
from mazesim.search.sokoban.level import LURD, SEED_ORDER, Board, Level, replay
from mazesim.search.sokoban.deadlocks import PRUNES, dead_mask, dead_squares, is_frozen, \
    push_distances

__all__ = ["METHODS", "ENGINES", "PRUNES", "DEFAULT_PRUNE", "SokobanResult", "solve"]

METHODS = ("bfs", "astar")
ENGINES = ("numba", "generic")
DEFAULT_PRUNE = {"bfs": "dead-squares", "astar": "full"}
MAX_NODES = 1 << 24
"""Most states one push search keeps (about 100 bytes each: under 2 GB); reaching it counts as
running out of time."""
ZOBRIST_SEED = 20001
"""Seed of the Zobrist keys (fixed, so runs are repeatable)."""
_OPTIMAL, _GREEDY = (1, 1), (0, 1)
AREA_WEIGHT = 1000
"""Priority of each separate free area in the connectivity stage: well above the lower bounds of
Microban-sized levels, so fewer areas come first and the bound breaks ties."""
STAGES = ((_OPTIMAL, False, False, 0, 0.25), (_OPTIMAL, True, False, 0, 0.5),
          (_GREEDY, True, False, 0, 0.55), (_GREEDY, False, False, AREA_WEIGHT, 0.85),
          (_GREEDY, False, False, 0, 0.92), (_GREEDY, False, True, 0, 1.0))
"""(weights, backward, goal macros, area weight, share of the time limit at which it stops) of each
search run in turn: push-optimal A* forward, then backward (pulling boxes from the goals), then
greedy best-first backward (quick when it works at all), forward guided first by connectivity
(FESS-style: fewer separate areas of free floor, then the lower bound; it opens rooms the player
must reach even when that pushes boxes away from the goals, as in Microban 153), forward, and
forward with goal macros (boxes fill the goals in a packing order). Without a time limit forward
A* runs alone."""


@dataclass(frozen=True)
class SokobanResult:
    """The outcome of one solve.

    ``optimal`` is true only for a move-optimal BFS or a push-optimal A* solution; ``states`` is
    the number of distinct states seen; ``timed_out`` tells a stop at the time limit (or at
    `MAX_NODES` states) from a level proven unsolvable (both have ``solved`` false and an empty
    ``solution``).
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


def solve(level: Level, *, method: str = "astar", prune: str | None = None,
          time_limit: float | None = None, engine: str = "numba") -> SokobanResult:
    """Solve `level`; see the module text for the methods. `time_limit` in seconds (None: none).

    `engine` ``generic`` runs ``astar`` as plain A* on `mazesim.search.generic` (the reference
    for the compiled loop; no backward or greedy stages).
    """
    if engine not in ENGINES:
        raise SearchError(f"unknown engine {engine!r} (allowed: {', '.join(ENGINES)})")
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
    elif engine == "generic":
        path, states, timed_out = reference.push_astar(board, prune, time_limit)
        solution = None if path is None else _lurd(board, path)
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

    def neighbours(state):
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

    left = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 0.0)
    result = generic.bfs((board.player, frozenset(board.boxes)), neighbours,
                         lambda state: state[1] == goals, time_limit=left)
    if not result.found:
        return None, result.seen, result.truncated
    letters = []
    for (a, boxes), (b, moved) in zip(result.path, result.path[1:]):
        d = int(np.flatnonzero(nbr[a] == b)[0])
        letters.append(LURD[d].upper() if moved != boxes else LURD[d])
    return "".join(letters), result.seen, False


def _push_search(board: Board, prune: str, start: float, time_limit: float | None):
    """The staged push search; returns (LURD or None, optimal, states, timed out).

    The stages and their shares of the time limit are `STAGES`; without a limit A* runs alone.
    """
    rng = np.random.default_rng(ZOBRIST_SEED)
    zbox, zplayer = (rng.integers(0, 1 << 62, board.size, dtype=np.int64) for _ in range(2))
    stages = STAGES if time_limit is not None else STAGES[:1]
    states = 0
    for weights, pull, macros, areas, share in stages:
        budget = np.inf if time_limit is None else \
            time_limit * share - (time.perf_counter() - start)
        status, path, seen = _box_search(board, prune, weights, pull, macros, zbox, zplayer,
                                         budget, areas)
        states += seen
        if status >= 0:
            break
    if status <= 0:
        return None, False, states, status < 0
    return _lurd(board, path), weights == _OPTIMAL, states, False


def _box_search(board: Board, prune: str, weights: tuple[int, int], pull: bool, macros: bool,
                zbox: np.ndarray, zplayer: np.ndarray, budget: float, areas: int = 0):
    """One run of the kernel, forward (pushes, optionally with goal macros) or backward."""
    goals = np.flatnonzero(board.goal).astype(np.int16)
    boxes = np.array(board.boxes, np.int16)
    if pull:
        starts, targets = goals, boxes
        dist = _k.push_distances(board.nbr, boxes.astype(np.int32), True)
        dead = (dist.min(axis=0) >= _k.INF) if len(boxes) else np.ones(board.size, bool)
        roots = _regions(board, goals)
        final = board.player
    else:
        starts, targets = boxes, goals
        dist = push_distances(board)
        dead = dead_mask(board, prune)
        roots = np.array([board.player], np.int32)
        final = -1
    mask = np.zeros(board.size, np.uint8)
    mask[targets] = 1
    order = _search.packing_order(board.nbr, mask) if macros else np.empty(0, np.int32)
    if macros and len(order) == 0:
        return -1, None, 0                         # no packing order: nothing to try here
    status, path, seen, _ = _search.box_search(
        board.nbr, mask, dead.astype(np.uint8), dist, starts, roots, final, zbox, zplayer,
        weights[0], weights[1], pull, prune == "full" and not pull, order, budget, MAX_NODES,
        areas)
    if macros and status > 0:
        path = _expand_macros(board, path, order, mask)
    if pull and status > 0:             # pulls from the goals, reversed, are pushes to them
        pushes = [(int(board.nbr[b, d]), (d + 2) % len(DELTAS)) for b, d in path.tolist()]
        path = np.array(pushes[::-1], np.int16).reshape(-1, 2)
    return status, path, seen


def _expand_macros(board: Board, path: np.ndarray, order: np.ndarray,
                   goal: np.ndarray) -> np.ndarray:
    """Replace each goal macro (direction + 4) by its pushes, found as the kernel found them."""
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    pushes, ndir = [], len(DELTAS)
    for b, d in path.tolist():
        moves = [(b, d % ndir)]
        if d >= ndir:
            target = next(g for g in order.tolist() if not occupied[g])
            side = np.zeros(ndir, np.uint8)
            side[(d + 2) % ndir] = 1
            occupied[b] = 0
            walk = _search.box_walk(board.nbr, occupied, int(board.nbr[b, d % ndir]), side, False,
                               target, goal)
            moves += walk.tolist()
        occupied[b] = 0
        last_cell, last_dir = moves[-1]
        occupied[int(board.nbr[last_cell, last_dir])] = 1
        pushes += moves
    return np.array(pushes, np.int16).reshape(-1, 2)


def _regions(board: Board, boxes: np.ndarray) -> np.ndarray:
    """One floor cell of each player region left free by `boxes`."""
    occupied = np.zeros(board.size, np.uint8)
    occupied[boxes] = 1
    mark = np.zeros(board.size, np.int32)
    roots = []
    for cell in range(board.size):
        if not occupied[cell] and not mark[cell]:
            _k.reach(board.nbr, occupied, cell, mark, 1)
            roots.append(cell)
    return np.array(roots, np.int32)


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
