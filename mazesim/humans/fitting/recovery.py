"""Synthetic people for parameter and model recovery: an agent with known parameters walks every
maze once per simulated participant, and the walks are stored as a run of people (the importer's
layout, `recorder: import`, format `simulated`), so that `mazesim fit` reads them like people.

People who differ (`people`) draw each value around a centre; what a recovery should find is
then the population's mean of the values (`population_means`), and a pooled fit does not
estimate it: a person who lapses more walks longer and makes more junction decisions, so the
pooled likelihood weights them more (experiments/model-recovery/README.md). The mean of each
person's own fit, with a t-interval over people (`population_estimates`), counts every person
once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

from mazesim.agents import Vision, make_agent, parse_vision
from mazesim.agents.base import INTEGER, AgentBase
from mazesim.errors import DataError
from mazesim.experiment.statistics import CONFIDENCE
from mazesim.humans.fitting.results import ModelFit
from mazesim.humans.data.importer import ImportSummary, import_source
from mazesim.humans.fitting.models import parse_model
from mazesim.humans.data.sources import MAX_PARTICIPANTS, Recording, Source
from mazesim.maze import Maze

__all__ = ["SIMULATED", "PopulationEstimate", "people", "population_means",
           "population_estimates", "simulate_population"]

SIMULATED = "simulated"
"""The `format` (meta) of a run of simulated people."""
_QUADRATURE = np.linspace(-8.0, 8.0, 32_001)    # standard normal points for population_means


@dataclass(frozen=True)
class PopulationEstimate:
    """A parameter's population mean from each person's own fit: the mean over the people
    with a fit, and its `CONFIDENCE` t-interval (the spread of the people's estimates over
    the square root of their number; NaN with fewer than two)."""

    mean: float
    low: float
    high: float
    people: int

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


def people(model: str, params: Mapping[str, float], lapse: float, n: int, spread: float,
           rng: np.random.Generator) -> list[AgentBase]:
    """`n` agents of `model` who differ: each free value (and the lapse) is its centre times
    exp(N(0, `spread`)), clipped to its bounds (the lapse to at most 1), integers rounded."""
    free = parse_model(model).free
    agents = []
    for _ in range(n):
        values = {}
        for p in free:
            v = min(max(params[p.name] * math.exp(rng.normal(0.0, spread)), p.low), p.high)
            values[p.name] = round(v) if p.scale == INTEGER else v
        person_lapse = min(lapse * math.exp(rng.normal(0.0, spread)), 1.0)
        agents.append(make_agent(model, **values, lapse=person_lapse))
    return agents


def population_means(model: str, params: Mapping[str, float], lapse: float,
                     spread: float) -> dict[str, float]:
    """The mean of each free value and of the lapse over the people `people` draws: the
    generating population's values (not the centres: exp(N(0, s)) has mean exp(s^2 / 2),
    and the clipping and rounding move it too), by quadrature over the normal factor."""
    weights = stats.norm.pdf(_QUADRATURE)
    weights /= weights.sum()
    factor = np.exp(spread * _QUADRATURE)
    out = {}
    for p in parse_model(model).free:
        values = np.clip(params[p.name] * factor, p.low, p.high)
        out[p.name] = float(weights @ (np.round(values) if p.scale == INTEGER else values))
    out["lapse"] = float(weights @ np.minimum(lapse * factor, 1.0))
    return out


def population_estimates(fit: ModelFit, confidence: float = CONFIDENCE
                         ) -> dict[str, PopulationEstimate]:
    """Each parameter's (and the lapse's) population mean from the people's own fits
    (`fit_run(..., by="participant")`; DataError without them)."""
    own = [p.own for p in fit.participants if p.own is not None]
    if not own:
        raise DataError(f"{fit.model}: no participant's own fit (fit with by='participant')")
    out = {}
    for name in [*fit.estimate.params, "lapse"]:
        values = np.array([e.lapse if name == "lapse" else e.params[name] for e in own], float)
        mean, n = float(values.mean()), len(values)
        half = (float(stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1)
                      / math.sqrt(n)) if n >= 2 else float("nan"))
        out[name] = PopulationEstimate(mean, mean - half, mean + half, n)
    return out


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
