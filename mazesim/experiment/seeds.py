"""Seed streams of an experiment (DESIGN.md section 8): spawned by coordinates, never by order.

Maze `i` of generator block `b` gets `SeedSequence(root, spawn_key=(MAZE_STREAM, b, i))`, turned
into the int seed `generate` takes (stored with the maze). The trials of one sweep cell get
`SeedSequence(root, spawn_key=(maze_id, agent_index, vision_index))`; trial `i` inside it is
`simulate.trial_seed(cell, i)`. Results therefore do not depend on order, workers or resume.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAZE_STREAM", "maze_seed", "cell_seed", "trial_seed_labels"]

MAZE_STREAM = 2**32 - 1  # first spawn-key word of maze streams: never a maze index


def maze_seed(root: int, block: int, index: int) -> int:
    """The int seed of maze `index` of generator block `block`."""
    state = np.random.SeedSequence(root, spawn_key=(MAZE_STREAM, block, index))
    return int(state.generate_state(1, np.uint32)[0])


def cell_seed(root: int, maze_id: int, agent: int, vision: int) -> np.random.SeedSequence:
    """The seed sequence of one sweep cell (all trials of one maze, agent and vision)."""
    return np.random.SeedSequence(root, spawn_key=(maze_id, agent, vision))


def trial_seed_labels(root: int, maze_id: int, agent: int, vision: int, trials: int
                      ) -> list[str]:
    """The stored text of the seeds of trials 0 to `trials` - 1 of one cell: root entropy and
    spawn key of each trial's stream (`root:m.a.v.i`)."""
    prefix = f"{root}:{maze_id}.{agent}.{vision}."
    return [prefix + str(i) for i in range(trials)]
