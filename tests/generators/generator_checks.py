"""Structural checks of generated grids shared by the generator tests."""

import numpy as np

from mazesim._grid import distances as bfs
from mazesim.maze import PASSAGE, WALL


def rooms(grid: np.ndarray) -> int:
    h, w = grid.shape
    return ((h - 1) // 2) * ((w - 1) // 2)


def dead_end_count(grid: np.ndarray) -> int:
    """Passage cells with exactly one passage neighbour."""
    o = np.pad(grid == PASSAGE, 1).astype(int)
    neighbours = o[:-2, 1:-1] + o[2:, 1:-1] + o[1:-1, :-2] + o[1:-1, 2:]
    return int(((grid == PASSAGE) & (neighbours == 1)).sum())


def loops(grid: np.ndarray) -> int:
    """Edges - cells + components of the passage graph (0 for a tree)."""
    open_ = grid == PASSAGE
    edges = int((open_[1:] & open_[:-1]).sum() + (open_[:, 1:] & open_[:, :-1]).sum())
    cells = int(open_.sum())
    seen = np.zeros_like(open_)
    components = 0
    for r, c in zip(*np.nonzero(open_)):
        if not seen[r, c]:
            components += 1
            seen |= bfs(grid, r, c)[0] >= 0
    return edges - cells + components


def has_open_2x2(grid: np.ndarray) -> bool:
    o = grid == PASSAGE
    return bool((o[:-1, :-1] & o[1:, :-1] & o[:-1, 1:] & o[1:, 1:]).any())


def assert_border_intact(grid: np.ndarray) -> None:
    assert (grid[0] == WALL).all() and (grid[-1] == WALL).all()
    assert (grid[:, 0] == WALL).all() and (grid[:, -1] == WALL).all()


def assert_perfect(grid: np.ndarray, shape: tuple[int, int]) -> None:
    """A spanning tree of the rooms: right shape and dtype, border intact, rooms open,
    passages = rooms + (rooms - 1) openings, all connected, no 2x2 open block."""
    assert grid.shape == shape and grid.dtype == np.uint8
    assert set(np.unique(grid)) <= {PASSAGE, WALL}
    assert_border_intact(grid)
    assert (grid[1::2, 1::2] == PASSAGE).all(), "a room is closed"
    assert int((grid == PASSAGE).sum()) == 2 * rooms(grid) - 1
    dist, _ = bfs(grid, 1, 1)
    assert ((dist >= 0) == (grid == PASSAGE)).all(), "not connected"
    assert not has_open_2x2(grid)
