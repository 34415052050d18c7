"""The examples in the docstrings of every module run and give what they show.

Modules are found by walking the package, so a new module is covered without being listed here;
only those whose source holds an example (`>>>`) are collected, and every public module of
`mazesim.search` (not a package, not private) must hold one.
"""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import mazesim

MODULES = [info for info in pkgutil.walk_packages(mazesim.__path__, "mazesim.")
           if info.name != "mazesim.__main__"]           # importing it runs the command line


def _has_examples(info: pkgutil.ModuleInfo) -> bool:
    return ">>>" in Path(importlib.util.find_spec(info.name).origin).read_text(encoding="utf-8")


WITH_EXAMPLES = [info for info in MODULES if _has_examples(info)]


def _public_search_module(info: pkgutil.ModuleInfo) -> bool:
    return (info.name.startswith("mazesim.search.") and not info.ispkg
            and not info.name.rsplit(".", 1)[-1].startswith("_"))


def test_the_walk_finds_every_layer():
    names = {info.name for info in MODULES}
    assert {"mazesim.maze", "mazesim.agents.vision", "mazesim.walks.simulate",
            "mazesim.experiment.config", "mazesim.search.sokoban.level"} <= names


def test_every_public_search_module_has_an_example():
    missing = [info.name for info in MODULES
               if _public_search_module(info) and info not in WITH_EXAMPLES]
    assert not missing


@pytest.mark.parametrize("info", WITH_EXAMPLES, ids=lambda info: info.name)
def test_examples(info):
    failed, attempted = doctest.testmod(importlib.import_module(info.name))  # failures print
    assert failed == 0
    if _public_search_module(info):
        assert attempted > 0, f"{info.name} has only skipped examples"
