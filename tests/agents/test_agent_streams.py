"""The agents' random streams: numpy's SeedSequence words reproduced exactly, xoshiro256**."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.agents import Vision, make_agent
from numba import njit

from mazesim.agents._streams import seed_words, xoshiro_double
from mazesim.agents.base import trial_streams
from mazesim.maze import parse_maze


@given(entropy=st.integers(0, 2**130), key=st.lists(st.integers(0, 2**40), max_size=3),
       pool_size=st.sampled_from([4, 8]), trials=st.integers(1, 5),
       first=st.sampled_from([0, 1, 7, 2**32 - 6]))
def test_trial_streams_equal_numpy_seed_sequences(entropy, key, pool_size, trials, first):
    parent = np.random.SeedSequence(entropy, spawn_key=tuple(key), pool_size=pool_size)
    states = trial_streams(parent, trials, first)
    expected = [np.random.SeedSequence(entropy, spawn_key=tuple(key) + (first + i,),
                                       pool_size=pool_size).generate_state(4, np.uint64)
                for i in range(trials)]
    assert np.array_equal(states, np.array(expected))


def test_seed_words():
    assert seed_words(0).tolist() == [0]
    assert seed_words(2**32 + 5).tolist() == [5, 1]
    assert seed_words((1, 2**32)).tolist() == [1, 0, 1]
    assert seed_words(()).tolist() == []


@njit
def _draws(words, n):
    s0, s1, s2, s3 = words[0], words[1], words[2], words[3]
    out = np.empty(n)
    for k in range(n):
        s0, s1, s2, s3, out[k] = xoshiro_double(s0, s1, s2, s3)
    return out


def _xoshiro_reference(words, n):
    """xoshiro256** as Blackman and Vigna publish it, in Python integers; the top 53 bits."""
    mask = (1 << 64) - 1
    rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & mask  # noqa: E731
    s = [int(w) for w in words]
    out = []
    for _ in range(n):
        result = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        out.append((result >> 11) * 2.0 ** -53)
    return out


def test_xoshiro_matches_the_published_generator_and_is_uniform():
    words = np.random.SeedSequence(7).generate_state(4, np.uint64)
    draws = _draws(words, 20_000)
    assert draws[:500].tolist() == _xoshiro_reference(words, 500)
    assert draws.min() >= 0.0 and draws.max() < 1.0
    assert abs(draws.mean() - 0.5) < 4.5 * np.sqrt(1 / 12 / len(draws))
    assert len(set(draws.tolist())) == len(draws)


def test_walk_takes_a_generator():
    maze = parse_maze("#######\n#S....#\n#.###.#\n#....G#\n#######")
    agent = make_agent("random-walk", goal_seeking=False)
    a = agent.walk(maze, Vision(0), np.random.default_rng(4), 50)
    b = agent.walk(maze, Vision(0), np.random.default_rng(4), 50)
    assert np.array_equal(a, b) and tuple(a[0]) == (1, 1) and len(a) <= 51
