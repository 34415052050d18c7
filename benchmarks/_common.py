"""What the benchmark scripts share: medians of repeated calls, and the shared Maze Search Task
folder found beside the checkout (`../shared`, as CI lays it out)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any, Callable

EXPERIMENT_1 = Path("shared") / "data" / "maze-search-task" / "experiment-1"
REPLICATION = Path("shared") / "data" / "maze-search-task-replication"


def medians(func: Callable[[], Any], repeats: int, *, warm_up: bool = False
            ) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of `repeats` calls (after one unmeasured call with `warm_up`:
    compiled kernels loaded), and the last call's result."""
    if warm_up:
        func()
    runs, result = [], None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        result = func()
        runs.append((time.perf_counter() - w0, time.process_time() - c0))
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs), result


def experiment_1() -> Path:
    """The Maze Search Task's experiment-1 folder above this script; exits when there is none."""
    here = Path(__file__).resolve()
    folder = next((p / EXPERIMENT_1 for p in here.parents
                   if (p / EXPERIMENT_1 / "plandata.csv").is_file()), None)
    if folder is None:
        raise SystemExit(f"no {EXPERIMENT_1} above {here.parent}")
    return folder


def replication() -> Path:
    """The independent replication's folder (30 maps of 15x15, `walks.csv`) above this script;
    exits when there is none."""
    here = Path(__file__).resolve()
    folder = next((p / REPLICATION for p in here.parents
                   if (p / REPLICATION / "walks.csv").is_file()), None)
    if folder is None:
        raise SystemExit(f"no {REPLICATION} above {here.parent}")
    return folder
