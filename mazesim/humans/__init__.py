"""People's walks (DESIGN.md section 11): import recorded trajectories, fit models to them, check
the fits by walking, compare people with simulated runs and with other fits.

The subpackages (docs/architecture.md): `data` (readers, the importer, a run of people),
`fitting` (models, likelihood, cross-validation, the junction and node fitters, results,
rankings), `predict` (fitted models walking beside people), `peer` (the Maze Search Task
authors' protocol and tables), `compare` (people against agents, a fit carried to another run).
This module is the public face: `import_mst`, `import_csv`, `load_human_run`, `node_decisions`,
`fit_models`, `fit_node_models`, `score_models`, `fit_run`, `parse_model`, `default_models`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from mazesim.errors import DataError
from mazesim.humans.data.run import (HumanRun, NodeDecisions, excluded, load_human_run,
                                 node_decisions)
from mazesim.humans.fitting.junction import fit_run
from mazesim.humans.fitting.results import FitReport
from mazesim.humans.data.importer import ImportSummary, import_csv, import_mst
from mazesim.humans.fitting.models import default_models, parse_model
from mazesim.humans.fitting.node import NodeFitReport
from mazesim.humans.data.sources import Problem, read_csv, read_mst, read_mst_maze

__all__ = ["FitReport", "HumanRun", "ImportSummary", "NodeDecisions", "NodeFitReport", "Problem",
           "default_models", "fit_models", "fit_node_models", "fit_run", "import_csv", "import_mst",
           "load_human_run", "node_decisions", "parse_model", "read_csv", "read_mst",
           "read_mst_maze", "score_models"]


def fit_models(run_dir: str | Path, models: Sequence[str] | None = None, *,
               protocol: str = "ml", level: str | None = None,
               exclude_participants: Sequence[str] = (), exclude_mazes: Sequence[str] = (),
               **options) -> FitReport:
    """Fit `models` (default: every agent with step probabilities) to the people of `run_dir`
    at their decisions of `level` (junction or step; None: the run's) without the excluded
    participants (ids) and mazes (names); options as `fit_run` (by, folds, seed, starts).
    These levels have one protocol, `ml`."""
    if protocol != "ml":
        raise DataError(f"protocol {protocol!r} at the junction level (allowed: ml; the peer "
                        "protocol is the node level's)")
    specs = [parse_model(m) for m in models or ()]                  # before reading the run
    run = excluded(load_human_run(run_dir, level), exclude_participants, exclude_mazes)
    return fit_run(run, specs or [parse_model(m) for m in default_models(run.level)],
                   **options)


def score_models(run_dir: str | Path, params: str | Path, models: Sequence[str] | None = None,
                 *, level: str | None = None, refit_lapse: bool = False,
                 exclude_participants: Sequence[str] = (),
                 exclude_mazes: Sequence[str] = ()) -> FitReport | NodeFitReport:
    """The models of the fit `params` (a folder `fit -o` wrote, its fit.csv, or `fit --json`'s
    output; `models`: only these of them) scored on the people of `run_dir` without the
    excluded participants and mazes, parameters held, the lapse held or refitted: at the
    junction or step level (`fit.score_run`; None: the run's) or at the node level
    (`node_fit.score_nodes`)."""
    from mazesim.humans.fitting.junction import score_run
    from mazesim.humans.fitting.output import only_models, read_fitted

    fitted = only_models(read_fitted(params, level or "junction"), models or (), str(params))
    run = excluded(load_human_run(run_dir, None if level == "node" else level),
                   exclude_participants, exclude_mazes)
    if level == "node":
        from mazesim.humans.fitting.node_choices import run_node_choices
        from mazesim.humans.fitting.node import score_nodes

        return score_nodes(run_node_choices(run), fitted, refit_lapse=refit_lapse,
                           params_from=str(params))
    return score_run(run, fitted, refit_lapse=refit_lapse, params_from=str(params))


def fit_node_models(run_dir: str | Path, models: Sequence[str] | None = None, *,
                    exclude_participants: Sequence[str] = (),
                    exclude_mazes: Sequence[str] = (), **options) -> NodeFitReport:
    """Fit node models (default: every one of the registry) to the node decisions of the
    people of `run_dir` (`run_node_choices`) without the excluded participants and mazes;
    options as `node_fit.fit_nodes` (protocol, by, folds, seed, starts)."""
    from mazesim.humans.fitting.node_choices import run_node_choices
    from mazesim.humans.fitting.node import fit_nodes

    run = excluded(load_human_run(run_dir), exclude_participants, exclude_mazes)
    return fit_nodes(run_node_choices(run), models, **options)
