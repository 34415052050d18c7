"""Work units of a sweep and the function that runs them (in this process, a worker or on Dask).

A unit is one (maze, agent, vision) cell of the sweep with all its trials. Units of one maze travel
together as a `Chunk` (the maze is sent once); `run_chunk` is a plain module-level function of
picklable data, so local processes and Dask workers run exactly the same code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from mazesim.experiment.seeds import cell_seed
from mazesim.maze import DIRECTIONS, Maze

__all__ = ["Unit", "Chunk", "UnitResult", "run_chunk", "CHOICE_COLUMNS"]

CHOICE_COLUMNS = ("trial", "step", "row", "col", "mark", "arrival", "chosen", "first")


@dataclass(frozen=True)
class Unit:
    """One sweep cell: coordinates, what to run and where its trial ids start."""

    unit_id: int
    maze_id: int
    agent_index: int
    vision_index: int
    agent_type: str
    agent_params: Mapping[str, Any]
    vision: Any
    trials: int
    first_trial_id: int
    samples: int


@dataclass(frozen=True)
class Chunk:
    """Units that share one maze, with the maze as plain data (picklable) and the root seed."""

    root: int
    grid: np.ndarray
    start: tuple[int, int]
    goal: tuple[int, int]
    marks: tuple[tuple[str, tuple[int, int]], ...]
    units: tuple[Unit, ...]

    @property
    def maze(self) -> Maze:
        return Maze(self.grid, self.start, self.goal, dict(self.marks))


@dataclass(frozen=True, eq=False)
class UnitResult:
    """Everything one unit produced: per-trial arrays, choices at marks, sample trajectories."""

    unit: Unit
    moves: np.ndarray
    reached: np.ndarray
    capped: np.ndarray
    choices: Mapping[str, np.ndarray]  # CHOICE_COLUMNS, only departures from marked cells
    samples: Mapping[int, np.ndarray]  # trial index -> positions (T+1, 2)
    seconds: float
    kernel_seconds: float


def run_chunk(chunk: Chunk) -> list[UnitResult]:
    """Run every unit of `chunk`; deterministic for the chunk's data (seeds by coordinates)."""
    from mazesim.agents import make_agent
    from mazesim.agents.vision import parse_vision
    from mazesim.simulate import simulate_many

    maze = chunk.maze
    results = []
    for unit in chunk.units:
        began = time.perf_counter()
        agent = make_agent(unit.agent_type, **unit.agent_params)
        vision = parse_vision(unit.vision)
        seed = cell_seed(chunk.root, unit.maze_id, unit.agent_index, unit.vision_index)
        kernel_began = time.perf_counter()
        batch = simulate_many(maze, agent, vision, unit.trials, seed, choices="marks")
        # the sampled trials are walked again with their positions kept (trial i of a shorter
        # batch is trial i): cheaper than keeping every trial's positions
        sampled = min(unit.samples, unit.trials)
        batch_positions = simulate_many(maze, agent, vision, sampled, seed, keep_positions=True,
                                        choices="marks").positions if sampled else ()
        kernel = time.perf_counter() - kernel_began
        samples = {i: np.asarray(pos, dtype=np.int16)
                   for i, pos in enumerate(batch_positions)}
        results.append(UnitResult(
            unit,
            np.asarray(batch.moves, dtype=np.int64),
            np.asarray(batch.reached, dtype=bool),
            np.asarray(batch.capped, dtype=bool),
            _marked_choices(batch),
            samples,
            time.perf_counter() - began,
            kernel,
        ))
    return results


def _marked_choices(batch: Any) -> dict[str, np.ndarray]:
    """The batch's choice records at marked cells, marks as names (`Batch.mark_names`)."""
    rows = batch.choices[batch.choices["mark"] >= 0]
    columns = {name: np.asarray(rows[name]) for name in CHOICE_COLUMNS}
    names = np.array(tuple(batch.mark_names) or ("",), dtype=object)
    columns["mark"] = names[columns["mark"].astype(np.int64)]
    return columns


def direction_name(value: Any) -> str:
    """A stored direction: the canonical name for an index, the text otherwise ('' for none)."""
    if isinstance(value, (int, np.integer)):
        return DIRECTIONS[value] if 0 <= value < len(DIRECTIONS) else ""
    return "" if value is None else str(value)
