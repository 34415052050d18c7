"""Psych-DS (https://psych-ds.github.io): `dataset_description.json` (schema.org Dataset
JSON-LD), one `data/study-<run>_subject-<label>_data.csv` per participant and the mazes under
`materials/mazes/`; `check` tests a folder against the specification's required files and
keywords (what the Psych-DS validator calls errors)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from mazesim.csvfile import writer
from mazesim.export._moves import COLUMNS, Table, labels

__all__ = ["write", "check", "SCHEMA_ORG", "DATA_FILE"]

SCHEMA_ORG = ("https://schema.org", "https://schema.org/", "http://schema.org",
              "http://schema.org/")
"""The `@context` values that name schema.org."""
DATA_FILE = re.compile(r"([a-z]+-[a-zA-Z0-9]+)(_[a-z]+-[a-zA-Z0-9]+)*_data\.(csv|tsv)")
"""The specification's `fileRegex` of a data file: keyword-value pairs, then `_data`."""
_REQUIRED = ("name", "description", "variableMeasured")
SCHEMA_VERSION = "Psych-DS 1.4.0"


def write(table: Table, out: Path, description: str, mazes: dict[str, str]) -> list[Path]:
    """Write the dataset of `table` into the folder `out` (made by the caller); `mazes`: each
    maze's stem and its JSON text. The data files written."""
    study = labels([table.name], prefix="run")[0]
    meta = {"@context": SCHEMA_ORG[1], "@type": "Dataset", "name": table.name,
            "description": description, "schemaVersion": SCHEMA_VERSION,
            "variableMeasured": [{"@type": "PropertyValue", "name": name, "description": text}
                                 for name, text in COLUMNS]}
    (out / "dataset_description.json").write_text(json.dumps(meta, indent=2) + "\n")
    (out / "data").mkdir()
    written = []
    for participant, label in table.people:
        path = out / "data" / f"study-{study}_subject-{label}_data.csv"
        with path.open("w", newline="") as handle:
            rows = writer(handle, "\n")
            rows.writerow([name for name, _ in COLUMNS])
            rows.writerows(table.rows(participant))
        written.append(path)
    folder = out / "materials" / "mazes"
    folder.mkdir(parents=True)
    for stem, text in mazes.items():
        (folder / f"{stem}.json").write_text(text)
    return written


def check(folder: str | Path) -> list[str]:
    """The ways `folder` breaks the Psych-DS specification's rules of level error (empty: none):
    `dataset_description.json` (JSON-LD of a schema.org Dataset with `name`, `description` and
    `variableMeasured`), a `data` folder with at least one data file named by keywords, each
    with a header row of distinct names, all in `variableMeasured`, and rows as long."""
    folder = Path(folder)
    meta, problems = _description(folder / "dataset_description.json")
    if not (folder / "data").is_dir():
        return problems + ["data/: missing (the data files live there)"]
    names = {v if isinstance(v, str) else v.get("name") if isinstance(v, dict) else None
             for v in meta.get("variableMeasured") or []}
    files = sorted(p for p in (folder / "data").rglob("*") if p.is_file())
    good = 0
    for path in files:
        where = path.relative_to(folder).as_posix()
        if not DATA_FILE.fullmatch(path.name):
            if path.suffix in (".csv", ".tsv"):
                problems.append(f"{where}: not named by keywords (key-value_..._data.csv)")
            continue
        found = _table_problems(path, where, names)
        problems += found
        good += not found
    if not good:
        problems.append("data/: no valid data file")
    return problems


def _description(path: Path) -> tuple[dict[str, Any], list[str]]:
    if not path.is_file():
        return {}, ["dataset_description.json: missing"]
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return {}, [f"dataset_description.json: not valid JSON ({err})"]
    if not isinstance(meta, dict):
        return {}, ["dataset_description.json: not a JSON object"]
    problems = []
    if meta.get("@context") not in SCHEMA_ORG:
        problems.append("dataset_description.json: @context is not schema.org")
    if meta.get("@type") != "Dataset":
        problems.append("dataset_description.json: @type is not Dataset")
    problems += [f"dataset_description.json: {key} missing" for key in _REQUIRED
                 if not meta.get(key)]
    variables = meta.get("variableMeasured")
    if variables and (not isinstance(variables, list) or not all(
            isinstance(v, str) or (isinstance(v, dict) and isinstance(v.get("name"), str))
            for v in variables)):
        problems.append("dataset_description.json: variableMeasured is not a list of names "
                        "or PropertyValue objects with a name")
    return meta, problems


def _table_problems(path: Path, where: str, names: set) -> list[str]:
    delimiter = "\t" if path.suffix == ".tsv" else ","
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle, delimiter=delimiter))
    except (UnicodeDecodeError, csv.Error) as err:
        return [f"{where}: unreadable ({err})"]
    if not rows or not any(rows[0]):
        return [f"{where}: empty or without a header row"]
    header, problems = rows[0], []
    if len(set(header)) != len(header):
        problems.append(f"{where}: a column name repeats")
    problems += [f"{where}: column {c!r} is not in variableMeasured" for c in header
                 if c not in names]
    bad = next((k for k, row in enumerate(rows[1:], 2) if len(row) != len(header)), None)
    if bad is not None:
        problems.append(f"{where}: line {bad} has not as many cells as the header")
    return problems
