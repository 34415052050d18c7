"""The report's tables computed from a run's tables: moves per maze (the mean, or for a condition
with many capped trials their restricted mean), Table 1 with Holm's correction, the regressions
and variance inflation factors, move summaries, the choices at the probes, and the conditions
that are not findings (where vision cannot matter).

The functions read a run through `Run`, what they need of `results.Results` (which calls them
for its `maze_means`, `correlations` and `regression`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Protocol, Sequence

import numpy as np
import pandas as pd

from mazesim.agents import make_agent, parse_vision
from mazesim.analysis import parameters
from mazesim.errors import MazesimError
from mazesim.experiment.censoring import RESTRICTED_MEAN, clipped_moves, restriction_time
from mazesim.experiment.choices import ChoiceTest, choice_test
from mazesim.experiment.regression import Regression, Vif, regression, vif_table
from mazesim.experiment.statistics import ALL, WITHIN, Correlation, Summary, correlations
from mazesim.experiment.statistics import holm, summary
from mazesim.maze import parse_maze

__all__ = ["STATISTICS_STREAM", "CAPPED_WARNING", "MEAN", "Run", "Omitted", "Outcome",
           "maze_means", "outcomes", "correlation_table", "condition_correlations",
           "holm_adjusted", "regression_table", "vif_rows",
           "summary_table", "choice_tests", "omitted_conditions", "solution_lengths",
           "condition_keys"]

STATISTICS_STREAM = 2**32 - 2
"""First spawn-key word of the statistics' random streams (bootstrap): never a maze index."""
CAPPED_WARNING = 0.20
"""Conditions with a larger share of capped trials are flagged in the report, and (unless capped
trials are included) correlated through their restricted means."""
MEAN = "mean"
"""The estimate of the moves per maze of a condition that is not flagged: the mean of the
trials counted."""


class Run(Protocol):
    """What the tables read of a run (`results.Results`): `settings` is a `results.Settings`."""

    @property
    def settings(self) -> Any: ...

    @property
    def mazes(self) -> pd.DataFrame: ...

    @property
    def trials(self) -> pd.DataFrame: ...

    @property
    def choices(self) -> pd.DataFrame: ...

    @property
    def condition_rows(self) -> Mapping[tuple[str, str], np.ndarray]: ...

    @property
    def maze_means(self) -> pd.DataFrame: ...

    @property
    def sampled(self) -> np.ndarray: ...

    def trajectory(self, trial_id: int) -> np.ndarray: ...


@dataclass(frozen=True)
class Omitted:
    """A condition whose rows the report does not show as findings, and why."""

    agent: str
    vision: str
    reason: str


@dataclass(frozen=True, eq=False)
class Outcome:
    """The moves per maze of one condition that Table 1, the regression and the scatter plots
    use: `values` in the order of the run's mazes (NaN for a maze without), an `estimate`
    (`MEAN`, or `censoring.RESTRICTED_MEAN` to `tau` moves for a condition with more than
    `CAPPED_WARNING` of its trials capped, capped trials not included)."""

    agent: str
    vision: str
    estimate: str
    tau: float
    values: np.ndarray


def maze_means(run: Run) -> pd.DataFrame:
    """One row per (agent, vision, maze) with trials: `trials`, `capped`, `counted` (trials in
    the mean: all, or those not capped, as `analysis.capped` says), `mean_moves` (NaN when no
    trial counts) and, for a condition with capped trials, `restricted_mean` to its `tau` (the
    smallest cap it hit; NaN for both without)."""
    t = run.trials
    capped = t["capped"].to_numpy()
    counted = np.ones(len(t), bool) if run.settings.include_capped else ~capped
    moves = t["moves"].to_numpy(float)
    tau, clipped = np.full(len(t), np.nan), np.full(len(t), np.nan)
    for rows in run.condition_rows.values():
        limit = restriction_time(moves[rows], capped[rows])
        if np.isfinite(limit):
            tau[rows] = limit
            clipped[rows] = clipped_moves(moves[rows], capped[rows], limit)
    frame = pd.DataFrame({"agent": t["agent"], "vision": t["vision"], "maze_id": t["maze_id"],
                          "capped": capped.astype(int), "counted": counted.astype(int),
                          "sum": np.where(counted, moves, 0), "clipped": clipped, "tau": tau})
    out = frame.groupby(["agent", "vision", "maze_id"], sort=False).agg(
        trials=("capped", "size"), capped=("capped", "sum"), counted=("counted", "sum"),
        sum=("sum", "sum"), restricted_mean=("clipped", "mean"), tau=("tau", "first")
    ).reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        out.insert(6, "mean_moves", np.where(out["counted"] > 0, out["sum"] / out["counted"],
                                             np.nan))
    return out.drop(columns="sum")


def outcomes(run: Run) -> list[Outcome]:
    """The moves per maze of every condition with trials, in `condition_keys` order."""
    out = []
    for (a, v), means in _conditions(run):
        flagged = (not run.settings.include_capped
                   and means["capped"].sum() > CAPPED_WARNING * means["trials"].sum())
        column = "restricted_mean" if flagged else "mean_moves"
        values = run.mazes["maze_id"].map(means.set_index("maze_id")[column]).to_numpy(float)
        out.append(Outcome(a, v, RESTRICTED_MEAN if flagged else MEAN,
                           float(means["tau"].iloc[0]) if flagged else float("nan"), values))
    return out


def correlation_table(run: Run, omitted: Sequence[Omitted] | None = None) -> list[Correlation]:
    """Table 1 of every condition in every stratum; p adjusted by Holm over the family of the
    conditions that are findings (the rows of `omitted`, default `omitted_conditions(run)`,
    keep an empty `p_adjusted`)."""
    return holm_adjusted(condition_correlations(run, outcomes(run)),
                         omitted_conditions(run) if omitted is None else omitted)


def condition_correlations(run: Run, shown: Sequence[Outcome]) -> list[Correlation]:
    """Table 1's rows of the conditions `shown` (from `outcomes`) before Holm's correction:
    each condition's bootstrap has its own seed, so conditions may be computed apart (the
    report spreads them over processes) and give the same rows."""
    s = run.settings
    if not s.parameters:
        return []
    strata = run.mazes["stratum"].to_numpy()
    x = {p: run.mazes[p].to_numpy(float) for p in s.parameters}
    means = dict(_conditions(run))
    records = []
    for o in shown:
        seed = np.random.SeedSequence(s.seed, spawn_key=(STATISTICS_STREAM, s.agents.index(
            o.agent), s.visions.index(o.vision)))
        records += correlations(o.agent, o.vision, x, o.values, s.methods, strata=strata,
                                capped_share=_capped_shares(run, means[o.agent, o.vision]),
                                seed=seed, estimate=o.estimate, tau=o.tau)
    return records


def holm_adjusted(records: Sequence[Correlation], omitted: Sequence[Omitted]
                  ) -> list[Correlation]:
    """`records` with `p_adjusted` by Holm over the rows of the conditions not in `omitted`."""
    none = {(c.agent, c.vision) for c in omitted}
    family = [i for i, r in enumerate(records) if (r.agent, r.vision) not in none]
    adjusted = dict(zip(family, holm([records[i].p for i in family])))
    return [replace(r, p_adjusted=float(adjusted.get(i, float("nan"))))
            for i, r in enumerate(records)]


def regression_table(run: Run) -> list[Regression]:
    """The regression of every condition on the correlation parameters."""
    s = run.settings
    if not s.parameters:
        return []
    strata = run.mazes["stratum"].to_numpy()
    x = {p: run.mazes[p].to_numpy(float) for p in s.parameters}
    return [regression(o.agent, o.vision, x, o.values, strata, errors=s.errors,
                       estimate=o.estimate, tau=o.tau) for o in outcomes(run)]


def vif_rows(run: Run) -> list[Vif]:
    """Variance inflation factors of the correlation parameters over the run's mazes, with the
    generator dummies and within each generator (`regression.vif_table`)."""
    s = run.settings
    if not s.parameters:
        return []
    return vif_table({p: run.mazes[p].to_numpy(float) for p in s.parameters},
                     run.mazes["stratum"].to_numpy())


def summary_table(run: Run) -> list[Summary]:
    """Moves of every condition with trials."""
    t = run.trials
    lengths = t["maze_id"].map(solution_lengths(run)).to_numpy(float)
    moves, reached, capped, mazes = (t[c].to_numpy() for c in ("moves", "reached", "capped",
                                                                "maze_id"))
    out = []
    for a, v in condition_keys(run):
        rows = run.condition_rows[(a, v)]
        out.append(summary(a, v, moves[rows], reached[rows], capped[rows], lengths[rows],
                           mazes[rows], include_capped=run.settings.include_capped))
    return out


def choice_tests(run: Run) -> list[ChoiceTest]:
    """The first departures at each probe mark of every condition with trials."""
    c = run.choices
    firsts = c[c["first"]].groupby(["agent", "vision", "mark", "direction"]).size()
    counts = {key: int(n) for key, n in firsts.items()}
    tests = []
    for mark, human in run.settings.probes:
        for a, v in condition_keys(run):
            mine = {d: n for (aa, vv, m, d), n in counts.items() if (aa, vv, m) == (a, v, mark)}
            tests.append(choice_test(a, v, mark, mine, human))
    return tests


def omitted_conditions(run: Run) -> list[Omitted]:
    """Conditions where vision cannot matter, so their rows are no finding: agents that walk the
    shortest path in every trial (they plan on a whole visible maze: their moves are the
    solution length), and the other visions of an agent that ignores vision (its step
    probabilities along a stored walk are the same under every vision of the run)."""
    s, t = run.settings, run.trials
    lengths = t["maze_id"].map(solution_lengths(run))
    shortest = (t["reached"] & (t["moves"] == lengths)).to_numpy()
    out = [Omitted(a, v, _SHORTEST.format(why=_why_shortest(s.specs.get(a, {}), v)))
           for a, v in condition_keys(run) if shortest[run.condition_rows[(a, v)]].all()]
    done = {(o.agent, o.vision) for o in out}
    stored = t[t["trial_id"].isin(run.sampled)]
    for agent in s.agents:
        visions = [v for a, v in condition_keys(run) if a == agent and (a, v) not in done]
        if len(visions) >= 2 and _ignores_vision(run, stored, agent, visions):
            shown = next((v for v in visions if v != "full"), visions[0])
            out += [Omitted(agent, v, f"ignores vision: the same agent as at vision {shown}, "
                            "shown there") for v in visions if v != shown]
    return out


_SHORTEST = ("walks the shortest path in every trial{why}: its moves are the solution length, so "
             "r = 1 with solution_length by construction")


def _why_shortest(spec: Mapping[str, Any], vision: str) -> str:
    """Why an agent that is not `shortest` walks the shortest path: at full vision the exit is
    in sight from the first step, and goal seeking (every agent's default but the study's
    walkers') walks straight to it; a random walk then is no random walk."""
    if vision != "full" or not spec.get("goal_seeking") or spec.get("type") == "shortest":
        return ""
    return (" (at full vision it sees the exit from the first step, and goal seeking, the "
            "default, walks straight to it; `goal_seeking: false` walks by its own rule)")


def solution_lengths(run: Run) -> pd.Series:
    """solution_length by maze_id (computed from the maze text when the run did not store it)."""
    mazes = run.mazes
    if "solution_length" in mazes.columns:
        return mazes.set_index("maze_id")["solution_length"].astype(float)
    return pd.Series([_number(parameters(parse_maze(text), ["solution_length"])
                              ["solution_length"]) for text in mazes["text"]],
                     index=mazes["maze_id"], dtype=float)


def condition_keys(run: Run) -> list[tuple[str, str]]:
    """(agent, vision) pairs with trials, in config order (visions outer, as the study)."""
    means = run.maze_means
    present = set(zip(means["agent"], means["vision"]))
    s = run.settings
    return [(a, v) for v in s.visions for a in s.agents if (a, v) in present]


def _conditions(run: Run):
    means = run.maze_means
    groups = dict(list(means.groupby(["agent", "vision"], sort=False)))
    for key in condition_keys(run):
        yield key, groups[key]


def _capped_shares(run: Run, means: pd.DataFrame) -> dict[str, float]:
    strata = means["maze_id"].map(run.mazes.set_index("maze_id")["stratum"])
    per = means.groupby(strata)[["capped", "trials"]].sum()
    shares = {k: row.capped / row.trials for k, row in per.iterrows()}
    share = means["capped"].sum() / means["trials"].sum()
    return {**shares, ALL: share, WITHIN: share}


def _ignores_vision(run: Run, stored: pd.DataFrame, agent: str, visions: list[str]) -> bool:
    """Whether the agent's step probabilities along its first walk in `stored` (the trials
    whose positions are stored) are the same under every vision (False when it cannot tell: no
    spec, no walk, no probabilities)."""
    s = run.settings
    spec = s.specs.get(agent)
    mine = stored[stored["agent"] == agent]
    if spec is None or mine.empty:
        return False
    trial_id, maze_id = int(mine["trial_id"].iloc[0]), int(mine["maze_id"].iloc[0])
    text = run.mazes.set_index("maze_id").loc[maze_id, "text"]
    try:
        model = make_agent(spec["type"], **{k: x for k, x in spec.items()
                                            if k not in ("type", "label", "trials")})
        walk, maze = run.trajectory(trial_id), parse_maze(text)
        first, *others = [model.step_probabilities(maze, parse_vision(s.vision_specs[v]), walk)
                          for v in visions]
    except (MazesimError, KeyError):
        return False
    return all(np.array_equal(first, p) for p in others)


def _number(value) -> float:
    return float("nan") if value is None else float(value)
