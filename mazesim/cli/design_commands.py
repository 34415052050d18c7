"""The `design` command: the mazes that tell node models apart, and the study that runs them
(`mazesim.design`)."""

from __future__ import annotations

import json

import click

from mazesim.cli import main
from mazesim.cli._options import SEED

__all__ = ["design"]

_MAX_BASELINE = 1_000
"""Most maze files of a --baseline folder."""


@main.command()
@click.option("--fit", "fit_dir", required=True, metavar="FIT_DIR",
              help="A node-level fit with each person's own parameters (`mazesim fit RUN "
                   "--level node --protocol peer -o FIT_DIR`, or --by participant): the "
                   "population people are drawn from.")
@click.option("--model", "models", multiple=True, required=True, metavar="NAME",
              help="A node model of the fit to tell apart (repeat: at least two).")
@click.option("--mazes", type=click.IntRange(1, 200), required=True,
              help="How many mazes the study has.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the candidates, the edits, the people drawn and their walks.")
@click.option("--candidates", type=click.IntRange(1, 100_000), default=2_000,
              show_default=True, help="Candidate maps drawn from the search-task generator.")
@click.option("--people", type=click.IntRange(0, 1_000), default=100, show_default=True,
              help="Simulated people per model for the predicted recovery (0: none).")
@click.option("--sample", type=click.IntRange(1, 1_000), default=32, show_default=True,
              help="People per model drawn from the fit to score the candidates.")
@click.option("--edits", type=click.IntRange(0, 1_000), default=100, show_default=True,
              help="Local edits tried on each chosen maze (move or resize a room, move a "
                   "corridor's walls, the exit or the start), and again on each revisit.")
@click.option("--passes", type=click.IntRange(0, 10), default=1, show_default=True,
              help="Rounds in which each chosen maze is judged again beside the others "
                   "(swapped for a better candidate, edited again).")
@click.option("--size", default="13x13", show_default=True, metavar="HxW",
              help="Size of the candidate maps (sides 5 to 31).")
@click.option("--baseline", type=click.Path(exists=True, file_okay=False), metavar="DIR",
              help="A folder of maze files (mazesim text or JSON, or Maze Search Task maps) "
                   "to report beside the design, such as the task's 40 maps.")
@click.option("--judge", "judge_dir", metavar="FIT_DIR",
              help="Another node-level fit of the same models whose people are simulated for "
                   "the recovery (default: --fit's): a population the design has not seen.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Folder for mazes/, session.yaml, report.md and report.json.")
def design(fit_dir, models, mazes, seed, candidates, people, sample, edits, passes, size,
           baseline, judge_dir, as_json, output):
    """Choose the mazes that tell node models apart and write the study that runs them.

    The mazes are chosen jointly by the information a person's walk gives about its model
    (exact over the models' choices at each node), and written with a `mazesim play` session
    and a report of the predicted per-person recovery beside random maps of the generator (and
    the --baseline folder's)."""
    from mazesim.design.candidates import MapSpec
    from mazesim.design.report import format_study, run_design, study_json, write_study
    from mazesim.errors import DataError
    from mazesim.maze import parse_size

    spec = MapSpec(size=parse_size(size, "--size"))
    if len(set(models)) != len(models) or len(models) < 2:
        raise click.UsageError("--model: at least two different models")
    fits = _fits(fit_dir, models)
    judge = _fits(judge_dir, models) if judge_dir else None
    mst = _baseline(baseline) if baseline else None
    if mst is not None and not mst:
        raise DataError(f"--baseline {baseline}: no maze file (.txt or .json)")
    result = run_design(fits, mazes=mazes, seed=seed, people=people, sample=sample,
                        candidates=candidates, edits=edits, passes=passes, spec=spec,
                        baseline=mst,
                        judge=judge)
    write_study(result, output)
    click.echo(json.dumps(study_json(result)) if as_json else format_study(result), nl=False)


def _fits(fit_dir: str, models: tuple[str, ...]) -> dict:
    """Each model's per-person (params, lapse) from the fit folder."""
    from mazesim.errors import DataError
    from mazesim.humans.fitting.models import NODE
    from mazesim.humans.predict.run import read_fit

    fitted = {m.label: m for m in read_fit(fit_dir)}
    for name in models:
        if name not in fitted:
            raise DataError(f"--model {name}: not in the fit {fit_dir} (its models: "
                            f"{', '.join(fitted)})")
        if fitted[name].level != NODE:
            raise DataError(f"--fit {fit_dir}: not a node-level fit")
    return {name: [fitted[name].own[p] for p in sorted(fitted[name].own)] for name in models}


def _baseline(folder: str) -> dict:
    """The maze files of `folder` by name (stem), sorted."""
    from pathlib import Path

    from mazesim.errors import DataError
    from mazesim.mst_maps import read_any_maze

    files = sorted(p for p in Path(folder).iterdir() if p.suffix in (".txt", ".json"))
    if len(files) > _MAX_BASELINE:
        raise DataError(f"--baseline {folder}: {len(files):,} maze files (allowed: at most "
                        f"{_MAX_BASELINE:,})")
    return {p.stem: read_any_maze(p) for p in files}
