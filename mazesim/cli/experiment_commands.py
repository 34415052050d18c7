"""Commands: `run`, `validate`, `replay`, `report` (YAML experiments, DESIGN.md section 8)."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import click

from mazesim.cli import main
from mazesim.limits import MAX_WORKERS
from mazesim.limits import INT64_MAX

__all__ = ["run", "validate", "replay", "report"]

_INTERRUPTED = 130  # the shell's exit status for SIGINT


@main.command()
@click.argument("config_file", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=1, show_default=True,
              help="Local worker processes (at most two per core and one per maze are started).")
@click.option("--resume", is_flag=True, help="Continue the latest unfinished run of CONFIG.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run the units on this Dask scheduler (needs mazesim[dask]).")
@click.option("--output", type=click.Path(file_okay=False),
              help="Results root (default: the config's `output`, else results/).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: run_dir, mazes, units, trials, moves, seconds.")
def run(config_file: str, workers: int, resume: bool, dask_address: str | None,
        output: str | None, as_json: bool) -> None:
    """Run the experiment CONFIG into OUTPUT/<name>/<run-id>/."""
    from mazesim.cli._progress import Progress
    from mazesim.experiment.config import load_config
    from mazesim.experiment.runner import RunInterrupted, resume_command, run_experiment

    config = load_config(config_file)
    bar = Progress()
    try:
        result = run_experiment(config, output=output, workers=workers, dask=dask_address,
                                resume=resume, progress=bar.trials, compiling=bar.compiling,
                                stage=bar.stage)
    except RunInterrupted as stop:
        bar.close()
        click.echo(f"Interrupted: {stop.done} of {stop.total} units stored in {stop.run_dir}; "
                   f"resume with: {resume_command(config, output)}", err=True)
        sys.exit(_INTERRUPTED)
    bar.close()
    if as_json:
        click.echo(json.dumps({"run_dir": str(result.run_dir), "mazes": result.mazes,
                               "units": result.units, "trials": result.trials,
                               "moves": result.moves, "resumed": result.resumed,
                               "seconds": round(result.seconds, 3)}))
        return
    click.echo(f"Done: {result.trials:,} trials ({result.mazes} mazes x {len(config.agents)} "
               f"agents x {len(config.vision)} vision), {result.moves:,} moves in "
               f"{result.seconds:.1f} s -> {result.run_dir}")


@main.command()
@click.argument("config_file", metavar="CONFIG", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: kind (experiment or session), name, mazes, and an "
                   "experiment's agents, vision, units, trials or a session's practice, order, "
                   "vision.")
def validate(config_file: str, as_json: bool) -> None:
    """Check CONFIG without running anything: an experiment (`mazesim run`) or a session of
    human trials (`mazesim play`)."""
    from mazesim.experiment.config import config_from_dict
    from mazesim.schema import read_yaml

    data = read_yaml(config_file)
    if _is_session(data):
        _validate_session(config_file, as_json)
        return
    config = config_from_dict(data, source=config_file, base=Path(config_file).resolve().parent)
    units = config.maze_count * len(config.agents) * len(config.vision)
    if as_json:
        click.echo(json.dumps({"kind": "experiment", "name": config.name,
                               "mazes": config.maze_count,
                               "agents": [a.label for a in config.agents],
                               "vision": list(config.vision_labels), "units": units,
                               "trials": config.trial_count}))
        return
    click.echo(f"OK: {config.name}: {config.maze_count} mazes x {len(config.agents)} agents x "
               f"{len(config.vision)} vision = {units:,} units, {config.trial_count:,} trials")


_SESSION_KEYS = ("order", "practice", "participants", "pages", "questions", "completion")
"""Top-level keys of a session file (`mazesim.play.session`) that no experiment has."""


def _is_session(data: object) -> bool:
    """Whether a config document is a play session: no agents, and a key only sessions have
    (or a maze with its own vision)."""
    if not isinstance(data, dict) or "agents" in data:
        return False
    mazes = data.get("mazes")
    return any(key in data for key in _SESSION_KEYS) or isinstance(mazes, list) and any(
        isinstance(m, dict) and "vision" in m for m in mazes)


def _validate_session(config_file: str, as_json: bool) -> None:
    from mazesim.play.session import load_session

    session = load_session(config_file)
    visions = list(dict.fromkeys(str(m.vision) for m in session.practice + session.mazes))
    if as_json:
        click.echo(json.dumps({"kind": "session", "name": session.name,
                               "mazes": len(session.mazes), "practice": len(session.practice),
                               "order": session.order, "vision": visions,
                               "output": str(session.output)}))
        return
    click.echo(f"OK: session {session.name}: {len(session.mazes)} mazes"
               + (f" after {len(session.practice)} practice" if session.practice else "")
               + f", order {session.order}, vision {' / '.join(visions)}")


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--trial", "trial_id", type=click.IntRange(0, INT64_MAX), required=True,
              help="Trial id (the trial_id column of trials.csv).")
@click.option("-o", "--output", "picture", type=click.Path(dir_okay=False),
              help="Write the trajectory picture (PNG) here.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the trial, its moves and reached, again and stored.")
def replay(run_dir: str, trial_id: int, picture: str | None, as_json: bool) -> None:
    """Re-simulate one trial of RUN_DIR and compare it with the stored result (exit code 1 when
    they differ)."""
    from mazesim.experiment.rerun import rerun_trial

    result = rerun_trial(run_dir, trial_id)
    traj = result.trajectory
    if picture:
        from mazesim.render import maze_image, save_image

        save_image(maze_image(result.maze, visited=traj.positions), picture)
    if as_json:
        click.echo(json.dumps({"trial_id": trial_id, "maze_id": result.maze_id,
                               "agent": result.agent, "vision": result.vision,
                               "trial": result.trial, "moves": traj.moves,
                               "reached": bool(traj.reached), "stored_moves": result.stored_moves,
                               "stored_reached": result.stored_reached,
                               "identical": result.matches, "picture": picture}))
    else:
        click.echo(f"trial {trial_id}: maze {result.maze_id}, {result.agent}, vision "
                   f"{result.vision}, trial {result.trial}: {traj.moves} moves, reached "
                   f"{bool(traj.reached)} (stored: {result.stored_moves} moves, reached "
                   f"{result.stored_reached}) - {'identical' if result.matches else 'DIFFERENT'}")
        if picture:
            click.echo(f"wrote {picture}")
    if not result.matches:
        sys.exit(1)


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: the report, its tables (CSV) and figures.")
def report(run_dir: str, as_json: bool) -> None:
    """Rebuild report.md, the CSV tables and figures/ of RUN_DIR from its database (a play
    run's report adds its participants)."""
    from mazesim.experiment.report import FIGURES, build_report
    from mazesim.experiment.storage import is_play_run

    gc.freeze()   # the libraries stay to the end: full collections skip them (0.1 s each)
    if is_play_run(run_dir):       # the play package (its server too) only for a play run
        from mazesim.play.report import build_play_report as build_report
    result = build_report(run_dir)
    if as_json:
        click.echo(json.dumps({"report": str(result.path), "tables": [
            str(p) for p in sorted(result.path.parent.glob("*.csv"))],
            "figures": [str(f.path) for f in result.figures]}))
        return
    click.echo(f"wrote {result.path} and {len(result.figures)} figures in "
               f"{result.path.parent / FIGURES}")
