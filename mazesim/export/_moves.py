"""The one table both dataset formats share: every cell of every trial of a run of people, one
row per cell, with the description of each column, and the file-name labels of participants and
mazes (letters and digits only, as both formats' names require)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from mazesim.humans.data.run import HumanRun

__all__ = ["COLUMNS", "Trial", "Table", "read_table", "labels"]

COLUMNS = (
    ("participant", "The participant's id in the run (the label in file names keeps its "
                    "letters and digits only)."),
    ("maze", "The maze walked: the stem of its file in the dataset's maze folder."),
    ("trial", "The participant's trial number, from 1, in the order the run stored them."),
    ("step", "The cell's position in the walk: 0 is the start, each move adds 1."),
    ("row", "The cell's row in the maze, from 0 at the top."),
    ("col", "The cell's column in the maze, from 0 at the left."),
    ("vision", "What the participant could see (mazesim's vision label: full, a window "
               "half-width k, or 'isovist r, map known': line of sight over a known floor "
               "plan)."),
)
"""The data columns in file order, with their descriptions: the columns of `mazesim import
csv`, so that a dataset's rows read back as a run."""
_NOT_LABEL = re.compile(r"[^A-Za-z0-9]")
_NOT_STEM = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Trial:
    """One exported trial: who, the maze's stem, the participant's trial number, the vision's
    label and the cells walked."""

    participant: str
    maze: str
    number: int
    vision: str
    positions: np.ndarray       # int (T + 1, 2)


@dataclass(frozen=True)
class Table:
    """A run of people as exported: participants (id, label) in run order, maze stems by maze
    id, and the trials of each participant."""

    name: str
    people: tuple[tuple[str, str], ...]
    mazes: dict[int, str]
    trials: dict[str, list[Trial]]

    def rows(self, participant: str) -> Iterator[tuple]:
        """The participant's rows in `COLUMNS` order."""
        for t in self.trials[participant]:
            for step, (r, c) in enumerate(t.positions.tolist()):
                yield (t.participant, t.maze, t.number, step, r, c, t.vision)

    @property
    def n_trials(self) -> int:
        return sum(len(v) for v in self.trials.values())


def labels(ids: Sequence[str], pattern: re.Pattern = _NOT_LABEL, prefix: str = "p"
           ) -> list[str]:
    """File-name labels of `ids`: each id without the characters `pattern` matches, when that
    leaves distinct non-empty labels; else `prefix` and a number from 1 for every id (labels
    that point to two people would merge them)."""
    cleaned = [pattern.sub("", str(i)) for i in ids]
    if all(cleaned) and len(set(c.lower() for c in cleaned)) == len(cleaned):
        return cleaned
    width = len(str(len(ids)))
    return [f"{prefix}{k + 1:0{width}d}" for k in range(len(ids))]


def read_table(run: HumanRun) -> Table:
    """The export table of a run of people (`humans.load_human_run`)."""
    maze_ids = sorted(run.mazes)
    names = [str(run.mazes[m].meta.get("name", f"maze{m}")) for m in maze_ids]
    stems = dict(zip(maze_ids, labels(names, _NOT_STEM, "maze")))
    trials: dict[str, list[Trial]] = {p: [] for p in run.participants}
    for t in sorted(run.trials, key=lambda t: t.trial_id):
        own = trials[t.participant]
        own.append(Trial(t.participant, stems[t.maze_id], len(own) + 1, str(t.vision),
                         t.positions))
    people = tuple(zip(run.participants, labels(run.participants)))
    return Table(Path(run.path).name or "run", people, stems, trials)
