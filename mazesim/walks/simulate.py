"""Run an agent in a maze (DESIGN.md section 7): trajectories, choice records, batches of trials.

Seeds: `simulate` takes an int or a `numpy.random.SeedSequence`; trial i of `simulate_many(...,
seed)` is exactly `simulate(..., trial_seed(seed, i))`, so a batch can be split, resumed or run
in any order with the same results. A trial draws from xoshiro256** seeded with
`generate_state(4, np.uint64)` of the trial's seed sequence (`agents.base.trial_streams` derives
a whole batch's words in one compiled call); the agent walks all trials through its `run_trials`
(the agent protocol, `mazesim.agents.base.Agent`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mazesim import _grid
from mazesim.agents import AgentBase, Vision, parse_vision
from mazesim.agents.base import STATE_WORDS, choice_rows, padded_maze, trial_streams
from mazesim.errors import AgentError, check_integer
from mazesim.limits import MAX_KEPT_MOVES, MAX_STEPS, MAX_TRIALS, gigabytes
from mazesim.maze import PASSAGE, Maze, readonly
from mazesim.records import NO_MARK, Batch, Choice, Trajectory, choice_array

__all__ = [
    "CHOICES",
    "simulate",
    "simulate_many",
    "trial_seed",
    "choices_of",
    "choice_records",
    "check_walk",
    "walk_fault",
    "check_reachable",
    "mark_grid",
]

Seed = int | np.random.SeedSequence
CHOICES = ("all", "marks")
"""`simulate_many(choices=...)`: record every junction departure, or only those at marks."""
_KEPT_BYTES_PER_MOVE = 24       # a kept position: (row, col) int64 and its flat cell


def trial_seed(seed: Seed, i: int) -> np.random.SeedSequence:
    """The seed of trial i: `SeedSequence(entropy, spawn_key=parent.spawn_key + (i,))`."""
    parent = _seed_sequence(seed)
    return np.random.SeedSequence(parent.entropy, spawn_key=tuple(parent.spawn_key) + (int(i),),
                                  pool_size=parent.pool_size)


def simulate(maze: Maze, agent: AgentBase, vision: Vision | str | int,
             seed: Seed) -> Trajectory:
    """Run one trial of `agent` in `maze` with `vision`; AgentError if G is unreachable or the
    positions of `max_steps` moves would not fit (`limits.MAX_KEPT_MOVES`)."""
    vision, max_steps = _check(maze, agent, vision, 1, keep=True)
    streams = _seed_sequence(seed).generate_state(STATE_WORDS, np.uint64)[None]
    walks = agent.run_trials(maze, vision, streams, max_steps, keep=True,
                             record=_recorded(maze, "all"))
    names, marks = mark_grid(maze)
    reached = bool(walks.reached[0])
    capped = not reached and int(walks.moves[0]) == max_steps
    rows = choice_array(walks.rows, walks.row_trials, marks)
    return Trajectory(walks.positions, reached, capped,
                      tuple(Choice.from_record(row, names) for row in rows))


def simulate_many(maze: Maze, agent: AgentBase, vision: Vision | str | int, trials: int,
                  seed: Seed, *, keep_positions: bool = False, choices: str = "all",
                  first: int = 0) -> Batch:
    """Run `trials` trials; trial i uses `trial_seed(seed, i)` (see the module docstring).

    `first`: run trials first to first + trials - 1 of the batch instead (entry i of the result,
    its choices' `trial` i, is trial first + i): a batch run in parts, same results.
    `choices`: "all" records every departure from a junction, "marks" only those from marked
    cells (what experiments store; no recording at all in a maze without marks).
    At most `limits.MAX_TRIALS` trials; with `keep_positions`, trials x max_steps at most
    `limits.MAX_KEPT_MOVES` (the worst case, refused before walking).
    """
    trials = check_integer(trials, "trials", 0, MAX_TRIALS, AgentError)
    check_integer(first, "first", 0, MAX_TRIALS - trials, AgentError,
                  f"for {trials:,} trials")
    vision, max_steps = _check(maze, agent, vision, trials, keep=keep_positions)
    parent = _seed_sequence(seed)
    streams = trial_streams(parent, trials, int(first))
    walks = agent.run_trials(maze, vision, streams, max_steps, keep=keep_positions,
                             record=_recorded(maze, choices))
    moves, reached = np.asarray(walks.moves, np.int64), np.asarray(walks.reached, np.bool_)
    capped = ~reached & (moves == max_steps)
    names, marks = mark_grid(maze)
    kept = (tuple(readonly(p) for p in np.split(walks.positions, np.cumsum(moves + 1)[:-1]))
            if keep_positions and trials else ())
    return Batch(readonly(moves), readonly(reached), readonly(capped),
                 readonly(choice_array(walks.rows, walks.row_trials, marks)), names, kept)


def choice_records(maze: Maze, positions: np.ndarray) -> np.ndarray:
    """The junction-choice records of a walk as a `CHOICE_DTYPE` array (trial 0; marks index
    `tuple(maze.marks)`): the records an agent's own walk gets, for any walk (people's too)."""
    rows = choice_rows(maze, positions)
    return choice_array(rows, np.zeros(len(rows), np.int64), mark_grid(maze)[1])


def choices_of(maze: Maze, positions: np.ndarray) -> tuple[Choice, ...]:
    """The choice records of a walk (DESIGN section 7) as `Choice`s; the same for agents and
    humans."""
    names = tuple(maze.marks)
    return tuple(Choice.from_record(row, names) for row in choice_records(maze, positions))


def walk_fault(maze: Maze, positions: np.ndarray) -> tuple[int, str] | None:
    """The first fault of a walk (T+1, 2) in `maze` as (step, reason), or None for a valid walk:
    from S, one step at a time over passages inside the grid, stopping at G at the latest (a
    walk may stop before G). Vectorised: a million cells in milliseconds, so that every stored
    or imported walk is checked before a kernel indexes the grid with it."""
    pos = np.asarray(positions)
    if pos.ndim != 2 or pos.shape[1] != 2 or len(pos) == 0:
        return 0, f"positions of shape {pos.shape} (allowed: (T+1, 2), T >= 0)"
    h, w = maze.shape
    r, c = pos[:, 0], pos[:, 1]
    off = (r < 0) | (r >= h) | (c < 0) | (c >= w)
    wall = np.zeros(len(pos), bool)
    wall[~off] = maze.grid[r[~off], c[~off]] != PASSAGE
    jump = np.zeros(len(pos), bool)
    jump[1:] = np.abs(np.diff(pos, axis=0)).sum(axis=1) != 1
    at_goal = np.flatnonzero((r == maze.goal[0]) & (c == maze.goal[1]))
    after = np.zeros(len(pos), bool)
    if at_goal.size:
        after[at_goal[0] + 1:] = True
    starts_elsewhere = (int(r[0]), int(c[0])) != maze.start
    bad = np.flatnonzero(off | wall | jump | after)
    k = int(bad[0]) if bad.size else None
    if starts_elsewhere and (k is None or k > 0 or not (off[0] or wall[0])):
        return 0, f"starts at {(int(r[0]), int(c[0]))}, not at S {maze.start}"
    if k is None:
        return None
    cell = (int(r[k]), int(c[k]))
    if off[k]:
        return k, f"{cell} is off the {h}x{w} grid"
    if wall[k]:
        return k, f"{cell} is a wall"
    if jump[k]:
        return k, f"{cell} is not next to {(int(r[k - 1]), int(c[k - 1]))}"
    return k, f"goes on after reaching G at step {int(at_goal[0])}"


def check_walk(maze: Maze, positions: Any) -> np.ndarray:
    """Validate a walk (`walk_fault`); the positions as int64 (T+1, 2), AgentError naming the
    first fault."""
    pos = np.asarray(positions)
    if pos.ndim != 2 or pos.shape[1] != 2 or len(pos) == 0:
        raise AgentError(f"positions: shape {pos.shape} (allowed: (T+1, 2))")
    pos = pos.astype(np.int64)
    fault = walk_fault(maze, pos)
    if fault is not None:
        raise AgentError(f"positions[{fault[0]}]: {fault[1]}")
    return pos


def mark_grid(maze: Maze) -> tuple[tuple[str, ...], np.ndarray]:
    """(mark names, int16 grid of each cell's index into them, NO_MARK elsewhere)."""
    names = tuple(maze.marks)
    grid = np.full(maze.shape, NO_MARK, np.int16)
    for i, name in enumerate(names):
        grid[maze.marks[name]] = i
    return names, grid


def check_reachable(maze: Maze) -> None:
    """AgentError unless the goal is reachable from the start (no agent could reach it).

    A search from S that stops at G, with the argument types of the agents' plans (`plan_to`):
    a run compiles no other BFS for this check."""
    cells, width, start, goal = padded_maze(maze)
    n = len(cells)
    stop = np.zeros(n, np.uint8)
    stop[goal] = 1
    _, found = _grid.bfs(cells, _grid.steps(width), np.array([start], np.int64),
                         np.zeros(n, np.int64), np.int64(1), np.zeros(n, np.int32),
                         np.zeros(0, np.int8), np.empty(n, np.int64), stop)
    if found != goal:
        raise AgentError(f"the goal {maze.goal} is unreachable from the start {maze.start}")


def _check(maze: Maze, agent: AgentBase, vision: Any, trials: int, *, keep: bool
           ) -> tuple[Vision, int]:
    """The vision and max_steps of a request, refused before any walking: no agent, an
    unreachable goal, max_steps above `limits.MAX_STEPS`, kept positions that may not fit."""
    if not isinstance(agent, AgentBase):
        raise AgentError(f"agent: {agent!r} is not an agent (use make_agent)")
    vision = parse_vision(vision)
    max_steps = agent.resolved_max_steps(maze)
    if max_steps > MAX_STEPS:
        raise AgentError(f"{agent.name}: max_steps: {max_steps:,} (allowed: at most "
                         f"{MAX_STEPS:,})")
    if keep and trials * max_steps > MAX_KEPT_MOVES:
        raise AgentError(
            f"{agent.name}: keeping the positions of {trials:,} trial(s) of up to "
            f"{max_steps:,} moves may need {gigabytes(trials * max_steps * _KEPT_BYTES_PER_MOVE)}"
            f" (allowed: at most {MAX_KEPT_MOVES:,} moves in all; lower trials or max_steps)")
    check_reachable(maze)
    return vision, max_steps


def _seed_sequence(seed: Seed) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise AgentError(f"seed: {seed!r} (allowed: an integer >= 0 or a SeedSequence)")
    return np.random.SeedSequence(int(seed))


def _recorded(maze: Maze, choices: str) -> np.ndarray:
    """Bool grid of the cells whose departures are recorded (`simulate_many`'s `choices`)."""
    if choices == "all":
        return np.ones(maze.shape, np.bool_)
    if choices != "marks":
        raise AgentError(f"choices: {choices!r} (allowed: {', '.join(CHOICES)})")
    record = np.zeros(maze.shape, np.bool_)
    for cell in maze.marks.values():
        record[cell] = True
    return record
