"""The registry: specs, descriptions and options read from the family functions, size checks."""

import dataclasses

import pytest

from mazesim.errors import GeneratorError
from mazesim.generators import GENERATORS, check_size
from mazesim.generators._registry import register


def test_every_spec_has_a_one_line_description_and_its_function():
    for name, spec in GENERATORS.items():
        assert spec.name == name
        assert spec.description and "\n" not in spec.description and len(spec.description) < 100
        assert callable(spec.function)


def test_options_come_from_keyword_only_parameters():
    assert dict(GENERATORS["eller"].options) == {"join": 0.5}
    assert all(not spec.options for name, spec in GENERATORS.items() if name != "eller")


def test_specs_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        GENERATORS["digging"].name = "x"  # type: ignore[misc]


def test_a_name_cannot_be_registered_twice():
    with pytest.raises(RuntimeError, match="'digging' registered twice"):
        register("digging")(lambda size, rng: None)


@pytest.mark.parametrize("size, expected", [(3, (3, 3)), ("5x7", (5, 7)), ((41, 3), (41, 3))])
def test_check_size_reads_odd_sizes(size, expected):
    assert check_size(size) == expected


@pytest.mark.parametrize("size", [2, 4, "3x4", (1, 1), (5, 6)])
def test_check_size_rejects_even_or_tiny_sides(size):
    with pytest.raises(GeneratorError, match=r"size \d+x\d+: a generated grid needs odd sides"):
        check_size(size)
