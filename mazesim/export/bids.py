"""BIDS behavioural data (https://bids-specification.readthedocs.io, "Behavioral experiments"):
`dataset_description.json`, `participants.tsv` with its sidecar, one
`sub-<label>/beh/sub-<label>_task-maze_beh.tsv` per participant, the sidecar `task-maze_beh.json`
describing every column (inherited by every `_beh.tsv`), a README and the mazes under
`stimuli/mazes/`. `bids-validator-deno` (PyPI) accepts the result."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from mazesim.csvfile import safe_cell
from mazesim.export._moves import COLUMNS, Table

__all__ = ["write", "BIDS_VERSION", "TASK"]

BIDS_VERSION = "1.10.0"
TASK = "maze"
"""The task label of every file (one task: walking a maze)."""
_PARTICIPANT_COLUMNS = {
    "participant_id": {"Description": "The participant's BIDS label (sub-<label>)."},
    "source_id": {"Description": "The participant's id in the mazesim run."},
    "trials": {"Description": "How many trials the participant walked."},
}


def write(table: Table, out: Path, description: str, mazes: dict[str, str],
          version: str) -> list[Path]:
    """Write the dataset of `table` into the folder `out` (made by the caller); `mazes`: each
    maze's stem and its JSON text; `version` mazesim's. The data files written."""
    meta = {"Name": table.name, "BIDSVersion": BIDS_VERSION, "DatasetType": "raw",
            "GeneratedBy": [{"Name": "mazesim", "Version": version,
                             "Description": "mazesim export --format bids"}]}
    _json(out / "dataset_description.json", meta)
    (out / "README.md").write_text(f"# {table.name}\n\n{description}\n")
    _json(out / f"task-{TASK}_beh.json",
          {"TaskName": TASK, **{name: {"Description": text} for name, text in COLUMNS}})
    _json(out / "participants.json", _PARTICIPANT_COLUMNS)
    _tsv(out / "participants.tsv", list(_PARTICIPANT_COLUMNS),
         [(f"sub-{label}", who, len(table.trials[who])) for who, label in table.people])
    written = []
    for who, label in table.people:
        folder = out / f"sub-{label}" / "beh"
        folder.mkdir(parents=True)
        path = folder / f"sub-{label}_task-{TASK}_beh.tsv"
        _tsv(path, [name for name, _ in COLUMNS], table.rows(who))
        written.append(path)
    folder = out / "stimuli" / "mazes"
    folder.mkdir(parents=True)
    for stem, text in mazes.items():
        (folder / f"{stem}.json").write_text(text)
    return written


def _json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")


def _tsv(path: Path, header: list[str], rows) -> None:
    """A BIDS TSV: tab-separated, no quoting (a tab or line break in a text cell becomes a
    space), `n/a` for a missing value."""
    def cell(value) -> str:
        if value is None or value == "":
            return "n/a"
        return " ".join(str(safe_cell(value)).split()) if isinstance(value, str) else str(value)

    with path.open("w", newline="") as handle:
        out = csv.writer(handle, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE,
                         escapechar=None, quotechar=None)
        out.writerow(header)
        out.writerows([cell(v) for v in row] for row in rows)
