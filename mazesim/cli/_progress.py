"""What a long command says on stderr as it goes (`mazesim run`, `fit`, `predict`, ...).

On a terminal: the compilation of a cold kernel cache counted in place, each long step by name,
a count of the step's parts drawn in place, and `run`'s trials bar. Piped (a log): `run` writes
one line per step with the time since its start; the other commands say nothing, so that their
output is only their result.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Callable, TextIO

import click

__all__ = ["Progress"]

_REDRAW_SECONDS = 0.2  # a bar or count is drawn at most this often (and at the end)


class Progress:
    """What a run says on stderr as it goes.

    On a terminal: the compilation of a cold kernel cache counted in place (which kernel group,
    how many done), each long step by name, and a trials bar that starts after the compilation
    and the mazes (its rate and ETA count the trials alone; resumed trials are not in it).
    Piped (a log): one line per step, with the time since the start, and no bar.
    """

    def __init__(self, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.clock = clock
        self.began = clock()
        self.bar: Any = None
        self.compiled_from: float | None = None

    def compiling(self, done: int, total: int, label: str) -> None:
        if self.compiled_from is None:
            self.compiled_from = self.clock()
            if not self.tty:
                self._line(f"compiling {total} kernel groups (first run only) ...")
        if not self.tty:
            return
        if done < total:
            self._echo(f"\r\x1b[Kcompiling kernels (first run only): {done} of {total} done; "
                       f"now {label}", nl=False)
        else:
            self._echo(f"\r\x1b[Kcompiled {total} kernel groups in "
                       f"{self.clock() - self.compiled_from:.1f} s (first run only)")

    def stage(self, text: str) -> None:
        self.close()
        self._line(text + " ...")

    def trials(self, done: int, total: int) -> None:
        if not self.tty:
            return
        now = self.clock()
        if self.bar is None:
            self.first, self.started, self.drawn = done, now, -math.inf
            self.bar = click.progressbar(length=total - done, label="trials", show_pos=True,
                                         file=self.stream, item_show_func=lambda s: s)
            self.bar.__enter__()
        if now - self.drawn < _REDRAW_SECONDS and done < total:
            return
        self.drawn = now
        rate = (done - self.first) / max(now - self.started, 1e-9)
        self.bar.update(done - self.first - self.bar.pos, f"{rate:,.0f} trials/s")

    def count(self, label: str, done: int, total: int) -> None:
        """`label: done of total` in place on a terminal (nothing when piped); the line is
        cleared when done reaches total."""
        if not self.tty:
            return
        now = self.clock()
        if done < total and now - getattr(self, "counted", -math.inf) < _REDRAW_SECONDS:
            return
        self.counted = now
        self._echo(f"\r\x1b[K{label}: {done:,} of {total:,}" if done < total else "\r\x1b[K",
                   nl=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None

    def _line(self, text: str) -> None:
        self._echo(text if self.tty else f"[{self.clock() - self.began:6.1f} s] {text}")

    def _echo(self, text: str, nl: bool = True) -> None:
        click.echo(text, file=self.stream, nl=nl)
