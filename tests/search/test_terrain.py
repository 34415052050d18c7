"""Terrain-cost routes (mazesim/search/terrain.py): source 002 exactly, properties, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.errors import LevelError, SearchError
from mazesim.search import FOUR, dijkstra
from mazesim.search import _terrain_kernels as _kernels
from mazesim.search import terrain
from mazesim.search.terrain import (MAX_COST, MAX_GRID_CELLS, cost_to_goal, parse_costs,
                                    read_costs, terrain_route)

from fixture_paths import DATA

SEED_TABLE = [
    [12, 8, 5, 4, 3, 3, 3],
    [10, 7, 5, 4, 2, 1, 0],
    [10, 8, 8, 7, 4, 4, 2],
    [12, 11, 13, 9, 6, 8, 5],
]
SEED_ROUTE = ((3, 0), (2, 0), (2, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6))


def test_source_002_leave_convention():
    costs = read_costs(DATA / "terrain_4x7.txt")
    assert costs.shape == (4, 7)
    assert cost_to_goal(costs, (1, 6), convention="leave").tolist() == SEED_TABLE
    cost, route = terrain_route(costs, (3, 0), (1, 6), convention="leave")
    assert cost == 12
    assert route == SEED_ROUTE


def test_enter_convention_on_the_source_map():
    costs = read_costs(DATA / "terrain_4x7.txt")
    result = terrain_route(costs, (3, 0), (1, 6), convention="enter")
    assert result.cost == 12 - 2 + 1            # start (cost 2) not paid, goal (cost 1) paid
    assert result.route == SEED_ROUTE


def test_csv_and_impassable_cells(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_text("1,1,1\n1,#,1\n1, inf ,1\n\n")
    costs = read_costs(path)
    assert np.isinf(costs[1, 1]) and np.isinf(costs[2, 1])
    table = cost_to_goal(costs, (2, 2))
    assert math.isinf(table[1, 1])
    assert terrain_route(costs, (2, 0), (2, 2)).cost == 6    # around the blocked middle


def test_descent_breaks_ties_up_down_left_right():
    costs = np.ones((3, 3))
    assert terrain_route(costs, (1, 1), (0, 0)).route == ((1, 1), (0, 1), (0, 0))   # up first
    assert terrain_route(costs, (1, 1), (2, 2)).route == ((1, 1), (2, 1), (2, 2))   # down first
    assert terrain_route(costs, (0, 1), (2, 1)).route == ((0, 1), (1, 1), (2, 1))


def test_zero_cost_plateau_does_not_cycle():
    costs = np.zeros((5, 5))
    cost, route = terrain_route(costs, (4, 4), (0, 0), convention="leave")
    assert cost == 0 and len(route) == 9 and route[-1] == (0, 0)


def _route_cost(costs, route, convention):
    cells = route[:-1] if convention == "leave" else route[1:]
    return sum(costs[cell] for cell in cells)


def _reference(costs, start, goal, convention):
    h, w = costs.shape

    def neighbours(cell):
        for dr, dc in FOUR:
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < h and 0 <= nxt[1] < w and not math.isinf(costs[nxt]):
                yield nxt, costs[cell] if convention == "leave" else costs[nxt]

    return dijkstra(start, neighbours, lambda cell: cell == goal).cost


@st.composite
def _grids(draw):
    h, w = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    values = st.sampled_from([0.0, 1.0, 2.0, 3.5, 7.0, math.inf])
    costs = np.array(draw(st.lists(values, min_size=h * w, max_size=h * w))).reshape(h, w)
    start = (draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1)))
    goal = (draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1)))
    costs[start] = costs[goal] = 1.0
    return costs, start, goal


@given(_grids(), st.sampled_from(["enter", "leave"]))
def test_route_is_least_cost_and_valid(grid, convention):
    costs, start, goal = grid
    best = _reference(costs, start, goal, convention)
    if math.isinf(best):
        with pytest.raises(SearchError, match="cut them off"):
            terrain_route(costs, start, goal, convention=convention)
        return
    cost, route = terrain_route(costs, start, goal, convention=convention)
    assert cost == pytest.approx(best)
    assert route[0] == start and route[-1] == goal
    assert _route_cost(costs, route, convention) == pytest.approx(cost)
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(route, route[1:]))
    assert len(set(route)) == len(route)
    assert cost_to_goal(costs, goal, convention=convention)[start] == pytest.approx(cost)


@given(_grids())
def test_enter_and_leave_tables_differ_by_the_end_cells(grid):
    costs, _, goal = grid
    enter = cost_to_goal(costs, goal, convention="enter")
    leave = cost_to_goal(costs, goal, convention="leave")
    reached = np.isfinite(leave)
    assert np.array_equal(reached, np.isfinite(enter))
    expected = np.zeros_like(leave)
    expected[reached] = leave[reached] - costs[reached] + costs[goal]
    expected[goal] = 0.0
    assert np.allclose(enter[reached], expected[reached])


def test_early_stop_gives_the_full_table_route():
    rng = np.random.default_rng(7)
    costs = rng.integers(0, 4, (40, 40)).astype(float)      # many ties and zero costs
    costs[rng.random((40, 40)) < 0.15] = math.inf
    costs[0, 0] = costs[39, 39] = 1.0
    for convention, leave in (("enter", False), ("leave", True)):
        table, hops = _kernels.terrain_dijkstra(costs, 39, 39, leave, -1)
        full = _kernels.terrain_descent(costs, table, hops, 0, 0, leave)
        result = terrain_route(costs, (0, 0), (39, 39), convention=convention)
        assert result.route == tuple(map(tuple, full.tolist()))
        assert result.cost == table[0, 0]


@pytest.mark.parametrize("text, message", [
    ("1 2\n3 x\n", r"costs.txt:2:3: cell \(1, 1\): 'x' is not a cost"),
    ("1 2\n-3 1\n", r"costs.txt:2:1: cell \(1, 0\): cost -3"),
    ("1 nan\n", r"costs.txt:1:3: cell \(0, 1\): cost nan"),
    ("1,2\n3,,4\n", r"costs.txt:2:3: cell \(1, 1\): empty field"),
    ("1 2\n3\n", r"costs.txt:2: row 1 has 1 cells, the first row has 2"),
    ("\n\n", r"costs.txt: no cost rows"),
    ("1 1e400\n", r"costs.txt:1:3: cell \(0, 1\): 1e400 overflows to infinity \(impassable "
                  r"cells are written inf or #; the largest cost is 1e\+300\)"),
    ("1,1\n2,-1e999\n", r"costs.txt:2:3: cell \(1, 1\): cost -1e999 \(allowed"),
    ("# 1e301\n", r"costs.txt:1:3: cell \(0, 1\): cost 1e301 is above the largest cost 1e\+300 "
                  r"\(route sums must stay finite\)"),
])
def test_bad_cost_text(text, message):
    with pytest.raises(LevelError, match=message):
        parse_costs(text, "costs.txt")


def test_bad_requests():
    costs = np.array([[1.0, math.inf], [1.0, 1.0]])
    with pytest.raises(LevelError, match=r"convention: 'both' \(allowed: enter, leave\)"):
        cost_to_goal(costs, (0, 0), convention="both")
    with pytest.raises(LevelError, match=r"goal: cell \(2, 0\) is outside the 2x2 grid"):
        terrain_route(costs, (0, 0), (2, 0))
    with pytest.raises(SearchError, match=r"goal: cell \(0, 1\) is impassable"):
        terrain_route(costs, (0, 0), (0, 1))
    with pytest.raises(LevelError, match=r"cell \(1, 1\): cost -1"):
        cost_to_goal(np.array([[1.0, 1.0], [1.0, -1.0]]), (0, 0))
    with pytest.raises(LevelError, match="no such file"):
        read_costs(DATA / "no_such_costs.txt")


def test_impassable_words_and_the_largest_cost():
    costs = parse_costs("inf INF +inf Infinity # 1e300\n")
    assert np.isinf(costs[0, :5]).all() and costs[0, 5] == MAX_COST
    assert math.isfinite(MAX_COST * MAX_GRID_CELLS)            # no route sum can overflow
    assert MAX_GRID_CELLS == 4000 * 4000


def test_costs_whose_sums_could_overflow_are_refused():
    # 1e308 + 1e308 is inf: before the ceiling this was reported as "cut them off"
    with pytest.raises(LevelError, match=r"costs: cell \(0, 0\): cost 1e\+308 is above the "
                                         r"largest cost 1e\+300"):
        terrain_route(np.full((1, 3), 1e308), (0, 0), (0, 2))
    assert terrain_route(np.full((1, 3), MAX_COST), (0, 0), (0, 2)).cost == 2 * MAX_COST


def test_grid_ceiling(monkeypatch):
    monkeypatch.setattr(terrain, "MAX_GRID_CELLS", 6)
    with pytest.raises(LevelError, match=r"costs: 3x3 = 9 cells \(at most 6\)"):
        cost_to_goal(np.ones((3, 3)), (0, 0))
    with pytest.raises(LevelError, match=r"costs.txt:3: more than 6 cells"):
        parse_costs("1 1 1\n1 1 1\n1 1 1\n", "costs.txt")
    assert parse_costs("1 1 1\n1 1 1\n").shape == (2, 3)
