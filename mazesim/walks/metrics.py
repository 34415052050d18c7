"""Measures of walks: movement counts and efficiency, exploration, excursions, branch choices,
and the likelihood of a walk's junction choices under a stochastic agent (for model fitting).

Everything here takes positions or `Trajectory`/`Batch` objects (`mazesim.records`); human
trials recorded with the same positions are measured the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from mazesim import _grid
from mazesim.agents import AgentBase, Vision, parse_vision
from mazesim.agents.base import flat_cells, padded_maze
from mazesim.maze import DIRECTIONS, Maze
from mazesim.records import BRANCH_DEGREE, NO_MARK, Batch, Trajectory
from mazesim.walks.simulate import check_walk

__all__ = [
    "TrajectoryMetrics",
    "LogLikelihood",
    "trajectory_metrics",
    "final_route",
    "visit_counts",
    "excursion_depths",
    "first_choice_counts",
    "batch_summary",
    "choice_log_likelihood",
    "batch_report",
]

DEAD_END_DEGREE = 1


@dataclass(frozen=True)
class TrajectoryMetrics:
    """Measures of one walk (see `trajectory_metrics`)."""

    moves: int
    reached: bool
    capped: bool
    efficiency: float            # solution length / moves (1.0 for a shortest walk)
    distinct_cells: int          # cells visited, the start included
    revisits: int                # moves into a cell visited before
    dead_ends_entered: int       # moves into a dead end (one open neighbour) other than G
    deepest_excursion: int       # largest distance from the solution path reached
    first_choices: Mapping[str, str]   # mark -> direction of the first departure from it


@dataclass(frozen=True)
class LogLikelihood:
    """Natural-log likelihood of a walk under an agent: of the departures from branch points
    (`junctions`, over `n_junctions` of them) and of every move (`total`); -inf if a move is
    impossible for the agent."""

    junctions: float
    total: float
    n_junctions: int


def final_route(positions: Any) -> np.ndarray:
    """The walk with its backtracking removed (loop erasure): cells (n+1, 2) from the start.

    Each return to an earlier cell cuts the walk back to that cell, so what remains is a
    simple path; for a DFS walk, the route the search reports.
    """
    route: list[tuple[int, int]] = []
    index: dict[tuple[int, int], int] = {}
    for cell in map(tuple, np.asarray(positions).reshape(-1, 2).tolist()):
        if cell in index:
            for dropped in route[index[cell] + 1:]:
                del index[dropped]
            del route[index[cell] + 1:]
        else:
            index[cell] = len(route)
            route.append(cell)
    return np.array(route, np.int64).reshape(-1, 2)


def visit_counts(maze: Maze, positions: Any) -> np.ndarray:
    """Int (H, W): how often each cell was occupied (the start counts once)."""
    pos = np.asarray(positions, dtype=np.int64).reshape(-1, 2)
    counts = np.zeros(maze.shape, np.int64)
    np.add.at(counts, (pos[:, 0], pos[:, 1]), 1)
    return counts


def excursion_depths(maze: Maze) -> np.ndarray:
    """Int (H, W): BFS distance from the canonical solution path (-1 for walls, unreachable)."""
    dist, parent = _grid.distances(maze.grid, *maze.start)
    path = _grid.path_to(parent, dist, *maze.goal)
    cells, width, _, _ = padded_maze(maze)
    depth = np.full(len(cells), -1, np.int32)
    _grid.bfs(cells, _grid.steps(width), flat_cells(path, width), np.zeros(len(cells), np.int32),
              1, depth, np.zeros(0, np.int8), np.empty(len(cells), np.int32),
              np.zeros(0, np.uint8))
    return _grid.unpad(depth, *maze.shape).astype(np.int64)


def trajectory_metrics(maze: Maze, trajectory: Trajectory) -> TrajectoryMetrics:
    """The measures of one walk in `maze` (DESIGN section 7 records, the issue's metrics)."""
    pos = trajectory.positions
    dist, _ = _grid.distances(maze.grid, *maze.start)
    solution = int(dist[maze.goal])
    moves = trajectory.moves
    seen = np.zeros(maze.shape, bool)
    seen[maze.start] = True
    revisits = 0
    for r, c in pos[1:].tolist():
        revisits += bool(seen[r, c])
        seen[r, c] = True
    dead = _grid.degrees(maze.grid) == DEAD_END_DEGREE
    dead[maze.goal] = False
    depths = excursion_depths(maze)
    first = {c.mark: c.direction for c in trajectory.choices if c.mark is not None and c.first}
    return TrajectoryMetrics(
        moves=moves,
        reached=trajectory.reached,
        capped=trajectory.capped,
        efficiency=solution / moves if moves else 1.0,
        distinct_cells=int(seen.sum()),
        revisits=revisits,
        dead_ends_entered=int(dead[pos[1:, 0], pos[1:, 1]].sum()),
        deepest_excursion=int(depths[pos[:, 0], pos[:, 1]].max()),
        first_choices=MappingProxyType(first),
    )


def first_choice_counts(batch: Batch) -> dict[str, dict[str, int]]:
    """For each mark of the maze: how many trials left it first in each direction.

    Every direction is listed (0 if never chosen); a mark never departed from counts nothing.
    """
    rows = batch.choices[batch.choices["first"] & (batch.choices["mark"] != NO_MARK)]
    counts = {}
    for i, name in enumerate(batch.mark_names):
        chosen = rows["chosen"][rows["mark"] == i]
        tally = np.bincount(chosen.astype(np.int64), minlength=len(DIRECTIONS))
        counts[name] = {d: int(n) for d, n in zip(DIRECTIONS, tally)}
    return counts


def batch_summary(batch: Batch) -> dict[str, float | int | None]:
    """Trials, mean and median moves, min and max moves, reach rate and capped count of a batch.

    The mean and the median follow the counting rule (definitions.md): a capped trial's moves
    are not a movement count, so they are over the trials not capped (None when every trial
    is); min and max are over all trials."""
    moves = batch.moves
    empty = len(moves) == 0
    counted = moves[~np.asarray(batch.capped, dtype=bool)]
    return {
        "trials": int(len(moves)),
        "mean_moves": float(counted.mean()) if len(counted) else None,
        "median_moves": float(np.median(counted)) if len(counted) else None,
        "min_moves": int(moves.min()) if not empty else 0,
        "max_moves": int(moves.max()) if not empty else 0,
        "reach_rate": float(batch.reached.mean()) if not empty else float("nan"),
        "capped": int(batch.capped.sum()),
    }


def choice_log_likelihood(trajectory: Trajectory | Any, maze: Maze, agent: AgentBase,
                          vision: Vision | str | int = 0) -> LogLikelihood:
    """The log-likelihood of a walk's junction choices under `agent` with `vision`.

    The walk (a Trajectory or positions, e.g. a human trial) is read by the agent's own rule,
    perception and state (`Agent.step_probabilities`), and the log-probability of each observed
    move is summed: over the departures from junctions (`junctions`, the basis for fitting
    models to human choices) and over all moves (`total`; corridor moves of most agents are
    certain). A move the agent would never make gives -inf.
    """
    positions = trajectory.positions if isinstance(trajectory, Trajectory) else trajectory
    pos = check_walk(maze, positions)
    probs = agent.step_probabilities(maze, parse_vision(vision), pos)
    moves = np.diff(pos, axis=0)
    chosen = probs[np.arange(len(moves)), _directions(moves)]
    with np.errstate(divide="ignore"):
        logs = np.log(chosen)
    junction = _grid.degrees(maze.grid)[pos[:-1, 0], pos[:-1, 1]] >= BRANCH_DEGREE
    return LogLikelihood(junctions=float(logs[junction].sum()), total=float(logs.sum()),
                         n_junctions=int(junction.sum()))


def _directions(moves: np.ndarray) -> np.ndarray:
    """Direction index of each unit move (dr, dc) in the canonical order."""
    return np.select([moves[:, 0] < 0, moves[:, 1] > 0, moves[:, 0] > 0], [0, 1, 2], 3)


def batch_report(batch: Batch) -> dict[str, Any]:
    """One JSON-ready object: per-trial moves, reached and capped; the summary; first choices
    at each mark (`{"A": {"up": 61, "right": 39, ...}}`)."""
    trials = [{"trial": i, "moves": int(m), "reached": bool(r), "capped": bool(c)}
              for i, (m, r, c) in enumerate(zip(batch.moves, batch.reached, batch.capped))]
    return {"trials": trials, "summary": batch_summary(batch),
            "first_choices": first_choice_counts(batch)}
