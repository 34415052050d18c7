"""`mazesim export`: a run of people as a dataset in the field's formats (Psych-DS, BIDS)."""

from __future__ import annotations

import json

import click

from mazesim.cli import main

__all__ = ["export"]


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--format", "fmt", required=True, type=click.Choice(["psych-ds", "bids"]),
              help="psych-ds: dataset_description.json and data/*_data.csv; bids: "
                   "sub-*/beh/*_beh.tsv with their sidecars.")
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False),
              help="The dataset folder to create (must not exist or be empty).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def export(run_dir: str, fmt: str, output: str, as_json: bool) -> None:
    """Write the people of RUN_DIR (played or imported) as a Psych-DS or BIDS dataset.

    One row per cell walked (participant, maze, trial, step, row, col, vision: the columns of
    `mazesim import csv`), the mazes as mazesim JSON files beside them."""
    from mazesim.export import export_run

    summary = export_run(run_dir, output, fmt)
    click.echo(json.dumps(summary.to_json()) if as_json else str(summary))
