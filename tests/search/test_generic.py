"""Generic search (mazesim/search/generic.py) on small graphs with known answers."""

import math
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.errors import SearchError
from mazesim.maze import read_maze
from mazesim.search import FOUR, astar, bfs, dfs, dijkstra, grid_neighbours

from fixture_paths import DATA

#   a - b - d - f
#   |       |
#   c - e --+      (a-c-e-d is longer than a-b-d)
GRAPH = {"a": "bc", "b": "ad", "c": "ae", "d": "bef", "e": "cd", "f": "d", "z": ""}
WEIGHTED = {
    "a": [("b", 4), ("c", 1)],
    "b": [("d", 1)],
    "c": [("b", 2), ("d", 5)],
    "d": [],
}


def _unweighted(state):
    return GRAPH[state]


def test_bfs_fewest_moves_and_counts():
    result = bfs("a", _unweighted, lambda s: s == "f")
    assert result.found and not result.truncated
    assert result.path == ("a", "b", "d", "f")
    assert result.cost == 3 and result.moves == 3
    # taken from the queue: a, b, c, d, e, f; queued (seen): a b c d e f
    assert result.explored == 6
    assert result.seen == 6


def test_bfs_seen_counted_when_goal_is_taken():
    # goal "d" is taken 4th (a, b, c, d); by then a, b, c, d, e are seen (e queued by c)
    result = bfs("a", _unweighted, lambda s: s == "d")
    assert (result.explored, result.seen) == (4, 5)


def test_bfs_start_is_goal():
    result = bfs("a", _unweighted, lambda s: s == "a")
    assert result.path == ("a",) and result.cost == 0 and result.explored == 1 and result.seen == 1


def test_not_found():
    for search in (bfs, dfs):
        result = search("a", _unweighted, lambda s: s == "z")
        assert not result.found and result.path == () and result.cost == math.inf
        assert result.explored == 6 and result.seen == 6 and result.moves == -1
    result = dijkstra("a", lambda s: WEIGHTED[s], lambda s: s == "z")
    assert not result.found and result.explored == 4


def test_dfs_takes_last_neighbour_first():
    # from a the stack holds b, c: c is taken first, then e, then d, then f
    result = dfs("a", _unweighted, lambda s: s == "f")
    assert result.path == ("a", "c", "e", "d", "f")
    assert result.cost == 4
    assert result.explored == 5


def test_dijkstra_least_cost():
    result = dijkstra("a", lambda s: WEIGHTED[s], lambda s: s == "d")
    assert result.path == ("a", "c", "b", "d")
    assert result.cost == 4
    assert result.explored == 4 and result.seen == 4


def test_dijkstra_rejects_negative_cost():
    with pytest.raises(SearchError, match="negative move cost -1"):
        dijkstra("a", lambda s: [("b", -1)], lambda s: s == "b")


def test_max_explored_truncates():
    result = bfs("a", _unweighted, lambda s: s == "f", max_explored=2)
    assert result.truncated and not result.found and result.explored == 2
    result = dijkstra("a", lambda s: WEIGHTED[s], lambda s: s == "d", max_explored=1)
    assert result.truncated and not result.found


def _open_grid(n):
    return grid_neighbours(n, n, FOUR)


def test_astar_manhattan_explores_less_than_dijkstra():
    n, goal = 15, (14, 14)
    step = _open_grid(n)

    def weighted(cell):
        return ((nxt, 1) for nxt in step(cell))

    def manhattan(cell):
        return abs(cell[0] - goal[0]) + abs(cell[1] - goal[1])

    plain = dijkstra((0, 0), weighted, lambda s: s == goal)
    guided = astar((0, 0), weighted, lambda s: s == goal, manhattan)
    assert plain.cost == guided.cost == 28
    assert guided.explored < plain.explored
    assert plain.explored == n * n


def test_tutorial_maze_bfs():
    maze = read_maze(DATA / "tutorial_7x13.txt")
    h, w = maze.grid.shape
    step = grid_neighbours(h, w, FOUR, maze.is_passage)
    result = bfs(maze.start, step, lambda s: s == maze.goal)
    assert result.cost == 14                       # source 000: the drawn path
    assert all(maze.is_passage(cell) for cell in result.path)


@st.composite
def _graphs(draw):
    n = draw(st.integers(1, 9))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.integers(0, 6)), max_size=30))
    return n, edges


def _floyd(n, edges):
    dist = [[0 if i == j else math.inf for j in range(n)] for i in range(n)]
    for u, v, w in edges:
        dist[u][v] = min(dist[u][v], w)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j])
    return dist


@given(_graphs())
def test_searches_agree_with_floyd_warshall(graph):
    n, edges = graph
    adjacency = {u: [] for u in range(n)}
    for u, v, w in edges:
        adjacency[u].append((v, w))
    weights = _floyd(n, edges)
    hops = _floyd(n, [(u, v, 1) for u, v, _ in edges])
    goal = n - 1
    weighted = dijkstra(0, lambda s: adjacency[s], lambda s: s == goal)
    unit = bfs(0, lambda s: [v for v, _ in adjacency[s]], lambda s: s == goal)
    some = dfs(0, lambda s: [v for v, _ in adjacency[s]], lambda s: s == goal)
    assert weighted.cost == weights[0][goal]
    assert unit.cost == hops[0][goal]
    assert weighted.found == unit.found == some.found == (hops[0][goal] < math.inf)
    if weighted.found:
        pairs = list(zip(weighted.path, weighted.path[1:]))
        assert sum(min(w for v, w in adjacency[u] if v == x) for u, x in pairs) == weighted.cost
        assert weighted.path[0] == 0 and weighted.path[-1] == goal
        assert all(v in dict(adjacency[u]) for u, v in zip(some.path, some.path[1:]))


@pytest.mark.parametrize("search", [bfs, dfs])
def test_time_limit_stops_an_endless_search(search):
    result = search(0, lambda n: [n + 1], lambda n: False, time_limit=0.05)
    assert result.truncated and not result.found and result.explored > 0


def test_time_limit_stops_an_endless_weighted_search():
    result = astar(0, lambda n: [(n + 1, 1)], lambda n: False, lambda n: 0, time_limit=0.05)
    assert result.truncated and not result.found


@pytest.mark.parametrize("search", [bfs, dfs])
def test_time_limit_holds_when_each_state_is_slow(search):
    def slow(n):                                  # 10 ms per state: 1,024 states take 10 s
        time.sleep(0.01)
        return [n + 1]

    start = time.perf_counter()
    result = search(0, slow, lambda n: False, time_limit=0.05)
    assert result.truncated and not result.found
    assert time.perf_counter() - start < 0.05 + 0.2 and result.explored < 20
