"""Functions run beside the caller in forked processes, their results collected when needed.

The report reads the run's trials, exports its tables, computes Table 1 and draws its figures
this way, in pieces (`Jobs`) that the cores share while it computes the rest: at most one
process per core takes a share of the pieces. The child inherits
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
from dataclasses import dataclass
from typing import Any, Callable, Sequence

__all__ = ["Background", "Call", "Jobs", "Piece", "cores", "split"]


Call = tuple[Callable[..., Any], tuple]
"""A function and its arguments."""


class Background:
    """`fn(*args)`, started in a forked process when that is worth it and safe; or several
    calls (`Background.running`), run one after the other in one process.

    `result(i)` waits for the i-th call and returns its value or raises its exception (the
    child's traceback as the cause); leaving the `with` block stops a child whose results
    nobody collected (the caller failed or was interrupted). The child ignores Ctrl-C: the
    parent decides. `cpu[i]` is the CPU seconds the i-th call took in its process (0 when it
    ran here).
    """

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._start([(fn, args)])

    @classmethod
    def running(cls, calls: Sequence[Call]) -> Background:
        job = cls.__new__(cls)
        job._start(list(calls))
        return job

    def _start(self, calls: list[Call]) -> None:
        self._calls = calls
        self._received: list[tuple] = []
        self._process: Any = None
        self.cpu = [0.0] * len(calls)
        self._forked = _worth_forking()
        if self._forked:
            context = multiprocessing.get_context("fork")
            self._pipe, sender = context.Pipe(duplex=False)
            self._process = context.Process(target=_child, args=(sender, calls), daemon=True)
            self._process.start()
            sender.close()

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop()

    def name(self, index: int = 0) -> str:
        return self._calls[index][0].__name__

    def result(self, index: int = 0) -> Any:
        """The value of call `index`, once (it runs now when it was not started in a
        process)."""
        if not self._forked:
            fn, args = self._calls[index]
            return fn(*args)
        while len(self._received) <= index:
            try:
                self._received.append(self._pipe.recv())
            except EOFError:
                self._process.join()
                code = self._process.exitcode
                self._stop()
                raise RuntimeError(f"the background process of {self.name(index)} ended "
                                   f"without a result (exit code {code})") from None
        if len(self._received) == len(self._calls):
            self._stop()                   # a child that sent its last result is ending
        ok, value, child_traceback, self.cpu[index] = self._received[index]
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


@dataclass(frozen=True)
class Piece:
    """One call of a `Background`: its value, once, by `result()`."""

    job: Background
    index: int

    def result(self) -> Any:
        return self.job.result(self.index)


class Jobs:
    """Calls started in background processes and stopped together (leaving the `with` block);
    `cpu` lists (function name, CPU seconds) of those collected."""

    def __init__(self) -> None:
        self._jobs: list[Background] = []
        self.cpu: list[tuple[str, float]] = []

    def __enter__(self) -> Jobs:
        return self

    def __exit__(self, *exc: Any) -> None:
        for job in self._jobs:
            job._stop()

    def start(self, fn: Callable[..., Any], *args: Any) -> Piece:
        return self.start_all([(fn, args)])[0]

    def start_all(self, calls: Sequence[Call]) -> list[Piece]:
        """`calls` shared among at most one process per core (call i in process i mod n):
        a fork of a large process costs it about 13 ms of CPU (400 MB), so many small calls
        take few forks."""
        n = min(cores(), len(calls))
        if n == 0:
            return []
        jobs = [Background.running(calls[k::n]) for k in range(n)]
        self._jobs += jobs
        return [Piece(jobs[i % n], i // n) for i in range(len(calls))]

    def results(self, pieces: Sequence[Piece]) -> list[Any]:
        """The values of `pieces`, in their order."""
        out = [piece.result() for piece in pieces]
        self.cpu += [(p.job.name(p.index), p.job.cpu[p.index]) for p in pieces]
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


def _child(sender: Any, calls: list[Call]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()        # collections here skip the parent's objects (and do not copy their pages)
    for fn, args in calls:
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
