"""The examples in the play modules' docstrings run and hold."""

from __future__ import annotations

import doctest

import pytest

from mazesim.play import markdown, orders


@pytest.mark.parametrize("module", [markdown, orders])
def test_docstring_examples(module):
    failed, attempted = doctest.testmod(module)
    assert attempted > 0 and failed == 0
