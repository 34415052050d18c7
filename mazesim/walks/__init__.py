"""Walks through mazes (DESIGN.md section 7): running agents (`simulate`), measuring walks
(`metrics`), cutting them on decision trees (`nodes`) and drawing them (`pictures`); the records
themselves are `mazesim.records`."""

from mazesim.records import Batch, Choice, Trajectory
from mazesim.walks.metrics import (LogLikelihood, TrajectoryMetrics, batch_report, batch_summary,
                                   choice_log_likelihood, excursion_depths, final_route,
                                   first_choice_counts, trajectory_metrics, visit_counts)
from mazesim.walks.nodes import NodeChoice, NodeCutter, node_choices
from mazesim.walks.simulate import (check_walk, choice_records, choices_of, simulate,
                                    simulate_many, trial_seed, walk_fault)

__all__ = [
    "Batch",
    "Choice",
    "Trajectory",
    "simulate",
    "simulate_many",
    "trial_seed",
    "choices_of",
    "choice_records",
    "check_walk",
    "walk_fault",
    "TrajectoryMetrics",
    "LogLikelihood",
    "trajectory_metrics",
    "final_route",
    "visit_counts",
    "excursion_depths",
    "first_choice_counts",
    "batch_summary",
    "batch_report",
    "choice_log_likelihood",
    "NodeChoice",
    "NodeCutter",
    "node_choices",
]
