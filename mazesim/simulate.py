"""Run an agent in a maze (DESIGN.md section 7): trajectories, choice records, batches of trials.

Seeds: `simulate` takes an int or a `numpy.random.SeedSequence`; trial i of `simulate_many(...,
seed)` is exactly `simulate(..., trial_seed(seed, i))`, so a batch can be split, resumed or run
in any order with the same results. A walking agent's trial draws from xoshiro256** seeded with
`generate_state(4, np.uint64)` of the trial's seed sequence (`mazesim.agents._streams`): a batch
derives all of them and walks all trials in one compiled call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mazesim import _kernels as grid_kernels
from mazesim.agents import _kernels as agent_kernels
from mazesim.agents import _streams
from mazesim.agents._base import _STATE_WORDS, AgentBase, KernelAgent
from mazesim.agents.vision import Vision, parse_vision
from mazesim.errors import AgentError
from mazesim.maze import DIRECTIONS, Maze, readonly

__all__ = [
    "Choice",
    "Trajectory",
    "Batch",
    "CHOICE_DTYPE",
    "simulate",
    "simulate_many",
    "trial_seed",
    "choices_of",
    "mask_directions",
    "check_walk",
]

Seed = int | np.random.SeedSequence
NO_MARK = -1

CHOICE_DTYPE = np.dtype([
    ("trial", np.int64),
    ("step", np.int64),
    ("row", np.int32),
    ("col", np.int32),
    ("mark", np.int16),         # index into Batch.mark_names, NO_MARK (-1) for none
    ("arrival", np.int8),       # direction of arrival, -1 at the start
    ("open", np.uint8),         # bit d set: direction d open
    ("unexplored", np.uint8),   # bit d set: neighbour in direction d not yet visited
    ("chosen", np.int8),
    ("first", np.bool_),
])


def mask_directions(mask: int) -> tuple[int, ...]:
    """The directions whose bits are set in `mask`, in canonical order."""
    return tuple(d for d in range(4) if mask >> d & 1)


@dataclass(frozen=True)
class Choice:
    """One departure from a branch point (a passage cell with >= 3 open neighbours)."""

    step: int
    cell: tuple[int, int]
    mark: str | None
    arrival: int                 # direction of arrival, -1 at the start
    open: tuple[int, ...]
    unexplored: tuple[int, ...]  # open neighbours not yet visited at that moment
    chosen: int
    first: bool                  # the first departure from this cell

    @property
    def direction(self) -> str:
        """The chosen direction's name."""
        return DIRECTIONS[self.chosen]


@dataclass(frozen=True, eq=False)
class Trajectory:
    """One trial: `positions` (T+1, 2) read-only, from the start to the goal or the cap."""

    positions: np.ndarray
    reached: bool
    capped: bool
    choices: tuple[Choice, ...] = ()

    def __post_init__(self) -> None:
        positions = np.array(self.positions, dtype=np.int64).reshape(-1, 2)
        object.__setattr__(self, "positions", readonly(positions))
        object.__setattr__(self, "choices", tuple(self.choices))

    @property
    def moves(self) -> int:
        return len(self.positions) - 1


@dataclass(frozen=True, eq=False)
class Batch:
    """Trials of one (maze, agent, vision): per-trial arrays and all choice records.

    `choices` is a structured array of `CHOICE_DTYPE` (columns trial, step, row, col, mark, arrival,
    open, unexplored, chosen, first), `mark` indexing `mark_names`. `positions` holds each
    trial's positions when `simulate_many(..., keep_positions=True)`, else is empty.
    """

    moves: np.ndarray
    reached: np.ndarray
    capped: np.ndarray
    choices: np.ndarray
    mark_names: tuple[str, ...] = ()
    positions: tuple[np.ndarray, ...] = field(default=())

    @property
    def trials(self) -> int:
        return len(self.moves)

    def trajectory(self, i: int) -> Trajectory:
        """Trial i as a Trajectory (needs `keep_positions=True`)."""
        if not self.positions:
            raise AgentError("this batch was simulated without keep_positions=True")
        rows = self.choices[self.choices["trial"] == i]
        return Trajectory(self.positions[i], bool(self.reached[i]), bool(self.capped[i]),
                          tuple(_choice(row, self.mark_names) for row in rows))


def trial_seed(seed: Seed, i: int) -> np.random.SeedSequence:
    """The seed of trial i: `SeedSequence(entropy, spawn_key=parent.spawn_key + (i,))`."""
    parent = _seed_sequence(seed)
    return np.random.SeedSequence(parent.entropy, spawn_key=tuple(parent.spawn_key) + (int(i),),
                                  pool_size=parent.pool_size)


def simulate(maze: Maze, agent: AgentBase, vision: Vision | str | int,
             seed: Seed) -> Trajectory:
    """Run one trial of `agent` in `maze` with `vision`; AgentError if G is unreachable."""
    vision, max_steps = _check(maze, agent, vision)
    ss = _seed_sequence(seed)
    moves, reached, rows, flat = _walk_trials(
        maze, agent, vision, max_steps, 1, lambda: ss.generate_state(_STATE_WORDS, np.uint64)[None],
        lambda i: ss, keep=True, record=_recorded(maze, "all"))
    reached = bool(reached[0])
    names, mark_grid = _mark_grid(maze)
    choices = _choice_array(rows, mark_grid)
    return Trajectory(flat, reached, _capped(reached, int(moves[0]), max_steps),
                      tuple(_choice(row, names) for row in choices))


def simulate_many(maze: Maze, agent: AgentBase, vision: Vision | str | int, trials: int,
                  seed: Seed, *, keep_positions: bool = False, choices: str = "all") -> Batch:
    """Run `trials` trials; trial i uses `trial_seed(seed, i)` (see the module docstring).

    Walking agents run all trials in one compiled loop; each trial's stream words come from its
    seed sequence exactly as numpy derives them, so trial i equals `simulate` with that seed.
    `choices`: "all" records every departure from a branch point, "marks" only those from
    marked cells (what experiments store; no recording pass at all in a maze without marks).
    """
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 0:
        raise AgentError(f"trials: {trials!r} (allowed: an integer >= 0)")
    trials = int(trials)
    vision, max_steps = _check(maze, agent, vision)
    parent = _seed_sequence(seed)
    moves, reached, rows, flat = _walk_trials(
        maze, agent, vision, max_steps, trials,
        lambda: _streams.trial_states(_streams.seed_words(parent.entropy),
                                      _streams.seed_words(parent.spawn_key), trials,
                                      parent.pool_size),
        lambda i: trial_seed(parent, i), keep=keep_positions, record=_recorded(maze, choices))
    ends = np.cumsum(moves + 1)
    capped = ~reached & (moves == max_steps)
    names, mark_grid = _mark_grid(maze)
    kept = (tuple(readonly(p) for p in np.split(flat, ends[:-1])) if keep_positions and trials
            else ())
    return Batch(readonly(moves), readonly(reached), readonly(capped),
                 readonly(_choice_array(rows, mark_grid)), names, kept)


def _walk_trials(maze, agent, vision, max_steps, trials, stream_states, trial_sequence, keep,
                 record):
    """(moves, reached, choice rows with the trial first, positions stacked if `keep`).

    Walking agents take uint64 stream words (`stream_states()`); others (`shortest`) a
    Generator per trial from `trial_sequence(i)`.
    """
    if isinstance(agent, KernelAgent):
        return agent.run_trials(maze, vision, stream_states(), max_steps, keep, record)
    moves = np.zeros(trials, np.int64)
    reached = np.zeros(trials, np.bool_)
    rows, walks = [np.zeros((0, agent_kernels.CHOICE_COLUMNS + 1), np.int64)], []
    for i in range(trials):
        pos = agent.walk(maze, vision, np.random.default_rng(trial_sequence(i)), max_steps)
        moves[i] = len(pos) - 1
        reached[i] = tuple(pos[-1].tolist()) == maze.goal
        raw = agent_kernels.branch_choices(maze.grid, pos, moves[i], record)
        rows.append(np.column_stack([np.full(len(raw), i, np.int64), raw]))
        walks.append(pos)
    flat = np.concatenate(walks) if keep and walks else np.zeros((0, 2), np.int64)
    return moves, reached, np.concatenate(rows), flat


def choices_of(maze: Maze, positions: np.ndarray) -> tuple[Choice, ...]:
    """The choice records of a walk (DESIGN section 7); the same for agents and humans."""
    pos = np.array(positions, dtype=np.int64).reshape(-1, 2)
    names, mark_grid = _mark_grid(maze)
    raw = agent_kernels.branch_choices(maze.grid, pos, len(pos) - 1, _recorded(maze, "all"))
    rows = np.column_stack([np.zeros(len(raw), np.int64), raw])
    return tuple(_choice(row, names) for row in _choice_array(rows, mark_grid))


def check_walk(maze: Maze, positions: Any) -> np.ndarray:
    """Validate a walk (from the start, one step at a time over passages, stopping at the goal
    at the latest); the positions as int64 (T+1, 2)."""
    pos = np.asarray(positions)
    if pos.ndim != 2 or pos.shape[1] != 2 or len(pos) == 0:
        raise AgentError(f"positions: shape {pos.shape} (allowed: (T+1, 2))")
    pos = pos.astype(np.int64)
    cells = [tuple(cell) for cell in pos.tolist()]
    if cells[0] != maze.start:
        raise AgentError(f"positions[0]: {cells[0]} is not the start {maze.start}")
    steps = np.abs(np.diff(pos, axis=0)).sum(axis=1)
    bad = np.flatnonzero(steps != 1)
    if bad.size:
        raise AgentError(f"positions[{bad[0] + 1}]: not one step from the cell before")
    for i, cell in enumerate(cells):
        if not maze.is_passage(cell):
            raise AgentError(f"positions[{i}]: {cell} is not a passage")
        if cell == maze.goal and i < len(pos) - 1:
            raise AgentError(f"positions[{i}]: the walk goes on after reaching the goal")
    return pos


def _check(maze: Maze, agent: AgentBase, vision: Any) -> tuple[Vision, int]:
    if not isinstance(agent, AgentBase):
        raise AgentError(f"agent: {agent!r} is not an agent (use make_agent)")
    dist, _ = grid_kernels.bfs(maze.grid, *maze.start)
    if dist[maze.goal] < 0:
        raise AgentError(f"the goal {maze.goal} is unreachable from the start {maze.start}")
    return parse_vision(vision), agent.resolved_max_steps(maze)


def _capped(reached: bool, moves: int, max_steps: int) -> bool:
    return not reached and moves == max_steps


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
        raise AgentError(f"choices: {choices!r} (allowed: all, marks)")
    record = np.zeros(maze.shape, np.bool_)
    for cell in maze.marks.values():
        record[cell] = True
    return record


def _mark_grid(maze: Maze) -> tuple[tuple[str, ...], np.ndarray]:
    names = tuple(maze.marks)
    grid = np.full(maze.shape, NO_MARK, np.int16)
    for i, name in enumerate(names):
        grid[maze.marks[name]] = i
    return names, grid


def _choice_array(rows: np.ndarray, mark_grid: np.ndarray) -> np.ndarray:
    """Choice rows (trial, then the columns of `branch_choices`) as a CHOICE_DTYPE array."""
    out = np.empty(len(rows), CHOICE_DTYPE)
    for j, name in enumerate(("trial", "step", "row", "col", "arrival", "open", "unexplored",
                              "chosen", "first")):
        out[name] = rows[:, j]
    out["mark"] = mark_grid[rows[:, 2], rows[:, 3]]
    return out


def _choice(row: np.void, names: tuple[str, ...]) -> Choice:
    return Choice(
        step=int(row["step"]),
        cell=(int(row["row"]), int(row["col"])),
        mark=names[row["mark"]] if row["mark"] != NO_MARK else None,
        arrival=int(row["arrival"]),
        open=mask_directions(int(row["open"])),
        unexplored=mask_directions(int(row["unexplored"])),
        chosen=int(row["chosen"]),
        first=bool(row["first"]),
    )


