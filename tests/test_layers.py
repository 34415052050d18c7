"""The package's layers (docs/architecture.md, Layers): a module imports only from its own layer
or below, and a private module (`_name`) only from inside its own package; `mazesim._grid`, the
bottom layer's grid kernels, is the one private module every layer shares. No modules import
each other in a circle, not even behind imports inside functions."""

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mazesim"

LAYERS = [
    {"maze", "mst_maps", "errors", "limits", "schema", "records", "csvfile", "markup", "jit",
     "_grid"},
    {"generators", "analysis", "render"},
    {"agents"},
    {"walks"},
    {"experiment", "humans", "play", "search", "export", "envs"},
    {"design"},
    {"cli", "__main__", "__init__"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}


def _top(module: str) -> str:
    """The first component under mazesim (`mazesim.agents._walk_loop` -> `agents`)."""
    return module.split(".")[1] if module.count(".") else "__init__"


def _imports(source: str):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno


def violations(module: str, source: str) -> list[str]:
    """The imports of `module` (dotted name, source text) that break the layers."""
    own, found = _top(module), []
    for target, line in _imports(source):
        if not target.startswith("mazesim.") or own == "__init__":
            continue
        theirs = _top(target)
        private = any(part.startswith("_") for part in target.split(".")[2:])
        if LAYER[theirs] > LAYER[own]:
            found.append(f"{module}:{line} imports {target}, a higher layer")
        elif private and theirs != own:
            found.append(f"{module}:{line} imports {target}, a private module of another "
                         "package")
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        yield path, ".".join(parts)


def test_every_top_level_module_has_a_layer():
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists())}
    assert names <= set(LAYER), names - set(LAYER)


def test_the_check_finds_a_higher_layer_and_another_package_s_private_module():
    source = ("from mazesim.walks import simulate\nimport mazesim.analysis._kernels\n"
              "from mazesim.maze import Maze\nfrom mazesim.agents._walk_loop import drive\n"
              "from mazesim._grid import bfs\nfrom mazesim.generators._kernels import dig\n")
    assert violations("mazesim.generators.digging", source) == [
        "mazesim.generators.digging:1 imports mazesim.walks, a higher layer",
        "mazesim.generators.digging:2 imports mazesim.analysis._kernels, a private module of "
        "another package",
        "mazesim.generators.digging:4 imports mazesim.agents._walk_loop, a higher layer"]
    assert violations("mazesim.experiment.warmup", source) == [   # a lower layer's, too
        "mazesim.experiment.warmup:2 imports mazesim.analysis._kernels, a private module of "
        "another package",
        "mazesim.experiment.warmup:4 imports mazesim.agents._walk_loop, a private module of "
        "another package",
        "mazesim.experiment.warmup:6 imports mazesim.generators._kernels, a private module of "
        "another package"]


@pytest.mark.parametrize("path,module", list(_modules()), ids=lambda v: str(v).split("/")[-1])
def test_imports_respect_the_layers(path, module):
    assert violations(module, path.read_text(encoding="utf-8")) == []


UNTANGLED = [("mazesim.agents.vision", "mazesim.agents._vision_kernels"),
             ("mazesim.experiment.report", "mazesim.experiment.report_text"),
             ("mazesim.experiment.results", "mazesim.experiment.tables"),
             ("mazesim.search.sokoban.board", "mazesim.search.sokoban.level")]
"""Pairs of modules that once imported each other behind function-local imports (issue 22)."""

_FRESH_IMPORTS = """\
import importlib, sys
for order in (sys.argv[1:], sys.argv[:0:-1]):
    for name in [m for m in sys.modules if m.split(".")[0] == "mazesim"]:
        del sys.modules[name]                    # pandas and numba stay: only mazesim re-runs
    for name in order:
        importlib.import_module(name)
"""
"""Import the modules named in argv in that order, then afresh in the reverse order."""


def _targets(source: str, modules: set[str]) -> set[str]:
    """The modules a source imports anywhere in it (``from package import module`` included)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules
                      else node.module for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & modules


def import_cycle(sources: dict[str, str]) -> list[str]:
    """One circle of modules importing each other ([] if none), from their sources (dotted
    name: text); imports inside functions count (there they would only hide the circle)."""
    imports = {module: _targets(source, set(sources)) for module, source in sources.items()}
    try:
        tuple(graphlib.TopologicalSorter(imports).static_order())
    except graphlib.CycleError as err:
        return err.args[1]
    return []


def test_no_modules_import_each_other_in_a_circle():
    sources = {module.removesuffix(".__init__"): path.read_text(encoding="utf-8")
               for path, module in _modules()}
    assert import_cycle(sources) == []


def test_the_check_finds_a_circle_behind_a_function_local_import():
    sources = {"mazesim.a": "from mazesim import b\n",
               "mazesim.b": "def f():\n    import mazesim.c\n",
               "mazesim.c": "from mazesim.a import x\nimport numpy\n",
               "mazesim.d": "from mazesim import a\n"}
    cycle = import_cycle(sources)
    assert cycle[0] == cycle[-1] and set(cycle) == {"mazesim.a", "mazesim.b", "mazesim.c"}
    assert import_cycle({**sources, "mazesim.b": "def f():\n    import numpy\n"}) == []
    assert _targets("from mazesim.search.sokoban import board\nimport mazesim.maze\n",
                    {"mazesim.search.sokoban.board", "mazesim.maze"}) == {
        "mazesim.search.sokoban.board", "mazesim.maze"}


@pytest.mark.parametrize("pair", UNTANGLED, ids=lambda pair: pair[1].split(".")[-1])
def test_the_untangled_pairs_import_in_either_order(pair):
    done = subprocess.run([sys.executable, "-c", _FRESH_IMPORTS, *pair], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
