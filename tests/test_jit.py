"""The kernel cache: a kernel counts as cached once a call has compiled and stored it; the notice
comes once, when a kernel compiles, not when one loads."""

import importlib.util
import sys

from mazesim.jit import cached, compiling

KERNEL_SOURCE = "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"


def _fresh_kernels(folder, name):
    """A module of one kernel in `folder`, imported under `name` (a second name: a new dispatcher
    of the same cached kernel)."""
    path = folder / "fresh_kernel.py"
    if not path.exists():
        path.write_text(KERNEL_SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_kernel_is_cached_after_its_first_call_and_only_compiling_says_so(tmp_path,
                                                                            monkeypatch):
    first = _fresh_kernels(tmp_path, "fresh_kernel")
    monkeypatch.setitem(sys.modules, "fresh_kernel", first)
    said = []
    assert not cached(first.twice)
    with compiling(lambda: said.append("compiling")):
        assert first.twice(21) == 42 and first.twice(2.5) == 5.0       # two compilations
    assert cached(first.twice) and said == ["compiling"]
    second = _fresh_kernels(tmp_path, "fresh_kernel_again")
    monkeypatch.setitem(sys.modules, "fresh_kernel_again", second)
    with compiling(lambda: said.append("again")):
        assert second.twice(21) == 42                                  # loaded from the disk
    assert said == ["compiling"]
    with compiling(None):
        assert second.twice(1) == 2


def test_anything_else_counts_as_cached():
    assert cached(len)
