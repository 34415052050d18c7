"""YAML experiments (DESIGN.md section 8): config, runner, storage, statistics, report, rerun,
results (a run's tables as pandas DataFrames).

>>> from mazesim.experiment import load_config, run_experiment        # doctest: +SKIP
>>> result = run_experiment(load_config("configs/quickstart.yaml"))   # doctest: +SKIP
>>> result.run_dir                                                    # doctest: +SKIP
PosixPath('results/quickstart/20261130T062827Z')
"""

import importlib

_HOMES = {
    "config": ("Config", "load_config", "config_from_dict", "resolved_config"),
    "runner": ("run_experiment", "RunResult", "RunInterrupted"),
    "storage": ("RunStore",),
    "report": ("build_report", "Report"),
    "rerun": ("rerun_trial", "Rerun"),
    "results": ("load_run", "Results"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [name for names in _HOMES.values() for name in names]


def __getattr__(name: str):
    """A public name, imported from its module on first use (the runner imports scipy, the
    report and results pandas and matplotlib: `mazesim validate` needs none of them)."""
    if name not in _HOME:
        raise AttributeError(f"module 'mazesim.experiment' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value
