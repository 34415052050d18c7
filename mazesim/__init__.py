"""mazesim: maze generation, maze parameters and simulated solvers for maze-difficulty research."""

from mazesim.errors import MazesimError
from mazesim.maze import Maze, format_maze, parse_maze, read_maze, write_maze

__all__ = ["MazesimError", "Maze", "format_maze", "parse_maze", "read_maze", "write_maze"]
