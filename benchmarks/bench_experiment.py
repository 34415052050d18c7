"""Benchmark of the experiment runner on configs/study-first-experiment.yaml, and the first run.

Runs the config end to end (generation, analysis, all trials, storage, report) with `--workers`,
then reports wall time, trials/s, moves/s and the split of the time: agent kernels
(`simulate_many`, summed over workers), the runner's overhead in the workers (seeding, agent set-up,
sample trajectories, packing results), storage in the main process (sqlite, npz) and the report
(in the run, and `mazesim report` of the run in a fresh process).
The runner's overhead is compared with the kernel time (target: <= 20%). The serial part, in CPU
seconds (robust on a shared machine): the run's main process (mazes, kernel cache, the sweep's
bookkeeping and storage) and the report's (the larger of its own process and its largest piece
in another process: the pieces, as the units, are spread over the cores; split as a machine
of `--split` cores would split them), against the workers'
CPU (kernels and all) and the report's pieces; Amdahl's law turns that fraction into the
speed-up of 16 workers (target: >= 10x). Then the first run:
`mazesim run configs/quickstart.yaml` with an empty numba cache beside the same run warm, side by
side in fresh processes (target: cold at most 4 times warm).

    python benchmarks/bench_experiment.py [--workers 2] [--count N] [--repeat 1] [--split 16]
                                          [--quick]

`--count N` scales the config down to N mazes per generator (the study config has 100); the
kernel/overhead ratio does not depend on it, the end-to-end time scales with it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator
from unittest import mock

from mazesim.experiment import report, storage
from mazesim.experiment.config import load_config
from mazesim.experiment.report import build_report
from mazesim.experiment.runner import run_experiment
from mazesim.experiment.storage import RunStore
from mazesim.experiment.warmup import warm_up

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "study-first-experiment.yaml"
QUICKSTART = CONFIG.parent / "quickstart.yaml"
TINY = "name: tiny\nseed: 1\nmazes: [{generator: digging, size: 11, count: 2}]\n" \
       "agents: [{type: random-walk, trials: 2}]\nvision: [2]\n"


def first_run(config: Path, warm_runs: int, cold: bool = True) -> tuple[float, list[float]]:
    """Wall seconds of `mazesim run CONFIG` on an empty numba cache (or the cache as it is, when
    not `cold`: the quick mode's check that the section runs), then of `warm_runs` more."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache} if cold else None
        times = []
        for _ in range(1 + warm_runs):
            began = time.perf_counter()
            subprocess.run([sys.executable, "-m", "mazesim", "run", str(config), "--output", out],
                           env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - began)
    return times[0], times[1:]


def children_cpu() -> float:
    """CPU seconds of this process's finished child processes (workers, report helpers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def amdahl(serial: float, parallel: float, workers: int) -> float:
    """Speed-up with `workers` of a job of `serial` + `parallel` seconds (Amdahl's law)."""
    return (serial + parallel) / (serial + parallel / workers)


@contextlib.contextmanager
def split_as(count: int) -> Iterator[None]:
    """The report's work split in pieces as on a machine of `count` cores (Table 1 in `count`
    pieces, the trials in up to `count` slices, a scatter figure in up to `count` bands), so
    that its largest piece is the one such a machine would wait for."""
    with contextlib.ExitStack() as stack:
        for module in (storage, report):
            stack.enter_context(mock.patch.object(module, "cores", lambda: count))
        yield


def once(workers: int, count: int | None, split: int) -> dict[str, float]:
    config = load_config(CONFIG)
    if count is not None:
        config = replace(config, mazes=tuple(replace(b, count=count) for b in config.mazes))
    warm_up(config)            # a cold kernel cache compiles now, outside the CPU counted below
    with tempfile.TemporaryDirectory() as out:
        began, children, cpu = time.perf_counter(), children_cpu(), time.process_time()
        result = run_experiment(config, output=out, workers=workers, report=False)
        workers_cpu, main_cpu = children_cpu() - children, time.process_time() - cpu
        clock, cpu, children = time.perf_counter(), time.process_time(), children_cpu()
        pieces: list[tuple[str, float]] = []
        with split_as(split):
            build_report(result.run_dir, cpu=pieces)
        report_cpu, helpers_cpu = time.process_time() - cpu, children_cpu() - children
        largest = max(pieces, key=lambda p: p[1], default=("none", 0.0))
        wall = time.perf_counter() - began
        result.timings["report"] = time.perf_counter() - clock
        with RunStore(result.run_dir) as store:
            per_agent = store.query(
                "SELECT u.agent, u.vision, SUM(u.kernel_seconds), SUM(t.moves), SUM(t.n) "
                "FROM units u "
                "JOIN (SELECT maze_id, agent, vision, SUM(moves) AS moves, COUNT(*) AS n "
                "FROM trials GROUP BY maze_id, agent, vision) t USING (maze_id, agent, vision) "
                "GROUP BY u.agent, u.vision ORDER BY SUM(u.kernel_seconds) DESC")
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "mazesim", "report", str(result.run_dir)],
                       check=True, capture_output=True)
        report_cli = time.perf_counter() - began
    t = result.timings
    # the runner's own work: the units' time outside the kernels, plus (with workers) all the CPU
    # of the main process during the sweep (scheduling, unpickling, storage); serially only its
    # storage can be told apart from the kernels
    overhead = t["worker"] + (t["main_cpu"] if workers > 1 else t["storage"])
    serial = main_cpu + max(report_cpu, largest[1])
    parallel = workers_cpu + helpers_cpu
    return {"workers_cpu": workers_cpu, "report_cpu": report_cpu, "helpers_cpu": helpers_cpu,
            "largest_cpu": largest[1], "largest": largest[0], "run_cpu": main_cpu,
            "serial": serial, "serial_fraction": serial / (serial + parallel),
            "amdahl16": amdahl(serial, parallel, 16), "wall": wall, "trials": result.trials,
            "moves": result.moves, "mazes": t["mazes"],
            "sweep": t["sweep"], "report": t["report"], "report_cli": report_cli,
            "kernel": t["kernel"],
            "worker_overhead": t["worker"], "storage": t["storage"], "main_cpu": t["main_cpu"],
            "overhead_ratio": overhead / t["kernel"], "per_agent": per_agent}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--count", type=int, default=None, help="mazes per generator")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--split", type=int, default=16,
                        help="split the report's pieces as on a machine of this many cores")
    parser.add_argument("--quick", action="store_true",
                        help="1 maze per generator, 2 workers: checks that the script runs")
    args = parser.parse_args()
    if args.quick:
        args.count, args.workers, args.repeat = 1, 2, 1
    runs = [once(args.workers, args.count, args.split) for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]
           if k not in ("per_agent", "largest")}
    print(f"study-first-experiment, {args.count or 100} mazes per generator, "
          f"--workers {args.workers}, median of {args.repeat}")
    print(f"  end to end        {med['wall']:8.1f} s   (target <= 60 s for the full config)")
    print(f"  trials            {med['trials']:10,.0f}   {med['trials'] / med['wall']:10,.0f} "
          "trials/s")
    print(f"  moves             {med['moves']:10,.0f}   {med['moves'] / med['wall']:10,.0f} "
          "moves/s")
    print(f"  mazes + analysis  {med['mazes']:8.2f} s")
    print(f"  sweep (wall)      {med['sweep']:8.2f} s")
    print(f"  report + figures  {med['report']:8.2f} s")
    print(f"  mazesim report    {med['report_cli']:8.2f} s   (the run again, a fresh process; "
          "target <= 4 s for the full config)")
    print(f"  agent kernels     {med['kernel']:8.2f} s   (summed over workers)")
    print(f"  worker overhead   {med['worker_overhead']:8.2f} s   (seeding, set-up, samples)")
    print(f"  storage           {med['storage']:8.2f} s   (sqlite + npz, main process)")
    print(f"  main process CPU  {med['main_cpu']:8.2f} s   (during the sweep)")
    print(f"  overhead / kernel {100 * med['overhead_ratio']:8.1f} %  (target <= 20 %)")
    if args.workers > 1:
        print(f"  serial part (CPU) {med['serial']:8.2f} s   (the run's main process "
              f"{med['run_cpu']:.2f} s: mazes, kernel cache, sweep, storage; the report's own "
              f"{med['report_cpu']:.2f} s or its largest piece's {med['largest_cpu']:.2f} s "
              f"({runs[-1]['largest']}; pieces split as for {args.split} cores), the larger)")
        print(f"  workers (CPU)     {med['workers_cpu']:8.2f} s   (kernels, set-up, packing)")
        print(f"  report pieces     {med['helpers_cpu']:8.2f} s   (CPU of the report's processes "
              "beside its own: exports, Table 1, figures, reading the trials)")
        print(f"  serial fraction   {100 * med['serial_fraction']:8.1f} %  -> 16 workers "
              f"{med['amdahl16']:.1f} x by Amdahl's law (target >= 10 x)")
    print("  agent kernels by condition (last run): seconds, ms/trial, moves/trial, moves/s")
    for agent, vision, seconds, moves, n in runs[-1]["per_agent"]:
        print(f"    {agent:>16} {vision:>5} {seconds:8.2f} s {1000 * seconds / n:7.2f} "
              f"{moves / n:9,.0f} {moves / seconds:12,.0f}")
    with tempfile.TemporaryDirectory() as folder:
        config = QUICKSTART
        if args.quick:
            config = Path(folder) / "tiny.yaml"
            config.write_text(TINY, encoding="utf-8")
        cold, warm = first_run(config, 1 if args.quick else 3, cold=not args.quick)
    warm_median = statistics.median(warm)
    cache = "the cache as found (quick)" if args.quick else "empty numba cache"
    print(f"first run of {config.name}, fresh processes: {cache} {cold:.1f} s, warm "
          f"{warm_median:.1f} s (median of {len(warm)}): {cold / warm_median:.1f} x "
          "(target <= 4)")


if __name__ == "__main__":
    main()
