"""Where work units run: this process, local worker processes, or a Dask distributed cluster.

Every executor takes the same module-level function and picklable tasks and yields results as they
finish (order does not matter: results carry their coordinates). At most `window` tasks are in
flight, so memory stays bounded and Ctrl-C stops quickly.
"""

from __future__ import annotations

import multiprocessing
import signal
from itertools import islice
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterable, Iterator

from mazesim.errors import ConfigError

__all__ = ["execute", "TASKS_PER_WORKER"]

TASKS_PER_WORKER = 4  # tasks in flight per worker
DASK_TIMEOUT = "10s"  # to connect to a scheduler


def execute(fn: Callable[[Any], Any], tasks: Iterable[Any], *, workers: int = 1,
            dask: str | None = None) -> Iterator[Any]:
    """Yield `fn(task)` for every task, in completion order.

    `workers` > 1 uses a `ProcessPoolExecutor` (workers ignore SIGINT: the parent decides);
    `dask` is a scheduler address (or a `distributed` cluster object) and takes precedence.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers: {workers!r} (allowed: an integer >= 1)")
    if dask is not None:
        return _dask(fn, tasks, dask)
    if workers == 1:
        return (fn(task) for task in tasks)
    return _processes(fn, tasks, workers)


def _processes(fn: Callable[[Any], Any], tasks: Iterable[Any], workers: int) -> Iterator[Any]:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_sigint)
    try:
        yield from _windowed(pool.submit, fn, iter(tasks), workers * TASKS_PER_WORKER)
    except BaseException:  # Ctrl-C or close() in the caller: do not wait for running tasks
        _terminate(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _terminate(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _windowed(submit: Callable, fn: Callable, tasks: Iterator[Any], window: int) -> Iterator[Any]:
    pending: set[Future] = set()
    for task in tasks:
        pending.add(submit(fn, task))
        if len(pending) >= window:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()


def _dask(fn: Callable[[Any], Any], tasks: Iterable[Any], address: Any) -> Iterator[Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ConfigError("--dask: the 'distributed' package is not installed "
                          "(pip install 'mazesim[dask]')") from None
    try:
        client = Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ConfigError(f"--dask: cannot reach the scheduler at {address!r} "
                          f"({err.__class__.__name__})") from None
    try:
        window = max(1, sum(client.nthreads().values())) * TASKS_PER_WORKER
        tasks = iter(tasks)
        first = [client.submit(fn, task, pure=False) for task in islice(tasks, window)]
        if not first:
            return
        futures = as_completed(first, loop=client.loop)
        for future in futures:
            yield future.result()
            for task in islice(tasks, 1):
                futures.add(client.submit(fn, task, pure=False))
    finally:
        client.close()


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
