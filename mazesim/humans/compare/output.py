"""What `mazesim compare -o FOLDER` writes: the comparison as Markdown and its tables as CSV."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Iterable

from mazesim.errors import cannot_write
from mazesim.humans.compare.runs import Comparison, format_comparison, moves_note

__all__ = ["COMPARISON", "BITS_CSV", "PARTICIPANTS_CSV", "MOVES_CSV", "CHOICES_CSV", "FILES",
           "write_comparison"]

COMPARISON = "comparison.md"
BITS_CSV = "comparison_bits.csv"
PARTICIPANTS_CSV = "comparison_participants.csv"
MOVES_CSV = "comparison_moves.csv"
CHOICES_CSV = "comparison_choices.csv"
FILES = (COMPARISON, BITS_CSV, PARTICIPANTS_CSV, MOVES_CSV, CHOICES_CSV)
"""Every file a comparison writes into its folder."""


def write_comparison(c: Comparison, folder: str | Path) -> list[Path]:
    """Write `comparison.md` and the four tables into `folder` (missing values empty, a `note`
    saying why); returns their paths."""
    folder = Path(folder)
    try:
        return _write(c, folder)
    except OSError as err:
        raise cannot_write(folder, err) from None


def _write(c: Comparison, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COMPARISON).write_text(format_comparison(c), encoding="utf-8")
    _table(folder / BITS_CSV, ["vision", "agent", "how", "params", "lapse", "trials",
                               "decisions", "bits", "ci_low", "ci_high", "baseline_bits"],
           ([x.vision, x.agent, x.how, json.dumps(x.params), x.lapse, x.trials, x.decisions,
             x.bits, *x.ci, x.baseline_bits] for x in c.scores))
    _table(folder / PARTICIPANTS_CSV, ["vision", "agent", "participant", "trials", "decisions",
                                       "bits", "ci_low", "ci_high"],
           ([x.vision, x.agent, p.participant, p.trials, p.decisions, p.bits, *p.ci]
            for x in c.scores for p in x.participants))
    _table(folder / MOVES_CSV, ["vision", "agent", "method", "r", "p", "n", "note", "estimate",
                                "tau"],
           ([r.vision, r.agent, r.method, r.r, r.p, r.n, moves_note(r), r.estimate, r.tau]
            for r in c.correlations))
    _table(folder / CHOICES_CSV, ["vision", "agent", "mark", "direction", "count", "human",
                                  "test", "p", "holm_p", "note"],
           ([t.vision, t.agent, t.mark, d.direction, d.count, d.human, t.test, t.fisher_p, q,
             t.note] for t, q in zip(c.choices, c.holm_p) for d in t.directions))
    return [folder / name for name in (COMPARISON, BITS_CSV, PARTICIPANTS_CSV, MOVES_CSV,
                                       CHOICES_CSV)]


def _table(path: Path, header: list[str], rows: Iterable[list[Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([_cell(v) for v in row] for row in rows)


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value
