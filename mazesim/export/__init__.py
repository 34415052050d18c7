"""Runs of people in the field's formats: `export_run` writes any run of people (played with
`mazesim play` or imported) as a Psych-DS dataset or as BIDS behavioural data; `check_psychds`
tests a folder against the Psych-DS specification's required files and keywords.

Both formats hold the same table (`_moves.COLUMNS`: one row per cell walked, the columns of
`mazesim import csv`) and the mazes as mazesim JSON files, so a dataset reads back as a run:
concatenate its data files and give the maze folder to `mazesim import csv`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from importlib import metadata
from typing import Any

from mazesim.errors import DataError
from mazesim.export import bids, psychds
from mazesim.export._moves import read_table
from mazesim.maze import maze_to_json

__all__ = ["FORMATS", "ExportSummary", "export_run", "check_psychds"]

FORMATS = ("psych-ds", "bids")
check_psychds = psychds.check


@dataclass(frozen=True)
class ExportSummary:
    """What `export_run` wrote: the format, the folder, counts and the data files."""

    format: str
    output: Path
    participants: int
    trials: int
    mazes: int
    files: tuple[Path, ...]

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "output": str(self.output),
                "participants": self.participants, "trials": self.trials, "mazes": self.mazes,
                "files": len(self.files)}

    def __str__(self) -> str:
        return (f"wrote {self.output}: {self.format}, {self.trials:,} trials of "
                f"{self.participants:,} participants on {self.mazes:,} mazes "
                f"({len(self.files):,} data files)")


def export_run(run_dir: str | Path, output: str | Path, format: str) -> ExportSummary:
    """Write the run of people `run_dir` as a dataset of `format` (one of `FORMATS`) into the
    folder `output`, which must not exist or be empty (DataError otherwise, or for a run that
    is not of people)."""
    from mazesim.humans.data.run import load_human_run

    if format not in FORMATS:
        raise DataError(f"format: {format!r} (allowed: {', '.join(FORMATS)})")
    output = Path(output)
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise DataError(f"output {output}: exists and is not an empty folder")
    version = metadata.version("mazesim")
    run = load_human_run(run_dir)
    if not run.trials:
        raise DataError(f"{run_dir}: no trials of people to export")
    table = read_table(run)
    mazes = {table.mazes[m]: json.dumps(maze_to_json(maze), indent=1) + "\n"
             for m, maze in run.mazes.items()}
    description = (f"Walks of {len(table.people):,} people in {len(mazes):,} mazes "
                   f"({table.n_trials:,} trials), exported by mazesim {version} from the "
                   f"run {table.name}. One row per cell walked; the mazes are mazesim JSON "
                   f"files (rows of text: # wall, . passage, S start, G goal).")
    output.mkdir(parents=True, exist_ok=True)
    if format == "bids":
        files = bids.write(table, output, description, mazes, version)
    else:
        files = psychds.write(table, output, description, mazes)
    return ExportSummary(format, output, len(table.people), table.n_trials, len(mazes),
                         tuple(files))
