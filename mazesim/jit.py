"""numba's on-disk cache of compiled kernels: whether a kernel has been compiled before.

A kernel (``@njit(cache=True)``) compiles on its first call and keeps the machine code beside its
source, so only the first run after installing or editing pays the compilation (seconds per
kernel). Commands that warn about that wait, or keep it out of a time limit, ask here first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["cached"]


def cached(kernel: Any) -> bool:
    """Whether `kernel` (a numba dispatcher) has an index in the on-disk cache (its first call
    compiled it and stored the machine code)."""
    try:
        return Path(kernel._cache._cache_file._index_path).is_file()
    except AttributeError:        # another numba's internals: assume warm, compile as we go
        return True
