"""The kernel cache: a kernel counts as cached once a call has compiled and stored it."""

import importlib.util
import sys

from mazesim.jit import cached

KERNEL_SOURCE = "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"


def test_a_kernel_is_cached_after_its_first_call(tmp_path, monkeypatch):
    path = tmp_path / "fresh_kernel.py"
    path.write_text(KERNEL_SOURCE)
    spec = importlib.util.spec_from_file_location("fresh_kernel", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fresh_kernel", module)
    spec.loader.exec_module(module)
    assert not cached(module.twice)
    assert module.twice(21) == 42
    assert cached(module.twice)


def test_anything_else_counts_as_cached():
    assert cached(len)
