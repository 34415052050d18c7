"""Run Python or the CLI in a subprocess under a memory and time ceiling, and measure it.

Tests of hostile input run here: a memory bomb then fails with MemoryError in the child (and the
test fails) instead of taking the machine, a hang is killed at the time limit. The peak resident
memory is the child's own (`os.wait4`), not the largest of all children so far.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

ADDRESS_SPACE = 4 << 30        # bytes of virtual memory a child may map (numba maps ~1 GB)
SECONDS = 120.0
# A small Python forks the command under the ceiling and reports its exit status and peak RSS:
# a child forked (or vforked) from this big test process would count it in its own peak.
_MEASURED = """
import os, resource, signal, sys
memory, report = int(sys.argv[1]), int(sys.argv[2])
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, *sys.argv[3:]])
_, status, usage = os.wait4(pid, 0)
os.write(report, f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}".encode())
"""


@dataclass(frozen=True)
class Finished:
    """How a limited child ended: exit code (negative: killed by that signal), its output, the
    wall time and its peak resident memory in bytes."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    peak_bytes: int

    @property
    def error_lines(self) -> list[str]:
        return self.stderr.strip().splitlines()


def run_limited(args: list[str], *, memory: int = ADDRESS_SPACE, seconds: float = SECONDS,
                cwd: str | None = None) -> Finished:
    """`python ARGS` (e.g. `["-m", "mazesim", "analyze", path]`) under the ceilings."""
    began = time.perf_counter()
    report, writer = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", _MEASURED, str(memory), str(writer), *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                             pass_fds=(writer,), start_new_session=True)
    os.close(writer)
    output: dict[str, str] = {}
    readers = [threading.Thread(target=lambda name=name, stream=stream: output.__setitem__(
        name, stream.read())) for name, stream in (("out", child.stdout), ("err", child.stderr))]
    for reader in readers:
        reader.start()
    timer = threading.Timer(seconds, os.killpg, (child.pid, signal.SIGKILL))
    timer.start()
    child.wait()
    timer.cancel()
    for reader in readers:
        reader.join()
    with os.fdopen(report, "rb") as handle:
        measured = handle.read().split()
    code, peak = (int(measured[0]), int(measured[1])) if measured else (-signal.SIGKILL, 0)
    elapsed = time.perf_counter() - began
    if elapsed >= seconds:
        raise AssertionError(f"{args}: still running after {seconds} s")
    return Finished(code, output["out"], output["err"], elapsed, peak * 1024)


def cli(*args: str, **limits) -> Finished:
    """`python -m mazesim ARGS` under the ceilings."""
    return run_limited(["-m", "mazesim", *map(str, args)], **limits)


def assert_one_error_line(done: Finished, *fragments: str) -> str:
    """Exit 2, no traceback, one `Error:` line on stderr holding every fragment; the line."""
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.code == 2, (done.code, done.stderr[-2000:])
    lines = done.error_lines
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def cli_read_only(folder: str | os.PathLike, *args: str, **limits) -> Finished:
    """`python -m mazesim ARGS` with `folder` read-only: by permissions for a normal user, by a
    read-only bind mount in a private mount namespace for root (whom permissions do not stop);
    skips the test where neither is possible."""
    import pytest

    folder = os.fspath(folder)
    if os.geteuid() != 0:
        modes = {}
        for root, dirs, files in os.walk(folder):
            for name in [root] + [os.path.join(root, f) for f in files]:
                modes[name] = os.stat(name).st_mode
                os.chmod(name, modes[name] & ~0o222)
        try:
            return cli(*args, **limits)
        finally:
            for name, mode in modes.items():
                os.chmod(name, mode)
    script = ('mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"')
    probe = subprocess.run(["unshare", "-m", "sh", "-c", script, folder, "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot make a read-only directory here (root without mount namespaces)")
    return run_limited(["-c", "import os, sys; os.execvp('unshare', sys.argv[1:])", "unshare",
                        "-m", "sh", "-c", script, folder, sys.executable, "-m", "mazesim",
                        *map(str, args)], **limits)
