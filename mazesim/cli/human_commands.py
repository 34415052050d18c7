"""Commands for people's walks: `import` (recorded trajectories into a run), `fit` (models to
people, cross-validated), `compare` (people against a simulated run), `predict` (fitted models
walking the run's mazes beside its people); DESIGN.md section 11."""

from __future__ import annotations

import json

import click

from mazesim.cli import main, say_compiling
from mazesim.cli._options import SEED, VISION, WORKERS, LibraryDefault, output_folder, wrote
from mazesim.limits import MAX_FOLDS, MAX_ITERATIONS, MAX_STARTS, MAX_WALKS

__all__ = ["import_group", "fit", "compare", "predict", "transfer"]

ROUTES_JSON = "routes.json"
_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
_OUTPUT = click.option("-o", "--output", "output", required=True,
                       type=click.Path(file_okay=False),
                       help="The run directory to create (must not exist or be empty).")
_EXCLUDE_PARTICIPANTS = click.option(
    "--exclude-participants", "exclude_participants", metavar="ID,...|FILE",
    help="Leave out these participants (ids separated by commas, or a file of ids).")
_EXCLUDE_MAZE = click.option(
    "--exclude-maze", "exclude_mazes", multiple=True, metavar="NAME",
    help="Leave out the trials of this maze (repeat for several).")
_SKIP = click.option("--skip-invalid", is_flag=True,
                     help="Import the valid trials and list the others (default: the first "
                          "bad trial stops the import).")


@main.group("import")
def import_group() -> None:
    """Import recorded human trajectories into a run directory of people."""


@import_group.command("mst")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@_OUTPUT
@_SKIP
@_JSON
def import_mst(folder: str, output: str, skip_invalid: bool, as_json: bool) -> None:
    """A Maze Search Task FOLDER (plandata.csv and mazes/; Kryven et al. 2024)."""
    from mazesim.humans import import_mst as run_import

    _report(_flagged(run_import, folder, output, skip_invalid=skip_invalid), as_json)


@import_group.command("vgc")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@_OUTPUT
@_SKIP
@_JSON
def import_vgc(folder: str, output: str, skip_invalid: bool, as_json: bool) -> None:
    """A value-guided construal FOLDER (navtrials.json and *config.json, either zipped; Ho et
    al. 2022): full view, decisions at every step, bumps kept apart."""
    from mazesim.humans.data.importer import import_vgc as run_import

    _report(run_import(folder, output, skip_invalid=skip_invalid), as_json)


@import_group.command("csv")
@click.argument("trajectories", type=click.Path(exists=True, dir_okay=False))
@click.option("--mazes", required=True, type=click.Path(exists=True, file_okay=False),
              help="Folder of the mazes, one mazesim file <maze>.txt (or .json) each.")
@click.option("--vision", type=VISION, default=LibraryDefault("mazesim.agents.vision", "FULL"),
              show_default=True,
              help="Vision of trials without a vision column (a label such as 2 or "
                   "'isovist 10, map known', or key=value pairs such as isovist=10,map=known).")
@_OUTPUT
@_SKIP
@_JSON
def import_csv(trajectories: str, mazes: str, vision: str, output: str, skip_invalid: bool,
               as_json: bool) -> None:
    """A long CSV, one row per visited cell: participant, maze, trial, step, row, col
    [, t_ms, vision]."""
    from mazesim.humans import import_csv as run_import

    _report(_flagged(run_import, trajectories, mazes, output, vision=vision,
                     skip_invalid=skip_invalid), as_json)


def _flagged(run_import, *args, **options):
    """`run_import(*args, **options)`; its advice to set `skip_invalid` names the flag."""
    from mazesim.errors import DataError
    from mazesim.humans.data.importer import SKIP_HINT

    try:
        return run_import(*args, **options)
    except DataError as err:
        text = str(err)
        if not text.endswith(SKIP_HINT):
            raise
        raise DataError(text.removesuffix(SKIP_HINT)
                        + SKIP_HINT.replace("skip_invalid", "--skip-invalid")) from None


@import_group.command("dataset")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@_OUTPUT
@_SKIP
@_JSON
def import_dataset(folder: str, output: str, skip_invalid: bool, as_json: bool) -> None:
    """A Psych-DS or BIDS dataset that `mazesim export` wrote (its rows and maze folder)."""
    from mazesim.export.reader import import_dataset as run_import

    _report(run_import(folder, output, skip_invalid=skip_invalid), as_json)


def _report(summary, as_json: bool) -> None:
    from mazesim.humans.data.importer import format_summary

    _print(summary, as_json, format_summary)


def _print(result, as_json: bool, text, written=(), names=()) -> None:
    """`result` as one JSON object (its `to_json()`), or as the text `text(result)` and what
    was written (`_options.wrote`)."""
    click.echo(json.dumps(result.to_json()) if as_json else text(result), nl=as_json)
    wrote(written, names, say=not as_json)


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--level", type=click.Choice(["junction", "step", "node"]), default=None,
              help="Decisions at junction cells, at every step (full view), or at the "
                   "decision nodes of each maze's tree (the Maze Search Task's yardstick); "
                   "default: the run's (step for an import in full view, else junction).")
@click.option("--protocol", type=click.Choice(["ml", "peer"]), default="ml", show_default=True,
              help="ml: maximum likelihood, pooled and cross-validated by participant; peer "
                   "(node level): the Maze Search Task authors' per-person grid protocol.")
@click.option("--prior", type=click.Choice(["authors", "population"]), default="authors",
              show_default=True,
              help="The planners' prior under --protocol peer: the authors' 1/tau, or a "
                   "population over the model's grid estimated from the people of the other "
                   "groups (as node-choice's population).")
@click.option("--model", "models", multiple=True, metavar="NAME[:KEY=VALUE,...]",
              help="A model to fit (repeat for several; default: every agent with step "
                   "probabilities, at the node level every node model); KEY=VALUE fixes a "
                   "parameter (junction level).")
@click.option("--by", type=click.Choice(["pooled", "participant"]), default="pooled",
              show_default=True, help="Also fit each participant alone (participant).")
@click.option("--weigh", type=click.Choice(["decision", "person"]), default="decision",
              show_default=True,
              help="Junction and step levels: count every decision once in the pooled fit, or "
                   "every person once (the population's mean where people differ; its "
                   "intervals cover the population's value).")
@click.option("--cv", "folds", type=click.IntRange(0, MAX_FOLDS), show_default=True,
              default=LibraryDefault("mazesim.humans.fitting.junction", "DEFAULT_FOLDS"),
              help="Folds of cross-validation by participant (0: none); under the peer "
                   "protocol, folds of each person's decisions.")
@click.option("--cv-mazes", "cv_mazes", type=click.IntRange(0, MAX_FOLDS), default=0,
              show_default=True,
              help="Folds of cross-validation over groups of mazes instead of participants (0: "
                   "by participant): each maze scored by the fit without its group (a twin "
                   "NAME_mirror with NAME, a family FAMILY_... together).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the folds, the starts and the bootstrap.")
@click.option("--starts", type=click.IntRange(1, MAX_STARTS), show_default=True,
              default=LibraryDefault("mazesim.humans.fitting.junction", "DEFAULT_STARTS"),
              help="Starts of each optimisation (the first is deterministic).")
@click.option("--max-iterations", "max_iterations", type=click.IntRange(1, MAX_ITERATIONS),
              default=None,
              help="Iterations of each optimiser run (junction level; default 500); a fit "
                   "that stops at the limit is flagged (a warning, \"converged\": false).")
@click.option("--params", "params", type=click.Path(exists=True), metavar="FIT_DIR|JSON",
              help="Do not fit: score the models of this fit (a folder of fit -o, its "
                   "fit.csv, or fit --json's output; with --level node a node-level fit) on "
                   "RUN_DIR, parameters held.")
@click.option("--refit-lapse", is_flag=True,
              help="With --params: fit the lapse to RUN_DIR (default: held too).")
@_EXCLUDE_PARTICIPANTS
@_EXCLUDE_MAZE
@_JSON
@click.option("-o", "--output", type=click.Path(file_okay=False),
              help="Folder for fit.csv, fit_participants.csv, fit.png and, when two or more "
                   "models are compared over people (cross-validated, or scored with "
                   "--params), ranking.csv; new, empty, or an earlier fit's folder.")
def fit(run_dir: str, level: str, protocol: str, prior: str, models: tuple[str, ...], by: str,
        weigh: str, folds: int, cv_mazes: int, seed: int, starts: int,
        max_iterations: int | None, params: str | None, refit_lapse: bool,
        exclude_participants: str | None, exclude_mazes: tuple[str, ...], as_json: bool,
        output: str | None) -> None:
    """Fit models to the people of RUN_DIR by maximum likelihood (bits per junction or step
    decision, or per node decision with --level node); with --params, score another fit's
    models."""
    from mazesim.cli._progress import Progress
    from mazesim.errors import DataError
    from mazesim.humans.data.run import participant_list
    from mazesim.humans.fitting.output import FILES, format_fit, write_fit
    from mazesim.humans.fitting.node_output import format_node_fit, write_node_fit
    from mazesim.jit import compiling

    if level == "node" and max_iterations is not None:
        raise DataError("--max-iterations: junction level only (not with --level node)")
    if refit_lapse and not params:
        raise DataError("--refit-lapse: only with --params")
    if weigh != "decision" and (params or level == "node"):
        raise DataError(f"--weigh {weigh}: a maximum-likelihood fit at the junction or step "
                        "level only")
    if prior != "authors" and (level != "node" or protocol != "peer" or params):
        raise DataError("--prior: only with --level node --protocol peer (a fit, not --params)")
    if cv_mazes and (params or protocol == "peer"):
        raise DataError(f"--cv-mazes: not with {'--params' if params else '--protocol peer'} "
                        "(folds over mazes are for a maximum-likelihood fit)")
    output_folder(output, FILES)
    excluded = dict(exclude_mazes=exclude_mazes,
                    exclude_participants=participant_list(exclude_participants)
                    if exclude_participants else ())
    with compiling(say_compiling):
        report = _fit(run_dir, level, protocol, models, params, refit_lapse, excluded,
                      Progress().count, by=by, weigh=weigh, prior=prior, folds=folds,
                      cv_mazes=cv_mazes, seed=seed, starts=starts,
                      max_iterations=max_iterations)
    node = level == "node"
    written = (write_node_fit if node else write_fit)(report, output) if output else []
    for line in getattr(report, "warnings", ()):
        click.echo(f"Warning: {line}", err=True)
    _print(report, as_json, format_node_fit if node else format_fit, written, FILES)


def _fit(run_dir, level, protocol, models, params, refit_lapse, excluded, progress, *, by,
         weigh, prior, folds, cv_mazes, seed, starts, max_iterations):
    """The report of `fit`: another fit's models scored, or the models fitted at a level."""
    from mazesim.humans import fit_models, fit_node_models, score_models
    from mazesim.humans.fitting.optimise import DEFAULT_ITERATIONS

    if params:
        return score_models(run_dir, params, list(models) or None, level=level,
                            refit_lapse=refit_lapse, **excluded)
    if level == "node":
        return fit_node_models(run_dir, list(models) or None, protocol=protocol, by=by,
                               folds=folds, seed=seed, starts=starts, cv_mazes=cv_mazes,
                               prior=prior, progress=progress, **excluded)
    return fit_models(run_dir, list(models) or None, protocol=protocol, by=by, level=level,
                      weigh=weigh, folds=folds, seed=seed, starts=starts, cv_mazes=cv_mazes,
                      progress=progress, max_iterations=DEFAULT_ITERATIONS
                      if max_iterations is None else max_iterations, **excluded)


@main.command()
@click.argument("human_run", type=click.Path(exists=True, file_okay=False))
@click.argument("sim_run", type=click.Path(exists=True, file_okay=False))
@click.option("--fit", "fit_params", is_flag=True,
              help="Fit the agents' parameters to the people (default: the simulated run's; "
                   "the lapse is fitted either way).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the bootstrap.")
@_EXCLUDE_PARTICIPANTS
@_EXCLUDE_MAZE
@_JSON
@click.option("-o", "--output", type=click.Path(file_okay=False),
              help="Folder for comparison.md and its tables (comparison_*.csv); new, empty, or "
                   "an earlier comparison's folder.")
def compare(human_run: str, sim_run: str, fit_params: bool, seed: int,
            exclude_participants: str | None, exclude_mazes: tuple[str, ...], as_json: bool,
            output: str | None) -> None:
    """People of HUMAN_RUN beside the agents of SIM_RUN on their shared mazes (Markdown).

    Bits per junction decision under each agent (pooled and per participant, with intervals),
    choices at each mark (Fisher's test, Holm-adjusted), moves per maze correlations.
    """
    from mazesim.humans.compare.runs import compare_runs, format_comparison
    from mazesim.humans.compare.output import FILES, write_comparison
    from mazesim.humans.data.run import participant_list

    output_folder(output, FILES)
    comparison = compare_runs(human_run, sim_run, fit=fit_params, seed=seed,
                              exclude_mazes=exclude_mazes,
                              exclude_participants=participant_list(exclude_participants)
                              if exclude_participants else ())
    written = write_comparison(comparison, output) if output else []
    _print(comparison, as_json, format_comparison, written, FILES)


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--fit", "fit_dir", required=True, metavar="FIT_DIR",
              help="A folder written by `mazesim fit ... -o FIT_DIR` (of this run or another; "
                   "a node-level fit's models walk as their tree walkers).")
@click.option("--walks", type=click.IntRange(1, MAX_WALKS), default=100, show_default=True,
              help="Walks of each model per person and maze.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the walks, the folds and the bootstrap.")
@click.option("--cv-mazes", "cv_mazes", type=int, default=0, show_default=True,
              help="Folds of mazes (0: none): refit without each fold and predict its mazes.")
@click.option("--model", "models", multiple=True, metavar="LABEL",
              help="A model of the fit to check (repeat for several; default: all).")
@click.option("--pooled", is_flag=True,
              help="Walk everyone with the pooled parameters (default: each person's own "
                   "where the fit was per person).")
@click.option("--workers", type=WORKERS, default=1, show_default=True,
              help="Local processes that walk.")
@click.option("--routes", is_flag=True,
              help="Full view: which way round each obstacle, cells visited, moves and turns "
                   "per maze instead (a run imported by `mazesim import vgc`; --walks per "
                   "person's trial; -o writes routes.json).")
@_EXCLUDE_PARTICIPANTS
@_EXCLUDE_MAZE
@_JSON
@click.option("-o", "--output", type=click.Path(file_okay=False),
              help="Folder for predict.csv, predict_models.csv, predict.png and heatmaps.png; "
                   "new, empty, or an earlier check's folder.")
def predict(run_dir: str, fit_dir: str, walks: int, seed: int, cv_mazes: int,
            models: tuple[str, ...], pooled: bool, workers: int, routes: bool,
            exclude_participants: str | None, exclude_mazes: tuple[str, ...], as_json: bool,
            output: str | None) -> None:
    """Posterior predictive check: the fitted models walk every maze of RUN_DIR under its
    vision; steps, revisits, exit in sight and first choices against its people, per maze."""
    from mazesim.humans import excluded, load_human_run
    from mazesim.humans.data.run import participant_list
    from mazesim.humans.predict.run import predict_run
    from mazesim.cli._progress import Progress
    from mazesim.humans.predict.output import FILES, format_predict, write_predict
    from mazesim.jit import compiling

    output_folder(output, (*FILES, ROUTES_JSON))
    run = excluded(load_human_run(run_dir), participant_list(exclude_participants)
                   if exclude_participants else (), exclude_mazes)
    if routes:
        from pathlib import Path

        from mazesim.humans.predict.routes import check_routes, format_routes

        checked = check_routes(run, fit_dir, walks=walks, seed=seed, cv_mazes=cv_mazes,
                               models=models)
        written = []
        if output:
            Path(output).mkdir(parents=True, exist_ok=True)
            written = [Path(output) / ROUTES_JSON]
            written[0].write_text(json.dumps(checked.to_json()) + "\n")
        _print(checked, as_json, format_routes, written, (*FILES, ROUTES_JSON))
        return
    with compiling(say_compiling):
        report = predict_run(run, fit_dir, walks=walks, seed=seed, cv_mazes=cv_mazes,
                             models=models, pooled=pooled, workers=workers,
                             progress=Progress().count)
    written = write_predict(report, output) if output else []
    _print(report, as_json, format_predict, written, FILES)


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--fit", "fit_dir", required=True, metavar="FIT_DIR",
              help="A fit of other people or mazes (a folder of `mazesim fit -o`, its fit.csv, "
                   "or fit --json's output); junction or node level.")
@click.option("--cv", "folds", type=click.IntRange(min=2), default=5, show_default=True,
              help="Folds of the refit's cross-validation by participant.")
@click.option("--walks", type=click.IntRange(0, MAX_WALKS), default=0, show_default=True,
              help="Also walk the held fit on every maze (walks per person and maze; 0: "
                   "none) and correlate its mean steps with people's.")
@click.option("--model", "models", multiple=True, metavar="LABEL",
              help="A model of the fit (repeat for several; default: all).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the folds, the walks and the bootstrap.")
@click.option("--workers", type=WORKERS, default=1, show_default=True,
              help="Local processes that walk.")
@_EXCLUDE_PARTICIPANTS
@_EXCLUDE_MAZE
@_JSON
@click.option("-o", "--output", type=click.Path(file_okay=False),
              help="Folder for transfer.csv.")
def transfer(run_dir: str, fit_dir: str, folds: int, walks: int, models: tuple[str, ...],
             seed: int, workers: int, exclude_participants: str | None,
             exclude_mazes: tuple[str, ...], as_json: bool, output: str | None) -> None:
    """How a fit made elsewhere carries over to RUN_DIR: each model with its parameters held
    beside the same model refitted here (cross-validated), the gap in bits per decision with a
    paired interval over people, and with --walks the per-maze correlation of steps."""
    from mazesim.humans.data.run import participant_list
    from mazesim.humans.compare.transfer import (FILES, format_transfer, load_and_transfer,
                                                 write_transfer)

    output_folder(output, FILES)
    report = load_and_transfer(run_dir, fit_dir, folds=folds, seed=seed, walks=walks,
                               models=models, workers=workers,
                               exclude_participants=participant_list(exclude_participants)
                               if exclude_participants else (), exclude_mazes=exclude_mazes)
    written = [write_transfer(report, output)] if output else []
    _print(report, as_json, format_transfer, written, FILES)
