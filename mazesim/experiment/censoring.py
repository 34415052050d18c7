"""Capped trials as censored move counts: the restricted mean of a maze's trials.

A capped trial (`max_steps` reached) says only that the walk needed more moves than its cap.
Leaving such trials out of a maze's mean keeps the walks that happened to be short, and the more
of them a maze caps the lower its mean is biased: across mazes, that bias follows whatever makes
walks long. The restricted mean to `tau`, E[min(moves, tau)], is the area under the survival
curve of the moves up to `tau`. Its Kaplan-Meier estimate uses every trial; when no trial is
censored before `tau` (each capped trial's cap is at least `tau`) the Kaplan-Meier curve up to
`tau` is the empirical one, and the estimate is the mean of min(moves, tau) (tested against
statsmodels' `SurvfuncRight`). With `tau` the smallest cap a condition hit (`restriction_time`)
that holds on every maze of the condition, so the estimates are comparable across mazes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RESTRICTED_MEAN", "restriction_time", "clipped_moves", "restricted_mean"]

RESTRICTED_MEAN = "restricted mean"
"""The name of the estimate in the report and the CSV tables (the other is the plain "mean")."""


def restriction_time(moves: np.ndarray, capped: np.ndarray) -> float:
    """The smallest move count of a capped trial (NaN when none is capped): every maze of the
    trials is observed up to it (a maze's trials that were not capped ended within its cap)."""
    capped = np.asarray(capped, dtype=bool)
    return float(np.min(np.asarray(moves)[capped])) if capped.any() else float("nan")


def clipped_moves(moves: np.ndarray, capped: np.ndarray, tau: float) -> np.ndarray:
    """min(moves, tau) of each trial, whose mean over a maze's trials is its restricted mean;
    ValueError (a bug) when a capped trial ended before `tau`, where the mean would not be the
    Kaplan-Meier estimate."""
    moves = np.asarray(moves, dtype=float)
    if (moves[np.asarray(capped, dtype=bool)] < tau).any():
        raise ValueError(f"a capped trial ended before the restriction time {tau:g}")
    return np.minimum(moves, tau)


def restricted_mean(moves: np.ndarray, capped: np.ndarray, tau: float) -> float:
    """The restricted mean of `moves` to `tau` (NaN without trials).

    >>> restricted_mean(np.array([2, 4, 6, 10, 12]), np.array([0, 0, 0, 1, 1], bool), 10)
    6.4
    """
    values = clipped_moves(moves, capped, tau)
    return float(values.mean()) if values.size else float("nan")
