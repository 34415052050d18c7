"""Child processes that tests start are always gone when the test ends, passed or failed."""

from __future__ import annotations

import signal
import subprocess
from contextlib import contextmanager
from typing import Iterator

STOP_SECONDS = 60
"""How long a stopped server may take to finish its requests and close its database."""


@contextmanager
def reaped(process: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """Yield `process`; on leaving, if it still runs, Ctrl-C it, and kill it if that did not stop
    it within `STOP_SECONDS` (the test fails then on its exit code, never leaves it running)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
