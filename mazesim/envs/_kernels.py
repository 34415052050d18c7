"""The compiled core of the environments: a batch of walkers over a pool of padded mazes, reset
and stepped in one loop, seeing through the agents' own perception kernel
(`mazesim.agents.vision.perceive`).

Arrays (`mazesim._grid` layout: padded, flat): the pool's `cells` (M, P), `blank` (M, P: what
each maze shows before the first look under the vision), `start`, `goal`, `cap` (M,); each
walker's `known` (n, P: what it has seen, UNKNOWN elsewhere; the observation), `visits`
(n, P, or (n, 0) with memory: the trail that forgetting keeps), `pos`, `t`, `maze` (n,),
`done` (n,) and `rng` (n,: splitmix64 states that draw the maze of an automatic reset).
"""

import numpy as np
from numba import njit

from mazesim.agents.vision import UNKNOWN, perceive
from mazesim.maze import PASSAGE, WALL

__all__ = ["STOP_GOAL", "STOP_GOAL_SEEN", "reset_one", "step_all", "draw_maze"]

STOP_GOAL, STOP_GOAL_SEEN = 0, 1
"""When an episode ends: on stepping onto the goal, or once the goal has been seen."""


@njit(cache=True)
def draw_maze(rng, i, pool):
    """The next maze index of walker i: splitmix64 of its state, modulo the pool's size."""
    rng[i] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[i]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(pool))


@njit(cache=True)
def _show_walls(cells, known, width, j, radius):
    """Under a known map without memory: show again the walls that forgetting around j hid."""
    rows = cells.shape[0] // width
    r, c = j // width, j % width
    reach = max(radius, 1)
    for y in range(max(r - reach, 0), min(r + reach, rows - 1) + 1):
        for x in range(max(c - reach, 0), min(c + reach, width - 1) + 1):
            if cells[y * width + x] == WALL:
                known[y * width + x] = WALL


@njit(cache=True)
def reset_one(i, m, cells, blank, start, known, visits, pos, t, maze, width, step, kind, radius,
              occlusion, memory):
    """Walker i starts maze m: the blank view, the trail cleared, the first look from S."""
    known[i, :] = blank[m, :]
    trail = visits.shape[1] > 0
    if trail:
        visits[i, :] = 0
    s = start[m]
    maze[i], pos[i], t[i] = m, s, 0
    if trail:
        visits[i, s] = 1
    perceive(cells[m], width, step, known[i], visits[i], s, s // width, s % width, -1, -1, -1,
             kind, radius, occlusion, memory)


@njit(cache=True)
def step_all(actions, autoreset, cells, blank, start, goal, cap, known, visits, pos, t, maze,
             done, rng, width, step, kind, radius, occlusion, memory, known_map, stop, rewards,
             reward, terminated, truncated, position, goal_seen):
    """One step of every walker: a walker whose episode ended last step starts a new maze
    (with `autoreset`; its action is ignored, Gymnasium's next-step reset), the others move in
    the direction of their action (a wall: they stay, a bump). `rewards` = (goal, step, bump).
    Writes `reward`, `terminated`, `truncated`, `done`, and the observation's `position` and
    `goal_seen` (the goal's cell once seen, else -1) in unpadded (row, col)."""
    trail = visits.shape[1] > 0
    for i in range(actions.shape[0]):
        if done[i] and autoreset:
            reset_one(i, draw_maze(rng, i, cells.shape[0]), cells, blank, start, known, visits,
                      pos, t, maze, width, step, kind, radius, occlusion, memory)
            reward[i], terminated[i], truncated[i], done[i] = 0.0, False, False, False
        else:
            m, j = maze[i], pos[i]
            k = j + step[actions[i]]
            t[i] += 1
            r = rewards[1]
            if cells[m, k] == PASSAGE:
                pos[i] = k
                if trail:
                    visits[i, k] += 1
                perceive(cells[m], width, step, known[i], visits[i], k, k // width, k % width, j,
                         j // width, j % width, kind, radius, occlusion, memory)
                if known_map and not memory:
                    _show_walls(cells[m], known[i], width, j, radius)
            else:
                r += rewards[2]
            arrived = pos[i] == goal[m]
            if arrived:
                r += rewards[0]
            end = arrived if stop == STOP_GOAL else known[i, goal[m]] != UNKNOWN
            reward[i], terminated[i] = r, end
            truncated[i] = not end and t[i] >= cap[m]
            done[i] = end or truncated[i]
        observe(i, width, pos, goal, maze, known, position, goal_seen)


@njit(cache=True)
def observe(i, width, pos, goal, maze, known, position, goal_seen):
    """Walker i's position, and the goal's cell once seen (-1, -1 before), unpadded."""
    j, g = pos[i], goal[maze[i]]
    position[i, 0], position[i, 1] = j // width - 1, j % width - 1
    if known[i, g] != UNKNOWN:
        goal_seen[i, 0], goal_seen[i, 1] = g // width - 1, g % width - 1
    else:
        goal_seen[i, 0], goal_seen[i, 1] = -1, -1
