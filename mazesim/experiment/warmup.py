"""Compiling a run's kernels before it starts, on a cold cache only, saying how far it is.

numba compiles a kernel on its first call and caches it on disk, so the first run of a fresh
install would compile its kernels in the middle of its first trials (a progress bar stuck at 0,
then a rate that counts the compilation). When some kernels the config uses are not in the
cache yet, `warm_up` calls each kernel once, one task per generator block, agent family and kind
of walk: in a pool of processes when the machine has several cores, else one after the other
here; the run then loads them from the cache. Only the kernels the run uses are compiled.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable

import numpy as np

from mazesim.agents import KernelAgent, Vision
from mazesim.agents.tree_walkers import TreeWalker
from mazesim.analysis import parameters
from mazesim.analysis.parameters import KERNEL as PARAMETERS_KERNEL
from mazesim.experiment._kernels import resampled_ranks
from mazesim.experiment.config import Config, GeneratedMazes
from mazesim.jit import cached
from mazesim.maze import parse_maze
from mazesim.walks import simulate_many

__all__ = ["warm_up", "cold_kernels", "task_label"]

Task = tuple  # ("maze", GeneratedMazes), ("walk", agent, vision), ("measure",), ("statistics",)
Said = Callable[[int, int, str], None]
"""(tasks done, tasks in all, what is compiling now: `task_label`s joined by ", ")"""


def warm_up(config: Config, said: Said | None = None) -> bool:
    """Compile the config's kernels when some are cold: in parallel when there are several
    cores (and fork), else here one task after the other. `said(done, total, label)` hears of
    task as it starts and ends (what compiles now), first with done 0, last with done == total
    and nothing compiling. Returns whether it compiled."""
    if not cold_kernels(config):
        return False
    tasks = _tasks(config)
    tell = said or (lambda done, total, label: None)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for done, task in enumerate(tasks):
            tell(done, len(tasks), task_label(task))
            _exercise(task)
        tell(len(tasks), len(tasks), "")
        return True
    workers = min(cores, len(tasks))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(_exercise, task) for task in tasks]
        running = ", ".join(map(task_label, tasks[:workers]))       # the pool starts in order
        tell(0, len(tasks), running)
        for done, future in enumerate(as_completed(futures), 1):
            future.result()
            left = [task for task, f in zip(tasks, futures) if not f.done()]
            tell(done, len(tasks), ", ".join(map(task_label, left[:workers])))
    return True


def task_label(task: Task) -> str:
    """What a warm-up task compiles, in words: `walks of dfs`, `generator digging`, ..."""
    kind = task[0]
    if kind == "walk":
        return f"walks of {task[1].name}"
    if kind == "maze":
        return f"generator {task[1].generator}" + (" (braided)" if task[1].braid > 0 else "")
    return {"measure": "maze parameters", "statistics": "bootstrap"}[kind]


def cold_kernels(config: Config) -> bool:
    """Whether a kernel of the config's agents, the parameters' kernel or (when the run has
    Spearman intervals) the bootstrap's has no cache index."""
    kernels = [PARAMETERS_KERNEL] + ([resampled_ranks] if _bootstraps(config) else []) + [
        _kernel(spec.agent) for spec in config.agents if _kernel(spec.agent) is not None]
    return any(not cached(kernel) for kernel in kernels)


def _kernel(agent: Any) -> Any:
    """The compiled walk of an agent (a compiled rule's loop, or the tree walkers' kernel);
    None for an agent that walks in Python."""
    return agent.kernel() if isinstance(agent, (KernelAgent, TreeWalker)) else None


def _bootstraps(config: Config) -> bool:
    """Whether the run's report bootstraps (Spearman intervals): only then are its kernels
    compiled, and only then can their cache be asked for."""
    return "spearman" in config.methods


def _tasks(config: Config) -> list[Task]:
    """One walk per agent family and mapped/blind loop, each generator block once, the
    parameters, the bootstrap: the first walk (it compiles the kernels every walk shares) beside
    the mazes and the parameters, then the other walks, which find the shared kernels in the
    cache, and the short bootstrap last, filling the pool's tail (before the other walks, it
    left one process idle 2-3 s while the other compiled the last walk). Walks and parameters
    run on a small literal maze: kernels compile for the types of their arguments, and
    generating a maze here would compile its generator before the pool starts."""
    walks, seen = [], set()
    for spec in config.agents:
        for vision in config.vision:
            agent = spec.agent
            kernel = _kernel(agent)
            key = type(agent) if kernel is None else kernel
            if key not in seen:
                seen.add(key)
                walks.append(("walk", agent, vision))
    blocks = list({(b.generator, b.braid > 0, str(b.placement)): ("maze", b)
                   for b in config.mazes if isinstance(b, GeneratedMazes)}.values())
    statistics = [("statistics",)] if _bootstraps(config) else []
    return walks[:1] + blocks + [("measure",)] + walks[1:] + statistics


_MAZE = parse_maze("#######\n#S....#\n#.###.#\n#....G#\n#######")


def _exercise(task: Task) -> None:
    """Call the kernels of one task once (in a pool process: the cache keeps them)."""
    kind = task[0]
    if kind == "walk":
        _, agent, vision = task
        simulate_many(_MAZE, agent, vision if isinstance(vision, Vision) else Vision(), 1, 0,
                      choices="marks")
    elif kind == "maze":
        task[1].maze(0)
    elif kind == "statistics":               # the bootstrap's kernels, one group and three
        from mazesim.experiment.statistics import correlate   # scipy: only when bootstrapping

        x = np.arange(12.0)
        for groups in (None, np.repeat(["a", "b", "c"], 4)):
            correlate(x, x[::-1], "spearman", groups=groups)
    else:
        parameters(_MAZE)
