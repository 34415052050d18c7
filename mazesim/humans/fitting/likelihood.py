"""The likelihood every fit is scored by: p(chosen) mixed with a lapse (`with_lapse`, the walking
loop's formula), its floored log (`log_chosen`), the lapse that maximises it (`best_lapse`), and
the weights that count every person once (`person_weights`)."""

from __future__ import annotations

import numpy as np

__all__ = ["TINY", "with_lapse", "log_chosen", "best_lapse", "log_likelihood",
           "person_weights"]

TINY = 1e-300                   # floor of a probability inside a log
_NEWTON_STEPS = 100             # most steps of the lapse search (it takes about ten)
_LAPSE_TOLERANCE = 1e-13


def with_lapse(chosen: np.ndarray, n_open: np.ndarray, lapse: float) -> np.ndarray:
    """p(chosen) with a lapse: (1 - lapse) p + lapse / (open directions), as the walking loop
    mixes it (`mazesim.agents._walk_loop`)."""
    return (1.0 - lapse) * chosen + lapse / n_open


def log_chosen(chosen: np.ndarray, n_open: np.ndarray, lapse: float) -> np.ndarray:
    """The natural log of p(chosen) with the lapse, floored at `TINY` (an impossible choice
    costs about 690 nats, not infinity)."""
    return np.log(np.maximum(with_lapse(chosen, n_open, lapse), TINY))


def best_lapse(chosen: np.ndarray, n_open: np.ndarray, weights: np.ndarray | None = None
                ) -> tuple[float, float]:
    """(lapse, log-likelihood) maximising the likelihood of p(chosen) over the lapse in [0, 1]:
    the log-likelihood is concave in the lapse, so Newton steps on its slope, kept inside a
    bracket that bisection narrows when a step would leave it."""
    gap = 1.0 / n_open - chosen

    def slope(lapse: float) -> tuple[float, float]:
        ratio = gap / np.maximum(chosen + lapse * gap, TINY)
        with np.errstate(over="ignore"):            # an impossible choice at lapse 0: -inf
            if weights is None:
                return float(np.sum(ratio)), float(-np.sum(ratio ** 2))
            return float(np.sum(weights * ratio)), float(-np.sum(weights * ratio ** 2))

    if np.all(chosen > 0) and slope(0.0)[0] <= 0:
        lapse = 0.0
    elif slope(1.0)[0] >= 0:
        lapse = 1.0
    else:
        low, high, lapse = 0.0, 1.0, 0.5
        for _ in range(_NEWTON_STEPS):
            g, h = slope(lapse)
            low, high = (lapse, high) if g > 0 else (low, lapse)
            step = lapse - g / h if h < 0 else 0.5 * (low + high)
            if not low < step < high:
                step = 0.5 * (low + high)
            if abs(step - lapse) <= _LAPSE_TOLERANCE:
                lapse = step
                break
            lapse = step
    return lapse, log_likelihood(chosen, n_open, lapse, weights)


def log_likelihood(chosen: np.ndarray, n_open: np.ndarray, lapse: float,
                    weights: np.ndarray | None = None) -> float:
    log_p = log_chosen(chosen, n_open, lapse)
    return float(np.sum(log_p if weights is None else weights * log_p))


def person_weights(participant: np.ndarray) -> np.ndarray:
    """One weight per decision that counts every person once: the decisions' mean number per
    person (over the people with one) over its person's number (the weights sum to the
    decisions)."""
    counts = np.bincount(participant)
    return (len(participant) / np.count_nonzero(counts)) / counts[participant]
