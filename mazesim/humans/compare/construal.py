"""Value-guided construal (Ho et al. 2022): which obstacles a planner keeps in a simplified plan,
set beside people's answers to the awareness probes.

For a maze with obstacles (`maze.meta["obstacles"]`), every construal c (a subset of the
obstacles; the walls are always kept) is planned: the moves on shortest paths to the goal in the
maze with only c's obstacles, uniform among them. The plan is then walked in the true maze, where
a move into an obstacle left out of c stays put, with a step cost of 1 and a discount of
1 - 1e-5 (a plan stuck against an obstacle is worth about -1e5): U(c) is its value from S. The
value of representation is VOR(c) = U(c) - cost |c|, a construal is drawn with probability
proportional to exp(beta VOR(c)), and an obstacle's probability of being kept is the sum over the
construals that hold it. This is our reading of the authors' model (`vgc_project/vgc.py` of
markkho/value-guided-construal, which plans with policy iteration in their MDP library); where
theirs breaks ties between equal moves otherwise, the values can differ.

`read_probes(folder)` reads the awareness probes (`attentiontrials.json[.zip]`: one 1-8 answer
per session, grid and probed obstacle).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from mazesim.errors import DataError
from mazesim.maze import DELTAS, Maze

__all__ = ["PROBES", "MAX_OBSTACLES", "DISCOUNT", "construal_values", "obstacle_probabilities",
           "read_probes", "route_distances"]

PROBES = "attentiontrials.json"
MAX_OBSTACLES = 12
"""Most obstacles of a maze (2^12 construals)."""
DISCOUNT = 1.0 - 1e-5


def construal_values(maze: Maze) -> tuple[tuple[str, ...], list[tuple[str, ...]], np.ndarray]:
    """The obstacle labels, every construal (tuples of labels) and its U(c)."""
    obstacles = dict(maze.meta.get("obstacles", {}))
    labels = tuple(sorted(obstacles))
    if len(labels) > MAX_OBSTACLES:
        raise DataError(f"{len(labels)} obstacles (at most {MAX_OBSTACLES})")
    free = maze.grid.copy()
    for cells in obstacles.values():
        for r, c in cells:
            free[r, c] = 0                      # the maze with its walls only
    construals = [c for k in range(len(labels) + 1) for c in combinations(labels, k)]
    values = np.array([_plan_value(maze, _with(free, obstacles, c)) for c in construals])
    return labels, construals, values


def obstacle_probabilities(labels: tuple[str, ...], construals: list[tuple[str, ...]],
                           values: np.ndarray, beta: float, cost: float = 1.0
                           ) -> dict[str, float]:
    """P(obstacle kept) under the softmax over VOR(c) = U(c) - cost |c| at inverse temperature
    `beta`."""
    vor = values - cost * np.array([len(c) for c in construals])
    weights = np.exp(beta * (vor - vor.max()))
    weights /= weights.sum()
    return {o: float(sum(w for w, c in zip(weights, construals) if o in c)) for o in labels}


def _with(free: np.ndarray, obstacles: dict, construal: tuple[str, ...]) -> np.ndarray:
    grid = free.copy()
    for label in construal:
        for r, c in obstacles[label]:
            grid[r, c] = 1
    return grid


def _distances(grid: np.ndarray, goal: tuple[int, int]) -> np.ndarray:
    """BFS distance to `goal` over the passages of `grid` (-1: unreachable)."""
    h, w = grid.shape
    dist = np.full(grid.shape, -1, np.int64)
    dist[goal] = 0
    frontier = [goal]
    while frontier:
        nxt = []
        for r, c in frontier:
            for dr, dc in DELTAS:
                q = (r + dr, c + dc)
                if 0 <= q[0] < h and 0 <= q[1] < w and grid[q] == 0 and dist[q] < 0:
                    dist[q] = dist[r, c] + 1
                    nxt.append(q)
        frontier = nxt
    return dist


def _plan_value(maze: Maze, construed: np.ndarray) -> float:
    """The value from S in the true maze of the plan made in `construed`."""
    h, w = maze.shape
    plan = _distances(construed, maze.goal)
    n = h * w
    transition = np.zeros((n, n))
    for r in range(h):
        for c in range(w):
            i = r * w + c
            if maze.grid[r, c] or (r, c) == maze.goal:
                continue
            moves = [(r + dr, c + dc) for dr, dc in DELTAS
                     if 0 <= r + dr < h and 0 <= c + dc < w and construed[r + dr, c + dc] == 0
                     and plan[r + dr, c + dc] == plan[r, c] - 1 and plan[r, c] > 0]
            for q in moves:
                j = q[0] * w + q[1] if maze.grid[q] == 0 else i     # bump: stays put
                transition[i, j] += 1.0 / len(moves)
            if not moves:
                transition[i, i] = 1.0                              # no plan from here
    cost = np.ones(n)
    cost[maze.goal[0] * w + maze.goal[1]] = 0.0                     # absorbing, free
    value = np.linalg.solve(np.eye(n) - DISCOUNT * transition, -cost)
    return float(value[maze.start[0] * w + maze.start[1]])


def route_distances(maze: Maze, walks: list[np.ndarray]) -> dict[str, float]:
    """Per obstacle, the mean over walks of its least Manhattan distance to a cell walked (a
    heuristic of attention: obstacles beside the route)."""
    out = {}
    for label, cells in dict(maze.meta.get("obstacles", {})).items():
        cells = np.asarray(cells)
        out[label] = float(np.mean([np.abs(w[:, None, :] - cells[None]).sum(axis=2).min()
                                    for w in walks]))
    return out


def read_probes(folder: str | Path) -> dict[tuple[str, str], list[float]]:
    """The awareness answers (1-8) by (grid name, obstacle label)."""
    from mazesim.humans.data.vgc import load_json, located

    path = located(Path(folder), PROBES)
    table = load_json(path)
    needed = ("navgridname", "probeobs", "response")
    if not isinstance(table, dict) or any(not isinstance(table.get(c), dict) for c in needed):
        raise DataError(f"{path}: no columns {', '.join(needed)}")
    out: dict[tuple[str, str], list[float]] = {}
    for key, grid in table["navgridname"].items():
        answer = table["response"].get(key)
        try:
            value = float(answer)
        except (TypeError, ValueError):
            continue                            # an unanswered probe
        out.setdefault((str(grid), str(table["probeobs"].get(key))), []).append(value)
    return out
