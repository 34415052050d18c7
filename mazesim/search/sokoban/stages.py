"""The staged push search behind Sokoban's ``astar``: named stages sharing one time limit.

Without a time limit push-optimal A* runs forward alone. With one, the `STAGES` run in turn, each
until its share of the limit has passed (set-up included): A* forward, A* backward (pulling the
boxes off the goals), then greedy searches that trade optimality for reach. A stage that proves
the level unsolvable ends the search; one that runs out of time hands over to the next.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from mazesim.maze import DELTAS
from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban import _search, _walks
from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.deadlocks import dead_mask, unreached

__all__ = ["Stage", "STAGES", "AREA_WEIGHT", "MAX_NODES", "NODE_MEMORY", "ZOBRIST_SEED",
           "StageRun", "push_search", "run_stage", "zobrist_keys"]

AREA_WEIGHT = 1000
"""Priority of each separate free area in the connectivity stage: well above the lower bounds of
Microban-sized levels, so fewer areas come first and the bound breaks ties."""
MAX_NODES = 1 << 24
"""Most states one push search keeps; reaching it counts as running out of time."""
NODE_MEMORY = 1 << 31
"""Bytes the states of one search may take (2 GiB): fewer than `MAX_NODES` states when the boxes
make each state large (over 41 boxes)."""
ZOBRIST_SEED = 20001
"""Seed of the Zobrist keys (fixed, so runs are repeatable)."""
_NODE_FIXED_BYTES = 45          # per state besides its boxes: costs, links, key, hash, heap
_BOX_BYTES = 2                  # a box cell is an int16


@dataclass(frozen=True)
class Stage:
    """One search run of the staged push search.

    The priority of a state is ``weight_g * pushes + weight_h * lower bound + area_weight * free
    areas``: A* with weights 1 and 1, greedy best-first with 0 and 1. `backward` pulls boxes from
    the goals to the level's boxes; `goal_macros` adds moves that carry a box on to the next goal
    of a packing order. The stage stops when `share` of the time limit has passed since the solve
    began (shares rise from stage to stage, the last is 1). `optimal` says whether its solutions
    are push-optimal.
    """

    name: str
    weight_g: int
    weight_h: int
    backward: bool
    goal_macros: bool
    area_weight: int
    share: float
    optimal: bool

    def __post_init__(self) -> None:
        if not 0 < self.share <= 1:
            raise ValueError(f"stage {self.name}: share {self.share} (allowed: in (0, 1])")


STAGES = (
    Stage("astar-forward", 1, 1, backward=False, goal_macros=False, area_weight=0, share=0.25,
          optimal=True),
    Stage("astar-backward", 1, 1, backward=True, goal_macros=False, area_weight=0, share=0.5,
          optimal=True),
    Stage("greedy-backward", 0, 1, backward=True, goal_macros=False, area_weight=0, share=0.55,
          optimal=False),
    Stage("greedy-connectivity", 0, 1, backward=False, goal_macros=False,
          area_weight=AREA_WEIGHT, share=0.85, optimal=False),
    Stage("greedy-forward", 0, 1, backward=False, goal_macros=False, area_weight=0, share=0.92,
          optimal=False),
    Stage("greedy-macros", 0, 1, backward=False, goal_macros=True, area_weight=0, share=1.0,
          optimal=False),
)
"""The stages in the order they run. Greedy backward is quick when it works at all; the
connectivity stage (FESS-style: fewer separate areas of free floor first, then the lower bound)
opens rooms the player must reach even when that pushes boxes away from the goals, as in Microban
153; goal macros fill the goals in a packing order."""


@dataclass(frozen=True, eq=False)
class StageRun:
    """The outcome of the staged search: ``pushes`` (box cell, direction) rows or None, the
    `Stage` that found them, the states seen over all stages, and whether time ran out."""

    pushes: np.ndarray | None
    stage: Stage | None
    states: int
    timed_out: bool


def push_search(board: Board, prune: str, start: float, time_limit: float | None) -> StageRun:
    """Run the stages (only the first without a time limit) from the `time.perf_counter` time
    `start` of the solve until one decides.

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> board = Board.of(parse_levels("#######\\n#@ $ .#\\n#######\\n")[0])
    >>> run = push_search(board, "full", time.perf_counter(), time_limit=1.0)
    >>> run.stage.name, run.pushes.tolist()              # (box cell, direction RIGHT) twice
    ('astar-forward', [[2, 1], [3, 1]])
    """
    keys = zobrist_keys(board)
    stages = STAGES if time_limit is not None else STAGES[:1]
    tables: dict[bool, _Tables] = {}
    states = 0
    for stage in stages:
        deadline = math.inf if time_limit is None else start + time_limit * stage.share
        status, pushes, seen = run_stage(board, stage, prune, keys, deadline, tables,
                                         math.inf if time_limit is None else start + time_limit)
        states += seen
        if status > 0:
            return StageRun(pushes, stage, states, False)
        if status == 0:
            return StageRun(None, None, states, False)
    return StageRun(None, None, states, True)


def run_stage(board: Board, stage: Stage, prune: str, keys: tuple[np.ndarray, np.ndarray],
              deadline: float, tables: dict | None = None, setup_deadline: float | None = None):
    """One stage until the `time.perf_counter` time `deadline`: (status 1 solved, 0 unsolvable,
    -1 out of time or nothing to try; pushes or None; states seen). `tables` caches the set-up of
    each direction between stages, which may run on until `setup_deadline` (default `deadline`;
    the staged search gives the whole limit, as later stages use it too); a set-up cut short is
    not kept."""
    tables = {} if tables is None else tables
    if time.perf_counter() >= deadline:
        return -1, None, 0
    clock = _k.new_clock()
    if stage.backward not in tables:
        setup = _Tables.of(board, prune, stage.backward, clock,
                           deadline if setup_deadline is None else setup_deadline)
        if setup is None:
            return -1, None, 0
        tables[stage.backward] = setup
    setup = tables[stage.backward]
    order = np.empty(0, np.int32)
    if stage.goal_macros:
        order = _walks.packing_order(board.nbr, setup.targets, clock, deadline)
        if len(order) == 0:                # no packing order (or no time): nothing to try here
            return -1, None, 0
    if time.perf_counter() >= deadline:
        return -1, None, 0
    problem = _search.Problem(
        nbr=board.nbr, targets=setup.targets, dead=setup.dead, dist=setup.dist, zbox=keys[0],
        zplayer=keys[1], order=order, final_player=setup.final_player,
        weight_g=stage.weight_g, weight_h=stage.weight_h, weight_c=stage.area_weight,
        freeze=prune == "full" and not stage.backward, pull=stage.backward,
        max_nodes=_node_limit(len(board.boxes)), deadline=deadline)
    status, pushes, seen = _search.box_search(problem, setup.starts, setup.roots)
    if status <= 0:
        return status, None, seen
    if stage.goal_macros:
        pushes = _expand_macros(board, pushes, order, setup.targets, deadline)
        if pushes is None:
            return -1, None, seen
    if stage.backward:                # pulls from the goals, reversed, are pushes to them
        pushes = [(int(board.nbr[b, d]), (d + 2) % len(DELTAS)) for b, d in pushes.tolist()]
        pushes = np.array(pushes[::-1], np.int16).reshape(-1, 2)
    return status, pushes, seen


def zobrist_keys(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """Random keys of each floor cell for a box and for the player (seeded: repeatable)."""
    rng = np.random.default_rng(ZOBRIST_SEED)
    zbox, zplayer = (rng.integers(0, 1 << 62, board.size, dtype=np.int64) for _ in range(2))
    return zbox, zplayer


@dataclass(frozen=True, eq=False)
class _Tables:
    """The set-up of one search direction: start boxes, target mask, bound distances, dead
    squares, root player cells and (backward) the player's final cell."""

    starts: np.ndarray
    targets: np.ndarray
    dist: np.ndarray
    dead: np.ndarray
    roots: np.ndarray
    final_player: int

    @classmethod
    def of(cls, board: Board, prune: str, backward: bool, clock: np.ndarray,
           deadline: float) -> _Tables | None:
        """The set-up, or None when `deadline` passes first (its work is charged to `clock`)."""
        goals = np.flatnonzero(board.goal).astype(np.int16)
        boxes = np.array(board.boxes, np.int16)
        starts, targets = (goals, boxes) if backward else (boxes, goals)
        dist, complete = _k.push_distances(board.nbr, targets.astype(np.int32), backward, clock,
                                           deadline)
        if not complete:
            return None
        if backward:
            dead = unreached(dist, board.size)
            occupied = np.zeros(board.size, np.uint8)
            occupied[goals] = 1
            roots, final = _k.free_regions(board.nbr, occupied), board.player
        else:
            dead = dead_mask(board, prune, dist)
            roots, final = np.array([board.player], np.int32), -1
        mask = np.zeros(board.size, np.uint8)
        mask[targets] = 1
        return cls(starts, mask, dist, dead.astype(np.uint8), roots, final)


def _node_limit(boxes: int) -> int:
    """`MAX_NODES`, or the largest power of two of states that fit in `NODE_MEMORY`."""
    fit = NODE_MEMORY // (_NODE_FIXED_BYTES + _BOX_BYTES * boxes)
    return min(MAX_NODES, 1 << (fit.bit_length() - 1))


def _expand_macros(board: Board, path: np.ndarray, order: np.ndarray, goal: np.ndarray,
                   deadline: float) -> np.ndarray | None:
    """Replace each goal macro (direction + 4) by its pushes, found as the kernel found them;
    None if `deadline` passes first."""
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    pushes, ndir = [], len(DELTAS)
    clock = _k.new_clock()
    for b, d in path.tolist():
        moves = [(b, d % ndir)]
        if d >= ndir:
            target = next(g for g in order.tolist() if not occupied[g])
            side = np.zeros(ndir, np.uint8)
            side[(d + 2) % ndir] = 1
            occupied[b] = 0
            walk = _walks.box_walk(board.nbr, occupied, int(board.nbr[b, d % ndir]), side, False,
                                   target, goal, clock, deadline)
            if len(walk) == 0:
                return None                 # the walk was found before, so only time is short
            moves += walk.tolist()
        occupied[b] = 0
        last_cell, last_dir = moves[-1]
        occupied[int(board.nbr[last_cell, last_dir])] = 1
        pushes += moves
    return np.array(pushes, np.int16).reshape(-1, 2)
