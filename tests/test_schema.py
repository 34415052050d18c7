"""The bounded YAML reader: bombs fail fast in bounded memory, with one line naming the place;
the key=value parser of the options over it."""

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.errors import ConfigError
from mazesim.schema import (MAX_DOCUMENT_BYTES, MAX_NODES, MAX_OPTION_CHARS, Reader,
                            parse_pairs, parse_yaml, read_yaml)

from limited import assert_one_error_line, cli

BASE = {"name": "bomb", "seed": 1, "mazes": [{"generator": "digging", "size": 11}],
        "agents": [{"type": "dfs", "trials": 2}]}


def _laughs(levels: int = 9) -> str:
    """A flow list of anchored lists, each holding nine of the one before: 9^9 strings."""
    lists = ['&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lists += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ", ".join(lists) + "]"


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    return path


BOMBS = [
    # a 20,000-deep config (it gave a 2,993-line traceback)
    ("deep", lambda: yaml.safe_dump(BASE) + "extra: " + "[" * 20_000 + "]" * 20_000,
     ":9:71: nested deeper than 64 levels"),
    # billion laughs at description, seed, an agent's order, generator options (3 GB, 30 s)
    ("description", lambda: f"description: {_laughs()}\n" + yaml.safe_dump(BASE),
     "more than 100,000 values once aliases are expanded"),
    ("seed", lambda: yaml.safe_dump({k: v for k, v in BASE.items() if k != "seed"})
     + f"seed: {_laughs()}\n", "more than 100,000 values once aliases are expanded"),
    ("order", lambda: yaml.safe_dump({k: v for k, v in BASE.items() if k != "agents"})
     + f"agents:\n- type: dfs\n  trials: 2\n  order: {_laughs()}\n",
     "more than 100,000 values once aliases are expanded"),
    ("options", lambda: yaml.safe_dump({k: v for k, v in BASE.items() if k != "mazes"})
     + f"mazes:\n- generator: eller\n  options: {{join: {_laughs()}}}\n",
     "more than 100,000 values once aliases are expanded"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, text, message", BOMBS, ids=[b[0] for b in BOMBS])
def test_bombs_fail_fast_with_one_line_and_bounded_memory(tmp_path, name, text, message):
    path = _config(tmp_path, text())
    done = cli("validate", path, seconds=30)
    assert_one_error_line(done, f"{path}:", message)
    assert done.seconds < 10 and done.peak_bytes < 400 << 20


def test_a_document_above_the_size_limit(tmp_path):
    path = _config(tmp_path, "# " + "x" * MAX_DOCUMENT_BYTES + "\n")
    with pytest.raises(ConfigError, match=rf"bomb.yaml: {MAX_DOCUMENT_BYTES + 3:,} bytes "
                                          rf"\(allowed: at most {MAX_DOCUMENT_BYTES:,}\)"):
        read_yaml(path)


def test_aliases_count_every_expanded_value():
    def document(aliases):
        return "a: &a [" + ", ".join(["1"] * 100) + "]\nb: [" + ", ".join(["*a"] * aliases) + "]"

    with pytest.raises(ConfigError, match=rf"<yaml>:2:.*more than {MAX_NODES:,} values"):
        parse_yaml(document(1000))               # 101 values, 1,001 times
    assert len(parse_yaml(document(10))["b"]) == 10
    assert len(parse_yaml(document(1000), max_nodes=200_000)["b"]) == 1000  # mazesim's own files
    with pytest.raises(ConfigError, match=r"<yaml>: larger than 100 bytes"):
        parse_yaml(document(100), max_bytes=100)


@pytest.mark.parametrize("text, message", [
    ("seed: 1\nseed: 2", r"<yaml>:2:1: duplicate key 'seed' \(first at line 1\)"),
    ("a: &a [*a]", r"<yaml>:1:8: a recursive alias \(a value that contains itself\)"),
    ("a: &a {b: *a}", r"<yaml>:1:11: a recursive alias"),
    ("seed: " + "9" * 5000, r"<yaml>:1:7: an integer of 5,000 characters \(allowed: at most 64\)"),
    ("seed: 0x" + "f" * 100, r"<yaml>:1:7: an integer of 102 characters"),
    ("seed: !!python/name:os.system", r"<yaml>:1:7: tag '!!python/name:os.system' is not "
                                      r"allowed \(allowed: plain values, lists and mappings\)"),
    ("seed: !!binary eHg=", r"tag '!!binary' is not allowed"),
    ("seed: !!set {a}", r"tag '!!set' is not allowed"),
    ("seed: !!timestamp 2001-13-45", r"tag '!!timestamp' is not allowed"),
    ("seed: !!int zz", r"<yaml>:1:7: 'zz': invalid literal for int\(\)"),
    ("{[1, 2]: 3}", r"<yaml>:1:2: \[1, 2\] cannot be a key"),
    ("a: [", r"<yaml>:1:5: expected the node content"),
    ("a: 1\nb: x\x1by", r"<yaml>:2:5: character '\\x1b' is not allowed \(YAML allows no "
                         r"control characters\)"),
], ids=lambda value: value[:24] if isinstance(value, str) else None)
def test_refused_documents_name_line_and_column(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_yaml(text)


def test_plain_values_still_read():
    assert parse_yaml("a: 2001-12-14\nb: 1e400\nc: 0x10\nd: [1, {e: null}]") == {
        "a": "2001-12-14", "b": "1e400", "c": 16, "d": [1, {"e": None}]}   # no timestamps
    assert parse_yaml("x: &x {b: 1}\nc: {<<: *x, d: 2}") == {"x": {"b": 1},
                                                             "c": {"b": 1, "d": 2}}


def test_files_that_are_not_files(tmp_path):
    for path, problem in ((tmp_path, "a directory, not a file"),
                          (Path("/dev/null"), "not a regular file"),
                          (tmp_path / "nope.yaml", "no such file")):
        with pytest.raises(ConfigError, match=f"{path}: {problem}"):
            read_yaml(path)
    reader = Reader("c.yaml", tmp_path)
    for value, problem in (("/tmp", "a directory, not a file"),
                           ("/dev/null", "not a regular file"), ("nope.txt", "no such file")):
        with pytest.raises(ConfigError, match=rf"c.yaml: mazes\[0\].file: '{value}': {problem} "
                                              rf"\("):
            reader.file(value, "mazes[0].file", "a maze file")


def _block_laughs(levels: int = 10) -> str:
    """Billion laughs in block style (no commas, so it survives the split into items): 9^10."""
    text = "a0: &a0\n" + "  - lol\n" * 9
    for i in range(1, levels):
        text += f"a{i}: &a{i}\n" + f"  - *a{i - 1}\n" * 9
    return text


@pytest.mark.parametrize("text, message", [
    # issue 23.10: plain yaml.safe_load gave tracebacks, a RecursionError, a MemoryError (39 s)
    ("goal=[1,2]", r"^--model m: goal: '\[1': no brackets \(a list is written a,b,c\)$"),
    ("goal=!!python/object/apply:os.system [ls]",
     r"^--model m: goal:1:1: tag '!!python/object/apply:os.system' is not allowed"),
    ("goal=" + "[" * 5000, r"^--model m: goal: '\[\[\[.*: no brackets"),
    ("goal=" + _block_laughs(), r"^--model m: goal:.*more than 100,000 values once aliases"),
    ("goal=a: 1", r"^--model m: goal: 'a: 1' is not a plain value"),
    ("goal=- 1", r"^--model m: goal: '- 1' is not a plain value"),
    ("goal=*x", r"^--model m: goal:1:1: found undefined alias 'x'$"),
    ("goal=1,goal=2", r"^--model m: goal: given twice$"),
    ("goal", r"^--model m: 'goal': not key=value$"),
    ("=1", r"^--model m: '=1': no key \(use key=value\)$"),
    ("a\nb=1", r"^--model m: 'a\\nb=1': 'a\\nb' is not a key \(letters, digits and '_'"),
    ("goal=1,", r"^--model m: 'goal=1,': an empty item$"),
    ("a=1,,b=2", r"^--model m: 'a=1,,b=2': an empty item$"),
    ("x=" + "1" * MAX_OPTION_CHARS, rf"characters \(allowed: at most {MAX_OPTION_CHARS:,}\)$"),
], ids=lambda value: value[:24] if isinstance(value, str) else None)
def test_hostile_pairs_are_one_line_errors_at_once(text, message):
    began = time.perf_counter()
    with pytest.raises(ConfigError, match=message) as error:
        parse_pairs(text, "--model m:")
    assert time.perf_counter() - began < 1.0 and "\n" not in str(error.value)


def test_pairs_read_plain_scalars_and_comma_lists():
    assert parse_pairs("region=0, goal=1.5,order=down, right,up,left,label=,x=true,y=~",
                       "--param") == {"region": 0, "goal": 1.5, "label": "", "x": True,
                                      "order": ["down", "right", "up", "left"], "y": None}


_KEY = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)
_VALUE = st.one_of(st.integers(-10**18, 10**18), st.booleans(),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.from_regex(r"[a-z][a-z_-]{0,9}", fullmatch=True).filter(
                       lambda w: yaml.safe_load(w) == w))


@given(st.dictionaries(_KEY, st.one_of(_VALUE, st.lists(_VALUE, min_size=2, max_size=4)),
                       max_size=5))
def test_pairs_written_out_read_back(params):
    def text(value):
        return ",".join(map(text, value)) if isinstance(value, list) else yaml.safe_dump(
            value, default_flow_style=True).removesuffix("\n...\n").strip()

    assert parse_pairs(",".join(f"{k}={text(v)}" for k, v in params.items()) or "x=",
                       "--param") == (params or {"x": ""})


@settings(max_examples=500)
@given(st.text(st.sampled_from("ab=,[]{}!&*:-#'\" \n\t|>%@`?0.~\x1b"), max_size=40))
def test_any_text_gives_plain_values_or_one_error_line(text):
    try:
        params = parse_pairs(text, "--param")
    except ConfigError as error:
        assert "\n" not in str(error) and str(error).startswith("--param ")
        return
    for value in params.values():
        for item in value if isinstance(value, list) else [value]:
            assert item is None or isinstance(item, (str, int, float, bool))
