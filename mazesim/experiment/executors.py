"""Where work units run: this process, local worker processes, or a Dask distributed cluster.

`open_executor` checks the request (and connects to Dask) on entry, before the runner creates
anything; its `map` takes a module-level function and picklable tasks and yields results as they
finish (order does not matter: results carry their coordinates). At most `TASKS_PER_WORKER` tasks
per worker are in flight, so memory stays bounded and Ctrl-C stops quickly.
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from mazesim.errors import ConfigError

__all__ = ["Executor", "open_executor", "execute", "TASKS_PER_WORKER", "DASK_TIMEOUT"]

TASKS_PER_WORKER = 4  # tasks in flight per worker
DASK_TIMEOUT = "10s"  # to connect to a scheduler

Task = Callable[[Any], Any]


class Executor:
    """Runs tasks serially, in a process pool (`pool`) or on a Dask client (`client`)."""

    def __init__(self, pool: ProcessPoolExecutor | None = None, workers: int = 1,
                 client: Any = None) -> None:
        self.pool, self.workers, self.client = pool, workers, client

    def map(self, fn: Task, tasks: Iterable[Any]) -> Iterator[Any]:
        """Yield `fn(task)` for every task in completion order; close() stops the workers."""
        if self.client is not None:
            return _dask(self.client, fn, iter(tasks))
        if self.pool is not None:
            return _processes(self.pool, fn, iter(tasks), self.workers * TASKS_PER_WORKER)
        return (fn(task) for task in tasks)


@contextmanager
def open_executor(*, workers: int = 1, dask: Any = None) -> Iterator[Executor]:
    """An executor for `workers` local processes (1: this process) or a Dask scheduler address
    (or a `distributed` cluster object; takes precedence). Workers ignore SIGINT: the parent
    decides; ConfigError for a bad worker count, a missing `distributed` or no scheduler."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers: {workers!r} (allowed: an integer >= 1)")
    if dask is not None:
        client = _connect(dask)
        try:
            yield Executor(client=client)
        finally:
            client.close()
    elif workers == 1:
        yield Executor()
    else:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                                   initializer=_ignore_sigint)
        try:
            yield Executor(pool, workers)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def execute(fn: Task, tasks: Iterable[Any], *, workers: int = 1, dask: Any = None
            ) -> Iterator[Any]:
    """`open_executor(...).map(fn, tasks)` in one call (a generator)."""
    with open_executor(workers=workers, dask=dask) as executor:
        yield from executor.map(fn, tasks)


def _processes(pool: ProcessPoolExecutor, fn: Task, tasks: Iterator[Any],
               window: int) -> Iterator[Any]:
    pending: set[Future] = set()
    try:
        for task in tasks:
            pending.add(pool.submit(fn, task))
            if len(pending) >= window:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                yield from (future.result() for future in done)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (future.result() for future in done)
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


def _connect(address: Any) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("--dask: the 'distributed' package is not installed "
                          "(pip install 'mazesim[dask]')") from None
    try:
        return Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ConfigError(f"--dask: cannot reach the scheduler at {address!r} "
                          f"({err.__class__.__name__})") from None


def _dask(client: Any, fn: Task, tasks: Iterator[Any]) -> Iterator[Any]:
    from distributed import as_completed

    window = max(1, sum(client.nthreads().values())) * TASKS_PER_WORKER
    first = [client.submit(fn, task, pure=False) for task in islice(tasks, window)]
    if not first:
        return
    futures = as_completed(first, loop=client.loop)
    try:
        for future in futures:
            yield future.result()
            for task in islice(tasks, 1):
                futures.add(client.submit(fn, task, pure=False))
    except BaseException:
        client.cancel(list(futures.futures))
        raise


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
