"""numba's compilation of kernels: whether a kernel is in the disk cache, and saying when numba
compiles.

A kernel (``@njit(cache=True)``) compiles on its first call and keeps the machine code beside its
source, so only the first run after installing or editing pays the compilation (seconds per
kernel). Commands that warn about that wait, or keep it out of a time limit, use these.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable, Iterator

from numba.core import event

__all__ = ["cached", "compiling"]


def cached(kernel: Any) -> bool:
    """Whether `kernel` (a numba dispatcher) has an index in the on-disk cache (its first call
    compiled it and stored the machine code)."""
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
    with event.install_listener("numba:compile", _Once(notice)):
        yield


class _Once(event.Listener):
    """Calls `notice()` at the first compilation it hears of."""

    def __init__(self, notice: Callable[[], None]) -> None:
        self.notice: Callable[[], None] | None = notice

    def on_start(self, event: event.Event) -> None:
        if self.notice is not None:
            notice, self.notice = self.notice, None
            notice()

    def on_end(self, event: event.Event) -> None:
        pass
