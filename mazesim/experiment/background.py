"""A function run beside the caller in a forked process, its result collected when needed.

The report reads the run's trials, exports its tables, computes Table 1 and draws its figures
this way, in pieces (`Jobs`) that the cores share while it computes the rest. The child inherits
the arguments as they are (only the result is pickled, back through a pipe); without fork, with
one core or with other threads running, the function runs in this process when its result is
asked for. Either way it is the same function on the same data, so the result is the same.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from typing import Any, Callable, Sequence

__all__ = ["Background", "Jobs", "cores", "split"]


class Background:
    """`fn(*args)`, started in a forked process when that is worth it and safe.

    `result()` waits for it and returns its value or raises its exception (the child's
    traceback as the cause); leaving the `with` block stops a child whose result nobody
    collected (the caller failed or was interrupted). The child ignores Ctrl-C: the parent
    decides. `cpu` is the CPU seconds the function took in its process (0 when it ran here).
    """

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._call = (fn, args)
        self._process: Any = None
        self.cpu = 0.0
        self._forked = _worth_forking()
        if self._forked:
            context = multiprocessing.get_context("fork")
            self._pipe, sender = context.Pipe(duplex=False)
            self._process = context.Process(target=_child, args=(sender, fn, args), daemon=True)
            self._process.start()
            sender.close()

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop()

    def result(self) -> Any:
        """The function's value, once (it runs now when it was not started in a process)."""
        if not self._forked:
            fn, args = self._call
            return fn(*args)
        try:
            ok, value, child_traceback, self.cpu = self._pipe.recv()
        except EOFError:
            self._process.join()
            raise RuntimeError(f"the background process of {self._call[0].__name__} ended "
                               f"without a result (exit code {self._process.exitcode})") from None
        finally:
            self._stop()               # a child that sent its result is ending anyway
        if not ok:
            raise value from _ChildTraceback(child_traceback)
        return value

    def _stop(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._pipe.close()
            self._process = None


class _ChildTraceback(Exception):
    """Where the background process failed (its traceback as text)."""


class Jobs:
    """Several `Background` calls started one after the other and stopped together (leaving
    the `with` block); `cpu` lists (function name, CPU seconds) of those collected."""

    def __init__(self) -> None:
        self._jobs: list[Background] = []
        self.cpu: list[tuple[str, float]] = []

    def __enter__(self) -> Jobs:
        return self

    def __exit__(self, *exc: Any) -> None:
        for job in self._jobs:
            job._stop()

    def start(self, fn: Callable[..., Any], *args: Any) -> Background:
        job = Background(fn, *args)
        self._jobs.append(job)
        return job

    def results(self, jobs: Sequence[Background]) -> list[Any]:
        """The values of `jobs`, in their order."""
        out = [job.result() for job in jobs]
        self.cpu += [(job._call[0].__name__, job.cpu) for job in jobs]
        return out


def cores() -> int:
    """The cores this process may use."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return count or 1


def split(items: Sequence[Any], parts: int) -> list[Sequence[Any]]:
    """`items` in at most `parts` non-empty consecutive slices of near-equal length."""
    parts = max(1, min(parts, len(items)))
    bounds = [len(items) * i // parts for i in range(parts + 1)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:])]


def _worth_forking() -> bool:
    """fork, a second core to use it, and no other thread (the child would get its locks as
    they are, maybe held)."""
    return (cores() >= 2 and threading.active_count() == 1
            and "fork" in multiprocessing.get_all_start_methods())


def _child(sender: Any, fn: Callable[..., Any], args: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()        # collections here skip the parent's objects (and do not copy their pages)
    began = time.process_time()
    try:
        ok, value, text = True, fn(*args), ""
    except BaseException as err:  # noqa: BLE001 - every failure goes back to the parent
        ok, value, text = False, err, traceback.format_exc()
    message = (ok, value, text, time.process_time() - began)
    try:
        sender.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as err:   # cannot be pickled
        sender.send((False, RuntimeError(f"{fn.__name__}: cannot send its result back ("
                                         f"{type(err).__name__}: {err})"), message[2],
                     message[3]))
    sender.close()
