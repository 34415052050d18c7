"""A Psych-DS or BIDS dataset that `mazesim export` wrote, read back as a run of people
(`import_dataset`): its data files through the long-CSV reader (`humans.data.sources.read_csv`,
tab-separated for BIDS), its mazes from the maze folder, every trial checked as an import."""

from __future__ import annotations

import json
from pathlib import Path

from mazesim.errors import DataError
from mazesim.humans.data.importer import ImportSummary, import_source
from mazesim.humans.data.sources import MAX_PARTICIPANTS, MAX_TRIALS, Source, read_csv

__all__ = ["read_dataset", "import_dataset", "LAYOUTS"]

LAYOUTS = {
    "psych-ds": ("data", "*_data.csv", ",", "materials/mazes"),
    "bids": (".", "sub-*/beh/*_beh.tsv", "\t", "stimuli/mazes"),
}
"""Each format's data folder, data file pattern, delimiter and maze folder (as exported)."""


def dataset_format(folder: Path) -> str:
    """`psych-ds` or `bids`, from `dataset_description.json` (DataError when neither)."""
    path = folder / "dataset_description.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"{path}: unreadable ({err})") from None
    if isinstance(meta, dict) and "BIDSVersion" in meta:
        return "bids"
    if isinstance(meta, dict) and meta.get("@type") == "Dataset":
        return "psych-ds"
    raise DataError(f"{path}: neither BIDS (BIDSVersion) nor Psych-DS (@type Dataset)")


def read_dataset(folder: str | Path) -> Source:
    """Every trial of the dataset `folder` and its mazes, as one import source (format
    `dataset`; a problem's line is the line of its participant's file)."""
    folder = Path(folder)
    base, pattern, delimiter, mazes = LAYOUTS[dataset_format(folder)]
    files = sorted((folder / base).glob(pattern))
    if not files:
        raise DataError(f"{folder}: no data files ({base}/{pattern})")
    if len(files) > MAX_PARTICIPANTS:
        raise DataError(f"{folder}: {len(files):,} data files (at most {MAX_PARTICIPANTS:,})")
    recordings, unreadable, found, missing = [], [], {}, {}
    for path in files:
        part = read_csv(path, folder / mazes, delimiter=delimiter)
        recordings += part.recordings
        unreadable += part.unreadable
        found.update(part.mazes)
        missing.update(part.missing)
        if len(recordings) + len(unreadable) > MAX_TRIALS:
            raise DataError(f"{folder}: more than {MAX_TRIALS:,} trials")
    return Source("dataset", str(folder), tuple(recordings), tuple(unreadable), found, missing,
                  part.vision)


def import_dataset(folder: str | Path, run_dir: str | Path, *, skip_invalid: bool = False
                   ) -> ImportSummary:
    """Import the dataset `folder` into the new run directory `run_dir` (`import_source`)."""
    return import_source(read_dataset(folder), run_dir, skip_invalid=skip_invalid)
