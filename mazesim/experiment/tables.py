"""The report's tables computed from a run's `Results`: means per maze, Table 1 with Holm's
correction, the regressions, move summaries, the choices at the probes, and the conditions that
are not findings (where vision cannot matter)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mazesim.errors import MazesimError
from mazesim.experiment.choices import ChoiceTest, choice_test
from mazesim.experiment.regression import Regression, regression
from mazesim.experiment.statistics import ALL, WITHIN, Correlation, Summary, correlations
from mazesim.experiment.statistics import holm, summary

if TYPE_CHECKING:
    from mazesim.experiment.results import Results

__all__ = ["STATISTICS_STREAM", "CAPPED_WARNING", "Omitted", "maze_means", "correlation_table",
           "regression_table", "summary_table", "choice_tests", "omitted_conditions",
           "solution_lengths"]

STATISTICS_STREAM = 2**32 - 2
"""First spawn-key word of the statistics' random streams (bootstrap): never a maze index."""
CAPPED_WARNING = 0.20
"""Conditions with a larger share of capped trials are flagged in the report."""


@dataclass(frozen=True)
class Omitted:
    """A condition whose rows the report does not show as findings, and why."""

    agent: str
    vision: str
    reason: str


def maze_means(results: Results) -> pd.DataFrame:
    """One row per (agent, vision, maze) with trials: `trials`, `capped`, `counted` (trials in
    the mean: all, or those not capped, as `analysis.capped` says) and `mean_moves` (NaN when
    no trial counts)."""
    t = results.trials
    counted = np.ones(len(t), bool) if results.settings.include_capped else ~t["capped"].to_numpy()
    frame = pd.DataFrame({"agent": t["agent"], "vision": t["vision"], "maze_id": t["maze_id"],
                          "capped": t["capped"].astype(int), "counted": counted.astype(int),
                          "sum": np.where(counted, t["moves"], 0)})
    out = frame.groupby(["agent", "vision", "maze_id"], sort=False).agg(
        trials=("capped", "size"), capped=("capped", "sum"), counted=("counted", "sum"),
        sum=("sum", "sum")).reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["mean_moves"] = np.where(out["counted"] > 0, out["sum"] / out["counted"], np.nan)
    return out.drop(columns="sum")


def correlation_table(results: Results) -> list[Correlation]:
    """Table 1 of every condition in every stratum, p adjusted by Holm over the whole table."""
    s = results.settings
    if not s.parameters:
        return []
    strata = results.mazes["stratum"].to_numpy()
    x = {p: results.mazes[p].to_numpy(float) for p in s.parameters}
    records = []
    for (a, v), means in _conditions(results):
        seed = np.random.SeedSequence(s.seed, spawn_key=(STATISTICS_STREAM, s.agents.index(a),
                                                         s.visions.index(v)))
        records += correlations(a, v, x, _aligned(results, means), s.methods, strata=strata,
                                capped_share=_capped_shares(results, means), seed=seed)
    adjusted = holm([r.p for r in records])
    return [replace(r, p_adjusted=float(q)) for r, q in zip(records, adjusted)]


def regression_table(results: Results) -> list[Regression]:
    """The regression of every condition on the correlation parameters."""
    s = results.settings
    if not s.parameters:
        return []
    strata = results.mazes["stratum"].to_numpy()
    x = {p: results.mazes[p].to_numpy(float) for p in s.parameters}
    return [regression(a, v, x, _aligned(results, means), strata)
            for (a, v), means in _conditions(results)]


def summary_table(results: Results) -> list[Summary]:
    """Moves of every condition with trials."""
    t = results.trials
    lengths = t["maze_id"].map(solution_lengths(results)).to_numpy(float)
    moves, reached, capped, mazes = (t[c].to_numpy() for c in ("moves", "reached", "capped",
                                                                "maze_id"))
    out = []
    for a, v in _condition_keys(results):
        rows = results.condition_rows[(a, v)]
        out.append(summary(a, v, moves[rows], reached[rows], capped[rows], lengths[rows],
                           mazes[rows], include_capped=results.settings.include_capped))
    return out


def choice_tests(results: Results) -> list[ChoiceTest]:
    """The first departures at each probe mark of every condition with trials."""
    c = results.choices
    firsts = c[c["first"]].groupby(["agent", "vision", "mark", "direction"]).size()
    counts = {key: int(n) for key, n in firsts.items()}
    tests = []
    for mark, human in results.settings.probes:
        for a, v in _condition_keys(results):
            mine = {d: n for (aa, vv, m, d), n in counts.items() if (aa, vv, m) == (a, v, mark)}
            tests.append(choice_test(a, v, mark, mine, human))
    return tests


def omitted_conditions(results: Results) -> list[Omitted]:
    """Conditions where vision cannot matter, so their rows are no finding: agents that walk the
    shortest path in every trial (they plan on a whole visible maze: their moves are the
    solution length), and the other visions of an agent that ignores vision (its step
    probabilities along a stored walk are the same under every vision of the run)."""
    s, t = results.settings, results.trials
    lengths = t["maze_id"].map(solution_lengths(results))
    shortest = (t["reached"] & (t["moves"] == lengths)).to_numpy()
    out = [Omitted(a, v, "walks the shortest path in every trial: its moves are the solution "
                   "length, so r = 1 with solution_length by construction")
           for a, v in _condition_keys(results) if shortest[results.condition_rows[(a, v)]].all()]
    done = {(o.agent, o.vision) for o in out}
    stored = t[t["trial_id"].isin(results.sampled)]
    for agent in s.agents:
        visions = [v for a, v in _condition_keys(results) if a == agent and (a, v) not in done]
        if len(visions) >= 2 and _ignores_vision(results, stored, agent, visions):
            shown = next((v for v in visions if v != "full"), visions[0])
            out += [Omitted(agent, v, f"ignores vision: the same agent as at vision {shown}, "
                            "shown there") for v in visions if v != shown]
    return out


def solution_lengths(results: Results) -> pd.Series:
    """solution_length by maze_id (computed from the maze text when the run did not store it)."""
    mazes = results.mazes
    if "solution_length" in mazes.columns:
        return mazes.set_index("maze_id")["solution_length"].astype(float)
    from mazesim.analysis import parameters
    from mazesim.maze import parse_maze

    return pd.Series([_number(parameters(parse_maze(text), ["solution_length"])
                              ["solution_length"]) for text in mazes["text"]],
                     index=mazes["maze_id"], dtype=float)


def _condition_keys(results: Results) -> list[tuple[str, str]]:
    """(agent, vision) pairs with trials, in config order (visions outer, as the study)."""
    means = results.maze_means
    present = set(zip(means["agent"], means["vision"]))
    s = results.settings
    return [(a, v) for v in s.visions for a in s.agents if (a, v) in present]


def _conditions(results: Results):
    means = results.maze_means
    groups = dict(list(means.groupby(["agent", "vision"], sort=False)))
    for key in _condition_keys(results):
        yield key, groups[key]


def _aligned(results: Results, means: pd.DataFrame) -> np.ndarray:
    """A condition's mean moves in the order of `results.mazes` (NaN for mazes without)."""
    return results.mazes["maze_id"].map(means.set_index("maze_id")["mean_moves"]).to_numpy(float)


def _capped_shares(results: Results, means: pd.DataFrame) -> dict[str, float]:
    strata = means["maze_id"].map(results.mazes.set_index("maze_id")["stratum"])
    per = means.groupby(strata)[["capped", "trials"]].sum()
    shares = {k: row.capped / row.trials for k, row in per.iterrows()}
    share = means["capped"].sum() / means["trials"].sum()
    return {**shares, ALL: share, WITHIN: share}


def _ignores_vision(results: Results, stored: pd.DataFrame, agent: str,
                    visions: list[str]) -> bool:
    """Whether the agent's step probabilities along its first walk in `stored` (the trials
    whose positions are stored) are the same under every vision (False when it cannot tell: no
    spec, no walk, no probabilities)."""
    from mazesim.agents import make_agent, parse_vision
    from mazesim.maze import parse_maze

    s = results.settings
    spec = s.specs.get(agent)
    mine = stored[stored["agent"] == agent]
    if spec is None or mine.empty:
        return False
    trial_id, maze_id = int(mine["trial_id"].iloc[0]), int(mine["maze_id"].iloc[0])
    text = results.mazes.set_index("maze_id").loc[maze_id, "text"]
    try:
        model = make_agent(spec["type"], **{k: x for k, x in spec.items()
                                            if k not in ("type", "label", "trials")})
        walk, maze = results.trajectory(trial_id), parse_maze(text)
        first, *others = [model.step_probabilities(maze, parse_vision(s.vision_specs[v]), walk)
                          for v in visions]
    except (MazesimError, KeyError):
        return False
    return all(np.array_equal(first, p) for p in others)


def _number(value) -> float:
    return float("nan") if value is None else float(value)
