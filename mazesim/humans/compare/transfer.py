"""Transfer: the models of a fit made on one run (its people, its mazes) meeting another run,
beside the same models refitted there (DESIGN.md section 11; `mazesim transfer`).

Per model, on the target run's people:

- `held`: bits per decision with the fit's pooled parameters and lapse held (nothing learnt
  from the target);
- `refit`: bits per decision of the same model fitted to the target, cross-validated by
  participant (each person scored by the fit without their fold): what the model could do there;
- the **gap**, held minus refit, with a paired percentile interval by bootstrap over people (the
  same people drawn for both), and the people for whom the held fit is worse;
- with `walks`, the predictive check (`mazesim.humans.predict.run`) of the held fit walking the
  target's mazes (pooled parameters: the target's people are not the fit's): the per-maze
  correlation of mean steps and the mazes whose steps differ after Holm.

A gap near 0 says the parameters mean the same on the new mazes and people; a large one, that
the fit described its own mazes. The level is the fit's: node, or the run's own (junction, or
step in full view).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mazesim.humans.fitting.models import JUNCTION, NODE, model_level
from mazesim.errors import DataError, cannot_write, check_integer
from mazesim.humans.data.run import HumanRun, excluded, load_human_run
from mazesim.humans.fitting.junction import DEFAULT_FOLDS, fit_run
from mazesim.experiment.statistics import BOOTSTRAP_RESAMPLES, CONFIDENCE
from mazesim.humans.fitting.results import FitReport
from mazesim.humans.fitting.output import only_models, read_fitted
from mazesim.markup import table_rule
from mazesim.limits import MAX_FOLDS

__all__ = ["ModelTransfer", "TransferReport", "transfer_run", "load_and_transfer", "fit_level",
           "format_transfer", "write_transfer", "FILES"]

TRANSFER_CSV = "transfer.csv"
FILES = (TRANSFER_CSV,)
"""What `-o` writes."""


@dataclass(frozen=True)
class ModelTransfer:
    """One model of the fit on the target run (the module docstring); `maze_r`, `maze_r_ci`,
    `differ` None without walks."""

    model: str
    held_bits: float
    refit_bits: float
    gap: float
    gap_ci: tuple[float, float]
    worse: int
    people: int
    maze_r: float | None = None
    maze_r_ci: tuple[float, float] | None = None
    differ: int | None = None
    mazes: int | None = None

    def to_json(self) -> dict:
        return {"model": self.model, "held_bits": self.held_bits, "refit_bits": self.refit_bits,
                "gap": self.gap, "gap_ci": list(self.gap_ci), "people_worse": self.worse,
                "people": self.people, "maze_r": _finite(self.maze_r),
                "maze_r_ci": None if self.maze_r_ci is None else [
                    _finite(v) for v in self.maze_r_ci],
                "mazes_differing": self.differ, "mazes": self.mazes}


@dataclass(frozen=True)
class TransferReport:
    """Every model of the fit `fit` on the run `run`, smallest gap first."""

    run: str
    fit: str
    level: str
    decisions: int
    participants: int
    baseline_bits: float
    folds: int
    seed: int
    walks: int
    models: tuple[ModelTransfer, ...]

    def to_json(self) -> dict:
        return {"run": self.run, "fit": self.fit, "level": self.level,
                "decisions": self.decisions, "participants": self.participants,
                "baseline_bits": self.baseline_bits, "folds": self.folds, "seed": self.seed,
                "walks": self.walks, "models": [m.to_json() for m in self.models]}


def fit_level(fit: str | Path) -> str:
    """The level of the fit `fit` (a folder of `mazesim fit -o`, its fit.csv or its JSON):
    node when every model is a node model, else junction (the cell levels, junction and
    step, read the same fits)."""
    path = Path(fit)
    if path.suffix.lower() == ".json":
        import json

        from mazesim.errors import read_text
        try:
            level = json.loads(read_text(path, DataError)).get("level", JUNCTION)
        except (ValueError, AttributeError):
            level = JUNCTION                    # read_fitted names what is wrong
        return NODE if level == NODE else JUNCTION
    from mazesim.humans.fitting.output import FIT_CSV, fit_rows

    rows = fit_rows(path / FIT_CSV if path.is_dir() else path, where=f"fit {fit}")
    labels = [row["model"] for row in rows]
    return NODE if labels and all(model_level(label) == NODE for label in labels) else JUNCTION


def transfer_run(run: HumanRun, fit: str | Path, *, folds: int = DEFAULT_FOLDS, seed: int = 0,
                 walks: int = 0, models: Sequence[str] = (), workers: int = 1
                 ) -> TransferReport:
    """The models of the fit `fit` on `run` (the module docstring); `models`: only these
    labels of the fit; `folds` >= 2 for the refit's cross-validation by participant."""
    level = fit_level(fit)
    fitted = read_fitted(fit, level)
    level = NODE if level == NODE else run.level            # junction, or step in full view
    fitted = only_models(fitted, models, str(fit))
    check_integer(folds, "folds", 2, MAX_FOLDS, DataError,
                  "the refit is cross-validated by participant")
    labels = [label for label, _ in fitted]
    held, refit = _held_and_refit(run, fitted, labels, level, folds, seed)
    checks = {}
    if walks:
        from mazesim.humans.predict.run import predict_run

        report = predict_run(run, fit, walks=walks, seed=seed, models=labels, pooled=True,
                             workers=workers)
        checks = {m.name: m for m in report.models}
    refitted = {m.model: m for m in refit.models}
    draws = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).integers(
        0, held.participants, size=(BOOTSTRAP_RESAMPLES, held.participants))
    out = []
    for m in held.models:
        check = checks.get(m.model)
        out.append(_model_transfer(m, refitted[m.model], draws, check))
    return TransferReport(str(run.path), str(fit), level, held.decisions, held.participants,
                          held.baseline_bits, folds, seed, walks,
                          tuple(sorted(out, key=lambda t: t.gap)))


def _held_and_refit(run: HumanRun, fitted, labels: list[str], level: str, folds: int,
                    seed: int) -> tuple[FitReport, FitReport]:
    """The fit's models scored on `run` with everything held, and refitted there with folds."""
    if level == NODE:
        from mazesim.humans.fitting.node_choices import run_node_choices
        from mazesim.humans.fitting.node import fit_nodes, score_nodes

        choices = run_node_choices(run)
        return (score_nodes(choices, fitted, params_from="").report,
                fit_nodes(choices, labels, folds=folds, seed=seed).report)
    from mazesim.humans.fitting.junction import score_run

    return (score_run(run, fitted, params_from=""),
            fit_run(run, labels, folds=folds, seed=seed))


def _model_transfer(held, refit, draws: np.ndarray, check) -> ModelTransfer:
    """The gap of one model: per-person log-likelihoods (natural log) of the held fit and the
    cross-validated refit, summed over a bootstrap of people."""
    n = np.array([p.decisions for p in held.participants], dtype=float)
    a = np.array([-(p.pooled_bits or 0.0) * c for p, c in zip(held.participants, n)])
    b = np.array([-(p.cv_bits or 0.0) * c for p, c in zip(refit.participants, n)])
    gaps = (b[draws] - a[draws]).sum(axis=1) / np.maximum(n[draws].sum(axis=1), 1)
    tail = 100 * (1 - CONFIDENCE) / 2
    held_bits, refit_bits = -a.sum() / n.sum(), -b.sum() / n.sum()
    deciding = n > 0
    extra = {}
    if check is not None:
        extra = dict(maze_r=check.maze_r, maze_r_ci=tuple(check.maze_r_ci),
                     differ=len(check.differ()), mazes=len(check.mazes))
    return ModelTransfer(held.model, float(held_bits), float(refit_bits),
                         float(held_bits - refit_bits),
                         (float(np.percentile(gaps, tail)), float(np.percentile(gaps, 100 - tail))),
                         int(np.sum(a[deciding] < b[deciding])), int(deciding.sum()), **extra)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def load_and_transfer(run_dir: str | Path, fit: str | Path, *,
                      exclude_participants: Sequence[str] = (),
                      exclude_mazes: Sequence[str] = (), **options) -> TransferReport:
    """`transfer_run` on the run directory `run_dir` without the excluded people and mazes."""
    run = excluded(load_human_run(run_dir), exclude_participants, exclude_mazes)
    return transfer_run(run, fit, **options)


def format_transfer(report: TransferReport) -> str:
    """Markdown: one row per model, smallest gap first."""
    walked = report.walks > 0
    lines = [f"# The fit {report.fit} on {report.run}", "",
             f"{report.decisions:,} {report.level} decisions of {report.participants} "
             f"participants; uniform choice: {report.baseline_bits:.3f} bits per decision. "
             "held: the fit's parameters and lapse; refit: the model fitted here, "
             f"{report.folds}-fold cross-validated by participant (seed {report.seed}); gap = "
             "held - refit (bits per decision; 95 % paired bootstrap over people; people "
             "worse: those whose decisions the held fit explains less well)"
             + (f"; maze r: mean steps per maze of {report.walks} walks per person against "
                "people's (pooled parameters), differing: mazes whose steps differ after Holm"
                if walked else "") + ".", "",
             "| model | held bits | refit bits | gap | 95 % CI | people worse |"
             + (" maze r | 95 % CI | differing |" if walked else ""),
             table_rule("lrrrlr" + ("rlr" if walked else ""))]
    for m in report.models:
        row = (f"| {m.model} | {m.held_bits:.3f} | {m.refit_bits:.3f} | {m.gap:.3f} | "
               f"{m.gap_ci[0]:.3f} to {m.gap_ci[1]:.3f} | {m.worse} / {m.people} |")
        if walked:
            ci = "" if m.maze_r_ci is None else f"{m.maze_r_ci[0]:.2f}-{m.maze_r_ci[1]:.2f}"
            r = "" if m.maze_r is None or not math.isfinite(m.maze_r) else f"{m.maze_r:.3f}"
            row += f" {r} | {ci} | {m.differ} / {m.mazes} |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def write_transfer(report: TransferReport, folder: str | Path) -> Path:
    """`transfer.csv` in `folder` (made if missing): one row per model."""
    from mazesim import csvfile

    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with open(path / TRANSFER_CSV, "w", newline="", encoding="utf-8") as handle:
            writer = csvfile.writer(handle)
            writer.writerow(["model", "level", "held_bits", "refit_bits", "gap", "gap_low",
                             "gap_high", "people_worse", "people", "maze_r", "maze_r_low",
                             "maze_r_high", "mazes_differing", "mazes"])
            for m in report.models:
                low, high = m.maze_r_ci or ("", "")
                writer.writerow([m.model, report.level, m.held_bits, m.refit_bits, m.gap,
                                 *m.gap_ci, m.worse, m.people, "" if m.maze_r is None
                                 else m.maze_r, low, high, "" if m.differ is None else m.differ,
                                 "" if m.mazes is None else m.mazes])
    except OSError as err:
        raise cannot_write(folder, err) from None
    return path / TRANSFER_CSV
