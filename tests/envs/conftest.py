"""Fixtures of the environment tests: the export tests' runs of people (the play demo's,
recorded by two scripted participants, and the Maze Search Task's experiment 1)."""

from tests.export.conftest import experiment_1, experiment_1_run, play_run  # noqa: F401
