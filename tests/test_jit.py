"""The kernel cache: a kernel counts as cached once a call has compiled and stored it; the notice
comes once, when a kernel compiles, not when one loads. `Kernel`: compiled by default and inside
numba's kernels, Python (without numba) within `python_kernels`."""

import importlib.util
import pickle
import subprocess
import sys

import numpy as np

from mazesim.jit import Kernel, cached, compiling, python_kernels

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


CALLER_SOURCE = ("from numba import njit\nfrom mazesim.jit import kernel\n\n@kernel\n"
                 "def halve(x):\n    return x // 2\n\n@njit(cache=True)\n"
                 "def quarter(x):\n    return halve(halve(x))\n")


def test_numba_kernels_call_a_kernel_and_python_kernels_run_its_source(tmp_path, monkeypatch):
    (tmp_path / "caller_kernels.py").write_text(CALLER_SOURCE)
    # sys.path set by hand: monkeypatch.syspath_prepend warns (PytestRemovedIn10Warning) where
    # another test has loaded pkg_resources with legacy namespace packages
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    importlib.invalidate_caches()
    module = importlib.import_module("caller_kernels")
    assert isinstance(module.halve, Kernel) and module.halve.__name__ == "halve"
    assert pickle.loads(pickle.dumps(module.halve)) is module.halve
    assert module.quarter(41) == 10 and module.halve(41) == 20
    assert module.halve.signatures                        # compiled: the dispatcher's attribute
    with python_kernels():
        assert module.halve(np.float64(41)) == 20.0       # Python: no new compilation
    assert len(module.halve.signatures) == 1


def _in_fresh_process(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split()


def test_python_kernels_import_no_numba_and_one_run_picks_them_for_small_grids():
    code = ("import sys, numpy as np\nfrom mazesim import _grid\n"
            "from mazesim.jit import one_run, python_kernels\n"
            "grid = np.ones((5, 5), np.uint8); grid[1:4, 2] = 0\n"
            "with one_run((101, 101)):\n    python = _grid.degrees(grid)\n"
            "print('numba' in sys.modules)\n"
            "with one_run((101, 103)):\n    compiled = _grid.degrees(grid)\n"
            "print('numba' in sys.modules, (python == compiled).all(), python[1, 2])")
    assert _in_fresh_process(code) == ["False", "True", "True", "1"]


def test_a_long_corridor_is_compiled_though_it_has_few_cells():
    """Issue 33, point 16: aldous-broder at 3x3,399 (10,197 cells) took 50 s as Python, its
    cover time quadratic in the corridor's length."""
    code = ("import sys\nfrom mazesim.jit import one_run, _PYTHON\n"
            "with one_run((3, 3399)):\n    print(_PYTHON.get())\n"
            "with one_run((101, 101)):\n    print(_PYTHON.get())")
    assert _in_fresh_process(code) == ["False", "True"]
