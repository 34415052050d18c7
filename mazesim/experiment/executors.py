"""Where work units run: this process, local worker processes, or a Dask distributed cluster.

`open_executor` checks the request (and connects to Dask) on entry, before the runner creates
anything; its `map` takes a module-level function and picklable tasks and yields results as they
finish (order does not matter: results carry their coordinates). At most `TASKS_PER_WORKER` tasks
per worker are in flight, so memory stays bounded and Ctrl-C stops quickly.

Failures of the machinery, not of a task, raise `WorkersLost` (one line; the runner adds how to
resume): a local worker that died (killed, out of memory), a Dask scheduler that cannot be
reached or went away, a cluster without workers for `DASK_WORKERLESS_SECONDS`. Local workers
never outlive the run: each one watches its parent (`_watch_parent`) and exits when it is gone,
even when the parent was killed with SIGKILL and could not stop them.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
from concurrent.futures import (FIRST_COMPLETED, CancelledError, Future, ProcessPoolExecutor,
                                wait)
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from mazesim.errors import ConfigError, RunError, check_integer
from mazesim.limits import MAX_WORKERS

__all__ = ["Executor", "WorkersLost", "open_executor", "execute", "worker_count",
           "TASKS_PER_WORKER", "WORKERS_PER_CORE", "DASK_TIMEOUT",
           "DASK_WORKERLESS_SECONDS", "WATCHDOG_SECONDS"]

TASKS_PER_WORKER = 4  # tasks in flight per worker
WORKERS_PER_CORE = 2
DASK_TIMEOUT = 5.0
"""Seconds to reach a Dask scheduler (and to hear from it again while running)."""
DASK_WORKERLESS_SECONDS = 30.0
"""How long a Dask cluster may have no worker before the run stops (workers may restart)."""
WATCHDOG_SECONDS = 0.5
"""How often a local worker checks that its parent is alive."""
_DASK_POLL = 1.0

Task = Callable[[Any], Any]


class WorkersLost(RunError):
    """The workers or the cluster went away; the results already stored are kept."""


class Executor:
    """Runs tasks serially, in local processes (`workers` > 1) or on a Dask client (`client`);
    the process pool starts in `map`, once the number of tasks is known."""

    def __init__(self, workers: int = 1, client: Any = None, address: str = "") -> None:
        self.workers, self.client, self.address = workers, client, address
        self.pool: ProcessPoolExecutor | None = None

    def map(self, fn: Task, tasks: Iterable[Any], idle: float | None = None) -> Iterator[Any]:
        """Yield `fn(task)` for every task in completion order, and None after each `idle`
        seconds in which no task finished (the caller may commit what it has); close() stops
        the workers."""
        tasks = list(tasks)
        if self.client is not None:
            return _dask(self.client, self.address, fn, iter(tasks), idle)
        if self.in_process(len(tasks)):
            return (fn(task) for task in tasks)
        workers = worker_count(self.workers, len(tasks))
        if self.pool is None:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                                            initializer=_start_worker, initargs=(os.getpid(),))
        return _processes(self.pool, fn, iter(tasks), workers * TASKS_PER_WORKER, idle)

    def in_process(self, tasks: int) -> bool:
        """Whether `map` of this many tasks runs them here, one after the other (one worker
        wanted or worth starting, no Dask)."""
        return self.client is None and worker_count(self.workers, tasks) == 1

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.client is not None:
            self.client.close()


def worker_count(requested: int, tasks: int) -> int:
    """The local processes worth starting: never more than the tasks, nor than
    `WORKERS_PER_CORE` per core this process may use."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(requested, tasks, WORKERS_PER_CORE * (cores or 1)))


@contextmanager
def open_executor(*, workers: int = 1, dask: Any = None) -> Iterator[Executor]:
    """An executor for `workers` local processes (1: this process) or a Dask scheduler address
    (or a `distributed` cluster object; takes precedence). Workers ignore SIGINT: the parent
    decides; ConfigError for a bad worker count, a missing `distributed` or no scheduler
    answering within `DASK_TIMEOUT` seconds."""
    check_integer(workers, "workers", 1, MAX_WORKERS, ConfigError)
    executor = (Executor(client=_connect(dask), address=str(getattr(dask, "scheduler_address",
                                                                     dask)))
                if dask is not None else Executor(workers))
    try:
        yield executor
    finally:
        executor.close()


def execute(fn: Task, tasks: Iterable[Any], *, workers: int = 1, dask: Any = None
            ) -> Iterator[Any]:
    """`open_executor(...).map(fn, tasks)` in one call (a generator)."""
    with open_executor(workers=workers, dask=dask) as executor:
        yield from executor.map(fn, tasks)


# -- local processes ------------------------------------------------------------------------
def _processes(pool: ProcessPoolExecutor, fn: Task, tasks: Iterator[Any], window: int,
               idle: float | None) -> Iterator[Any]:
    pending: set[Future] = set()
    try:
        for task in tasks:
            pending.add(pool.submit(fn, task))
            while len(pending) >= window:
                done, pending = wait(pending, timeout=idle, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done) if done else (None,)
        while pending:
            done, pending = wait(pending, timeout=idle, return_when=FIRST_COMPLETED)
            yield from (future.result() for future in done) if done else (None,)
    except BrokenProcessPool:
        _terminate(pool)
        raise WorkersLost("workers: a worker process died (killed, or out of memory)"
                          ) from None
    except BaseException:  # Ctrl-C or close() in the caller: do not wait for running tasks
        _terminate(pool)
        raise


def _terminate(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _start_worker(parent: int) -> None:
    """Worker initializer: ignore SIGINT (the parent decides) and exit when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="mazesim-parent-watchdog").start()


def _watch_parent(parent: int) -> None:
    """Exit this process once `parent` is no longer its parent (it died and the worker was
    adopted). A portable poll, not Linux's prctl(PR_SET_PDEATHSIG); a compiled kernel holds
    the GIL, so the exit comes when the running unit's kernel returns."""
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(1)


# -- Dask -----------------------------------------------------------------------------------
def _connect(address: Any) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("dask: the 'distributed' package is not installed "
                          "(pip install 'mazesim[dask]')") from None
    # The client's own log reports a lost scheduler as tracebacks, some while the process
    # exits; WorkersLost says it in one line. Silenced for the rest of the process.
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    if isinstance(address, str):
        try:
            asyncio.run(_handshake(address))
        except (OSError, TimeoutError, ValueError, TypeError) as err:
            raise ConfigError(f"dask: cannot reach the scheduler at {address!r} within "
                              f"{DASK_TIMEOUT:g} s ({_reason(err)})") from None
    try:
        return Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ConfigError(f"dask: cannot reach the scheduler at {address!r} "
                          f"({_reason(err)})") from None


async def _handshake(address: str) -> None:
    """Open and close one connection to `address`: a wrong or silent address fails here in
    `DASK_TIMEOUT` seconds, before a Client exists (whose clean-up would wait 20 s more)."""
    from distributed.comm import connect

    comm = await connect(address, timeout=DASK_TIMEOUT)
    await comm.close()


def _dask(client: Any, address: str, fn: Task, tasks: Iterator[Any],
          idle: float | None) -> Iterator[Any]:
    finished: queue.SimpleQueue = queue.SimpleQueue()   # futures, as they finish

    def submit(task: Any) -> Any:
        future = client.submit(fn, task, pure=False)
        future.add_done_callback(finished.put)
        return future

    window = max(1, sum(_nthreads(client, address).values())) * TASKS_PER_WORKER
    pending = {submit(task) for task in islice(tasks, window)}
    workerless = None                                    # since when no worker was seen
    quiet = time.monotonic()                             # since when no task finished
    try:
        while pending:
            try:
                future = finished.get(timeout=_DASK_POLL if idle is None else
                                      min(_DASK_POLL, idle))
            except queue.Empty:
                workerless = _check_cluster(client, address, workerless)
                if idle is not None and time.monotonic() - quiet >= idle:
                    quiet = time.monotonic()
                    yield None
                continue
            workerless, quiet = None, time.monotonic()
            pending.discard(future)
            yield _result(future, address)
            pending |= {submit(task) for task in islice(tasks, 1)}
    except BaseException:
        client.cancel(list(pending))
        raise


def _check_cluster(client: Any, address: str, workerless: float | None) -> float | None:
    """While no task finishes: WorkersLost when the scheduler is gone or has had no worker
    for `DASK_WORKERLESS_SECONDS`; the new `workerless` time otherwise."""
    if _nthreads(client, address):
        return None
    now = time.monotonic()
    if workerless is not None and now - workerless > DASK_WORKERLESS_SECONDS:
        raise WorkersLost(f"dask: no worker on the scheduler at {address} for "
                          f"{DASK_WORKERLESS_SECONDS:g} s")
    return now if workerless is None else workerless


def _nthreads(client: Any, address: str) -> dict:
    try:
        return client.nthreads()
    except (OSError, TimeoutError) as err:
        raise WorkersLost(f"dask: lost the scheduler at {address} ({_reason(err)})") from None


def _result(future: Any, address: str) -> Any:
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as err:
        raise WorkersLost(f"dask: workers died running a task ({_reason(err)})") from None
    except (CancelledError, OSError) as err:
        raise WorkersLost(f"dask: lost the scheduler at {address} ({_reason(err)})") from None


def _reason(err: BaseException) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    return f"{type(err).__name__}: {text[:120]}" if text else type(err).__name__
