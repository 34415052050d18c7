"""Commands: filled in by its issue."""

from mazesim.cli import main  # noqa: F401
