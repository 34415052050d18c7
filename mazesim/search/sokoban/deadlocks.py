"""Sokoban deadlocks: squares a box must never enter, and frozen boxes (DESIGN.md section 10).

The functions take a `Board` (floor cells numbered by the player's region), or its push
distances, and return arrays indexed by floor number.
"""

from __future__ import annotations

import math

import numpy as np

from mazesim.maze import DOWN, LEFT, RIGHT, UP, readonly
from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban.board import Board

__all__ = ["PRUNES", "corner_squares", "push_distances", "unreached", "dead_squares",
           "dead_mask", "is_frozen"]

PRUNES = ("none", "corners", "dead-squares", "full")
"""Pruning levels: nothing; the tutorial's corners; squares from which no goal is reachable by
pushes; those plus freeze deadlocks."""


def corner_squares(board: Board) -> np.ndarray:
    """The tutorial's dead corners (source 001): non-goal squares with a wall above or below and a
    wall left or right.

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> board = Board.of(parse_levels("######\\n#@$ .#\\n#    #\\n######\\n")[0])
    >>> [board.cell(i) for i in np.flatnonzero(corner_squares(board))]
    [(1, 1), (2, 1), (2, 4)]
    """
    wall = board.nbr < 0
    corner = (wall[:, UP] | wall[:, DOWN]) & (wall[:, LEFT] | wall[:, RIGHT]) & ~board.goal
    return readonly(corner)


def push_distances(board: Board) -> np.ndarray:
    """Pushes a lone box needs from each square to each goal: (goals, squares), `INF` if never.

    Computed by pulling a box back from each goal, so a square with no finite entry is dead. Its
    work is bounded by the size ceilings: goals x squares <= `MAX_BOXES` x `MAX_LEVEL_CELLS`.
    """
    goals = np.flatnonzero(board.goal).astype(np.int32)
    dist, _ = _k.push_distances(board.nbr, goals, False, _k.new_clock(), math.inf)
    return readonly(dist)


def unreached(dist: np.ndarray, size: int) -> np.ndarray:
    """The squares (of `size`) with no finite entry in the push distances `dist`: all of them
    when there are no targets."""
    if dist.shape[0] == 0:
        return readonly(np.ones(size, bool))
    return readonly(dist.min(axis=0) >= _k.INF)


def dead_squares(board: Board) -> np.ndarray:
    """Squares from which no push sequence brings a lone box to any goal (reverse pulls).

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> board = Board.of(parse_levels("######\\n#@$ .#\\n#    #\\n######\\n")[0])
    >>> [board.cell(i) for i in np.flatnonzero(dead_squares(board))]
    [(1, 1), (2, 1), (2, 2), (2, 3), (2, 4)]
    """
    return unreached(push_distances(board), board.size)


def dead_mask(board: Board, prune: str, dist: np.ndarray | None = None) -> np.ndarray:
    """The squares a push may not enter under pruning level `prune` (one of `PRUNES`); `dist`
    the board's `push_distances` when they are at hand."""
    if prune == "none":
        return readonly(np.zeros(board.size, bool))
    if prune == "corners":
        return corner_squares(board)
    return dead_squares(board) if dist is None else unreached(dist, board.size)


def is_frozen(board: Board, boxes: set[int] | frozenset[int], box: int,
              dead: np.ndarray | None = None) -> bool:
    """Whether `box` (one of `boxes`) is frozen with some box of its frozen group off a goal.

    That state is a deadlock: a frozen box never moves again.
    """
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(boxes)] = 1
    dead = dead_squares(board) if dead is None else dead
    solid = np.zeros(board.size, np.uint8)
    return bool(_k.frozen_off_goal(box, board.nbr, occupied, dead.astype(np.uint8),
                                   board.goal.astype(np.uint8), solid))
