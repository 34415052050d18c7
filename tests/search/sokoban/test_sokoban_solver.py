"""Sokoban solvers: the tutorial's exact figures (source 001), deadlocks, push-optimal A*."""

import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.errors import SearchError
from mazesim.maze import DELTAS
from mazesim.search import generic
from mazesim.search.sokoban import _kernels as _k
from mazesim.search.sokoban import _search, _walks
from mazesim.search.sokoban.deadlocks import corner_squares, dead_squares, is_frozen
from mazesim.search.sokoban.level import parse_levels, read_levels, verify_solution
from mazesim.search.sokoban.solver import _lurd, solve
from mazesim.search.sokoban.stages import STAGES, run_stage, zobrist_keys

DATA = Path(__file__).parents[2] / "data"
TUTORIAL = read_levels(DATA / "sokoban_tutorial_9x6.txt")[0]


@pytest.mark.parametrize("prune, states", [("none", 1490), ("corners", 907)])
def test_tutorial_bfs_figures(prune, states):
    result = solve(TUTORIAL, method="bfs", prune=prune)
    assert (result.moves, result.states) == (14, states)       # source 001, exactly
    assert result.solved and result.optimal and verify_solution(TUTORIAL, result.solution)


def test_stronger_pruning_keeps_the_move_count_and_sees_fewer_states():
    counts = [solve(TUTORIAL, method="bfs", prune=p) for p in ("corners", "dead-squares", "full")]
    assert [r.moves for r in counts] == [14, 14, 14]
    assert counts[0].states > counts[1].states >= counts[2].states


def test_tutorial_corners_and_dead_squares():
    board = TUTORIAL.board()
    cells = lambda mask: {board.cell(i) for i in np.flatnonzero(mask)}  # noqa: E731
    assert cells(corner_squares(board)) == {(1, 1), (1, 3), (1, 5), (1, 7), (3, 7), (4, 1),
                                            (4, 6)}
    # row 1 under the top wall, columns 1 and 7 down to the non-goal corners
    assert cells(dead_squares(board)) == {(1, 1), (1, 2), (1, 3), (1, 5), (1, 6), (1, 7), (2, 1),
                                          (2, 7), (3, 1), (3, 7), (4, 1), (4, 6)}


def test_freeze_deadlocks():
    (level,) = parse_levels("#######\n#@    #\n# $$  #\n# $$ .#\n#  ...#\n#######\n")
    board = level.board()
    idx = lambda r, c: int(board.index[r, c])  # noqa: E731
    block = {idx(2, 2), idx(2, 3), idx(3, 2), idx(3, 3)}
    assert is_frozen(board, block, idx(2, 3))                    # a 2x2 block, even in the open
    assert not is_frozen(board, block - {idx(3, 3)}, idx(2, 3))  # three boxes can still move
    assert not is_frozen(board, {idx(2, 2), idx(2, 3)}, idx(2, 3))
    (walled,) = parse_levels("######\n#@$$ #\n# $$ #\n#  ..#\n#  ..#\n######\n")
    wboard = walled.board()
    pair = {int(wboard.index[1, 2]), int(wboard.index[1, 3])}     # two boxes along the top wall
    assert is_frozen(wboard, pair, int(wboard.index[1, 3]))
    assert not is_frozen(wboard, {int(wboard.index[2, 3])}, int(wboard.index[2, 3]))


def test_a_box_frozen_on_a_goal_can_cut_the_other_goals_off():
    # with the box on the corner goal (5,1) as a wall, the box at (5,2) can move neither sideways
    # nor up the corridor (the player would stand on the wall below); a floor there opens the way
    (level,) = parse_levels(" ###\n #.#\n # #\n## ##\n#   #\n#*$@#\n#####\n")
    board = level.board()
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    goal = board.goal.astype(np.uint8)
    corner = np.array([board.index[5, 1]], np.int32)
    assert _k.goals_cut_off(board.nbr, occupied, goal, corner, 1)
    (open_level,) = parse_levels(" ###\n #.#\n # #\n## ##\n#   #\n#*$ #\n#  @#\n#####\n")
    board = open_level.board()
    occupied = np.zeros(board.size, np.uint8)
    occupied[list(board.boxes)] = 1
    corner = np.array([board.index[5, 1]], np.int32)
    assert not _k.goals_cut_off(board.nbr, occupied, board.goal.astype(np.uint8), corner, 1)


def _push_optimal(level) -> int:
    """Independent oracle: BFS over pushes on the generic layer, player as its smallest cell."""
    def region(player, boxes):
        seen, todo = {player}, [player]
        while todo:
            r, c = todo.pop()
            for dr, dc in DELTAS.tolist():
                nxt = (r + dr, c + dc)
                if nxt not in seen and not level.is_wall(nxt) and nxt not in boxes:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def pushes(state):
        player, boxes = state
        reach = region(player, boxes)
        for r, c in boxes:
            for dr, dc in DELTAS.tolist():
                ahead = (r + dr, c + dc)
                if (r - dr, c - dc) in reach and not level.is_wall(ahead) and ahead not in boxes:
                    moved = (boxes - {(r, c)}) | {ahead}
                    yield min(region((r, c), moved)), moved

    start = (min(region(level.player, level.boxes)), frozenset(level.boxes))
    return generic.bfs(start, pushes, lambda s: s[1] == level.goals).moves


def test_astar_is_push_optimal_on_the_tutorial():
    result = solve(TUTORIAL, method="astar")
    assert result.solved and result.optimal and verify_solution(TUTORIAL, result.solution)
    assert result.pushes == _push_optimal(TUTORIAL) == 5


@pytest.mark.parametrize("number", [1, 2, 3, 8, 9, 10, 11, 12, 14, 15, 19, 20, 21, 23, 24])
def test_astar_push_optimal_on_small_microban_levels(number, microban):
    level = microban[number - 1]
    result = solve(level, method="astar", time_limit=20)
    assert result.solved and result.optimal and verify_solution(level, result.solution)
    assert result.pushes == _push_optimal(level)
    assert result.moves == len(result.solution) >= result.pushes


def test_microban_push_counts(microban):
    levels = microban
    # the oracle's figures, for levels where it is slow (Microban 1 is 8: its known optimum)
    assert [solve(levels[n - 1]).pushes for n in (1, 5, 7, 16)] == [8, 6, 6, 39]


def test_a_time_limit_stops_the_search(microban):
    level = microban[152]                    # Microban 153: minutes for A*
    result = solve(level, method="astar", time_limit=0.2)
    assert not result.solved and result.timed_out and result.solution == ""
    assert result.states > 0


@pytest.mark.parametrize("method", ["bfs", "astar"])
def test_an_unsolvable_level_is_reported_not_timed_out(method):
    (level,) = parse_levels("######\n#@  $#\n#.   #\n######\n")     # the box sits in a corner
    result = solve(level, method=method, prune="none")
    assert not result.solved and not result.timed_out and not result.optimal


def test_bad_options():
    with pytest.raises(SearchError, match="unknown method 'dfs'"):
        solve(TUTORIAL, method="dfs")
    with pytest.raises(SearchError, match="unknown pruning 'all'"):
        solve(TUTORIAL, prune="all")
    with pytest.raises(SearchError, match="unknown engine .c."):
        solve(TUTORIAL, engine="c")
    with pytest.raises(SearchError, match="time limit must be > 0"):
        solve(TUTORIAL, time_limit=0)


@pytest.mark.parametrize("number", [1, 3, 10, 60])
def test_generic_engine_finds_the_same_push_counts(number, microban):
    level = microban[number - 1]
    fast, reference = solve(level), solve(level, engine="generic")
    assert reference.solved and reference.optimal and verify_solution(level, reference.solution)
    assert reference.pushes == fast.pushes


def test_packing_order_fills_the_corridor_from_its_end(microban):
    board = microban[152].board()                   # Microban 153
    order = _walks.packing_order(board.nbr, board.goal.astype(np.uint8), _k.new_clock(), np.inf)
    assert [board.cell(g) for g in order] == [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1),
                                              (8, 1), (8, 2), (7, 1), (7, 2)]


@pytest.mark.parametrize("number", [1, 3, 60, 100])
def test_greedy_with_goal_macros_gives_replayable_solutions(number, microban):
    level = microban[number - 1]
    board = level.board()
    (macros,) = [stage for stage in STAGES if stage.goal_macros]
    status, pushes, _ = run_stage(board, macros, "full", zobrist_keys(board), time.perf_counter() + 20)
    assert status == 1 and verify_solution(level, _lurd(board, pushes))


def test_connectivity_stage_solves_microban_153_within_the_limit(microban):
    levels = microban
    solve(levels[0], method="astar", time_limit=10.0)    # compile or load the kernels first
    level = levels[152]                                  # every distance-guided stage times out
    # 20 s, not the benchmark's 10 s: the stages share the limit, so the connectivity stage gets
    # 6 s for the ~2 s it needs and a busy CI machine does not make the test flaky
    result = solve(level, method="astar", time_limit=20.0)
    assert result.solved and result.seconds < 20.0 and verify_solution(level, result.solution)


def test_areas_counts_the_separate_free_regions():
    level = parse_levels("#######\n#@ $ .#\n#######\n")[0]
    board = level.board()
    occupied = np.zeros(board.size, np.uint8)
    mark = np.zeros(board.size, np.int32)
    assert _search.free_areas(board.nbr, occupied, mark, 0) == (1, 1)
    occupied[board.index[1, 3]] = 1                        # the box splits the corridor
    assert _search.free_areas(board.nbr, occupied, mark, 1) == (2, 3)


@st.composite
def _small_levels(draw):
    """Random closed levels: a 4x5 interior with some walls, one or two boxes."""
    h, w = 4, 5
    cells = [(r, c) for r in range(1, h + 1) for c in range(1, w + 1)]
    walls = set(draw(st.lists(st.sampled_from(cells), max_size=6)))
    floor = [cell for cell in cells if cell not in walls]
    n = draw(st.integers(1, 2))
    picks = draw(st.lists(st.sampled_from(floor), min_size=2 * n + 1, max_size=2 * n + 1,
                          unique=True))
    player, boxes, goals = picks[0], set(picks[1:n + 1]), set(picks[n + 1:])
    rows = []
    for r in range(h + 2):
        row = ""
        for c in range(w + 2):
            if r in (0, h + 1) or c in (0, w + 1) or (r, c) in walls:
                row += "#"
            else:
                row += {(True, True): "*", (True, False): "$", (False, True): "."}.get(
                    ((r, c) in boxes, (r, c) in goals), "@" if (r, c) == player else " ")
        rows.append(row)
    if player in goals:
        rows[player[0]] = rows[player[0]][:player[1]] + "+" + rows[player[0]][player[1] + 1:]
    return parse_levels("\n".join(rows))[0]


@settings(max_examples=40)
@given(_small_levels())
def test_astar_matches_the_push_oracle_on_random_levels(level):
    result = solve(level, method="astar")
    best = _push_optimal(level) if level.board().solvable_outside() else -1
    assert result.solved == (best >= 0)
    if result.solved:
        assert result.optimal and result.pushes == best and verify_solution(level, result.solution)
        moves = solve(level, method="bfs", prune="none")
        assert moves.solved and moves.moves <= result.moves
