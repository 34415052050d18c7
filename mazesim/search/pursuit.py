"""Pursuit: chasers descending one distance map from the player (source 000, closing section).

Each step the player moves (or stands still), one BFS distance map is made from the player's cell
and shared by all chasers, and every chaser steps to the neighbour whose distance is one smaller
(the first such in the canonical order up, right, down, left). Chasers may share a cell; a chaser
on the player's cell stays there while the player stands still; a chaser with no route to the
player stays where it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import ascii_uppercase
from typing import Sequence

import numpy as np

from mazesim import _grid
from mazesim.errors import SearchError, check_integer
from mazesim.maze import DELTAS, PASSAGE, PASSAGE_CHAR, WALL_CHAR, Cell, Maze, readonly

__all__ = ["PLAYER_CHAR", "CHASER_NAMES", "MAX_CHASE_RECORD", "Chase", "chase", "place_chasers",
           "chase_text", "chase_scene"]

PLAYER_CHAR = "@"
CHASER_NAMES = ascii_uppercase
"""Chaser i is drawn as letter i (so pictures show at most 26 chasers)."""
MAX_CHASE_RECORD = 2_000_000
"""Most cells one pursuit records, steps x (chasers + 1): each step stores the player's cell and
every chaser's (about 24 bytes each) and costs 10 to 30 microseconds (a wandering player also
costs a BFS of the maze per step)."""

_UNREACHED = -1


@dataclass(frozen=True, eq=False)
class Chase:
    """Positions over time of one pursuit with T steps and K chasers.

    Attributes
    ----------
    player : ndarray (T+1, 2)
        The player's cell at each time, time 0 the initial one.
    chasers : ndarray (T+1, K, 2)
        Each chaser's cell at each time.
    distances : ndarray (T+1, K)
        BFS distance in moves from each chaser to the player at each time; -1 when no route.
    """

    player: np.ndarray
    chasers: np.ndarray
    distances: np.ndarray

    @property
    def steps(self) -> int:
        return len(self.player) - 1

    @property
    def caught(self) -> np.ndarray:
        """First time each chaser stood on the player's cell; -1 for never."""
        on_player = self.distances == 0
        return np.where(on_player.any(axis=0), on_player.argmax(axis=0), -1)

    def to_dict(self) -> dict:
        """The final position: the player's cell and each chaser's name (`CHASER_NAMES`, then
        numbers), cell, distance (None: no route) and caught step (None: never)."""
        chasers = []
        for i, (cell, dist, caught) in enumerate(zip(self.chasers[-1].tolist(),
                                                     self.distances[-1].tolist(),
                                                     self.caught.tolist())):
            chasers.append({"name": CHASER_NAMES[i] if i < len(CHASER_NAMES) else str(i + 1),
                            "cell": cell, "distance": None if dist == _UNREACHED else dist,
                            "caught": None if caught == _UNREACHED else caught})
        return {"steps": self.steps, "player": self.player[-1].tolist(), "chasers": chasers}


def chase(maze: Maze, player: Cell, chasers: Sequence[Cell], steps: int,
          rng: np.random.Generator | None = None) -> Chase:
    """Run a pursuit for `steps` steps.

    Parameters
    ----------
    player : (row, col)
        The player's passage cell at time 0.
    chasers : sequence of (row, col)
        The chasers' passage cells at time 0.
    rng : numpy.random.Generator, optional
        Without it the player stands still; with it the player moves each step to a uniformly
        chosen open neighbour (a random walk) before the chasers move.

    Raises `SearchError` before any work when ``steps x (chasers + 1)`` is above
    `MAX_CHASE_RECORD`.

    Examples
    --------
    >>> from mazesim.maze import parse_maze
    >>> maze = parse_maze("#####\\n#S.G#\\n#####\\n")
    >>> result = chase(maze, maze.start, [maze.goal], 3)
    >>> result.distances[:, 0].tolist(), result.caught.tolist()
    ([2, 1, 0, 0], [2])
    """
    check_integer(steps, "steps", error=SearchError)
    record = (int(steps) + 1) * (len(chasers) + 1)
    if record > MAX_CHASE_RECORD:
        raise SearchError(f"steps: {steps} with {len(chasers)} chasers is too long a pursuit: "
                          f"(steps + 1) x (chasers + 1) = {record:,} cells to record "
                          f"(at most {MAX_CHASE_RECORD:,})")
    here = np.array(maze.passage_cell(player, "player"), np.int64)
    them = np.array([maze.passage_cell(c, f"chaser {i + 1}") for i, c in enumerate(chasers)],
                    np.int64).reshape(-1, 2)
    grid = np.ascontiguousarray(maze.grid)
    player_cells = np.empty((steps + 1, 2), np.int64)
    chaser_cells = np.empty((steps + 1, len(them), 2), np.int64)
    distances = np.empty((steps + 1, len(them)), np.int64)
    dist = _distance_map(grid, here)
    player_cells[0], chaser_cells[0] = here, them
    distances[0] = dist[them[:, 0] + 1, them[:, 1] + 1]
    for t in range(1, steps + 1):
        if rng is not None:
            moved = _wander(maze, here, rng)
            if not np.array_equal(moved, here):
                here, dist = moved, _distance_map(grid, moved)
        them = _descend(dist, them)
        player_cells[t], chaser_cells[t] = here, them
        distances[t] = dist[them[:, 0] + 1, them[:, 1] + 1]
    return Chase(readonly(player_cells), readonly(chaser_cells), readonly(distances))


def place_chasers(maze: Maze, count: int, rng: np.random.Generator, *,
                  avoid: Cell | None = None) -> tuple[Cell, ...]:
    """`count` distinct passage cells drawn uniformly, `avoid` (e.g. the player) excluded."""
    free = np.argwhere(maze.grid == PASSAGE)
    if avoid is not None:
        free = free[~np.all(free == np.asarray(avoid), axis=1)]
    check_integer(count, "chasers", error=SearchError)
    if count > len(free):
        raise SearchError(f"chasers: {count} do not fit on the {len(free)} free passage cells")
    picked = free[rng.choice(len(free), size=count, replace=False)]
    return tuple((int(r), int(c)) for r, c in picked)


def chase_text(maze: Maze, player: Cell, chasers: Sequence[Cell]) -> str:
    """The maze as text with the chasers as letters (`CHASER_NAMES`) and the player as `@`.

    The player is drawn over chasers on its cell; of chasers sharing a cell the first is shown.
    """
    if len(chasers) > len(CHASER_NAMES):
        raise SearchError(f"chasers: {len(chasers)} cannot be drawn as text "
                          f"(at most {len(CHASER_NAMES)})")
    chars = np.where(maze.grid == PASSAGE, PASSAGE_CHAR, WALL_CHAR).astype("<U1")
    for name, cell in reversed(list(zip(CHASER_NAMES, chasers))):
        chars[tuple(cell)] = name
    chars[tuple(player)] = PLAYER_CHAR
    return "".join("".join(row) + "\n" for row in chars)


def chase_scene(maze: Maze, chase_result: Chase) -> tuple[Maze, np.ndarray]:
    """The final position as a maze to draw (player as S, chasers as marks) and the chasers'
    visit counts (a heat map of their tracks).

    As in `chase_text`, the player hides chasers on its cell and the first chaser of a shared
    cell is shown; a chaser on G is hidden by G.
    """
    player = tuple(chase_result.player[-1].tolist())
    taken, marks = {player, maze.goal}, {}
    for name, cell in zip(CHASER_NAMES, map(tuple, chase_result.chasers[-1].tolist())):
        if cell not in taken:
            marks[name] = cell
            taken.add(cell)
    tracks = chase_result.chasers.reshape(-1, 2)
    visits = np.zeros(maze.shape, np.int64)
    np.add.at(visits, (tracks[:, 0], tracks[:, 1]), 1)
    return Maze(maze.grid, player, maze.goal, marks), visits


def _distance_map(grid: np.ndarray, player: np.ndarray) -> np.ndarray:
    """BFS distances from the player, padded by a ring of -1 so neighbours need no bound checks."""
    dist, _ = _grid.distances(grid, player[0], player[1])
    return np.pad(dist, 1, constant_values=_UNREACHED)


def _descend(padded: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """One step of every chaser down the (padded) distance map; stays when at 0 or unreached."""
    r, c = cells[:, 0] + 1, cells[:, 1] + 1
    here = padded[r, c]
    around = padded[r[:, None] + DELTAS[:, 0], c[:, None] + DELTAS[:, 1]]    # (K, 4)
    closer = (around == here[:, None] - 1) & (here[:, None] > 0)
    move = closer.any(axis=1)
    direction = closer.argmax(axis=1)
    return cells + np.where(move[:, None], DELTAS[direction], 0)


def _wander(maze: Maze, cell: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    options = maze.open_directions((int(cell[0]), int(cell[1])))
    if not options:
        return cell
    return cell + DELTAS[options[rng.integers(len(options))]]
