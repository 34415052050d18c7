"""numba kernels of `mazesim.experiment.statistics`: the ranks of the Spearman bootstrap.

A resample's ranks are counted, not sorted: the rank of a value is the number of smaller values
drawn plus (its count + 1) / 2, the average rank of its ties. Ranks are half-integers, so the
sums of ranks are exact in any order, and so (for up to 100,000 mazes) are the sums of products
of ranks centred on a half-integer mean: the results equal `scipy.stats.rankdata` followed by
numpy's means and sums bit for bit.

`values` are the data as integer codes (0 .. in the data's order). Resampling is within groups:
`groups[j]` is the group of column j, `order` the columns sorted by group (stable), and column
`order[p]` of resample b is the maze `order[start of its group + draws[b, p]]` (`draws` are the
offsets within the group that `rng.choice` of the group's columns draws).
"""

from collections import namedtuple

import numpy as np
from numba import njit

__all__ = ["resampled_ranks", "rank_products"]

Ranking = namedtuple("Ranking", ["order", "groups", "sizes", "values", "starts", "counts",
                                 "drawn", "rank_of", "means"])
"""One variable's resampling: `values` and `starts` by position in `order`; per resample the
scratch `counts` (group, value), `drawn` (value codes by column), `rank_of` (rank of each value)
and `means` (mean rank of each group)."""


@njit(cache=True)
def resampled_ranks(values, draws, order, groups):
    """The ranks of each resample minus the mean of their group along the row: float64 (B, n),
    columns in the order of the data."""
    rows, n = draws.shape
    ranking = _ranking(values, order, groups)
    out = np.empty((rows, n), np.float64)
    for b in range(rows):
        _rank(ranking, draws[b])
        for j in range(n):
            out[b, j] = ranking.rank_of[ranking.drawn[j]] - ranking.means[groups[j]]
    return out


@njit(cache=True)
def rank_products(x_values, y_values, draws):
    """The sums of x y, x x and y y of each resample's centred ranks, float64 (3, B), when
    there is one group: the sums of the products of `resampled_ranks` of x and y, without
    their (B, n) arrays."""
    rows, n = draws.shape
    order, groups = np.arange(n), np.zeros(n, np.int64)
    x, y = _ranking(x_values, order, groups), _ranking(y_values, order, groups)
    out = np.empty((3, rows), np.float64)
    for b in range(rows):
        _rank(x, draws[b])
        _rank(y, draws[b])
        sxy = sxx = syy = 0.0
        for j in range(n):
            dx = x.rank_of[x.drawn[j]] - x.means[0]      # (n + 1) / 2, exactly
            dy = y.rank_of[y.drawn[j]] - y.means[0]
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        out[0, b], out[1, b], out[2, b] = sxy, sxx, syy
    return out


@njit(cache=True)
def _ranking(values, order, groups):
    n, n_groups, n_values = len(order), groups.max() + 1, values.max() + 1
    sizes = np.zeros(n_groups, np.int64)
    for j in range(n):
        sizes[groups[j]] += 1
    group_starts = np.cumsum(sizes) - sizes
    by_position, starts = np.empty(n, np.int64), np.empty(n, np.int64)
    for p in range(n):
        by_position[p] = values[order[p]]
        starts[p] = group_starts[groups[order[p]]]
    return Ranking(order, groups, sizes, by_position, starts,
                   np.empty((n_groups, n_values), np.int64), np.empty(n, np.int64),
                   np.empty(n_values, np.float64), np.empty(n_groups, np.float64))


@njit(cache=True)
def _rank(r, draws):
    """Fill the scratch of `r` for the resample drawn by `draws` (one row)."""
    n_groups, n_values = r.counts.shape
    r.counts[:, :] = 0
    for p in range(len(r.order)):
        value = r.values[r.starts[p] + draws[p]]
        column = r.order[p]
        r.drawn[column] = value
        r.counts[r.groups[column], value] += 1
    below = 0
    for k in range(n_values):
        here = 0
        for g in range(n_groups):
            here += r.counts[g, k]
        r.rank_of[k] = below + (here + 1) / 2
        below += here
    for g in range(n_groups):
        total = 0.0
        for k in range(n_values):
            total += r.counts[g, k] * r.rank_of[k]
        r.means[g] = total / r.sizes[g]
