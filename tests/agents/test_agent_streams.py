"""The agents' random streams: numpy's SeedSequence words reproduced exactly, xoshiro256**."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.agents import Vision, make_agent
from mazesim.agents._streams import next_double, seed_words, trial_states
from mazesim.maze import parse_maze


@given(entropy=st.integers(0, 2**130), key=st.lists(st.integers(0, 2**40), max_size=3),
       pool_size=st.sampled_from([4, 8]), trials=st.integers(1, 5))
def test_trial_states_equal_numpy_seed_sequences(entropy, key, pool_size, trials):
    parent = np.random.SeedSequence(entropy, spawn_key=tuple(key), pool_size=pool_size)
    states = trial_states(seed_words(parent.entropy), seed_words(parent.spawn_key), trials,
                          pool_size)
    expected = [np.random.SeedSequence(entropy, spawn_key=tuple(key) + (i,),
                                       pool_size=pool_size).generate_state(4, np.uint64)
                for i in range(trials)]
    assert np.array_equal(states, np.array(expected))


def test_seed_words():
    assert seed_words(0).tolist() == [0]
    assert seed_words(2**32 + 5).tolist() == [5, 1]
    assert seed_words((1, 2**32)).tolist() == [1, 0, 1]
    assert seed_words(()).tolist() == []


def test_next_double_is_uniform():
    state = np.array([1, 2, 3, 4], np.uint64)
    draws = np.array([next_double(state) for _ in range(20_000)])
    assert draws.min() >= 0.0 and draws.max() < 1.0
    assert abs(draws.mean() - 0.5) < 4.5 * np.sqrt(1 / 12 / len(draws))
    assert len(set(draws.tolist())) == len(draws)


def test_walk_takes_a_generator():
    maze = parse_maze("#######\n#S....#\n#.###.#\n#....G#\n#######")
    agent = make_agent("random-walk", goal_seeking=False)
    a = agent.walk(maze, Vision(0), np.random.default_rng(4), 50)
    b = agent.walk(maze, Vision(0), np.random.default_rng(4), 50)
    assert np.array_equal(a, b) and tuple(a[0]) == (1, 1) and len(a) <= 51
