"""Sokoban solvers: the tutorial's exact figures (source 001), push-optimal A*, the result."""

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core import event

from mazesim.errors import SearchError
from mazesim.maze import DELTAS
from mazesim.search import generic
from mazesim.search.sokoban import solver, stages
from mazesim.search.sokoban.board import Board
from mazesim.search.sokoban.level import parse_levels, read_levels, verify_solution
from mazesim.search.sokoban.solver import WARM_UP_LEVEL, solve
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
    assert result.stage == "astar-forward"


def test_the_result_as_a_dict():
    result = solve(TUTORIAL, method="bfs", prune="corners")
    assert result.to_dict() == {"solved": True, "optimal": True, "moves": 14, "pushes": 5,
                                "solution": "ruLulDDullulDD", "states": 907,
                                "seconds": round(result.seconds, 4), "timed_out": False,
                                "stage": None}          # the move BFS has no stages


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
    best = _push_optimal(level) if Board.of(level).solvable_outside() else -1
    assert result.solved == (best >= 0)
    if result.solved:
        assert result.optimal and result.pushes == best and verify_solution(level, result.solution)
        moves = solve(level, method="bfs", prune="none")
        assert moves.solved and moves.moves <= result.moves


@pytest.mark.parametrize("method, engine", [("astar", "numba"), ("bfs", "numba"),
                                            ("astar", "generic")])
def test_the_notice_comes_when_the_warm_up_compiles_only(monkeypatch, method, engine):
    said = []
    solve(TUTORIAL, method=method, engine=engine)      # this process's warm-up (xdist workers
    solve(TUTORIAL, method=method, engine=engine, notice=lambda: said.append(1))  # differ)
    assert said == []                                  # the kernels are loaded by now

    def compiles(*args):
        for _ in range(2):                             # numba says so for each kernel
            with event.trigger_event("numba:compile", data={}):
                pass

    monkeypatch.setattr(solver, "_warm_up", compiles)
    assert solve(TUTORIAL, method=method, engine=engine, notice=lambda: said.append(1)).solved
    assert said == [1]


def test_the_warm_up_level_takes_every_stage_and_a_goal_macro(monkeypatch):
    expanded = []

    def expand(board, path, *args):
        expanded.append(path[:, 1].max() >= len(DELTAS))         # a macro: direction + 4
        return expand_macros(board, path, *args)

    expand_macros = stages._expand_macros
    monkeypatch.setattr(stages, "_expand_macros", expand)
    board = Board.of(parse_levels(WARM_UP_LEVEL)[0])
    keys = zobrist_keys(board)
    assert [run_stage(board, stage, "full", keys, math.inf)[0] for stage in STAGES] == [1] * 6
    assert expanded == [True]
