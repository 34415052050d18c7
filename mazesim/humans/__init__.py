"""People's walks (DESIGN.md section 11): import recorded trajectories, fit the agents to them,
compare them with simulated runs.

- `import_mst`, `import_csv` (`importer`, `sources`): recorded trajectories into a run of people;
- `load_human_run`, `node_decisions` (`data`): a run of people, its junction decisions and its
  node decisions (on each maze's decision tree);
- `fit_models` (`fit`, `models`, `fit_output`): maximum likelihood, cross-validated by person;
- `compare_runs` (`compare`): people against the agents of a simulated run;
- `simulate_population` (`recovery`): a synthetic run of people, for parameter recovery.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from mazesim.humans.data import HumanRun, NodeDecisions, load_human_run, node_decisions
from mazesim.humans.fit import FitReport, fit_run
from mazesim.humans.importer import ImportSummary, import_csv, import_mst
from mazesim.humans.models import default_models, parse_model
from mazesim.humans.sources import Problem, read_csv, read_mst, read_mst_maze

__all__ = ["FitReport", "HumanRun", "ImportSummary", "NodeDecisions", "Problem",
           "default_models", "fit_models", "fit_run", "import_csv", "import_mst",
           "load_human_run", "node_decisions", "parse_model", "read_csv", "read_mst",
           "read_mst_maze"]


def fit_models(run_dir: str | Path, models: Sequence[str] | None = None, **options
               ) -> FitReport:
    """Fit `models` (default: every agent with step probabilities) to the people of `run_dir`;
    options as `fit_run` (by, folds, seed, starts)."""
    return fit_run(load_human_run(run_dir), list(models or default_models()), **options)
