"""Measuring mazes (DESIGN.md section 4): distance maps and routes (`routes`), the study's
parameters and more (`parameters`), their compiled kernels (`_kernels`)."""

from mazesim.analysis.parameters import DESCRIPTIONS, PARAMETERS, PATH_PARAMETERS, parameters
from mazesim.analysis.routes import TUTORIAL_DFS_ORDER, dfs_path, distance_map, shortest_path

__all__ = [
    "PARAMETERS",
    "DESCRIPTIONS",
    "PATH_PARAMETERS",
    "TUTORIAL_DFS_ORDER",
    "distance_map",
    "shortest_path",
    "dfs_path",
    "parameters",
]
