"""Compiled sums of the conditional logit over groups of choices
(`mazesim.humans.fitting.mixed_logit`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def logit_sums(features, start, chosen, group_start, weights, order):
    """Per group g: the log-likelihood, its gradient (order >= 1) and (order 2) the
    information (minus the Hessian) of the choices of g under the weights `weights[g]`; and
    log P(chosen) of every choice.

    Choices are consecutive in `group_start[g]:group_start[g + 1]`; choice o offers the rows
    `start[o]:start[o + 1]` of `features` (rows, k) and took row `chosen[o]`.
    """
    groups, k = weights.shape
    ll = np.zeros(groups)
    grad = np.zeros((groups, k))
    info = np.zeros((groups, k, k))
    each = np.empty(len(chosen))
    u = np.empty(features.shape[0])
    mean = np.empty(k)
    for g in range(groups):
        w = weights[g]
        for o in range(group_start[g], group_start[g + 1]):
            a, b = start[o], start[o + 1]
            top = -np.inf
            for r in range(a, b):
                s = 0.0
                for j in range(k):
                    s += features[r, j] * w[j]
                u[r] = s
                top = max(top, s)
            total = 0.0
            for r in range(a, b):
                u[r] = np.exp(u[r] - top)
                total += u[r]
            c = chosen[o]
            each[o] = np.log(u[c] / total)
            ll[g] += each[o]
            if order == 0:
                continue
            mean[:] = 0.0
            for r in range(a, b):
                p = u[r] / total
                u[r] = p
                for j in range(k):
                    mean[j] += p * features[r, j]
            for j in range(k):
                grad[g, j] += features[c, j] - mean[j]
            if order == 1:
                continue
            for r in range(a, b):
                p = u[r]
                for i in range(k):
                    x = p * (features[r, i] - mean[i])
                    for j in range(i + 1):
                        info[g, i, j] += x * (features[r, j] - mean[j])
    if order == 2:
        for g in range(groups):
            for i in range(k):
                for j in range(i):
                    info[g, j, i] = info[g, i, j]
    return ll, grad, info, each
