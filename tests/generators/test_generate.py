"""`generate`: the shared work (lookup, rng, braid, placement, metadata) and its input errors."""

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mazesim.errors import GeneratorError
from mazesim.generators import GENERATORS, check, generate
from mazesim.generators._registry import REGISTRY
from mazesim.jit import PYTHON_MAX_CELLS, python_kernels
from mazesim.maze import FORMAT_VERSION, Maze, maze_to_json


def test_returns_a_maze_with_corners_and_full_metadata():
    maze = generate("digging", "11x15", seed=3)
    assert isinstance(maze, Maze)
    assert maze.grid.shape == (11, 15)
    assert (maze.start, maze.goal) == ((1, 1), (9, 13))
    assert dict(maze.meta) == {
        "generator": "digging",
        "size": [11, 15],
        "seed": 3,
        "braid": 0.0,
        "placement": "corners",
        "options": {},
        "version": FORMAT_VERSION,
    }
    json.dumps(maze_to_json(maze))  # the metadata is JSON-ready


def test_metadata_records_options_with_defaults_and_explicit_cells():
    maze = generate("eller", 9, seed=1, braid=0.5, placement=((1, 1), (7, 3)))
    assert maze.meta["options"] == {"join": 0.5}
    assert maze.meta["braid"] == 0.5
    assert maze.meta["placement"] == [[1, 1], [7, 3]]
    assert generate("eller", 9, seed=1, join=0.25).meta["options"] == {"join": 0.25}


@pytest.mark.parametrize(
    "size, shape",
    [(31, (31, 31)), ("31", (31, 31)), ("31x41", (31, 41)), ((31, 41), (31, 41)), ([5, 3], (5, 3))],
)
def test_accepts_every_size_form(size, shape):
    assert generate("binary-tree", size, seed=0).grid.shape == shape


def test_same_arguments_same_maze_and_the_grid_is_read_only():
    a = generate("wilson", 21, seed=9, braid=0.3, placement="random")
    b = generate("wilson", 21, seed=9, braid=0.3, placement="random")
    assert np.array_equal(a.grid, b.grid) and (a.start, a.goal) == (b.start, b.goal)
    assert not a.grid.flags.writeable


def test_the_seed_is_the_only_source_of_randomness():
    np.random.seed(1)
    a = generate("kruskal", 15, seed=4).grid
    np.random.seed(2)
    assert np.array_equal(a, generate("kruskal", 15, seed=4).grid)


@pytest.mark.parametrize(
    "size, match",
    [
        (30, "size 30x30: a generated grid needs odd sides >= 3"),
        ("31x30", "size 31x30"),
        ((1, 5), "size 1x5"),
        ("abc", "size: 'abc' is not a size"),
        ((31,), r"size: \(31,\) is not a size"),
        (0, "must be positive"),
    ],
)
def test_a_bad_size_names_the_size(size, match):
    with pytest.raises(GeneratorError, match=match):
        generate("digging", size, seed=0)


def test_an_unknown_name_lists_the_names_and_the_closest():
    with pytest.raises(GeneratorError, match=r"unknown generator 'diging' \(known: .*prim.*\); "
                                             r"did you mean 'digging'\?"):
        generate("diging", 31, seed=0)
    with pytest.raises(GeneratorError, match=r"unknown generator 'zzz' \(known: [^;]*\)$"):
        generate("zzz", 31, seed=0)


def test_an_unknown_option_lists_the_generator_options():
    with pytest.raises(GeneratorError, match=r"'eller': unknown option 'jion' \(options: join\)"):
        generate("eller", 31, seed=0, jion=0.5)
    with pytest.raises(GeneratorError, match=r"'digging': unknown option 'join' \(options: none\)"):
        generate("digging", 31, seed=0, join=0.5)


@pytest.mark.parametrize("value", [1.5, -0.1, "0.5", None, True])
def test_braid_must_be_a_share(value):
    with pytest.raises(GeneratorError, match=r"braid: .* \(allowed: a number in \[0, 1\]\)"):
        generate("digging", 31, seed=0, braid=value)


@pytest.mark.parametrize("join", [2, -1, "x"])
def test_eller_join_must_be_a_probability(join):
    with pytest.raises(GeneratorError, match=r"eller: join: .* \(allowed: a number in \[0, 1\]\)"):
        generate("eller", 31, seed=0, join=join)


@pytest.mark.parametrize(
    "placement, match",
    [
        (((2, 2), (1, 1)), r"placement: start \(2, 2\) is a wall"),
        (((1, 1), (0, 3)), r"placement: goal \(0, 3\) is a wall"),
        (((1, 1), (31, 3)), r"placement: goal \(31, 3\) is outside the 31x31 grid"),
        ("middle", r"placement: 'middle' \(allowed: corners, random, farthest or a pair"),
        (((1, 1),), r"placement: \(\(1, 1\),\)"),
        (((1.0, 1), (3, 3)), "placement: "),
    ],
)
def test_a_bad_placement_is_named(placement, match):
    with pytest.raises(GeneratorError, match=match):
        generate("digging", 31, seed=0, placement=placement)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", None])
def test_seed_must_be_a_non_negative_integer(seed):
    with pytest.raises(GeneratorError, match=r"seed: .* \(allowed: an integer from 0 to 9,223,"):
        generate("digging", 31, seed=seed)


def test_generators_is_read_only():
    with pytest.raises(TypeError):
        GENERATORS["mine"] = GENERATORS["digging"]  # type: ignore[index]


def test_a_size_above_the_cell_ceiling_is_refused_before_any_work(monkeypatch):
    """`--size 99999x99999` asked numpy for 18.6 GiB; now one line, nothing allocated."""
    monkeypatch.setattr(np.random, "default_rng", None)            # no work may start
    with pytest.raises(GeneratorError, match=r"size: 99,999x99,999 is 9,999,800,001 cells "
                                             r"\(allowed: at most 25,010,001, e.g. 5,001x5,001\)"):
        generate("digging", "99999x99999", seed=1)


@pytest.mark.parametrize("name, kwargs", [
    ("zzz", {}), ("eller", {"jion": 0.5}), ("eller", {"join": 2}), ("digging", {"braid": 1.5}),
    ("digging", {"seed": -1}), ("digging", {"size": 4}), ("digging", {"size": 3}),
    ("digging", {"placement": ((1, 1), (31, 3))}), ("digging", {"placement": "middle"}),
    ("digging", {"seed": -1, "placement": ((1, 1), (31, 3))}),
])
def test_check_raises_what_generate_raises_without_generating(name, kwargs, monkeypatch):
    arguments = {"size": 31, "seed": 0, **kwargs}
    with pytest.raises(GeneratorError) as by_generate:
        generate(name, **arguments)
    for key, spec in GENERATORS.items():        # `check` must not reach a family function
        monkeypatch.setitem(REGISTRY, key, replace(spec, function=None))
    with pytest.raises(GeneratorError) as by_check:
        check(name, **arguments)
    assert str(by_check.value) == str(by_generate.value)
    assert check("eller", 31, seed=0, join=1, placement=((1, 1), (29, 29))) is None


_ODD_SIDE = st.integers(1, 20).map(lambda n: 2 * n + 1)


def _both_ways(name, size, **arguments):
    """The maze generated with the kernels run as Python and compiled."""
    with python_kernels():
        as_python = generate(name, size, **arguments)
    return as_python, generate(name, size, **arguments)


@pytest.mark.parametrize("name", sorted(GENERATORS))
@given(h=_ODD_SIDE, w=_ODD_SIDE, seed=st.integers(0, 2**63 - 1),
       braid=st.sampled_from([0.0, 0.3, 1.0]),
       placement=st.sampled_from(["corners", "random", "farthest"]),
       join=st.floats(0, 1))
def test_kernels_run_as_python_give_the_same_bytes(name, h, w, seed, braid, placement, join):
    options = {"join": join} if "join" in GENERATORS[name].options else {}
    a, b = _both_ways(name, (h, 5 if h == w == 3 else w), seed=seed, braid=braid,
                      placement=placement, **options)
    assert a.grid.tobytes() == b.grid.tobytes(), (a.grid, b.grid)
    assert (a.start, a.goal) == (b.start, b.goal)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_kernels_run_as_python_give_the_same_bytes_at_the_largest_python_grid(name):
    side = int(PYTHON_MAX_CELLS ** 0.5)
    a, b = _both_ways(name, (side, side), seed=7, braid=0.5, placement="farthest")
    assert side * side == PYTHON_MAX_CELLS and side % 2 == 1
    assert a.grid.tobytes() == b.grid.tobytes() and (a.start, a.goal) == (b.start, b.goal)
