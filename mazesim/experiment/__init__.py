"""YAML experiments (DESIGN.md section 8): config, runner, storage, statistics, report, rerun,
results (a run's tables as pandas DataFrames).

>>> from mazesim.experiment import load_config, run_experiment        # doctest: +SKIP
>>> result = run_experiment(load_config("configs/quickstart.yaml"))   # doctest: +SKIP
>>> result.run_dir                                                    # doctest: +SKIP
PosixPath('results/quickstart/20261130T062827Z')
"""

from mazesim.experiment.config import Config, config_from_dict, load_config, resolved_config
from mazesim.experiment.rerun import Rerun, rerun_trial
from mazesim.experiment.runner import RunInterrupted, RunResult, run_experiment
from mazesim.experiment.storage import RunStore

__all__ = [
    "Config",
    "load_config",
    "config_from_dict",
    "resolved_config",
    "run_experiment",
    "RunResult",
    "RunInterrupted",
    "RunStore",
    "build_report",
    "Report",
    "rerun_trial",
    "Rerun",
    "load_run",
    "Results",
]


def __getattr__(name: str):
    """`build_report` and `Report` import pandas (and matplotlib to draw), `load_run` and
    `Results` pandas: loaded on first use only."""
    if name in ("build_report", "Report"):
        from mazesim.experiment import report

        return getattr(report, name)
    if name in ("load_run", "Results"):
        from mazesim.experiment import results

        return getattr(results, name)
    raise AttributeError(f"module 'mazesim.experiment' has no attribute {name!r}")
