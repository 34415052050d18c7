"""Work units of a sweep and the function that runs them (in this process, a worker or on Dask).

A unit is one (maze, agent, vision) cell of the sweep with all its trials. Units of one maze travel
together as a `Chunk` (the maze is sent once); `run_chunk` is a plain module-level function of
picklable data (a `Maze`, built agents, `Vision`s), so local processes and Dask workers run
exactly the same code. What a chunk sends back is what the main process stores as it is: its
`trials` and `choices` rows as the image of an sqlite database (`storage.trial_image`) and its
sampled trajectories as the bytes of one `.npz` file, both packed where they were walked (the
main process of a run with many workers is its serial part: it copies them in C).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mazesim.agents import AgentBase, Vision
from mazesim.experiment.sample_files import pack_samples
from mazesim.experiment.seeds import cell_seed, trial_seed_labels
from mazesim.experiment.storage import TrialRows, trial_image
from mazesim.limits import MAX_KEPT_MOVES
from mazesim.maze import Maze
from mazesim.records import Batch
from mazesim.walks import simulate_many

__all__ = ["Unit", "Chunk", "UnitResult", "ChunkResult", "run_chunk", "SLICE_SECONDS"]

SLICE_SECONDS = 0.25
"""With a progress hook (a run in this process), a unit's trials are walked in parts of about
this long, each reported when done: the bar moves several times a second, same results."""


@dataclass(frozen=True, eq=False)
class Unit:
    """One sweep cell: coordinates, what to run, where its trial ids start and the labels of
    its agent and vision as stored."""

    unit_id: int
    maze_id: int
    agent_index: int
    vision_index: int
    agent: AgentBase
    vision: Vision
    trials: int
    first_trial_id: int
    samples: int
    agent_label: str
    vision_label: str


@dataclass(frozen=True, eq=False)
class Chunk:
    """Units that share one maze, with the maze and the root seed."""

    root: int
    maze: Maze
    units: tuple[Unit, ...]


@dataclass(frozen=True, eq=False)
class UnitResult:
    """One unit's timings and how many of its trials are sampled (its rows: the chunk's)."""

    unit: Unit
    sampled: int                       # the first `sampled` trials are in the chunk's samples
    seconds: float
    kernel_seconds: float


@dataclass(frozen=True, eq=False)
class ChunkResult:
    """The units of a chunk, the `trials` and `choices` rows of all of them as one database
    image (`storage.trial_image`) and their sampled trajectories as one `.npz` file's bytes
    (`sample_files.pack_samples`, keyed by trial id; empty when none was sampled)."""

    units: tuple[UnitResult, ...]
    rows: bytes
    samples: bytes
    sample_ids: tuple[int, ...]        # the trial ids in `samples`, ascending


def run_chunk(chunk: Chunk, walked: Callable[[int], None] | None = None,
              slice_seconds: float = SLICE_SECONDS) -> ChunkResult:
    """Run every unit of `chunk`; deterministic for the chunk's data (seeds by coordinates).
    `walked(n)`, if given, hears of every n trials walked, in parts of about `slice_seconds`."""
    results, rows, samples = [], [], {}
    for unit in chunk.units:
        began = time.perf_counter()
        seed = cell_seed(chunk.root, unit.maze_id, unit.agent_index, unit.vision_index)
        kernel_began = time.perf_counter()
        batch = (simulate_many(chunk.maze, unit.agent, unit.vision, unit.trials, seed,
                               choices="marks") if walked is None else
                 _in_parts(chunk.maze, unit, seed, walked, slice_seconds))
        sampled, again = _resampled(unit, batch.moves)
        kept = simulate_many(chunk.maze, again, unit.vision, sampled, seed,
                             keep_positions=True, choices="marks").positions if sampled else ()
        kernel = time.perf_counter() - kernel_began
        samples.update((unit.first_trial_id + i, pos) for i, pos in enumerate(kept))
        results.append(UnitResult(unit, sampled, time.perf_counter() - began, kernel))
        rows.append(_trial_rows(chunk.root, unit, batch))
    return ChunkResult(tuple(results), trial_image(rows),
                       pack_samples(samples) if samples else b"", tuple(sorted(samples)))


def _trial_rows(root: int, unit: Unit, batch: Batch) -> TrialRows:
    """The unit's trials as stored: ids from `first_trial_id`, seed labels by coordinates."""
    n = len(batch.moves)
    return TrialRows(
        maze_id=unit.maze_id, agent=unit.agent_label, vision=unit.vision_label,
        trial_ids=range(unit.first_trial_id, unit.first_trial_id + n), numbers=range(n),
        seeds=trial_seed_labels(root, unit.maze_id, unit.agent_index, unit.vision_index, n),
        moves=batch.moves, reached=batch.reached, capped=batch.capped, choices=batch.choices,
        mark_names=batch.mark_names)


def _in_parts(maze: Maze, unit: Unit, seed: int, walked: Callable[[int], None],
              slice_seconds: float) -> Batch:
    """`simulate_many` of the unit's trials as consecutive parts (trial i is the same trial
    whatever the parts), each about `slice_seconds` long at the rate of the one before (at most
    four times longer), `walked` told after each; the parts joined as one batch."""
    parts: list[Batch] = []
    choices: list[np.ndarray] = []
    first, size = 0, 1
    while first < unit.trials or not parts:
        size = min(size, unit.trials - first)
        clock = time.perf_counter()
        parts.append(simulate_many(maze, unit.agent, unit.vision, size, seed, choices="marks",
                                   first=first))
        choices.append(parts[-1].choices.copy())
        choices[-1]["trial"] += first
        first += size
        walked(size)
        rate = size / max(time.perf_counter() - clock, 1e-9)
        size = max(1, min(int(rate * slice_seconds), 4 * size))
    return Batch(*(np.concatenate([getattr(p, name) for p in parts])
                   for name in ("moves", "reached", "capped")), np.concatenate(choices),
                 parts[0].mark_names)


def _resampled(unit: Unit, moves: np.ndarray) -> tuple[int, AgentBase]:
    """How many of the first trials to keep as samples, and the agent that walks them again.

    Trial i of a shorter batch is trial i, so the sampled trials are walked again with their
    positions kept (cheaper than keeping every trial's). Their lengths are known by now: the
    agent stops at the longest of them (the walks are the same, `max_steps` only ends them), so
    memory is bounded by what they really take, and fewer are kept when even that would pass
    `limits.MAX_KEPT_MOVES`.
    """
    sampled = min(unit.samples, unit.trials)
    while sampled and sampled * int(moves[:sampled].max()) > MAX_KEPT_MOVES:
        sampled -= 1
    longest = int(moves[:sampled].max()) if sampled else 0
    return sampled, dataclasses.replace(unit.agent, max_steps=longest)
