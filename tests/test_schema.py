"""The bounded YAML reader: bombs fail fast in bounded memory, with one line naming the place."""

from pathlib import Path

import pytest
import yaml

from mazesim.errors import ConfigError
from mazesim.schema import MAX_DOCUMENT_BYTES, MAX_NODES, Reader, parse_yaml, read_yaml

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
