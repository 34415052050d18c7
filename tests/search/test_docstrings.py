"""The examples in the search modules' docstrings run and give what they show."""

import doctest

import pytest

from mazesim.search import generic, knight, moves, terrain

MODULES = [generic, knight, moves, terrain]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_examples(module):
    failed, attempted = doctest.testmod(module, report=False)
    assert attempted > 0 and failed == 0
