"""Posterior predictive checks of fitted models (DESIGN.md section 11): each model of a fit walks
every maze of a run of people, and its walks are set beside theirs, maze by maze.

`predict_run(run, fit_dir, walks=N, seed=S)` reads the fitted parameters (`mazesim fit -o
FIT_DIR`: `fit.csv`, and each person's own in `fit_participants.csv` when the fit was per
person); every model walks each maze N times per person who walked it, with that person's
parameters where the fit has them (else the pooled ones), under the run's vision. Per maze and
model (`predict_stats.MazeCheck`): steps, revisits and the step at which the exit comes into
sight (means with 95 % intervals, a two-sample Kolmogorov-Smirnov test), the first choice at the
junction people leave first most often (the exact 2 x k test), unfinished shares. Holm over the
mazes of each model and measure; the per-maze correlation of mean steps and the model's ratio.

`cv_mazes=K` also predicts unseen mazes: the mazes are dealt into K seeded folds, every model
is fitted again (`fit_run`) without each fold's mazes and walks them; the held-out mean steps
against people's (Pearson r, Spearman rho, mean absolute error) with percentile intervals by a
bootstrap over mazes, and the unfinished shares where the people have unfinished trials.

The fit may come from another run (fitted on one experiment, predicting the next one's mazes),
and from either level: a junction fit's models walk as their agents, a node-level fit's
(`mazesim fit --level node`) as their tree walkers (`tree_walkers.walker_keys`), refitted at
nodes under `cv_mazes`.
Every random choice flows from `seed`: model m, maze id i, person p walks with the streams of
`SeedSequence((seed, i, *m's label bytes), spawn_key=(p,))`; same seed, same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from mazesim.agents import make_agent
from mazesim.agents.tree_walkers import walker_keys
from mazesim.agents.trees import maze_name
from mazesim.errors import DataError, MazesimError, check_integer, check_seed
from mazesim.humans.data.run import HumanRun
from mazesim.humans.fitting.folds import group_name, maze_folds, maze_group
from mazesim.humans.fitting.output import FIT_CSV, PARTICIPANTS_CSV, fit_rows, fitted_row
from mazesim.humans.fitting.models import JUNCTION, NODE, ModelSpec, model_level, parse_model
from mazesim.humans.predict.stats import (HeldOut, MazeCheck, ModelCheck, compare_walks,
                                          held_out, model_check)
from mazesim.humans.predict.walks import (Walked, model_walks, people_walks, probe_cell,
                                          sight_of_goal)
from mazesim.limits import MAX_WALKS, MAX_WORKERS

__all__ = ["FittedModel", "Unit", "PredictReport", "read_fit", "predict_run", "DEFAULT_WALKS",
           "MAX_TOTAL_WALKS", "MAX_CV_FOLDS"]

DEFAULT_WALKS = 100
MAX_TOTAL_WALKS = 10**8
"""Most walks of a whole check (models x mazes x people x walks, folds included)."""
MAX_CV_FOLDS = 100


@dataclass(frozen=True)
class FittedModel:
    """A model of a fit: its spec, pooled parameters and lapse, and each person's own (by id);
    `level` says whether it chooses steps at junctions (its spec's agent walks) or children at
    observation nodes (its tree walker walks: `tree_walkers.walker_keys`)."""

    spec: ModelSpec
    params: dict[str, float]
    lapse: float
    own: dict[str, tuple[dict[str, float], float]]
    level: str = JUNCTION

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def agent(self) -> str:
        return self.spec.agent

    def settings(self, participant: str, pooled: bool) -> dict[str, Any]:
        """The agent's config keys for `participant`: their own fit unless `pooled` or none."""
        params, lapse = ((self.params, self.lapse) if pooled or participant not in self.own
                         else self.own[participant])
        if self.level == NODE:
            return walker_keys(self.label, params, lapse)[1]
        return {**self.spec.fixed, **params, "lapse": lapse}


@dataclass(frozen=True, eq=False)
class Unit:
    """A maze of the run under one vision, with its people's walks measured."""

    name: str
    maze_id: int
    maze: Any
    vision: Any
    people: tuple[int, ...]          # indices into run.participants, in that order
    walked: Walked
    sight: np.ndarray
    probe: tuple[int, int] | None


@dataclass(frozen=True)
class PredictReport:
    """Every model's check on a run, in the fit's order (best first)."""

    run: str
    fit: str
    walks: int
    seed: int
    pooled: bool
    cv_mazes: int
    units: tuple[Unit, ...]
    models: tuple[ModelCheck, ...]

    def to_json(self) -> dict:
        return {"mazes": len(self.units), "walks": self.walks, "seed": self.seed,
                "cv_mazes": self.cv_mazes or None,
                "models": [m.to_json([u.name for u in self.units]) for m in self.models]}


def read_fit(fit_dir: str | Path) -> list[FittedModel]:
    """The models of `mazesim fit -o FIT_DIR`: DataError naming the folder or file and the
    fault (missing, not a junction-level fit, a model this version cannot walk)."""
    folder = Path(fit_dir)
    if not folder.is_dir():
        raise DataError(f"fit {fit_dir}: no such folder (the output folder of a fit, `mazesim "
                        "fit`)")
    rows = fit_rows(folder / FIT_CSV, ("model", "agent", "lapse", "params"))
    own: dict[str, dict[str, tuple[dict, float]]] = {}
    if (folder / PARTICIPANTS_CSV).exists():
        for row in fit_rows(folder / PARTICIPANTS_CSV, ("model", "participant", "lapse",
                                                          "params")):
            if row["params"] and row.get("fit", "own") == "own":     # not the pooled fit's copy
                _, params, lapse = fitted_row(row, f"{folder / PARTICIPANTS_CSV}: "
                                                   f"{row['participant']}")
                own.setdefault(row["model"], {})[row["participant"]] = (params, lapse)
    out = []
    for row in rows:
        where = f"{folder / FIT_CSV}: model {row['model']!r}"
        spec, level = _spec(row["model"], where)
        _, params, lapse = fitted_row(row, where)
        model = FittedModel(spec, params, lapse, own.get(row["model"], {}), level)
        for person in ["", *model.own]:
            try:
                make_agent(model.agent, **model.settings(person, not person))
            except MazesimError as err:
                at = (f"{folder / PARTICIPANTS_CSV}: model {row['model']!r}, participant "
                      f"{person!r}" if person else where)
                raise DataError(f"{at}: its parameters do not make an agent ({err})") from None
        out.append(model)
    if len({m.level for m in out}) > 1:
        raise DataError(f"{folder / FIT_CSV}: junction and node models in one fit")
    if not out:
        raise DataError(f"{folder / FIT_CSV}: no model")
    return out


def predict_run(run: HumanRun, fit_dir: str | Path, *, walks: int = DEFAULT_WALKS,
                seed: int = 0, cv_mazes: int = 0, models: Sequence[str] = (),
                pooled: bool = False, workers: int = 1,
                progress: Callable[[str, int, int], None] | None = None) -> PredictReport:
    """The predictive check of the fit in `fit_dir` on `run` (the module docstring); `models`
    picks labels of the fit (default: all), `pooled` walks everyone with the pooled parameters,
    `workers` local processes walk; `progress(label, done, total)` hears of the (model, maze)
    walks as they finish."""
    fitted = _pick(read_fit(fit_dir), models, fit_dir)
    if fitted[0].level == NODE:
        from mazesim.humans.fitting.node_choices import check_observed

        check_observed(run)          # else its walkers walk a full-vision run's shortest path
    units = _units(run)
    _check(walks, seed, cv_mazes, len(fitted), units, workers)
    tell = progress or (lambda label, done, total: None)
    checks = _walk_all(run, fitted, units, walks, seed, pooled, range(len(units)), workers,
                       partial(tell, "mazes walked by the models"))
    heldout: list[HeldOut | None] = [None] * len(fitted)
    if cv_mazes:
        steps, unfinished = _cross_validate(run, fitted, units, walks, seed, pooled, cv_mazes,
                                            workers, tell)
        heldout = [held_out(_people_means(units), steps[m], _unfinished(units), seed,
                            unfinished[m]) for m in range(len(fitted))]
    out = tuple(model_check(f.label, f.agent, _own_count(f, run, pooled), checks[m],
                            heldout[m]) for m, f in enumerate(fitted))
    return PredictReport(str(run.path), str(fit_dir), walks, seed, pooled, cv_mazes,
                         tuple(units), out)


def _people_means(units: Sequence[Unit]) -> np.ndarray:
    """People's mean steps per maze (finished trials)."""
    return np.array([_mean(u.walked.steps[u.walked.reached]) for u in units])


def _unfinished(units: Sequence[Unit]) -> np.ndarray | None:
    shares = np.array([1.0 - u.walked.reached.mean() for u in units])
    return shares if shares.any() else None


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def _spec(label: str, where: str) -> tuple[ModelSpec, str]:
    """The model of a fit's row and its level (`models.model_level`): a junction model
    (`parse_model`), or a node model of `mazesim fit --level node` walking as its tree
    walker."""
    if model_level(label) == NODE:
        agent, _ = walker_keys(label, {}, 0.0)
        return ModelSpec(label, agent, {}, ()), NODE
    try:
        return parse_model(label), JUNCTION
    except MazesimError as err:
        raise DataError(f"{where} cannot walk here ({err})") from None


def _pick(fitted: list[FittedModel], labels: Sequence[str], fit_dir: Any) -> list[FittedModel]:
    if not labels:
        return fitted
    have = {f.label: f for f in fitted}
    for label in labels:
        if label not in have:
            raise DataError(f"model {label}: not in the fit {fit_dir} (its models: "
                            f"{', '.join(list(have)[:12])})")
    return [have[label] for label in dict.fromkeys(labels)]


def _units(run: HumanRun) -> list[Unit]:
    """One unit per (maze, vision) of the run, in maze id order; people's walks measured."""
    keys = sorted(run.groups, key=lambda k: (k[0], k[1]))
    several = len({v for _, v in keys}) > 1
    d = run.decisions
    by_trial = np.split(np.arange(len(d)), np.flatnonzero(np.diff(d.trial)) + 1) if len(d) \
        else []
    rows_of = {int(d.trial[r[0]]): r for r in by_trial if len(r)}
    index = {p: i for i, p in enumerate(run.participants)}
    units = []
    for maze_id, label in keys:
        ks = run.groups[(maze_id, label)]
        maze, vision = run.mazes[maze_id], run.trials[ks[0]].vision
        positions = [run.trials[k].positions for k in ks]
        steps = [d.step[rows_of[k]] if k in rows_of else np.zeros(0, np.int64) for k in ks]
        chosen = [d.chosen[rows_of[k]] if k in rows_of else np.zeros(0, np.int64) for k in ks]
        probe = probe_cell(maze, positions, steps)
        sight = sight_of_goal(maze, vision)
        people = tuple(sorted({index[run.trials[k].participant] for k in ks}))
        name = maze_name(maze) + (f" ({label})" if several else "")
        units.append(Unit(name, maze_id, maze, vision, people,
                          people_walks(maze, positions, steps, chosen, sight, probe), sight,
                          probe))
    return units


def _check(walks: int, seed: int, cv_mazes: int, models: int, units: Sequence[Unit],
           workers: int) -> None:
    check_integer(walks, "walks", 1, MAX_WALKS, DataError, "per person and maze")
    check_seed(seed, DataError)
    if not units:
        raise DataError("the run has no trial to predict")
    groups = len({maze_group(group_name(u.maze)) for u in units})
    if cv_mazes and groups < 2:
        raise DataError(f"cv_mazes {cv_mazes} (allowed: 0 for none: the run's mazes form one "
                        "group, and folds need two)")
    if cv_mazes and not 2 <= cv_mazes <= min(groups, MAX_CV_FOLDS):
        raise DataError(f"cv_mazes {cv_mazes} (allowed: 0 for none, or 2 to "
                        f"{min(groups, MAX_CV_FOLDS)}: the groups of mazes (twins and families "
                        f"together), at most {MAX_CV_FOLDS})")
    total = models * walks * sum(len(u.people) for u in units) * (2 if cv_mazes else 1)
    if total > MAX_TOTAL_WALKS:
        raise DataError(f"walks {walks}: {total:,} walks in all (allowed: at most "
                        f"{MAX_TOTAL_WALKS:,}; fewer walks or models)")
    check_integer(workers, "workers", 1, MAX_WORKERS, DataError)


def _own_count(fitted: FittedModel, run: HumanRun, pooled: bool) -> int:
    return 0 if pooled else sum(p in fitted.own for p in run.participants)


def _walk_all(run: HumanRun, fitted: Sequence[FittedModel], units: Sequence[Unit], walks: int,
              seed: int, pooled: bool, which: Sequence[int], workers: int,
              tell: Callable[[int, int], None]) -> list[list[MazeCheck | None]]:
    """checks[model][unit] of the units `which` (None elsewhere): one task per model and unit;
    `tell(done, total)` as tasks finish."""
    from mazesim.experiment.executors import execute

    tasks = []
    for m, f in enumerate(fitted):
        for u in which:
            unit = units[u]
            settings = [f.settings(run.participants[p], pooled) for p in unit.people]
            entropy = (seed, unit.maze_id, *f.label.encode())
            tasks.append(_WalkTask(m, u, unit, f.agent, settings, walks, entropy))
    out: list[list[MazeCheck | None]] = [[None] * len(units) for _ in fitted]
    finished = 0
    tell(finished, len(tasks))
    for done in execute(_task, tasks, workers=workers):
        if done is not None:                # (None: a pause without a finished task)
            m, u, check = done
            out[m][u] = check
            finished += 1
            tell(finished, len(tasks))
    return out


class _WalkTask(NamedTuple):
    """One model (`model`: its index; `agent`, one config per person `settings`) walking one
    maze (`unit`: its index `at` among the units) `walks` times per person, seeded by
    `entropy`."""

    model: int
    at: int
    unit: Unit
    agent: str
    settings: list
    walks: int
    entropy: tuple


def _task(task: _WalkTask) -> tuple[int, int, MazeCheck]:
    """Walk one model on one maze and compare (module level: a worker process runs it)."""
    u = task.unit
    model = model_walks(u.maze, u.vision, task.agent, task.settings, task.walks, task.entropy,
                        u.people, u.sight, u.probe)
    return task.model, task.at, compare_walks(u.name, u.walked, model, u.probe)


def _cross_validate(run: HumanRun, fitted: Sequence[FittedModel], units: Sequence[Unit],
                    walks: int, seed: int, pooled: bool, folds: int, workers: int,
                    tell: Callable[[str, int, int], None]
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each model's mean steps and unfinished share on each maze, walked with the fit without
    that maze's fold."""
    fold_of = maze_folds([group_name(u.maze) for u in units], folds, seed)
    unit_of = {(u.maze_id, str(u.vision)): i for i, u in enumerate(units)}
    trial_unit = np.array([unit_of[(t.maze_id, str(t.vision))] for t in run.trials])
    by = "pooled" if pooled or not any(f.own for f in fitted) else "participant"
    steps = [np.full(len(units), np.nan) for _ in fitted]
    unfinished = [np.full(len(units), np.nan) for _ in fitted]
    for fold in range(folds):
        train = run.select(fold_of[trial_unit] != fold)
        tell(f"fold {fold + 1} of {folds}: refitting", 0, 1)
        try:
            refits = _refit(train, fitted, by, seed)
        except DataError as err:
            held = ", ".join(units[u].name for u in np.flatnonzero(fold_of == fold)[:5])
            raise DataError(f"cv_mazes {folds}: fitting without fold {fold + 1} (mazes "
                            f"{held}) failed: {err}") from None
        again = [_refitted(f, refits[f.label]) for f in fitted]
        which = [int(u) for u in np.flatnonzero(fold_of == fold)]
        checks = _walk_all(run, again, units, walks, seed, pooled, which, workers,
                           partial(tell, f"fold {fold + 1} of {folds}: mazes walked"))
        for m in range(len(fitted)):
            for u in which:
                steps[m][u] = checks[m][u].steps.model_mean
                unfinished[m][u] = checks[m][u].unfinished_model
    return steps, unfinished



def _refit(train: HumanRun, fitted: Sequence[FittedModel], by: str, seed: int) -> dict:
    """Each model fitted again to `train` (its ModelFit by label), at its own level, no folds."""
    from mazesim.humans.fitting.junction import fit_run
    from mazesim.humans.fitting.node_choices import run_node_choices
    from mazesim.humans.fitting.node import fit_nodes

    labels = [f.label for f in fitted]
    if fitted[0].level == NODE:
        report = fit_nodes(run_node_choices(train), labels, by=by, folds=0, seed=seed).report
    else:
        report = fit_run(train, labels, by=by, folds=0, seed=seed)
    return {m.model: m for m in report.models}


def _refitted(old: FittedModel, fit) -> FittedModel:
    """`old` with the parameters of a new fit (its ModelFit)."""
    own = {p.participant: (p.own.params, p.own.lapse) for p in fit.participants
           if p.own is not None}
    return FittedModel(old.spec, fit.estimate.params, fit.estimate.lapse, own, old.level)
