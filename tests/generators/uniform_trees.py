"""A chi-square check that a generator draws every spanning tree of a small grid equally often."""

from collections import Counter

import numpy as np
from scipy.stats import chisquare

SIZE = (5, 7)  # 2 x 3 rooms
TREES = 15  # spanning trees of the 2 x 3 grid graph
SAMPLES = 3000


def tree_counts(function) -> Counter:
    return Counter(function(SIZE, np.random.default_rng(seed)).tobytes() for seed in range(SAMPLES))


def uniformity_pvalue(function) -> float:
    counts = tree_counts(function)
    observed = list(counts.values()) + [0] * (TREES - len(counts))
    return float(chisquare(observed).pvalue)
