"""numba's compilation of kernels: the `kernel` decorator, running kernels as Python, whether a
kernel is in the disk cache, and saying when numba compiles.

A kernel (``@kernel``, numba's ``njit(cache=True)``) compiles on its first call and keeps the
machine code beside its source, so only the first run after installing or editing pays the
compilation (seconds per kernel). Loading numba and a cached kernel still costs about 0.6 s of CPU,
more than a small maze takes as Python: within `python_kernels()` kernels run as their Python
source (same results, bit for bit) and numba is never imported. Commands that warn about
compilation, or keep it out of a time limit, use `cached` and `compiling`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator

__all__ = ["Kernel", "kernel", "python_kernels", "one_run", "PYTHON_MAX_CELLS",
           "PYTHON_MAX_SIDE", "cached", "compiling"]

# The largest grid that one run of kernels takes as Python rather than loading numba: at 101x101
# the slowest generator (aldous-broder, a random walk to cover time), braided and placed by
# `farthest`, took a third of the CPU seconds as Python that it took compiled, numba's load
# included (0.69 s against 2.13 s on a loaded machine; 1.23 against 2.03 at 151x151).
PYTHON_MAX_CELLS = 101 * 101
PYTHON_MAX_SIDE = 101
"""The longest side run as Python: a random walk covers a corridor in time quadratic in its
length (aldous-broder at 3x3,399, within the cells, took 50 s as Python, 1.3 s compiled)."""

_PYTHON: ContextVar[bool] = ContextVar("mazesim_python_kernels", default=False)


class Kernel:
    """A kernel: numba's ``njit(cache=True)`` of `py_func`, made (and numba imported) on first
    use, or `py_func` itself when called within `python_kernels()`.

    Kernels compiled by numba call it as they call its dispatcher (numba types it by
    `_numba_type_`); other attributes are the dispatcher's (`signatures`, ...).
    """

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self._dispatcher: Any = None
        self.py_func = py_func
        functools.update_wrapper(self, py_func)

    @property
    def dispatcher(self) -> Any:
        """numba's dispatcher of `py_func` (made, and numba imported, on first use)."""
        if self._dispatcher is None:
            from numba import njit

            self._dispatcher = njit(cache=True)(self.py_func)
        return self._dispatcher

    @property
    def _numba_type_(self) -> Any:
        return self.dispatcher._numba_type_

    def __call__(self, *args: Any) -> Any:
        if _PYTHON.get():
            return self.py_func(*args)
        return self.dispatcher(*args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):             # copy, pickle and inspect ask for dunders
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self) -> str:
        return self.__qualname__              # pickled by name, as functions and dispatchers are

    def __repr__(self) -> str:
        return f"<kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def kernel(py_func: Callable[..., Any]) -> Kernel:
    """Decorator: `py_func` as a `Kernel` (STYLE.md, Numba kernels)."""
    return Kernel(py_func)


@contextlib.contextmanager
def python_kernels() -> Iterator[None]:
    """Within the block (this thread or task), every `Kernel` called from Python runs as Python,
    as do the kernels it calls: the same results without importing numba, slower per step."""
    token = _PYTHON.set(True)
    try:
        yield
    finally:
        _PYTHON.reset(token)


def one_run(shape: tuple[int, int]) -> contextlib.AbstractContextManager:
    """The kernels for a process that runs them once over a grid of `shape` (a command line's
    `generate`): `python_kernels()` while numba is not loaded yet and the grid has at most
    `PYTHON_MAX_CELLS` cells and no side over `PYTHON_MAX_SIDE` (quicker than loading numba),
    else compiled (a null context)."""
    h, w = shape
    if "numba" not in sys.modules and h * w <= PYTHON_MAX_CELLS and max(h, w) <= PYTHON_MAX_SIDE:
        return python_kernels()
    return contextlib.nullcontext()


def cached(kernel: Any) -> bool:
    """Whether `kernel` (a numba dispatcher or a `Kernel`) has an index in the on-disk cache (its
    first call compiled it and stored the machine code)."""
    try:
        return Path(kernel._cache._cache_file._index_path).is_file()
    except AttributeError:        # another numba's internals: assume warm, compile as we go
        return True


@contextlib.contextmanager
def compiling(notice: Callable[[], None] | None) -> Iterator[None]:
    """Within the block, call `notice()` once when numba starts compiling a kernel (loading one
    from the cache says nothing); None: nothing to say."""
    if notice is None:
        yield
        return
    from numba.core import event

    event.Listener.register(_Once)
    with event.install_listener("numba:compile", _Once(notice)):
        yield


class _Once:
    """A numba event listener (registered as one by `compiling`): calls `notice()` at the first
    compilation it hears of."""

    def __init__(self, notice: Callable[[], None]) -> None:
        self.notice: Callable[[], None] | None = notice

    def notify(self, event: Any) -> None:
        if event.is_start and self.notice is not None:
            notice, self.notice = self.notice, None
            notice()
