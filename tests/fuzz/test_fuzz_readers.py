"""Fuzz every file reader: any bytes give a result or one MazesimError line, in bounded time and
memory (never a traceback, a hang or gigabytes).

Readers: text and JSON mazes, experiment configs, play sessions, Sokoban levels, terrain cost
grids. (The trajectories CSV reader of `mazesim import` is not on this branch.) Inputs are
random text over each format's alphabet, valid documents with one part replaced by a hostile
value, and documents of hostile shape (deep nesting, aliases, long numbers).
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from mazesim.experiment.config import load_config
from mazesim.maze import read_maze
from mazesim.play.session import load_session
from mazesim.search.sokoban import read_level
from mazesim.search.terrain import read_costs

from fuzz_support import FUZZ, result_or_error

TUTORIAL = "#############\n#S....#....G#\n#.###.#.###.#\n#...#...#...#\n###.#####.###\n" \
           "#..A........#\n#############\n"
CONFIG = {
    "name": "fuzz",
    "seed": 1,
    "mazes": [{"generator": "digging", "size": 7, "count": 2}, {"file": "maze.txt"}],
    "agents": [{"type": "dfs", "trials": 2}, {"type": "weighted-walker", "trials": 2}],
    "vision": ["full", 1],
    "analysis": {"branch_choices": {"mark": "A", "human": {"up": 1}}},
}
SESSION = {
    "name": "fuzz-play",
    "seed": 3,
    "order": "shuffled",
    "output": "play-out",
    "practice": [{"generator": "digging", "size": 5, "seed": 1, "vision": "full"}],
    "mazes": [{"file": "maze.txt", "vision": 1}, {"generator": "prim", "size": 7}],
}

# Values that have broken readers: huge and negative numbers, non-finite floats, other digits,
# long text, the wrong container, deep nesting.
HOSTILE = st.one_of(
    st.sampled_from([2**63, 2**70, -1, 0, 10**12, 1e308, 1e400, float("nan"), -0.0, True, None,
                     "", " 2", "FULL", "²", "٣", "2" * 30, "x" * 20_000, "../../etc/passwd",
                     "/dev/zero", "/tmp", [], {}, [[1, 1], [1, 1]], "3x3", 3, "99999x99999"]),
    st.integers(), st.floats(), st.text(max_size=40),
    st.recursive(st.one_of(st.integers(-5, 5), st.text(max_size=3), st.none()),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.text(max_size=3), inner, max_size=3), max_leaves=20),
)
_LAUGHS = "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9 if i else ["lol"] * 9)
                  + "]\n" for i in range(9))
YAML_BOMBS = [
    "a: " + "[" * 20_000 + "]" * 20_000,            # a 20,000-deep document
    _LAUGHS,                                        # a billion laughs
    "a: &a [*a]",                                   # a value that contains itself
    "seed: " + "9" * 5_000,                         # more digits than int() converts
    "seed: !!python/name:os.system",
    "seed: !!timestamp 2001-13-45",
    "seed: !!int zz",
    "seed: 1\nseed: 2",
]
JSON_BOMBS = [
    '{"rows":' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"rows": ["#S.G#"], "meta": {"x": ' + "9" * 5001 + "}}",
    '{"rows": ["#S.G#"], "meta": ' + "[" * 70 + "]" * 70 + "}",
]


def _examples(texts):
    """Decorate a test with `texts` as explicit examples (run every time, before the random)."""
    def decorate(test):
        for text in texts:
            test = example(text=text)(test)
        return test
    return decorate


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz")
    (path / "maze.txt").write_text(TUTORIAL)
    return path


def _paths(data):
    """Every (container, key) of a nested document, to replace one of them."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        yield data, key
        if isinstance(value, (dict, list)):
            yield from _paths(value)


@st.composite
def _mutated(draw, document):
    data = copy.deepcopy(document)
    places = list(_paths(data))
    container, key = draw(st.sampled_from(places))
    if draw(st.booleans()) and isinstance(container, dict):
        del container[key]
    else:
        container[key] = draw(HOSTILE)
    try:
        return yaml.safe_dump(data, allow_unicode=True)
    except (ValueError, yaml.YAMLError):            # a value YAML cannot write: the raw text
        return repr(data)


_YAML_TEXT = st.text(alphabet=st.sampled_from(list("ab:- [],{}&*!#\n '\"|>?%@`9.")),
                     max_size=200)


@FUZZ
@given(text=st.one_of(_mutated(CONFIG), _YAML_TEXT))
@_examples(YAML_BOMBS)
def test_configs(folder, text):
    (folder / "config.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    result_or_error(lambda: load_config(folder / "config.yaml"))


@FUZZ
@given(text=st.one_of(_mutated(SESSION), _YAML_TEXT))
@_examples(YAML_BOMBS)
def test_sessions(folder, text):
    (folder / "session.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    result_or_error(lambda: load_session(folder / "session.yaml"))


_MAZE_TEXT = st.text(alphabet=st.sampled_from(list("#. SGAZ\n\r\t%é²\x00\u2028")), max_size=300)


@st.composite
def _damaged_maze(draw):
    chars = list(TUTORIAL)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(chars) - 1))
        chars[i] = draw(st.sampled_from(list("#.SGA\n x")))
    return "".join(chars)


@FUZZ
@given(text=st.one_of(_MAZE_TEXT, _damaged_maze()))
def test_text_mazes(folder, text):
    (folder / "m.txt").write_text(text, encoding="utf-8", errors="surrogatepass")
    result_or_error(lambda: read_maze(folder / "m.txt"))


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                               st.text(max_size=10)),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                         st.text(max_size=5), inner, max_size=4), max_leaves=30)


@st.composite
def _json_maze(draw):
    rows = TUTORIAL.splitlines()
    document = {"format": "mazesim", "version": 1, "rows": rows, "meta": {"seed": 1}}
    key = draw(st.sampled_from(["rows", "meta", "format", "extra"]))
    document[key] = draw(_JSON | HOSTILE)
    return json.dumps(document, allow_nan=True)


@FUZZ
@given(text=st.one_of(_json_maze(), _JSON.map(json.dumps),
                      st.text(alphabet=st.sampled_from(list('{}[]",:0123456789e-.truefalsn ')),
                              max_size=200)))
@_examples(JSON_BOMBS)
def test_json_mazes(folder, text):
    (folder / "m.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    result_or_error(lambda: read_maze(folder / "m.json"))


@FUZZ
@given(text=st.text(alphabet=st.sampled_from(list("#@+$*.-_ ;\nx")), max_size=300))
def test_sokoban_levels(folder, text):
    (folder / "level.xsb").write_text(text, encoding="utf-8")
    result_or_error(lambda: read_level(folder / "level.xsb"))


_COST_TOKENS = ["1", "2", "0", "-1", "inf", "#", "nan", "1e308", "1e400", ",", " ", "\n",
                "x", "9" * 30, "1_0", "²", "0x10", "+3", ".5"]


@FUZZ
@given(tokens=st.lists(st.sampled_from(_COST_TOKENS), max_size=60))
def test_cost_grids(folder, tokens):
    (folder / "costs.txt").write_text("".join(tokens), encoding="utf-8")
    result_or_error(lambda: read_costs(folder / "costs.txt"))
