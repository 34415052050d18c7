"""The walks a predictive check compares, measured the same way for people and for models: steps,
revisits, the step at which the exit comes into sight, the first choice at a probe junction and
the visits of every cell (`mazesim.humans.predict.run`).

A model walks through its agent's compiled batch (`KernelAgent.run_trials`): the walks of every
person on a maze in one call per parameter set (consecutive people sharing their parameters
share the call; the walks do not depend on it, each has its own stream).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mazesim.agents import Vision, make_agent
from mazesim.agents.base import trial_streams
from mazesim.agents.vision import seen_cells
from mazesim.humans.predict._kernels import walk_measures
from mazesim.maze import Maze
from mazesim.records import CHOSEN, FIRST

__all__ = ["Walked", "sight_of_goal", "probe_cell", "people_walks", "model_walks"]

NO_CHOICE = -1
"""`Walked.first` of a walk that never left the probe (or of a maze without one)."""
CHUNK_MOVES = 2_500_000
"""Most moves (trials x max_steps) one batch of a model's walks keeps: about 110 MB while
walking (`limits.MAX_KEPT_MOVES` is ten times that, for one batch of a whole check)."""
_PER_WALK = ("steps", "reached", "revisits", "exit_seen", "first")


@dataclass(frozen=True, eq=False)
class Walked:
    """Measures of the walks of one maze, one item per walk: `steps` (moves), `reached`,
    `revisits`, `exit_seen` (the step at which the exit is first in sight, -1 never), `first`
    (direction of the first departure from the probe junction, -1 none); `visits` (H, W) the
    visits of every cell summed over the walks."""

    steps: np.ndarray
    reached: np.ndarray
    revisits: np.ndarray
    exit_seen: np.ndarray
    first: np.ndarray
    visits: np.ndarray


def sight_of_goal(maze: Maze, vision: Vision) -> np.ndarray:
    """Uint8 (H * W,): 1 at each passage from which the goal is in sight under `vision` (what
    the maze shows at the start included: the perception kernel's rule)."""
    out = np.zeros(maze.grid.size, np.uint8)
    for r, c in np.argwhere(maze.grid == 0):
        out[r * maze.shape[1] + c] = seen_cells(maze, [[r, c]], vision)[maze.goal]
    return out


def probe_cell(maze: Maze, walks: Sequence[np.ndarray], decisions: Sequence[np.ndarray]
               ) -> tuple[int, int] | None:
    """The junction people leave first most often (their first choice is compared there):
    `decisions[k]` are the steps of walk k's junction decisions; ties to the first cell in
    row order; None when no walk made a decision."""
    firsts = [tuple(int(v) for v in w[d[0]]) for w, d in zip(walks, decisions) if len(d)]
    if not firsts:
        return None
    cells, counts = np.unique(np.array(firsts), axis=0, return_counts=True)
    return tuple(int(v) for v in cells[int(np.argmax(counts))])


def people_walks(maze: Maze, walks: Sequence[np.ndarray], decisions: Sequence[np.ndarray],
                 chosen: Sequence[np.ndarray], sight: np.ndarray,
                 probe: tuple[int, int] | None) -> Walked:
    """The measures of recorded walks (positions (T+1, 2)); `decisions[k]`, `chosen[k]` the
    steps and directions of walk k's junction decisions."""
    moves = np.array([len(w) - 1 for w in walks], np.int64)
    reached = np.array([tuple(w[-1]) == maze.goal for w in walks], bool)
    first = np.full(len(walks), NO_CHOICE, np.int64)
    if probe is not None:
        for k, (w, d, c) in enumerate(zip(walks, decisions, chosen)):
            at = np.flatnonzero((w[d, 0] == probe[0]) & (w[d, 1] == probe[1]))
            if len(at):
                first[k] = c[at[0]]
    stacked = np.concatenate(walks) if walks else np.zeros((0, 2), np.int64)
    return _measured(maze, stacked, moves, reached, first, sight)


def model_walks(maze: Maze, vision: Vision, agent_name: str, settings: Sequence[dict],
                walks: int, entropy: Sequence[int], keys: Sequence[int], sight: np.ndarray,
                probe: tuple[int, int] | None) -> Walked:
    """`walks` walks of the agent per person on `maze`: person k walks with the config keys
    `settings[k]` and the streams of `SeedSequence(entropy, spawn_key=(keys[k],))`. Walked
    in batches of at most `CHUNK_MOVES` moves (trials x max_steps), each measured and its
    positions dropped before the next: memory does not grow with people x walks."""
    record = np.zeros(maze.shape, np.bool_)
    if probe is not None:
        record[probe] = True
    parts = []
    k = 0
    while k < len(settings):
        agent = make_agent(agent_name, **settings[k])
        max_steps = agent.resolved_max_steps(maze)
        end = k + 1
        while end < len(settings) and settings[end] == settings[k]:
            end += 1
        streams = np.concatenate([trial_streams(np.random.SeedSequence(
            list(entropy), spawn_key=(int(key),)), walks) for key in keys[k:end]])
        per = max(1, CHUNK_MOVES // max(max_steps, 1))
        for at in range(0, len(streams), per):
            batch = agent.run_trials(maze, vision, streams[at:at + per], max_steps, keep=True,
                                     record=record)
            first = np.full(len(batch.moves), NO_CHOICE, np.int64)
            if len(batch.rows):           # rows only at the probe: FIRST = its first
                firsts = batch.rows[:, FIRST] == 1
                first[batch.row_trials[firsts]] = batch.rows[firsts, CHOSEN]
            parts.append(_measured(maze, batch.positions, batch.moves.astype(np.int64),
                                   batch.reached.astype(bool), first, sight))
        k = end
    return Walked(*(np.concatenate([getattr(p, f) for p in parts]) for f in _PER_WALK),
                  sum(p.visits for p in parts))


def _measured(maze: Maze, stacked: np.ndarray, moves: np.ndarray, reached: np.ndarray,
              first: np.ndarray, sight: np.ndarray) -> Walked:
    flat = stacked[:, 0].astype(np.int64) * maze.shape[1] + stacked[:, 1]
    revisits, exit_seen, visits = walk_measures(flat, moves, sight, maze.grid.size)
    return Walked(moves, reached, revisits, exit_seen, first, visits.reshape(maze.shape))
