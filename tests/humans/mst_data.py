"""Where the shared Maze Search Task data lives: ``shared/data/maze-search-task`` in the nearest
folder above the tests (beside the clone, or beside the worktree's folder); missing data fails
the test that needs it, never skips it."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_MST = Path("shared") / "data" / "maze-search-task"
EXPERIMENT_1 = "experiment-1"


def mst_folder(experiment: str = EXPERIMENT_1) -> Path:
    """The shared folder of one experiment; fails the test if there is none."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SHARED_MST / experiment / "plandata.csv").is_file():
            return folder / SHARED_MST / experiment
    pytest.fail(f"Maze Search Task data not found: no {SHARED_MST / experiment} with "
                f"plandata.csv in any folder above {Path(__file__).parent} (the tests need "
                "../shared beside the clone)")


REPLICATION = Path("shared") / "data" / "maze-search-task-replication"


def replication_mazes() -> list[Path]:
    """The 30 map files (`mapNN.json`) of the independent replication; fails the test if there
    are none."""
    for folder in Path(__file__).resolve().parents:
        files = sorted((folder / REPLICATION / "mazes").glob("map*.json"))
        if files:
            return files
    pytest.fail(f"no {REPLICATION / 'mazes'} in any folder above {Path(__file__).parent}")
