"""Fixtures of the experiment tests (helpers in experiment_fixtures.py)."""

from experiment_fixtures import small_config  # noqa: F401
