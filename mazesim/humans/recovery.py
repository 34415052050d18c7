"""Synthetic people for parameter and model recovery: an agent with known parameters walks every
maze once per simulated participant, and the walks are stored as a run of people (the importer's
layout, `recorder: import`, format `simulated`), so that `mazesim fit` reads them like people.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from mazesim.agents import Vision, parse_vision
from mazesim.agents.base import AgentBase
from mazesim.errors import DataError
from mazesim.humans.importer import ImportSummary, import_source
from mazesim.humans.sources import MAX_PARTICIPANTS, Recording, Source
from mazesim.maze import Maze

__all__ = ["SIMULATED", "simulate_population"]

SIMULATED = "simulated"
"""The `format` (meta) of a run of simulated people."""


def simulate_population(mazes: Mapping[str, Maze], agent: AgentBase | Sequence[AgentBase],
                        vision: Vision | str | int | Mapping, participants: int, seed: int,
                        run_dir: str | Path) -> ImportSummary:
    """Walk each maze once per participant with `agent` and store the walks as a run of people
    in `run_dir`; participant i's walk on the m-th maze (in name order) is trial i of
    `simulate_many(maze, agent, vision, participants, SeedSequence(seed, spawn_key=(m,)))`.
    `agent` may be one agent per participant (people who differ): then participant i's walk is
    the one trial of `simulate_many(maze, agent[i], vision, 1, SeedSequence(seed,
    spawn_key=(m, i)))`."""
    from mazesim.walks import simulate_many

    if isinstance(participants, bool) or not 1 <= participants <= MAX_PARTICIPANTS:
        raise DataError(f"participants: {participants!r} (allowed: 1 to {MAX_PARTICIPANTS:,})")
    each = isinstance(agent, Sequence)
    if each and len(agent) != participants:
        raise DataError(f"agents: {len(agent)} for {participants} participants (one each)")
    vision = parse_vision(vision)
    recordings = []
    width = len(str(participants))
    for m, name in enumerate(sorted(mazes)):
        if each:
            walks = [simulate_many(mazes[name], a, vision, 1,
                                   np.random.SeedSequence(seed, spawn_key=(m, i)),
                                   keep_positions=True).positions[0]
                     for i, a in enumerate(agent)]
        else:
            walks = simulate_many(mazes[name], agent, vision, participants,
                                  np.random.SeedSequence(seed, spawn_key=(m,)),
                                  keep_positions=True).positions
        for i, positions in enumerate(walks):
            line = len(recordings) + 1
            recordings.append(Recording(line, f"sim{i:0{width}d}", name, m,
                                        np.asarray(positions), np.full(len(positions), line)))
    recordings.sort(key=lambda r: (r.participant, r.number))
    label = (f"{agent[0].name}, one parameter set per participant" if each
             else f"{agent.name} {agent.params()}")
    source = Source(SIMULATED, label, tuple(recordings), (), dict(mazes), {}, vision)
    return import_source(source, run_dir)
