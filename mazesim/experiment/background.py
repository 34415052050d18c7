"""A function run beside the caller in a forked process, its result collected when needed.

The report draws its figures this way while it computes its tables. The child inherits the
arguments as they are (only the result is pickled, back through a pipe); without fork, with one
core or with other threads running, the function runs in this process when its result is asked
for. Either way it is the same function on the same data, so the result is the same.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import threading
import traceback
from typing import Any, Callable

__all__ = ["Background"]


class Background:
    """`fn(*args)`, started in a forked process when that is worth it and safe.

    `result()` waits for it and returns its value or raises its exception (the child's
    traceback as the cause); leaving the `with` block stops a child whose result nobody
    collected (the caller failed or was interrupted). The child ignores Ctrl-C: the parent
    decides.
    """

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._call = (fn, args)
        self._process: Any = None
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
            ok, value, child_traceback = self._pipe.recv()
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


def _worth_forking() -> bool:
    """fork, a second core to use it, and no other thread (the child would get its locks as
    they are, maybe held)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return ((cores or 1) >= 2 and threading.active_count() == 1
            and "fork" in multiprocessing.get_all_start_methods())


def _child(sender: Any, fn: Callable[..., Any], args: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()        # collections here skip the parent's objects (and do not copy their pages)
    try:
        message = (True, fn(*args), "")
    except BaseException as err:  # noqa: BLE001 - every failure goes back to the parent
        message = (False, err, traceback.format_exc())
    try:
        sender.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as err:   # cannot be pickled
        sender.send((False, RuntimeError(f"{fn.__name__}: cannot send its result back ("
                                         f"{type(err).__name__}: {err})"), message[2]))
    sender.close()
