"""Generic graph search over hashable states: BFS, DFS, Dijkstra and A* (DESIGN.md section 10).

Two frontier loops serve the four searches: a deque loop (BFS takes from the left, DFS from the
right) and a heap loop (Dijkstra orders by cost so far, A* by cost plus heuristic). A state is any
hashable value; the problem is given by a neighbour function and a goal test.

Counting, as in the Sokoban tutorial (source 001): ``explored`` is the number of states taken from
the frontier and expanded or tested (stale heap entries are not counted); ``seen`` is the number of
distinct states ever put on the frontier (the start included), read at the moment the search stops,
so for BFS it is ``len(seen)`` when the goal state is taken from the queue.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from dataclasses import dataclass
from itertools import count
from typing import Callable, Hashable, Iterable, TypeVar

from mazesim.errors import SearchError

__all__ = ["SearchResult", "bfs", "dfs", "dijkstra", "astar"]

State = TypeVar("State", bound=Hashable)
Neighbours = Callable[[State], Iterable[State]]
WeightedNeighbours = Callable[[State], Iterable[tuple[State, float]]]
GoalTest = Callable[[State], bool]
Heuristic = Callable[[State], float]

_UNIT_COST = 1
_ROOT = object()  # parent of the start state (a state may itself be None)


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    Attributes
    ----------
    path : tuple
        States from the start to the goal, both included; empty when no goal was found.
    cost : float
        Cost of `path`: its number of moves for BFS and DFS, the summed move costs for Dijkstra
        and A*; ``math.inf`` when no goal was found.
    explored : int
        States taken from the frontier (each at most once; stale heap entries not counted).
    seen : int
        Distinct states ever put on the frontier, the start included, when the search stopped.
    found : bool
        Whether a goal state was reached.
    truncated : bool
        True when the search stopped at `max_explored` or `time_limit` before deciding.
    """

    path: tuple
    cost: float
    explored: int
    seen: int
    found: bool
    truncated: bool = False

    @property
    def moves(self) -> int:
        """Number of moves on the path (``len(path) - 1``); -1 when nothing was found."""
        return len(self.path) - 1


def bfs(start: State, neighbours: Neighbours, is_goal: GoalTest, *,
        max_explored: int | None = None, time_limit: float | None = None) -> SearchResult:
    """Breadth-first search: a path with the fewest moves.

    Neighbours are queued in the order `neighbours` yields them, so the search is deterministic;
    the goal test is made when a state is taken from the queue (the tutorial's counting).

    Parameters
    ----------
    neighbours : callable
        ``neighbours(state)`` yields the states one move away.
    max_explored : int, optional
        Stop (``truncated=True``, ``found=False``) after taking this many states from the queue.
    time_limit : float, optional
        Likewise after this many seconds (the clock is read before every state is taken, so the
        limit holds to one neighbour call); all four searches take both limits.

    Examples
    --------
    >>> graph = {"a": "bc", "b": "d", "c": "d", "d": ""}
    >>> bfs("a", lambda s: graph[s], lambda s: s == "d").path
    ('a', 'b', 'd')
    """
    return _deque_search(start, neighbours, is_goal, False, _Limit(max_explored, time_limit))


def dfs(start: State, neighbours: Neighbours, is_goal: GoalTest, *,
        max_explored: int | None = None, time_limit: float | None = None) -> SearchResult:
    """Depth-first search: some path, not necessarily the shortest.

    The last neighbour yielded is tried first (a stack); yield neighbours in reverse preference
    order to try the preferred one first. Each state is marked when pushed, so it is pushed once.
    """
    return _deque_search(start, neighbours, is_goal, True, _Limit(max_explored, time_limit))


def dijkstra(start: State, neighbours: WeightedNeighbours, is_goal: GoalTest, *,
             max_explored: int | None = None, time_limit: float | None = None) -> SearchResult:
    """Uniform-cost search: a least-cost path; ``neighbours(state)`` yields ``(state, cost)``.

    Move costs must be non-negative (a negative one raises `SearchError`). Ties are taken first in,
    first out.

    Examples
    --------
    >>> graph = {"a": [("b", 1), ("c", 5)], "b": [("c", 1)], "c": []}
    >>> result = dijkstra("a", lambda s: graph[s], lambda s: s == "c")
    >>> result.path, result.cost
    (('a', 'b', 'c'), 2)
    """
    return _heap_search(start, neighbours, is_goal, None, _Limit(max_explored, time_limit))


def astar(start: State, neighbours: WeightedNeighbours, is_goal: GoalTest,
          heuristic: Heuristic, *, max_explored: int | None = None,
          time_limit: float | None = None) -> SearchResult:
    """A* search: Dijkstra ordered by cost so far plus ``heuristic(state)``.

    The path is least-cost when the heuristic never overestimates the remaining cost and is
    consistent; with ``heuristic = lambda s: 0`` this is `dijkstra`. Among equal estimates the
    state with the smaller heuristic (the deeper one) is taken first, then first in, first out.
    """
    return _heap_search(start, neighbours, is_goal, heuristic, _Limit(max_explored, time_limit))


class _Limit:
    """When a search must stop: a number of states taken and/or a deadline."""

    def __init__(self, max_explored: int | None, time_limit: float | None) -> None:
        self.max_explored = max_explored
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit

    def reached(self, explored: int) -> bool:
        if self.max_explored is not None and explored >= self.max_explored:
            return True
        return self.deadline is not None and time.perf_counter() > self.deadline


def _deque_search(start, neighbours, is_goal, lifo: bool, limit: _Limit) -> SearchResult:
    """The BFS/DFS loop: mark states when queued, test the goal when taken."""
    parent: dict = {start: _ROOT}
    frontier = deque([start])
    take = frontier.pop if lifo else frontier.popleft
    explored = 0
    while frontier:
        if limit.reached(explored):
            return _not_found(explored, len(parent), truncated=True)
        state = take()
        explored += 1
        if is_goal(state):
            path = _path(parent, state)
            return SearchResult(path, (len(path) - 1) * _UNIT_COST, explored, len(parent), True)
        for nxt in neighbours(state):
            if nxt not in parent:
                parent[nxt] = state
                frontier.append(nxt)
    return _not_found(explored, len(parent))


def _heap_search(start, neighbours, is_goal, heuristic, limit: _Limit) -> SearchResult:
    """The Dijkstra/A* loop: lazy deletion; a state is settled when first taken from the heap.

    Heap entries are (cost + estimate, estimate, insertion number, cost, state).
    """
    estimate = heuristic if heuristic is not None else _zero
    best: dict = {start: 0}
    parent: dict = {start: _ROOT}
    settled: set = set()
    tie = count()
    h0 = estimate(start)
    heap = [(h0, h0, next(tie), 0, start)]
    explored = 0
    while heap:
        if limit.reached(explored):
            return _not_found(explored, len(parent), truncated=True)
        _, _, _, cost, state = heapq.heappop(heap)
        if state in settled:
            continue
        settled.add(state)
        explored += 1
        if is_goal(state):
            return SearchResult(_path(parent, state), cost, explored, len(parent), True)
        for nxt, step in neighbours(state):
            if step < 0:
                raise SearchError(f"negative move cost {step!r} from {state!r} to {nxt!r}")
            new = cost + step
            if nxt not in settled and new < best.get(nxt, math.inf):
                best[nxt] = new
                parent[nxt] = state
                rest = estimate(nxt)
                heapq.heappush(heap, (new + rest, rest, next(tie), new, nxt))
    return _not_found(explored, len(parent))


def _zero(state) -> int:
    return 0


def _path(parent: dict, goal) -> tuple:
    path = [goal]
    while (prev := parent[path[-1]]) is not _ROOT:
        path.append(prev)
    return tuple(reversed(path))


def _not_found(explored: int, seen: int, *, truncated: bool = False) -> SearchResult:
    return SearchResult((), math.inf, explored, seen, False, truncated)
