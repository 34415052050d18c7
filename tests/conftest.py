"""Shared test settings: hypothesis without deadlines (a first call compiles a numba kernel), and
the `slow` marker: slow tests are deselected unless `--slow` is given (CI gives it)."""

from hypothesis import settings

settings.register_profile("mazesim", deadline=None, max_examples=60)
settings.load_profile("mazesim")


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="run the slow tests too (minutes on 2 cores; CI runs them)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        # the longest tests first: started last, one ran alone for minutes (xdist hands the
        # first tests out first)
        items.sort(key=lambda item: item.get_closest_marker("first") is None)
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
