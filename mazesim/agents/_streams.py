"""Random streams for the agent kernels: numpy's SeedSequence mixing and xoshiro256** in numba.

A trial's stream is four uint64 words, `SeedSequence.generate_state(4, np.uint64)` of the
trial's seed sequence; the walk draws from them with xoshiro256** (Blackman and Vigna). Passing
a `numpy.random.Generator` into a kernel costs about 18 us per call, more than a whole trial on a
31x31 maze, so a batch derives every trial's words in one compiled loop (`trial_states`, exactly
numpy's algorithm, checked against it in the tests) and walks all trials in one call.
"""

import numpy as np
from numba import njit

__all__ = ["STATE_WORDS", "trial_states", "xoshiro_double", "seed_words"]

_M32 = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_L = np.uint64(0xCA01F9DD)
_MIX_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
_TWO32 = np.uint64(1 << 32)
STATE_WORDS = 4
"""xoshiro256** words of one trial's stream."""


def seed_words(value) -> np.ndarray:
    """numpy's `_coerce_to_uint32_array` for an int or a sequence of ints: little-endian words."""
    if isinstance(value, (tuple, list)):
        parts = [seed_words(v) for v in value]
        return np.concatenate(parts) if parts else np.zeros(0, np.uint32)
    value = int(value)
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if value == 0:
            return np.array(words, np.uint32)


@njit(cache=True)
def _hashmix(value, hash_const):
    value = (value ^ hash_const[0]) & _M32
    hash_const[0] = (hash_const[0] * _MULT_A) & _M32
    value = (value * hash_const[0]) & _M32
    return value ^ (value >> _XSHIFT)


@njit(cache=True)
def _mix(x, y):
    result = ((_MIX_L * x) & _M32) + _TWO32 - ((_MIX_R * y) & _M32)
    result &= _M32
    return result ^ (result >> _XSHIFT)


@njit(cache=True)
def _pool(entropy, pool_size):
    """SeedSequence.mix_entropy: the pool (uint64 holding 32-bit words) of an entropy array."""
    pool = np.zeros(pool_size, np.uint64)
    hash_const = np.array([_INIT_A], np.uint64)
    for i in range(pool_size):
        word = np.uint64(entropy[i]) if i < entropy.shape[0] else np.uint64(0)
        pool[i] = _hashmix(word, hash_const)
    for src in range(pool_size):
        for dst in range(pool_size):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], hash_const))
    for src in range(pool_size, entropy.shape[0]):
        for dst in range(pool_size):
            pool[dst] = _mix(pool[dst], _hashmix(np.uint64(entropy[src]), hash_const))
    return pool


@njit(cache=True)
def _generate_state(pool, out):
    """SeedSequence.generate_state(len(out), np.uint64) into `out`."""
    hash_const = _INIT_B
    n = pool.shape[0]
    for i in range(2 * out.shape[0]):
        value = (pool[i % n] ^ hash_const) & _M32
        hash_const = (hash_const * _MULT_B) & _M32
        value = (value * hash_const) & _M32
        value ^= value >> _XSHIFT
        if i % 2 == 0:
            out[i // 2] = value
        else:
            out[i // 2] |= value << np.uint64(32)


@njit(cache=True)
def trial_states(run_words, spawn_words, first, trials, pool_size):
    """Uint64 (trials, 4): row i is the stream of trial first + i, whose seed sequence has the
    parent's entropy words `run_words` and spawn key words `spawn_words` + (first + i,)
    (first + trials <= 2**32)."""
    n_run = max(run_words.shape[0], pool_size)          # numpy pads the entropy when spawned
    entropy = np.zeros(n_run + spawn_words.shape[0] + 1, np.uint32)
    for k in range(run_words.shape[0]):
        entropy[k] = run_words[k]
    for k in range(spawn_words.shape[0]):
        entropy[n_run + k] = spawn_words[k]
    states = np.empty((trials, STATE_WORDS), np.uint64)
    for i in range(trials):
        entropy[-1] = first + i
        _generate_state(_pool(entropy, pool_size), states[i])
    return states


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def xoshiro_double(s0, s1, s2, s3):
    """One step of xoshiro256** on the state words (kept in registers by the caller): the new
    words and a uniform double in [0, 1) from the top 53 bits of the output."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    # int64 -> double is one instruction; module constants would not survive inlining
    return s0, s1, s2, s3, np.int64(result >> np.uint64(11)) * (1.0 / 9007199254740992.0)
