"""The solvers' view of a Sokoban level: the player's region as numbered floor cells."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mazesim import _grid
from mazesim.maze import DELTAS, PASSAGE, WALL, Cell
from mazesim.search.sokoban.level import WALL_CHAR, Level

__all__ = ["Board"]


@dataclass(frozen=True, eq=False)
class Board:
    """Floor cells of the player's region numbered 0..n-1, with neighbour and goal tables.

    ``cells`` (n, 2) row/col of each floor number; ``index`` (H, W) int32 floor number or -1;
    ``nbr`` (n, 4) the neighbour in each direction of `DELTAS` or -1; ``goal`` (n,) bool.
    Boxes outside the region never move; they are kept in ``fixed_boxes``.

    Examples
    --------
    >>> from mazesim.search.sokoban.level import parse_levels
    >>> board = Board.of(parse_levels("#####\\n#@$.#\\n#####\\n")[0])
    >>> board.size, board.player, board.boxes, board.goal.tolist()
    (3, 0, (1,), [False, False, True])
    """

    cells: np.ndarray
    index: np.ndarray
    nbr: np.ndarray
    goal: np.ndarray
    player: int
    boxes: tuple[int, ...]
    fixed_boxes: frozenset[Cell]
    fixed_goals: frozenset[Cell]

    @classmethod
    def of(cls, level: Level) -> Board:
        """Number the floor the player can reach (boxes ignored) in row-major order."""
        h, w = level.shape
        text = np.frombuffer("".join(level.rows).encode("ascii"), np.uint8).reshape(h, w)
        grid = np.where(text == ord(WALL_CHAR), WALL, PASSAGE).astype(np.uint8)
        dist, _ = _grid.distances(grid, *level.player)
        region = dist >= 0
        index = np.full((h, w), -1, np.int32)
        cells = np.argwhere(region)
        index[cells[:, 0], cells[:, 1]] = np.arange(len(cells), dtype=np.int32)
        nbr = np.full((len(cells), 4), -1, np.int32)
        for d, (dr, dc) in enumerate(DELTAS):
            r, c = cells[:, 0] + dr, cells[:, 1] + dc
            inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
            nbr[inside, d] = index[r[inside], c[inside]]
        goal_grid = np.zeros((h, w), bool)
        goal_grid[tuple(np.array(sorted(level.goals)).T)] = True
        goal = goal_grid[cells[:, 0], cells[:, 1]]
        boxes = tuple(sorted(int(index[b]) for b in level.boxes if region[b]))
        for array in (cells, index, nbr, goal):
            array.flags.writeable = False
        return cls(cells, index, nbr, goal, int(index[level.player]), boxes,
                   frozenset(b for b in level.boxes if not region[b]),
                   frozenset(g for g in level.goals if not region[g]))

    @property
    def size(self) -> int:
        return len(self.cells)

    def cell(self, i: int) -> Cell:
        return int(self.cells[i, 0]), int(self.cells[i, 1])

    def solvable_outside(self) -> bool:
        """Whether the boxes the player can never reach already sit on the goals it can't reach."""
        return self.fixed_boxes == self.fixed_goals
