"""mazesim: maze generation, maze parameters and simulated solvers for maze-difficulty research.

The domain in a few names::

    from mazesim import generate, parameters, make_agent, simulate
    maze = generate("digging", (31, 31), seed=1)
    walk = simulate(maze, make_agent("weighted-walker"), vision=2, seed=7)
    run = load_run("results/quickstart/<run-id>")     # a run's tables as pandas DataFrames
"""

from mazesim.agents import AGENTS, Vision, decision_tree, isovist, make_agent, sweep
from mazesim.analysis import PARAMETERS, distance_map, parameters, shortest_path
from mazesim.errors import MazesimError
from mazesim.generators import GENERATORS, generate
from mazesim.maze import Maze, format_maze, parse_maze, read_maze, write_maze
from mazesim.records import Batch, Choice, Trajectory
from mazesim.walks import simulate, simulate_many

__all__ = [
    "AGENTS",
    "GENERATORS",
    "PARAMETERS",
    "Batch",
    "Choice",
    "Maze",
    "MazesimError",
    "Trajectory",
    "Vision",
    "decision_tree",
    "distance_map",
    "format_maze",
    "generate",
    "isovist",
    "load_run",
    "make_agent",
    "parameters",
    "parse_maze",
    "read_maze",
    "shortest_path",
    "simulate",
    "simulate_many",
    "sweep",
    "write_maze",
]


def __getattr__(name: str):
    """`load_run` imports pandas: loaded on first use only (the CLI starts without it)."""
    if name == "load_run":
        from mazesim.experiment.results import load_run

        return load_run
    raise AttributeError(f"module 'mazesim' has no attribute {name!r}")
