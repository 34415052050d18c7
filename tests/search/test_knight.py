"""Knight distance (mazesim/search/knight.py): closed form against BFS, source 003."""

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from mazesim.errors import LevelError, SearchError
from mazesim.search import KNIGHT
from mazesim.search.knight import MAX_PATH_BOARD, knight_distance, knight_path

SMALL_BOARDS = range(1, 13)
RANDOM_PAIRS = 400
LARGEST_RANDOM_BOARD = 50


def _all_pairs(n):
    """Knight distances between all squares of an n x n board by scipy: independent reference."""
    rows, cols = [], []
    for r in range(n):
        for c in range(n):
            for dr, dc in KNIGHT:
                if 0 <= r + dr < n and 0 <= c + dc < n:
                    rows.append(r * n + c)
                    cols.append((r + dr) * n + c + dc)
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n * n, n * n)).tocsr()
    return shortest_path(graph, unweighted=True)


def _reference_or_error(dist, n, a, b):
    d = dist[a[0] * n + a[1], b[0] * n + b[1]]
    return None if np.isinf(d) else int(d)


def _closed_form_or_error(n, a, b):
    try:
        return knight_distance(n, a, b)
    except SearchError:
        return None


@pytest.mark.parametrize("n", SMALL_BOARDS)
def test_closed_form_equals_bfs_on_every_pair(n):
    dist = _all_pairs(n)
    cells = [(r, c) for r in range(n) for c in range(n)]
    for a in cells:
        for b in cells:
            assert _closed_form_or_error(n, a, b) == _reference_or_error(dist, n, a, b), (n, a, b)


@pytest.mark.slow
def test_closed_form_equals_bfs_on_random_pairs():
    rng = np.random.default_rng(2024)
    for n in (13, 17, 24, 31, 40, LARGEST_RANDOM_BOARD):
        dist = _all_pairs(n)
        for _ in range(RANDOM_PAIRS):
            a, b = tuple(rng.integers(0, n, 2)), tuple(rng.integers(0, n, 2))
            assert knight_distance(n, a, b) == _reference_or_error(dist, n, a, b), (n, a, b)
        corners = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)]
        for a in corners:                           # the corner exception on every large board
            for b in [(r, c) for r in range(n) for c in range(n) if max(abs(r - a[0]),
                                                                         abs(c - a[1])) <= 3]:
                assert knight_distance(n, a, b) == _reference_or_error(dist, n, a, b)


def test_source_003():
    assert knight_distance(30, (0, 0), (29, 29)) == 20     # squares (1,1) to (30,30)
    path = knight_path(30, (0, 0), (29, 29))
    assert len(path) == 21 and path[0] == (0, 0) and path[-1] == (29, 29)


def test_corner_exception():
    assert knight_distance(8, (0, 0), (1, 1)) == 4
    assert knight_distance(8, (2, 2), (3, 3)) == 2


@pytest.mark.parametrize("n", [5, 8, 20])
def test_paths_are_knight_moves_of_the_closed_form_length(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a, b = tuple(rng.integers(0, n, 2)), tuple(rng.integers(0, n, 2))
        path = knight_path(n, a, b)
        assert len(path) - 1 == knight_distance(n, a, b)
        steps = {(r2 - r1, c2 - c1) for (r1, c1), (r2, c2) in zip(path, path[1:])}
        assert steps <= set(KNIGHT)
        assert all(0 <= r < n and 0 <= c < n for r, c in path)


def test_huge_board_at_once():
    n = 10**9
    assert knight_distance(n, (0, 0), (n - 1, n - 1)) == 666_666_666
    assert knight_distance(n, (0, 0), (1, 1)) == 4
    assert knight_distance(n, (5, 5), (6, 6)) == 2
    assert knight_distance(n, (0, 0), (0, 1)) == 3


def test_unreachable_squares():
    with pytest.raises(SearchError, match="centre square is cut off"):
        knight_distance(3, (0, 0), (1, 1))
    with pytest.raises(SearchError, match="2x2"):
        knight_path(2, (0, 0), (1, 1))
    assert knight_distance(1, (0, 0), (0, 0)) == 0
    assert knight_distance(3, (0, 0), (2, 1)) == 1


def test_bad_input():
    with pytest.raises(LevelError, match=r"to: square \(8, 0\) is off the 8x8 board"):
        knight_distance(8, (0, 0), (8, 0))
    with pytest.raises(LevelError, match="board size: 0"):
        knight_distance(0, (0, 0), (0, 0))
    with pytest.raises(SearchError, match=f"up to {MAX_PATH_BOARD}x{MAX_PATH_BOARD}"):
        knight_path(MAX_PATH_BOARD + 1, (0, 0), (1, 2))


@pytest.mark.parametrize("square", [(1.5, 2), (True, 0), ("1", 2), (1,)])
def test_squares_must_be_integer_pairs(square):
    with pytest.raises(LevelError, match=r"to: .* is not a \(row, col\) square of integers"):
        knight_distance(8, (0, 0), square)
