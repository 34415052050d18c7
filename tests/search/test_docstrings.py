"""The examples in the docstrings of every module of `mazesim.search` run and give what they show.

Modules are found by walking the package, so a new module is covered without being listed here;
every public module (not a package, not private) must carry at least one example.
"""

import doctest
import importlib
import pkgutil

import pytest

import mazesim.search

MODULES = [info for info in pkgutil.walk_packages(mazesim.search.__path__, "mazesim.search.")]


def _is_public_module(info: pkgutil.ModuleInfo) -> bool:
    return not info.ispkg and not info.name.rsplit(".", 1)[-1].startswith("_")


def test_the_walk_finds_the_sokoban_package_and_its_modules():
    names = {info.name for info in MODULES}
    assert {"mazesim.search.terrain", "mazesim.search.sokoban", "mazesim.search.sokoban.level",
            "mazesim.search.sokoban._search"} <= names


@pytest.mark.parametrize("info", MODULES, ids=lambda info: info.name)
def test_examples(info):
    module = importlib.import_module(info.name)
    failed, attempted = doctest.testmod(module)       # failures are printed
    assert failed == 0
    if _is_public_module(info):
        assert attempted > 0, f"{info.name} has no example"
