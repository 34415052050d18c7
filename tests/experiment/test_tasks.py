"""Work units: sampled trajectories are the trials' own walks, and their memory is bounded by
what they really take (not by max_steps)."""

import numpy as np

from mazesim.agents import Vision, make_agent
from mazesim.experiment import tasks
from mazesim.experiment.seeds import cell_seed
from mazesim.experiment.tasks import Chunk, Unit, run_chunk
from mazesim.generators import generate
from mazesim.walks import simulate_many

MAZE = generate("digging", 15, seed=3)


def _unit(agent, trials=6, samples=3):
    return Unit(0, 0, 0, 0, agent, Vision(), trials, 0, samples)


def test_samples_are_the_first_trials_walked_again():
    agent = make_agent("random-walk")
    (result,) = run_chunk(Chunk(5, MAZE, (_unit(agent),)))
    full = simulate_many(MAZE, agent, Vision(), 6, cell_seed(5, 0, 0, 0), keep_positions=True)
    assert sorted(result.samples) == [0, 1, 2]
    for i, positions in result.samples.items():
        np.testing.assert_array_equal(positions, full.positions[i])
        assert positions.dtype == np.int32             # not int16: wide mazes overflowed it


def test_sampled_positions_fit_the_kept_moves_ceiling(monkeypatch):
    agent = make_agent("random-walk")
    moves = simulate_many(MAZE, agent, Vision(), 6, cell_seed(5, 0, 0, 0)).moves
    longest2 = int(moves[:2].max())
    monkeypatch.setattr(tasks, "MAX_KEPT_MOVES", 2 * longest2)     # room for two, not three
    (result,) = run_chunk(Chunk(5, MAZE, (_unit(agent),)))
    assert sorted(result.samples) == [0, 1]
    sampled, again = tasks._resampled(_unit(agent), moves)
    assert again.max_steps == int(moves[:sampled].max())          # stops at the longest
