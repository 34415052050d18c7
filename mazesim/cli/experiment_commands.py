"""Commands: `run`, `validate`, `replay`, `report` (YAML experiments, DESIGN.md section 8)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from mazesim.cli import main
from mazesim.experiment.executors import MAX_WORKERS
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
def run(config_file: str, workers: int, resume: bool, dask_address: str | None,
        output: str | None) -> None:
    """Run the experiment CONFIG into OUTPUT/<name>/<run-id>/."""
    from mazesim.experiment.config import load_config
    from mazesim.experiment.runner import RunInterrupted, resume_command, run_experiment

    config = load_config(config_file)
    bar = _Progress()
    try:
        result = run_experiment(config, output=output, workers=workers, dask=dask_address,
                                resume=resume, progress=bar)
    except RunInterrupted as stop:
        bar.close()
        click.echo(f"Interrupted: {stop.done} of {stop.total} units stored in {stop.run_dir}; "
                   f"resume with: {resume_command(config, output)}", err=True)
        sys.exit(_INTERRUPTED)
    bar.close()
    click.echo(f"Done: {result.trials:,} trials ({result.mazes} mazes x {len(config.agents)} "
               f"agents x {len(config.vision)} vision), {result.moves:,} moves in "
               f"{result.seconds:.1f} s -> {result.run_dir}")


@main.command()
@click.argument("config_file", metavar="CONFIG", type=click.Path(dir_okay=False))
def validate(config_file: str) -> None:
    """Check CONFIG without running anything."""
    from mazesim.experiment.config import load_config

    config = load_config(config_file)
    trials = config.maze_count * len(config.vision) * sum(a.trials for a in config.agents)
    units = config.maze_count * len(config.agents) * len(config.vision)
    click.echo(f"OK: {config.name}: {config.maze_count} mazes x {len(config.agents)} agents x "
               f"{len(config.vision)} vision = {units:,} units, {trials:,} trials")


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--trial", "trial_id", type=click.IntRange(0, INT64_MAX), required=True,
              help="Trial id (the trial_id column of trials.csv).")
@click.option("-o", "--output", "picture", type=click.Path(dir_okay=False),
              help="Write the trajectory picture (PNG) here.")
def replay(run_dir: str, trial_id: int, picture: str | None) -> None:
    """Re-simulate one trial of RUN_DIR and compare it with the stored result."""
    from mazesim.experiment.rerun import rerun_trial

    result = rerun_trial(run_dir, trial_id)
    traj = result.trajectory
    click.echo(f"trial {trial_id}: maze {result.maze_id}, {result.agent}, vision {result.vision}, "
               f"trial {result.trial}: {traj.moves} moves, reached {bool(traj.reached)} (stored: "
               f"{result.stored_moves} moves, reached {result.stored_reached}) - "
               f"{'identical' if result.matches else 'DIFFERENT'}")
    if picture:
        from mazesim.render import maze_image, save_image

        save_image(maze_image(result.maze, visited=traj.positions), picture)
        click.echo(f"wrote {picture}")
    if not result.matches:
        sys.exit(1)


@main.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
def report(run_dir: str) -> None:
    """Rebuild report.md, the CSV exports and figures/ of RUN_DIR from its database (a play
    run's report adds its participants)."""
    from mazesim.play.report import build_run_report

    result = build_run_report(run_dir)
    click.echo(f"wrote {result.path} and {len(result.figures)} figures in "
               f"{Path(run_dir) / 'figures'}")


class _Progress:
    """A progress bar (trials, rate, ETA) on a terminal; silent otherwise."""

    def __init__(self) -> None:
        self.bar = None
        self.began = time.perf_counter()
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.start = done
            self.bar = click.progressbar(length=total, label="trials", show_pos=True,
                                         file=sys.stderr, item_show_func=lambda s: s)
            self.bar.__enter__()
            self.bar.update(done)
        rate = (done - self.start) / max(time.perf_counter() - self.began, 1e-9)
        self.bar.update(done - self.bar.pos, f"{rate:,.0f} trials/s")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
