"""Run an experiment: make the run directory, build the mazes, run the sweep, store, report.

The sweep is the cartesian product mazes x agents x vision; one (maze, agent, vision) cell with all
its trials is a work unit (`tasks.Unit`). Units are numbered in that order and trial ids follow
them, so ids and seeds depend on coordinates only, never on order, workers or resume.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml

from mazesim.errors import ConfigError, RunError
from mazesim.experiment.config import Config, MazeFile, resolved_config
from mazesim.experiment.executors import Executor, WorkersLost, open_executor
from mazesim.experiment.seeds import maze_seed
from mazesim.experiment.rundir import ENVIRONMENT_FILE  # noqa: F401 (public here before)
from mazesim.experiment.storage import MazeRecord, RunStore
from mazesim.experiment.tasks import Chunk, ChunkResult, Unit, run_chunk
from mazesim.experiment.warmup import warm_up
from mazesim.maze import Maze, format_maze, parse_maze

__all__ = ["RunResult", "RunInterrupted", "run_experiment", "plan_units", "build_mazes",
           "resume_command", "BATCH_TRIALS", "FLUSH_SECONDS", "CONFIG_FILE", "ENVIRONMENT_FILE"]

BATCH_TRIALS = 50_000  # trials per database transaction at most (one unit may exceed it alone)
FLUSH_SECONDS = 2.0    # ... or commit what is done after this long
SPLIT_BELOW = 8        # fewer chunks (mazes) per worker: each unit is a task of its own
CONFIG_FILE = "config.yaml"
_STATUS_RUNNING, _STATUS_COMPLETE = "running", "complete"

Progress = Callable[[int, int], None]  # (trials done, trials in total)
Compiling = Callable[[int, int, str], None]  # (kernel groups compiled, in all, what compiles now)
Stage = Callable[[str], None]  # a long step begins: what it does


@dataclass(frozen=True)
class RunResult:
    """What a finished run did, with the timings the benchmark reports.

    `timings` (seconds): `mazes` (generation and parameters), `sweep` (wall), `kernel` (inside
    `simulate_many`, summed over units), `worker` (the rest of the units' time: seeding, set-up,
    sample trajectories), `storage` (database and npz writes), `main_cpu` (CPU time of this
    process during the sweep: with workers, all of its bookkeeping), `report`.
    """

    run_dir: Path
    mazes: int
    units: int
    trials: int
    moves: int
    resumed: bool
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)


class RunInterrupted(Exception):
    """Ctrl-C during a run: finished units are stored; `--resume` continues."""

    def __init__(self, run_dir: Path, done: int, total: int) -> None:
        super().__init__(f"interrupted after {done} of {total} units")
        self.run_dir, self.done, self.total = run_dir, done, total


def run_experiment(config: Config, *, output: str | Path | None = None, workers: int = 1,
                   dask: Any = None, resume: bool = False, progress: Progress | None = None,
                   report: bool = True, flush_seconds: float = FLUSH_SECONDS,
                   compiling: Compiling | None = None, stage: Stage | None = None
                   ) -> RunResult:
    """Run `config` into `OUTPUT/<name>/<run-id>/` (a new run, or the latest unfinished one).

    Finished units are committed at least every `flush_seconds` (and every `BATCH_TRIALS`
    trials); Ctrl-C commits what is finished and raises `RunInterrupted`; lost workers commit
    what is finished and raise RunError saying how to resume. The run directory has one writer
    (`RunStore(create=True)` locks it): a second `--resume` of the same run is refused.

    What it tells as it goes: on a cold kernel cache the kernels are first compiled
    (`warmup.warm_up`, `compiling(done, total, now)`); `stage(text)` when a long step begins
    (mazes, trials, report); `progress(done, total)` as trials finish, several times a second
    when the units run in this process (`tasks.SLICE_SECONDS`), after the compilation.
    """
    began = time.perf_counter()
    base = Path(output if output is not None else config.output) / config.name
    resolved = resolved_config(config)
    again = resume_command(config, output)
    with open_executor(workers=workers, dask=dask) as executor:  # checked before any write
        run_dir = _resumable(base, resolved, config) if resume else _new_run_dir(base)
        if not resume:
            _write(run_dir / CONFIG_FILE, yaml.safe_dump(resolved, sort_keys=False))
        with RunStore(run_dir, create=True) as store:
            if not resume:                  # the mazes follow once built (or read back)
                store.write_head(config=resolved, status=_STATUS_RUNNING, created=_now())
            elif store.meta("status") == _STATUS_COMPLETE:
                raise RunError(f"{run_dir}: finished meanwhile by another process; nothing "
                               "to resume")
            if dask is None:                 # after every check: a bad output fails at once
                warm_up(config, compiling)
            clock = time.perf_counter()
            mazes = _stored_or_built_mazes(store, config, stage)
            timings = {"mazes": time.perf_counter() - clock}
            units = plan_units(config, len(mazes))
            try:
                timings.update(_sweep(executor, store, config, mazes, units, progress,
                                      flush_seconds, stage))
            except WorkersLost as lost:
                raise RunError(f"{lost}; {len(store.done_units())} of {len(units)} units are "
                               f"stored in {run_dir}; resume with: {again}") from None
            store.set_meta(status=_STATUS_COMPLETE, finished=_now())
            moves = store.query("SELECT COALESCE(SUM(moves), 0) FROM trials")[0][0]
    total = sum(u.trials for u in units)
    if report:
        from mazesim.experiment.report import build_report

        clock = time.perf_counter()
        build_report(run_dir, stage=stage)
        timings["report"] = time.perf_counter() - clock
    return RunResult(run_dir, len(mazes), len(units), total, int(moves), resume,
                     time.perf_counter() - began, timings)


def _sweep(executor: Executor, store: RunStore, config: Config, mazes: list[Maze],
           units: list[Unit], progress: Progress | None, flush_seconds: float,
           stage: Stage | None = None) -> dict[str, float]:
    """Run the units not yet stored; their timings. Ctrl-C: commit, stop, RunInterrupted.

    In this process the units report their trials as they walk them (`run_chunk`'s `walked`);
    elsewhere each chunk (a maze's units) is a task, or each unit when there are too few
    chunks to keep the workers busy (`_tasks`)."""
    done = store.done_units()
    pending = [u for u in units if u.unit_id not in done]
    total = sum(u.trials for u in units)
    if stage:
        stage(f"trials: {sum(u.trials for u in pending):,} in {len(pending):,} units"
              + (f" ({total - sum(u.trials for u in pending):,} stored before)"
                 if len(pending) < len(units) else ""))
    sweep = _Sweep(store, progress, total - sum(u.trials for u in pending), total,
                   flush_seconds)
    chunks = list(_chunks(config.seed, mazes, pending))
    here = executor.in_process(len(chunks))
    task = partial(run_chunk, walked=sweep.walked) if here and progress else run_chunk
    if not here:
        chunks = _tasks(chunks, executor.workers)
    clock, cpu = time.perf_counter(), time.process_time()
    results = executor.map(task, chunks, idle=flush_seconds)
    try:
        for finished in results:
            sweep.add([finished] if finished else [])   # None: nothing new, commit if due
        sweep.flush()
    except KeyboardInterrupt:
        results.close()  # stops the workers without waiting for their tasks
        sweep.flush()
        raise RunInterrupted(store.run_dir, len(store.done_units()), len(units)) from None
    except WorkersLost:
        sweep.flush()    # what finished before the loss is kept
        raise
    return {"sweep": time.perf_counter() - clock, "kernel": sweep.kernel,
            "worker": sweep.worker, "storage": sweep.storage,
            "main_cpu": time.process_time() - cpu}


def plan_units(config: Config, maze_count: int) -> list[Unit]:
    """Every unit of the sweep in (maze, agent, vision) order with its first trial id."""
    units, first = [], 0
    for m in range(maze_count):
        for a, agent in enumerate(config.agents):
            for v, (vision, label) in enumerate(zip(config.vision, config.vision_labels)):
                units.append(Unit(len(units), m, a, v, agent.agent, vision, agent.trials, first,
                                  config.trajectories, agent.label, label))
                first += agent.trials
    return units


def build_mazes(config: Config) -> list[tuple[MazeRecord, Maze]]:
    """Generate (or read) every maze of the config with its parameters, in config order: each
    as stored and as the maze itself."""
    from mazesim.analysis import parameters

    built: list[tuple[MazeRecord, Maze]] = []
    for b, block in enumerate(config.mazes):
        if isinstance(block, MazeFile):
            items = [(block.maze, str(block.file), None, None)]
        else:
            items = []
            for i in range(block.count):
                seed = maze_seed(config.seed, b, i) if block.seed is None else block.seed + i
                items.append((block.maze(seed), f"mazes[{b}]", block.generator, seed))
        for maze, source, generator, seed in items:
            params = parameters(maze, config.parameters)
            built.append((MazeRecord(len(built), source, generator,
                                     f"{maze.shape[0]}x{maze.shape[1]}", seed,
                                     format_maze(maze), _jsonable(maze.meta), params), maze))
    return built


def resume_command(config: Config, output: str | Path | None = None) -> str:
    """The command that continues an interrupted run of `config`."""
    return f"mazesim run {config.source} --resume" + (f" --output {output}" if output else "")


class _Sweep:
    """Buffers finished units and commits them in bounded transactions; reports progress."""

    def __init__(self, store: RunStore, progress: Progress | None, done: int, total: int,
                 flush_seconds: float) -> None:
        self.store, self.progress = store, progress
        self.flush_seconds = flush_seconds
        self.done, self.total = done, total
        self.buffer: list[ChunkResult] = []
        self.buffered = 0
        self.walking = 0             # trials walked of the unit running in this process
        self.last_flush = time.perf_counter()
        self.kernel = self.worker = self.storage = 0.0
        if progress:
            progress(done, total)

    def walked(self, trials: int) -> None:
        """`trials` more trials of the units running in this process are walked."""
        self.walking += trials
        if self.progress:
            self.progress(self.done + self.buffered + self.walking, self.total)

    def add(self, results: list[ChunkResult]) -> None:
        self.buffer += results
        self.buffered += sum(r.unit.trials for c in results for r in c.units)
        self.walking = 0
        if (self.buffered >= BATCH_TRIALS
                or time.perf_counter() - self.last_flush >= self.flush_seconds):
            self.flush()
        elif self.progress:
            self.progress(self.done + self.buffered, self.total)

    def flush(self) -> None:
        if not self.buffer:
            return
        clock = time.perf_counter()
        with _interrupt_deferred():    # a commit and the buffer it cleared stay one step
            self.store.add_results(self.buffer)
            committed, buffered = self.buffer, self.buffered
            self.buffer, self.buffered = [], 0
        self.storage += time.perf_counter() - clock
        units = [r for chunk in committed for r in chunk.units]
        self.kernel += sum(r.kernel_seconds for r in units)
        self.worker += sum(r.seconds - r.kernel_seconds for r in units)
        self.done += buffered
        self.last_flush = time.perf_counter()
        if self.progress:
            self.progress(self.done, self.total)


def _stored_or_built_mazes(store: RunStore, config: Config, stage: Stage | None = None
                           ) -> list[Maze]:
    """The run's mazes: those stored by an earlier attempt of this run (the database is the
    record), else built now and stored."""
    records = store.mazes()
    if len(records) == config.maze_count:
        return [parse_maze(r.text, f"maze {r.maze_id}") for r in records]
    if stage:
        stage(f"mazes: building {config.maze_count:,} and measuring their parameters")
    built = build_mazes(config)
    store.add_mazes(record for record, _ in built)
    return [maze for _, maze in built]


@contextmanager
def _interrupt_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block ends, in the main thread; elsewhere do nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            if callable(previous):
                previous(signal.SIGINT, None)     # Python's handler: KeyboardInterrupt here
            else:
                signal.raise_signal(signal.SIGINT)  # default or ignored, as it was


def _chunks(root: int, mazes: list[Maze], units: list[Unit]) -> Iterator[Chunk]:
    by_maze: dict[int, list[Unit]] = {}
    for unit in units:
        by_maze.setdefault(unit.maze_id, []).append(unit)
    for maze_id, group in by_maze.items():
        yield Chunk(root, mazes[maze_id], tuple(group))


def _tasks(chunks: list[Chunk], workers: int) -> list[Chunk]:
    """The chunks as tasks for workers: whole (the main process handles a maze's units at
    once, and sends the maze once), or one unit each when there are fewer than
    `SPLIT_BELOW` chunks per worker (a few mazes with many units: the workers share them)."""
    if len(chunks) >= SPLIT_BELOW * max(1, workers):
        return chunks
    return [Chunk(c.root, c.maze, (u,)) for c in chunks for u in c.units]


def _new_run_dir(base: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"output: cannot create {base} ({err.strerror})") from None
    for n in range(1, 1000):
        run_dir = base / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            continue
        except OSError as err:
            raise ConfigError(f"output: cannot create a run directory in {base} "
                              f"({err.strerror})") from None
    raise ConfigError(f"output: no free run directory name under {base}")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise RunError(f"{path}: cannot write ({err.strerror})") from None


def _resumable(base: Path, resolved: dict[str, Any], config: Config) -> Path:
    runs = sorted(p for p in base.glob("*") if (p / "results.sqlite").is_file()) \
        if base.is_dir() else []
    for run_dir in reversed(runs):
        with RunStore(run_dir) as store:
            status, stored = store.meta("status"), store.meta("config")
        if status == _STATUS_COMPLETE:
            continue
        difference = _first_difference(stored, resolved)
        if difference is not None:
            raise ConfigError(f"{config.source}: resume: the config differs from the one "
                              f"stored in {run_dir} at {difference}; start a new run instead")
        return run_dir
    raise ConfigError(f"{config.source}: resume: no unfinished run of {config.name!r} "
                      f"under {base.parent}")


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            found = _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else (f"{path} ({a!r} stored, {b!r} now)")


def _jsonable(meta: Any) -> dict[str, Any]:
    return json.loads(json.dumps(dict(meta), default=str))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
