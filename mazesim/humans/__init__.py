"""People's walks (DESIGN.md section 11): import recorded trajectories, fit the agents to them,
compare them with simulated runs."""

from mazesim.humans.importer import ImportSummary, import_csv, import_mst
from mazesim.humans.sources import Problem, read_csv, read_mst, read_mst_maze

__all__ = ["ImportSummary", "Problem", "import_csv", "import_mst", "read_csv", "read_mst",
           "read_mst_maze"]
