"""The statistics of a predictive check (`mazesim.humans.predict.run`): people against a model
maze by maze, then over mazes.

- Per maze and measure (`MEASURES`: steps, revisits, the step at which the exit comes into
  sight): means with 95 % t intervals (steps and revisits over finished walks, the exit over
  the walks that saw it), and a two-sample Kolmogorov-Smirnov test of the whole distributions
  (every walk; scipy, asymptotic p: the walks are many and the steps discrete, so it is
  conservative); the first choice at the probe junction by the exact 2 x k test of the
  experiment's choices (`experiment.choices.choice_test`).
- Per model: Holm over its mazes for each measure (`experiment.statistics.holm`), the Pearson
  r of mean steps over mazes (Fisher interval), Spearman's rho, the ratio model / people.
- Held-out mazes: r, rho and the mean absolute error of mean steps with percentile intervals
  from `BOOTSTRAP_SAMPLES` resamples of the mazes (seeded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import stats

from mazesim.experiment.choices import choice_test
from mazesim.experiment.statistics import CONFIDENCE, fisher_interval, holm
from mazesim.humans.predict.walks import NO_CHOICE, Walked
from mazesim.maze import DIRECTIONS

__all__ = ["MEASURES", "ALPHA", "BOOTSTRAP_SAMPLES", "Measure", "MazeCheck", "HeldOut",
           "ModelCheck", "compare_walks", "held_out", "model_check"]

MEASURES = ("steps", "revisits", "exit_seen")
FIRST = "first"
ALPHA = 0.05
"""Family-wise level of 'differs' after Holm."""
BOOTSTRAP_SAMPLES = 2000
_BOOTSTRAP_STREAM = 2


@dataclass(frozen=True)
class Measure:
    """One measure on one maze: people's and the model's means with intervals, the KS p."""

    people_mean: float
    people_low: float
    people_high: float
    model_mean: float
    model_low: float
    model_high: float
    p: float


@dataclass(frozen=True, eq=False)
class MazeCheck:
    """People against one model on one maze."""

    maze: str
    trials: int
    walks: int
    steps: Measure
    revisits: Measure
    exit_seen: Measure
    unfinished_people: float
    unfinished_model: float
    probe: tuple[int, int] | None
    first_people: dict[str, int]
    first_model: dict[str, int]
    first_p: float
    visits: np.ndarray = field(repr=False)

    def p(self, measure: str) -> float:
        return self.first_p if measure == FIRST else getattr(self, measure).p


@dataclass(frozen=True)
class HeldOut:
    """Mean steps of held-out mazes against people's: r, rho, mean absolute error, intervals;
    the r of unfinished shares (None where people have no unfinished trial)."""

    predicted: tuple[float, ...]
    r: float
    r_ci: tuple[float, float]
    rho: float
    rho_ci: tuple[float, float]
    mae: float
    mae_ci: tuple[float, float]
    unfinished_r: float | None

    def to_json(self) -> dict:
        return {"r": _finite(self.r), "r_ci": _pair(self.r_ci), "rho": _finite(self.rho),
                "rho_ci": _pair(self.rho_ci), "mae": _finite(self.mae),
                "mae_ci": _pair(self.mae_ci), "unfinished_r": _finite(self.unfinished_r)}


@dataclass(frozen=True, eq=False)
class ModelCheck:
    """One model over every maze: the maze checks, Holm-adjusted p per measure, summaries."""

    name: str
    agent: str
    own_params: int
    mazes: tuple[MazeCheck, ...]
    adjusted: dict[str, np.ndarray]
    maze_r: float
    maze_r_ci: tuple[float, float]
    maze_rho: float
    ratio_median: float
    heldout: HeldOut | None

    def differ(self, measure: str = "steps") -> list[int]:
        """The mazes (indices) whose `measure` differs from people's after Holm."""
        return [int(i) for i in np.flatnonzero(self.adjusted[measure] < ALPHA)]

    def to_json(self, names: Sequence[str]) -> dict:
        return {"name": self.name, "agent": self.agent, "own_params": self.own_params,
                "maze_r": _finite(self.maze_r), "maze_r_ci": _pair(self.maze_r_ci),
                "maze_rho": _finite(self.maze_rho), "ratio_median": _finite(self.ratio_median),
                "heldout_r": None if self.heldout is None else _finite(self.heldout.r),
                "differ": [names[i] for i in self.differ()],
                "differ_counts": {m: len(self.differ(m)) for m in (*MEASURES, FIRST)},
                "heldout": None if self.heldout is None else self.heldout.to_json()}


def compare_walks(name: str, people: Walked, model: Walked, probe: tuple[int, int] | None
                  ) -> MazeCheck:
    """People's walks of one maze against a model's."""
    def measure(key: str) -> Measure:
        a, b = getattr(people, key), getattr(model, key)
        if key == "exit_seen":
            a, b = a[a >= 0], b[b >= 0]
            counted_a, counted_b = a, b
        else:
            counted_a, counted_b = a[people.reached], b[model.reached]
        p = (float(stats.ks_2samp(a, b, method="asymp").pvalue) if len(a) and len(b)
             else float("nan"))
        return Measure(*_mean_ci(counted_a), *_mean_ci(counted_b), p)

    first_people, first_model = _counts(people.first), _counts(model.first)
    first_p = float("nan")
    if probe is not None and sum(first_people.values()) and sum(first_model.values()):
        first_p = choice_test("model", "", name, first_model, first_people).fisher_p
    return MazeCheck(name, len(people.steps), len(model.steps), measure("steps"),
                     measure("revisits"), measure("exit_seen"),
                     float(1.0 - people.reached.mean()), float(1.0 - model.reached.mean()),
                     probe, first_people, first_model, first_p, model.visits)


def model_check(name: str, agent: str, own_params: int, mazes: Sequence[MazeCheck],
                heldout: HeldOut | None) -> ModelCheck:
    """The summaries of one model's maze checks (the module docstring)."""
    adjusted = {m: holm([c.p(m) for c in mazes]) for m in (*MEASURES, FIRST)}
    people = np.array([c.steps.people_mean for c in mazes])
    model = np.array([c.steps.model_mean for c in mazes])
    ok = np.isfinite(people) & np.isfinite(model)
    r = rho = float("nan")
    if ok.sum() >= 3 and np.ptp(people[ok]) > 0 and np.ptp(model[ok]) > 0:
        r = float(stats.pearsonr(people[ok], model[ok])[0])
        rho = float(stats.spearmanr(people[ok], model[ok])[0])
    ratio = float(np.median(model[ok] / people[ok])) if ok.any() else float("nan")
    return ModelCheck(name, agent, own_params, tuple(mazes), adjusted, r,
                      fisher_interval(r, int(ok.sum())) if math.isfinite(r)
                      else (float("nan"), float("nan")), rho, ratio, heldout)


def held_out(people: np.ndarray, predicted: np.ndarray, unfinished: np.ndarray | None,
             seed: int, unfinished_predicted: np.ndarray | None = None) -> HeldOut:
    """People's mean steps per maze against the held-out predictions, with intervals from a
    bootstrap of the mazes (`seed`; the same resamples for every model)."""
    ok = np.flatnonzero(np.isfinite(people) & np.isfinite(predicted))
    x, y = people[ok], predicted[ok]
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_BOOTSTRAP_STREAM,)))
    draws = rng.integers(0, len(ok), size=(BOOTSTRAP_SAMPLES, len(ok)))
    bx, by = x[draws], y[draws]
    tail = 100 * (1 - CONFIDENCE) / 2

    def interval(values: np.ndarray) -> tuple[float, float]:
        values = values[np.isfinite(values)]
        if not len(values):
            return float("nan"), float("nan")
        low, high = np.percentile(values, [tail, 100 - tail])
        return float(low), float(high)

    unfinished_r = None
    if unfinished is not None and unfinished_predicted is not None:
        unfinished_r = _r(unfinished[None, ok], unfinished_predicted[None, ok])[0]
    return HeldOut(tuple(float(v) for v in predicted), float(_r(x[None], y[None])[0]),
                   interval(_r(bx, by)), float(_r(_rank(x)[None], _rank(y)[None])[0]),
                   interval(_r(_rank(bx), _rank(by))), float(np.abs(x - y).mean()),
                   interval(np.abs(bx - by).mean(axis=1)), unfinished_r)


def _r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair (NaN where one is constant)."""
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x * y).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))


def _rank(v: np.ndarray) -> np.ndarray:
    return stats.rankdata(v, axis=-1)


def _mean_ci(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and its t interval at `CONFIDENCE` (NaN where too few values)."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1) * values.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half


def _counts(first: np.ndarray) -> dict[str, int]:
    tally = np.bincount(first[first != NO_CHOICE], minlength=len(DIRECTIONS))
    return {d: int(n) for d, n in zip(DIRECTIONS, tally) if n}


def _finite(value: float | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _pair(pair: tuple[float, float]) -> list[float] | None:
    return [float(v) for v in pair] if all(map(math.isfinite, pair)) else None
