"""Sokoban deadlocks: the tutorial's corners and dead squares, freeze deadlocks, cut-off goals,
PI-corrals."""

from pathlib import Path

import numpy as np

from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.deadlocks import (corner_squares, dead_mask, dead_squares, is_frozen,
                                              push_distances)
from mazesim.search.sokoban.level import parse_levels, read_levels

DATA = Path(__file__).parents[2] / "data"
TUTORIAL = read_levels(DATA / "sokoban_tutorial_9x6.txt")[0]


def test_tutorial_corners_and_dead_squares():
    board = Board.of(TUTORIAL)
    cells = lambda mask: {board.cell(i) for i in np.flatnonzero(mask)}  # noqa: E731
    assert cells(corner_squares(board)) == {(1, 1), (1, 3), (1, 5), (1, 7), (3, 7), (4, 1),
                                            (4, 6)}
    # row 1 under the top wall, columns 1 and 7 down to the non-goal corners
    assert cells(dead_squares(board)) == {(1, 1), (1, 2), (1, 3), (1, 5), (1, 6), (1, 7), (2, 1),
                                          (2, 7), (3, 1), (3, 7), (4, 1), (4, 6)}


def test_freeze_deadlocks():
    (level,) = parse_levels("#######\n#@    #\n# $$  #\n# $$ .#\n#  ...#\n#######\n")
    board = Board.of(level)
    idx = lambda r, c: int(board.index[r, c])  # noqa: E731
    block = {idx(2, 2), idx(2, 3), idx(3, 2), idx(3, 3)}
    assert is_frozen(board, block, idx(2, 3))                    # a 2x2 block, even in the open
    assert not is_frozen(board, block - {idx(3, 3)}, idx(2, 3))  # three boxes can still move
    assert not is_frozen(board, {idx(2, 2), idx(2, 3)}, idx(2, 3))
    (walled,) = parse_levels("######\n#@$$ #\n# $$ #\n#  ..#\n#  ..#\n######\n")
    wboard = Board.of(walled)
    pair = {int(wboard.index[1, 2]), int(wboard.index[1, 3])}     # two boxes along the top wall
    assert is_frozen(wboard, pair, int(wboard.index[1, 3]))
    assert not is_frozen(wboard, {int(wboard.index[2, 3])}, int(wboard.index[2, 3]))


def test_a_box_frozen_on_a_goal_can_cut_the_other_goals_off():
    # with the box on the corner goal (5,1) as a wall, the box at (5,2) can move neither sideways
    # nor up the corridor (the player would stand on the wall below); a floor there opens the way
    (level,) = parse_levels(" ###\n #.#\n # #\n## ##\n#   #\n#*$@#\n#####\n")
    board = Board.of(level)
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    goal = board.goal.astype(np.uint8)
    corner = np.array([board.index[5, 1]], np.int32)
    assert _k.goals_cut_off(board.nbr, occupied, goal, corner, 1, _k.new_clock())
    (open_level,) = parse_levels(" ###\n #.#\n # #\n## ##\n#   #\n#*$ #\n#  @#\n#####\n")
    board = Board.of(open_level)
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    corner = np.array([board.index[5, 1]], np.int32)
    assert not _k.goals_cut_off(board.nbr, occupied, board.goal.astype(np.uint8), corner, 1,
                                _k.new_clock())

def test_push_distances_and_dead_masks_of_a_corridor():
    (level,) = parse_levels("#######\n#@ $ .#\n#######\n")
    board = Board.of(level)
    # one goal at the right end; a box can be pushed right only, so the left end is dead
    assert push_distances(board).tolist() == [[_k.INF, 3, 2, 1, 0]]
    assert dead_squares(board).tolist() == [True, False, False, False, False]
    assert dead_mask(board, "none").tolist() == [False] * 5
    assert dead_mask(board, "corners").tolist() == [True, False, False, False, False]


def test_a_pi_corral_restricts_the_pushes_to_it():
    # the player (left) cannot reach the goal area behind the two boxes; both boxes can only be
    # pushed into it, so only those pushes are expanded
    (level,) = parse_levels("#######\n#@ $ .#\n#  $ .#\n#######\n")
    board = Board.of(level)
    occ = np.zeros(board.size, np.uint8)
    occ[list(board.boxes)] = 1
    mark = np.zeros(board.size, np.int32)
    _k.reach(board.nbr, occ, board.player, mark, 1)
    area = np.full(board.size, -1, np.int32)
    corral, doomed = _k.pi_corral(board.nbr, occ, mark, 1, dead_mask(board, "full")
                                  .astype(np.uint8), board.goal.astype(np.uint8), area)
    assert corral >= 0 and not doomed
    assert {board.cell(c) for c in np.flatnonzero(area == corral)} == {(1, 4), (1, 5), (2, 4),
                                                                      (2, 5)}
