"""mazesim: maze generation, maze parameters and simulated solvers for maze-difficulty research.

The domain in a few names::

    from mazesim import generate, parameters, make_agent, simulate
    maze = generate("digging", (31, 31), seed=1)
    walk = simulate(maze, make_agent("weighted-walker"), vision=2, seed=7)
    run = load_run("results/quickstart/<run-id>")     # a run's tables as pandas DataFrames

Each name is imported from its module on first use (`__getattr__`): `import mazesim` and the
command line start without numba, scipy or pandas.
"""

import importlib

_HOMES = {
    "mazesim.agents": ("AGENTS", "Vision", "decision_tree", "isovist", "make_agent", "sweep"),
    "mazesim.analysis": ("PARAMETERS", "distance_map", "parameters", "shortest_path"),
    "mazesim.errors": ("MazesimError",),
    "mazesim.experiment.results": ("load_run",),
    "mazesim.generators": ("GENERATORS", "generate"),
    "mazesim.maze": ("Maze", "format_maze", "parse_maze", "read_maze", "write_maze"),
    "mazesim.records": ("Batch", "Choice", "Trajectory"),
    "mazesim.walks": ("simulate", "simulate_many"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME)


def __getattr__(name: str):
    """A public name, imported from its module on first use and kept."""
    if name not in _HOME:
        raise AttributeError(f"module 'mazesim' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
