"""One probability source: what a fit scores is what the agents walk with.

Two links of the chain, over every model `mazesim fit` fits by default:
- the fit's reading of a model at a parameter setting (`build_model(...).chosen`) is the agent's
  own `step_probabilities` at the chosen direction, for the logit in numpy too;
- the walking loop draws its moves with those probabilities: on a small maze with few distinct
  walks, each walk's frequency over many seeded trials is the product of `step_probabilities`
  along it (a binomial bound at 5 standard errors).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mazesim.agents import Vision, make_agent
from mazesim.humans import default_models, load_human_run
from mazesim.humans.fitting.models import PlanSteps, build_model, parse_model
from mazesim.maze import parse_maze
from mazesim.walks import simulate_many

MODELS = default_models()

# a loop, two dead ends and a side corridor: few distinct walks of at most 8 moves
LOOP = parse_maze("""
#######
#S....#
#.#.#.#
#...#.#
###.#G#
#######
""")


@pytest.fixture(scope="module")
def experiment(experiment_1_run):
    return load_human_run(experiment_1_run)


def _setting(spec, rng) -> tuple[np.ndarray, dict]:
    """A random point inside each fitted parameter's bounds, as the fit's theta and as keys."""
    theta = np.array([rng.uniform(*p.bounds()) for p in spec.free])
    return theta, {p.name: p.value(x) for p, x in zip(spec.free, theta)}


@pytest.mark.parametrize("name", MODELS)
def test_the_fit_reads_what_the_agent_gives(experiment, name):
    spec = parse_model(name)
    model = build_model(spec, experiment, PlanSteps(experiment))
    theta, values = _setting(spec, np.random.default_rng(len(name)))
    agent = spec.make(values)
    d = experiment.decisions
    rows = np.flatnonzero(d.trial < 150)
    trials = experiment.trials
    expected = np.array([agent.step_probabilities(
        experiment.mazes[trials[t].maze_id], trials[t].vision, trials[t].positions)[s, c]
        for t, s, c in zip(d.trial[rows], d.step[rows], d.chosen[rows])])
    assert len(rows) > 300
    assert np.allclose(model.chosen(theta, rows), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_walks_are_drawn_with_the_probabilities_the_fit_reads(name):
    spec = parse_model(name)
    _, values = _setting(spec, np.random.default_rng(7 + len(name)))
    agent = make_agent(name, **{**values, "lapse": 0.2, "max_steps": 8})
    vision, n = Vision(1), 20_000
    batch = simulate_many(LOOP, agent, vision, n, seed=11, keep_positions=True)
    counts = Counter(tuple(map(tuple, walk.tolist())) for walk in batch.positions)
    for walk, seen in counts.most_common(6):
        probs = agent.step_probabilities(LOOP, vision, np.array(walk))
        moves = np.diff(np.array(walk), axis=0)
        chosen = np.select([moves[:, 0] < 0, moves[:, 1] > 0, moves[:, 0] > 0], [0, 1, 2], 3)
        p = float(np.prod(probs[np.arange(len(chosen)), chosen]))
        assert abs(seen / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9, (walk, seen / n, p)
