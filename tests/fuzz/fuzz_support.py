"""What the fuzz tests share: the example budget, a memory ceiling, and the one property.

The bounded version runs in every test run (CI); `MAZESIM_FUZZ=long` runs many more examples.
Each example runs under a soft address-space ceiling (`memory_ceiling`), so that a reader that
tried to take gigabytes fails with MemoryError here instead of taking the machine.
"""

from __future__ import annotations

import os
import resource
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from hypothesis import HealthCheck, settings

from mazesim.errors import MazesimError

LONG = os.environ.get("MAZESIM_FUZZ") == "long"
EXAMPLES = 3000 if LONG else 100
SECONDS_PER_EXAMPLE = 10.0          # generous: the CI machine is shared
MEMORY_MARGIN = 2 << 30             # bytes of address space an example may add

FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])
"""Hypothesis settings of every fuzz test (derandomized in the bounded version: CI is
reproducible)."""


def _address_space() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * resource.getpagesize()


@contextmanager
def memory_ceiling() -> Iterator[None]:
    """Lower the soft RLIMIT_AS to what the process uses now plus `MEMORY_MARGIN`, then back."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = _address_space() + MEMORY_MARGIN
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def result_or_error(read: Callable[[], Any]) -> Any:
    """Call `read`: a result or one MazesimError line, within `SECONDS_PER_EXAMPLE` and the
    memory ceiling; anything else (another exception, a multi-line message) fails."""
    began = time.perf_counter()
    with memory_ceiling():
        try:
            result = read()
        except MazesimError as err:
            result = err
            assert "\n" not in str(err) and str(err), repr(err)
    assert time.perf_counter() - began < SECONDS_PER_EXAMPLE
    return result
