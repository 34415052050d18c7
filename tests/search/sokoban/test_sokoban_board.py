"""The solvers' board: the player's region numbered, boxes and goals outside it kept apart."""

import numpy as np

from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.level import parse_levels


def test_a_gap_outside_the_players_region_is_fine():
    # Microban 24's shape: the top row has a gap that the player's region never reaches
    (level,) = parse_levels("# #####\n  #   #\n###$$@#\n#   ###\n#     #\n# . . #\n#######\n")
    assert Board.of(level).size == 19


def test_board_numbers_the_region_row_by_row():
    (level,) = parse_levels("#####\n#@$.#\n# ###\n#####\n")
    board = Board.of(level)
    assert [board.cell(i) for i in range(board.size)] == [(1, 1), (1, 2), (1, 3), (2, 1)]
    assert board.index[1, 2] == 1 and board.index[0, 0] == -1
    assert board.nbr.tolist() == [[-1, 1, 3, -1], [-1, 2, -1, 0], [-1, -1, -1, 1],
                                  [0, -1, -1, -1]]                   # up, right, down, left
    assert (board.player, board.boxes, board.goal.tolist()) == (0, (1,), [False, False, True,
                                                                         False])
    assert not board.nbr.flags.writeable and board.solvable_outside()


def test_boxes_outside_the_region_never_move():
    # a walled-off pocket holds a box on a goal (fine) or a box off its goal (never solvable)
    solved = Board.of(parse_levels("#######\n#@$.#*#\n#######\n")[0])
    assert solved.fixed_boxes == solved.fixed_goals == {(1, 5)} and solved.solvable_outside()
    stuck = Board.of(parse_levels("########\n#@$.#$.#\n########\n")[0])
    assert stuck.fixed_boxes == {(1, 5)} and stuck.fixed_goals == {(1, 6)}
    assert not stuck.solvable_outside() and np.array_equal(stuck.goal, [False, False, True])
