"""Sokoban solvers (DESIGN.md section 10): move-optimal BFS and push-based A*.

``bfs`` is the tutorial's search (source 001) on the generic layer: states (player, boxes), moves
tried up, down, left, right, the count being the seen set when the solved state is taken from the
queue. ``astar`` searches pushes: the player is normalised to the smallest square of its region,
boxes may not enter dead squares (reverse pulls) nor freeze off a goal, and the lower bound is a
minimum-cost matching of boxes to goals on push distances. With a time limit it runs the staged
search of `mazesim.search.sokoban.stages` (A* forward and backward, then greedy stages whose
solutions are not proven optimal). The time limit covers the whole solve, set-up included; the
kernels it calls are compiled (first run after installing or editing: about half a minute) or
loaded before its clock starts, by solving `WARM_UP_LEVEL` once per process. Every solution is
verified by playing it before it is returned.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mazesim.errors import SearchError
from mazesim.jit import compiling
from mazesim.search import generic
from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban import _walks, reference
from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.deadlocks import PRUNES, dead_mask, dead_squares, is_frozen
from mazesim.search.sokoban.level import (LURD, TUTORIAL_MOVE_ORDER, Level, check_size,
                                          parse_levels, verify_solution)
from mazesim.search.sokoban.stages import STAGES, push_search, run_stage, zobrist_keys

__all__ = ["METHODS", "ENGINES", "PRUNES", "DEFAULT_PRUNE", "WARM_UP_LEVEL", "SokobanResult",
           "solve"]

METHODS = ("bfs", "astar")
ENGINES = ("numba", "generic")
DEFAULT_PRUNE = {"bfs": "dead-squares", "astar": "full"}
WARM_UP_LEVEL = "######\n#@   #\n# $$ #\n#    #\n## ###\n #.#\n #.#\n ###\n"
"""Two boxes for a dead-end corridor of goals: every method and stage solves it within
milliseconds, and the goal-macro stage walks a box on to the far goal, so solving it once calls
every kernel of a solve with the argument types of any level."""
_LETTERS = [LURD[d] for d in range(_walks.PUSH)] + [LURD[d].upper() for d in range(_walks.PUSH)]


@dataclass(frozen=True)
class SokobanResult:
    """The outcome of one solve.

    ``optimal`` is true only for a move-optimal BFS or a push-optimal A* solution; ``states`` is
    the number of distinct states seen; ``timed_out`` tells a stop at the time limit (or at the
    node limit) from a level proven unsolvable (both have ``solved`` false and an empty
    ``solution``); ``stage`` names the `Stage` that found the solution (None for ``bfs`` and when
    not solved; the generic engine runs the first stage's A*).
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
    stage: str | None = None

    def to_dict(self) -> dict:
        return {"solved": self.solved, "optimal": self.optimal, "moves": self.moves,
                "pushes": self.pushes, "solution": self.solution, "states": self.states,
                "seconds": round(self.seconds, 4), "timed_out": self.timed_out,
                "stage": self.stage}


def solve(level: Level, *, method: str = "astar", prune: str | None = None,
          time_limit: float | None = None, engine: str = "numba",
          notice: Callable[[], None] | None = None) -> SokobanResult:
    """Solve `level`; see the module text for the methods. `time_limit` in seconds (None: none).

    `engine` ``generic`` runs ``astar`` as plain A* on `mazesim.search.generic` (the reference
    for the compiled loop; no backward or greedy stages). Levels above the size ceilings of
    `check_size` raise `LevelError` before any work. `notice()` is called before kernels are
    compiled, outside the time limit (the CLI says "compiling kernels, first run only").

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> result = solve(parse_levels("#######\\n#@ $ .#\\n#######\\n")[0])
    >>> result.solution, result.optimal, result.stage
    ('rRR', True, 'astar-forward')
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
    check_size(level)
    with compiling(notice):
        _warm_up(method, engine, method == "astar" and time_limit is not None)
    start = time.perf_counter()
    board = Board.of(level)
    solution, optimal, states, timed_out, stage = None, False, 0, False, None
    if board.solvable_outside():
        solution, optimal, states, timed_out, stage = _dispatch(board, method, prune, engine,
                                                                start, time_limit)
    seconds = time.perf_counter() - start
    if solution is None:
        return SokobanResult(False, False, 0, 0, "", states, seconds, method, prune, timed_out)
    if not verify_solution(level, solution):
        raise AssertionError(f"{level.source}: solver produced a non-solution {solution!r}")
    pushes = sum(ch.isupper() for ch in solution)
    return SokobanResult(True, optimal, len(solution), pushes, solution, states, seconds,
                         method, prune, stage=stage)


def _dispatch(board: Board, method: str, prune: str, engine: str, start: float,
              time_limit: float | None):
    """(LURD or None, optimal, states, timed out, stage name or None) of the chosen search."""
    deadline = math.inf if time_limit is None else start + time_limit
    if method == "bfs":
        solution, states, timed_out = _move_bfs(board, prune, deadline)
        return solution, solution is not None, states, timed_out, None
    if engine == "generic":
        pushes, states, timed_out = reference.push_astar(board, prune, deadline)
        if pushes is None:
            return None, False, states, timed_out, None
        return _lurd(board, pushes), True, states, False, STAGES[0].name
    run = push_search(board, prune, start, time_limit)
    if run.pushes is None:
        return None, False, run.states, run.timed_out, None
    return _lurd(board, run.pushes), run.stage.optimal, run.states, False, run.stage.name


@functools.cache
def _warm_up(method: str, engine: str, staged: bool) -> None:
    """Solve `WARM_UP_LEVEL` as `solve` would, every stage when `staged`: this compiles (first
    run) or loads the kernels, once per process, so that no time limit counts it. The kernels'
    clock is read first: its call back into Python compiles in every process (numba cannot cache
    it; 0.05-0.13 s), and a level this small never reads it."""
    _k.now()
    board = Board.of(parse_levels(WARM_UP_LEVEL)[0])
    _dispatch(board, method, "full", engine, time.perf_counter(), None)
    if staged and engine == "numba":
        keys = zobrist_keys(board)
        for stage in STAGES[1:]:
            run_stage(board, stage, "full", keys, math.inf)


def _left(deadline: float) -> float | None:
    """Seconds until `deadline` (None for no deadline), never negative."""
    return None if math.isinf(deadline) else max(deadline - time.perf_counter(), 0.0)


def _move_bfs(board: Board, prune: str, deadline: float):
    """The tutorial's BFS over (player, boxes) on the generic layer.

    Boxes are a sorted tuple of floor numbers: the garbage collector stops tracking a tuple of
    ints, so a search of a million states neither slows its collections nor its teardown (a
    frozenset would be tracked for ever, and the time limit would not hold).
    """
    nbr, goals = board.nbr.tolist(), tuple(np.flatnonzero(board.goal).tolist())
    dead = dead_mask(board, prune).tolist()
    freeze_dead = dead_squares(board) if prune == "full" else None

    def neighbours(state):
        player, boxes = state
        for d in TUTORIAL_MOVE_ORDER:
            nxt = nbr[player][d]
            if nxt < 0:
                continue
            if nxt in boxes:
                ahead = nbr[nxt][d]
                if ahead < 0 or ahead in boxes or dead[ahead]:
                    continue
                moved = tuple(sorted([b for b in boxes if b != nxt] + [ahead]))
                if freeze_dead is not None and is_frozen(board, moved, ahead, freeze_dead):
                    continue
                yield nxt, moved
            else:
                yield nxt, boxes

    result = generic.bfs((board.player, tuple(board.boxes)), neighbours,
                         lambda state: state[1] == goals, time_limit=_left(deadline))
    if not result.found:
        return None, result.seen, result.truncated
    letters = []
    for (a, boxes), (b, moved) in zip(result.path, result.path[1:]):
        d = nbr[a].index(b)
        letters.append(LURD[d].upper() if moved != boxes else LURD[d])
    return "".join(letters), result.seen, False


def _lurd(board: Board, pushes: np.ndarray) -> str:
    """Expand pushes (box cell, direction) to a LURD string; the player walks by BFS between."""
    moves, ok = _walks.player_moves(board.nbr, board.player, np.array(board.boxes, np.int32),
                                    np.ascontiguousarray(pushes, np.int16))
    if not ok:
        raise RuntimeError("internal: a push of the solution cannot be reached")
    return "".join([_LETTERS[m] for m in moves.tolist()])
