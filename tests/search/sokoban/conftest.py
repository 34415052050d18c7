"""The Microban level set, read once; a missing set fails the tests that need it (never a skip)."""

from pathlib import Path

import pytest

from mazesim.search.sokoban.level import read_levels

SHARED_LEVELS = Path("shared") / "levels" / "microban.txt"
"""Where the set lives: ``../shared/levels/`` beside the clone (or beside its worktree folder)."""


def microban_path() -> Path:
    """The nearest ``shared/levels/microban.txt`` above this folder; fails the test if none."""
    for folder in Path(__file__).resolve().parents:
        if (folder / SHARED_LEVELS).is_file():
            return folder / SHARED_LEVELS
    pytest.fail(f"Microban levels not found: no {SHARED_LEVELS} in any folder above "
                f"{Path(__file__).parent} (the tests need ../shared beside the clone)")


@pytest.fixture(scope="session")
def microban():
    """The 155 Microban levels."""
    return read_levels(microban_path())
