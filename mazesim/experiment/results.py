"""A run's results as pandas DataFrames, for any kind of run (simulated, played, imported).

>>> from mazesim import load_run                                   # doctest: +SKIP
>>> run = load_run("results/quickstart/20261130T062827Z")           # doctest: +SKIP
>>> run.trials_counted.groupby(["agent", "vision"]).moves.median()  # doctest: +SKIP
>>> run.correlations.query("stratum == 'within' and method == 'pearson'")   # doctest: +SKIP
>>> run.trajectory(17)                                              # doctest: +SKIP

The tables are read from the run's `results.sqlite` (the source of truth); `correlations` and
`regression` are computed on first use with the statistics of the report, so they equal its
`correlations.csv` and `regression.csv`.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from mazesim.agents import parse_vision
from mazesim.errors import ConfigError
from mazesim.experiment import tables
from mazesim.experiment.background import Jobs
from mazesim.experiment.config import (CAPPED, CORRELATION_METHODS,
                                       DEFAULT_CORRELATION_PARAMETERS, REGRESSION_ERRORS)
from mazesim.experiment.regression import RegressionTerm
from mazesim.experiment.rundir import open_database
from mazesim.experiment.statistics import Correlation
from mazesim.experiment.storage import (CHOICE_COLUMNS, HUMAN, HUMAN_PILOT, RunStore,
                                        range_condition, read_samples)
from mazesim.maze import parse_maze
from mazesim.records import CHOICE_FIELDS

__all__ = ["FILE_STRATUM", "SIMULATED", "Settings", "Results", "load_run", "read_run",
           "records_frame"]

FILE_STRATUM = "file"
"""The stratum of mazes read from files (generated mazes: their generator)."""
SIMULATED = "simulated"
"""The `kind` of a run of agents (runs of people: `storage.HUMAN`)."""
_FLAGS = ("reached", "capped")
_LABELS = ("agent", "vision")


@dataclass(frozen=True)
class Settings:
    """What the analysis of a run uses, from its stored config (defaults where a run of people
    stores none): conditions in config order, correlation parameters and methods, probes (mark,
    human counts), how capped trials count, the root seed, each agent's config entry and each
    vision's (by its label), the regression's standard errors."""

    agents: tuple[str, ...]
    visions: tuple[str, ...]
    parameters: tuple[str, ...]
    methods: tuple[str, ...]
    probes: tuple[tuple[str, Mapping[str, int]], ...]
    capped: str
    seed: int
    specs: Mapping[str, Mapping[str, Any]]
    vision_specs: Mapping[str, Any]
    errors: str = REGRESSION_ERRORS[0]

    @property
    def include_capped(self) -> bool:
        return self.capped == CAPPED[1]


@dataclass(frozen=True, eq=False)
class Results:
    """The tables of one run directory.

    - `mazes`: one row per maze: `maze_id, source, generator, size, seed, stratum, text` and its
      parameters (`stratum` is the generator, `file` for maze files).
    - `trials`: one row per trial (`trial_id, maze_id, agent, vision, trial, seed, moves,
      reached, capped, participant`, the flags as booleans; `participant` a person's id, also
      for runs stored before the column, None for agents) with the maze's stratum and
      parameters joined;
      `trials_counted` those the report's means and medians count (capped trials left out
      unless the config has `analysis: {capped: include}`).
    - `choices`: the stored junction departures (`storage.CHOICE_COLUMNS`, `first` boolean).
    - `sample_files`: the trajectory file of each trial whose positions are stored, and
      `sampled` their ids (`trajectory`, `trajectories`).
    - `condition_rows`: the positions in `trials` of each (agent, vision)'s trials, ascending
      (one grouping instead of comparing the strings of every trial per condition).
    - `maze_means`, `correlations`, `regression`: mean moves per maze and condition, the
      report's Table 1 and regression (computed on first use).
    """

    run_dir: Path
    kind: str
    meta: Mapping[str, Any]
    settings: Settings
    mazes: pd.DataFrame
    trials: pd.DataFrame
    choices: pd.DataFrame
    sample_files: Mapping[int, str] = field(repr=False)

    @cached_property
    def condition_rows(self) -> Mapping[tuple[str, str], np.ndarray]:
        return self.trials.groupby(["agent", "vision"], sort=False).indices

    @cached_property
    def trials_counted(self) -> pd.DataFrame:
        if self.settings.include_capped:
            return self.trials
        return self.trials[~self.trials["capped"]]

    @cached_property
    def maze_means(self) -> pd.DataFrame:
        return tables.maze_means(self)

    @cached_property
    def correlations(self) -> pd.DataFrame:
        return records_frame(tables.correlation_table(self), Correlation)

    @cached_property
    def regression(self) -> pd.DataFrame:
        return records_frame([t for fit in tables.regression_table(self) for t in fit.terms],
                             RegressionTerm)

    @cached_property
    def sampled(self) -> np.ndarray:
        return np.array(list(self.sample_files), dtype=np.int64)

    def trajectory(self, trial_id: int) -> np.ndarray:
        """Positions (T+1, 2) of a trial whose trajectory was stored (ConfigError otherwise)."""
        return self.trajectories([trial_id])[int(trial_id)]

    def trajectories(self, trial_ids: Iterable[int]) -> dict[int, np.ndarray]:
        """Positions of several stored trials by trial id, the run opened once."""
        ids = [int(t) for t in trial_ids]
        missing = set(ids) - set(self.sampled.tolist())
        if missing:
            raise ConfigError(f"{self.run_dir}: trial {min(missing)} has no stored trajectory "
                              f"({len(self.sampled):,} trials have one: see `sampled`)")
        files: dict[str, list[int]] = {}
        for t in dict.fromkeys(ids):
            files.setdefault(self.sample_files[t], []).append(t)
        texts = self.mazes.set_index("maze_id").text
        trials = self.trials.set_index("trial_id").maze_id
        maze_ids = trials[trials.index.isin(ids)]             # a pilot's trial has no row here
        mazes = {m: parse_maze(texts.loc[m]) for m in set(maze_ids.tolist())}
        return read_samples(self.run_dir, files, {t: mazes[m] for t, m in maze_ids.items()})


def load_run(path: str | Path, *, pilots: bool = False) -> Results:
    """Read the run directory `path` (RunError if it holds no `results.sqlite` or is damaged);
    the trials of pilot participants (agent `human-pilot`) only with `pilots`."""
    with RunStore(Path(path)) as store:
        return read_run(store, pilots=pilots)


def read_run(store: RunStore, *, pilots: bool = False) -> Results:
    """`load_run` from an open store (which checked the run when it was opened)."""
    meta = store.all_meta()                     # a simulated run's config checked, once
    mazes = _mazes(store)
    where = "" if pilots else f"WHERE agent != '{HUMAN_PILOT}' "
    sql, params = store.trials_query(but=None if pilots else HUMAN_PILOT)
    trials = _read_trials(store, sql, params)
    choices = pd.read_sql_query(f"SELECT {', '.join(CHOICE_COLUMNS)} FROM choices {where}"
                                "ORDER BY trial_id, step", store.conn)
    sample_files = dict(store.query("SELECT trial_id, file FROM samples ORDER BY trial_id"))
    for flag in _FLAGS:
        trials[flag] = trials[flag].astype(bool)
    for choice_field in CHOICE_FIELDS:
        if choice_field.kind == "flag":
            choices[choice_field.stored] = choices[choice_field.stored].astype(bool)
    joined = trials.merge(mazes.drop(columns=["source", "size", "seed", "text"]), on="maze_id",
                          how="left", validate="many_to_one")
    kind = HUMAN if meta.get("kind") == HUMAN else SIMULATED
    return Results(store.run_dir, kind, meta, _settings(meta.get("config") or {}, trials, mazes),
                   mazes, joined, choices, sample_files)


def _read_trials(store: RunStore, sql: str, params: list) -> pd.DataFrame:
    """The rows of the trials query `sql`, in trial order: a large run's in one consecutive
    slice per core, read in forked processes (each row costs Python objects: 420,000 rows took
    0.9 s in one process); the same frame either way."""
    ranges = store.trial_ranges(sql, params)
    if len(ranges) < 2:
        return pd.read_sql_query(sql, store.conn, params=params)
    with Jobs() as jobs:
        frames = jobs.results(jobs.start_all([(_trial_slice, (store.path, sql, params, low,
                                                               high)) for low, high in ranges]))
    for frame in frames:                  # back to the categories' dtype: the column's as read
        for name in _LABELS:
            frame[name] = frame[name].astype(frame[name].cat.categories.dtype)
    return pd.concat(frames, ignore_index=True)


def _trial_slice(path: Path, sql: str, params: list, low: int | None, high: int | None
                 ) -> pd.DataFrame:
    """The rows of `sql` over trial ids [low, high) (`storage.trial_ranges`), read on a
    connection of their own, the labels as categories (sent back as codes)."""
    condition, bounds = range_condition(low, high)
    with closing(open_database(path, writable=False)) as conn:
        frame = pd.read_sql_query(f"SELECT * FROM ({sql}) WHERE {condition} ORDER BY trial_id",
                                  conn, params=[*params, *bounds])
    return frame.astype({name: "category" for name in _LABELS})


def _mazes(store: RunStore) -> pd.DataFrame:
    records = store.mazes()
    names = list(dict.fromkeys(k for m in records for k in m.parameters))
    rows = [{"maze_id": m.maze_id, "source": m.source, "generator": m.generator, "size": m.size,
             "seed": m.seed, "stratum": m.generator or FILE_STRATUM, "text": m.text,
             **{k: m.parameters.get(k) for k in names}} for m in records]
    columns = ["maze_id", "source", "generator", "size", "seed", "stratum", "text", *names]
    frame = pd.DataFrame(rows, columns=columns)
    frame[names] = frame[names].astype(float)
    frame["seed"] = frame["seed"].astype("Int64")
    return frame


def _settings(config: Mapping[str, Any], trials: pd.DataFrame, mazes: pd.DataFrame) -> Settings:
    specs = {a.get("label", a.get("type")): a for a in config.get("agents", [])}
    agents = list(specs) + [a for a in trials["agent"].unique() if a not in specs]
    vision_specs = {str(parse_vision(v)): v for v in config.get("vision", [])}
    visions = list(vision_specs) + [v for v in trials["vision"].unique() if v not in vision_specs]
    analysis = config.get("analysis", {})
    corr = analysis.get("correlations", {})
    wanted = corr.get("parameters", DEFAULT_CORRELATION_PARAMETERS)
    probes = analysis.get("branch_choices")
    if probes is None:   # no config: every mark of the mazes, no human reference
        probes = [{"mark": m} for m in sorted({ch for t in mazes["text"] for ch in t
                                                if ch.isupper() and ch not in "SG"})]
    return Settings(tuple(agents), tuple(visions),
                    tuple(p for p in wanted if p in mazes.columns),
                    tuple(corr.get("methods", CORRELATION_METHODS)),
                    tuple((p["mark"], dict(p.get("human") or {})) for p in probes),
                    analysis.get("capped", CAPPED[0]), int(config.get("seed", 0)), specs,
                    vision_specs,
                    (analysis.get("regression") or {}).get("errors", REGRESSION_ERRORS[0]))


def records_frame(records: list, cls: type) -> pd.DataFrame:
    """Records of the dataclass `cls` as a DataFrame with its fields as columns (also empty)."""
    return pd.DataFrame([asdict(r) for r in records], columns=[f.name for f in fields(cls)])
