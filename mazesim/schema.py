"""Reading config files: bounded YAML, and typed readers whose every error names the key path.

One reader serves experiment configs (`mazesim.experiment.config`) and play sessions
(`mazesim.play.session`), so both say what is wrong the same way::

    first.yaml: agents[2].type: 'bsf' is not an agent; did you mean 'bfs'?

`read_yaml` refuses, before building anything, a document above `MAX_DOCUMENT_BYTES`, nesting
deeper than `MAX_NESTING`, more than `MAX_NODES` nodes once aliases are expanded (YAML's "billion
laughs"), duplicate keys, and tags other than YAML's plain types. `parse_pairs` reads the
`key=value,...` text of command-line options (`--param`, `--model`, `--vision`) with the same
reader, values plain scalars only.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

import yaml

from mazesim.errors import ConfigError, did_you_mean, file_problem, read_text, short
from mazesim.limits import INT64_MAX, MAX_NESTING

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_NODES", "MAX_ITEMS", "INT64_MAX",
           "MAX_OPTION_CHARS", "NAME_PATTERN", "read_yaml", "parse_yaml", "parse_pairs", "Reader",
           "short"]

MAX_DOCUMENT_BYTES = 1 << 20
"""Largest config file (1 MiB): configs are hand-written."""
MAX_NODES = 100_000
"""Most YAML nodes, aliases expanded."""
MAX_ITEMS = 10_000
"""Most entries of one list (mazes, agents, vision, ...)."""
MAX_OPTION_CHARS = 10_000
"""Longest `key=value,...` text of one command-line option."""
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Names that become directory or table entries: letters, digits, '_', '.', '-'."""
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_KEY_RULE = "letters, digits and '_', at most 64, not starting with a digit"
_NAME_RULE = "letters, digits, '_', '.', '-', at most 64, not starting with '.', '_' or '-'"


_YAML_TAG = "tag:yaml.org,2002:"
_PLAIN_TAGS = frozenset(_YAML_TAG + t for t in ("null", "bool", "int", "float", "str", "seq",
                                                "map", "merge"))
_MAX_NUMBER_TEXT = 64
"""Longest integer literal (2^63 has 19 digits; Python refuses to convert 4,300)."""


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that counts nodes (aliases expanded) and depth while composing, refuses
    recursive aliases, other tags than plain values (YAML 1.1's timestamps read as text), and
    reports values it cannot construct at their line and column."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _YAML_TAG + "timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}

    def __init__(self, stream: str, max_nodes: int = MAX_NODES) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._max_nodes = max_nodes
        self._sizes: dict[int, int] = {}      # id(node) -> nodes below it, aliases expanded

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            node = super().compose_node(parent, index)
            if id(node) not in self._sizes:       # its anchor is still open: an ancestor
                raise _Refused("a recursive alias (a value that contains itself)",
                               event.start_mark)
            self._count(self._sizes[id(node)], event.start_mark)
            return node
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise _Refused(f"nested deeper than {MAX_NESTING} levels", self.peek_event().start_mark)
        before = self._nodes
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1, node.start_mark)
        self._sizes[id(node)] = self._nodes - before
        return node

    def _count(self, nodes: int, mark: Any) -> None:
        self._nodes += nodes
        if self._nodes > self._max_nodes:
            raise _Refused(f"more than {self._max_nodes:,} values once aliases are expanded",
                           mark)

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node.tag not in _PLAIN_TAGS:
            raise _Refused(f"tag {node.tag.replace(_YAML_TAG, '!!')!r} is not allowed "
                           "(allowed: plain values, lists and mappings)", node.start_mark)
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError) as err:
            raise _Refused(f"{short(node.value) if isinstance(node.value, str) else 'value'}: "
                           f"{err}", node.start_mark) from None

    def construct_yaml_int(self, node: Any) -> int:
        if len(node.value) > _MAX_NUMBER_TEXT:
            raise _Refused(f"an integer of {len(node.value):,} characters (allowed: at most "
                           f"{_MAX_NUMBER_TEXT})", node.start_mark)
        return super().construct_yaml_int(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == _YAML_TAG + "merge":       # `<<: *base`: merged by the parent
                continue
            key = self.construct_object(key_node, deep=True)   # a whole key, to quote it
            try:
                if key in seen:
                    raise _Refused(f"duplicate key {key!r} (first at line "
                                   f"{seen[key].line + 1})", key_node.start_mark)
            except TypeError:
                raise _Refused(f"{short(key)} cannot be a key", key_node.start_mark) from None
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


_BoundedLoader.add_constructor(_YAML_TAG + "int", _BoundedLoader.construct_yaml_int)


class _Refused(yaml.YAMLError):
    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


def read_yaml(path: str | Path, *, max_bytes: int = MAX_DOCUMENT_BYTES,
              max_nodes: int = MAX_NODES) -> Any:
    """The YAML document of a config file; every fault is a ConfigError naming file:line:col.
    Larger ceilings serve files mazesim writes itself (a play run's `session.yaml`)."""
    return parse_yaml(read_text(path, ConfigError, max_bytes=max_bytes), str(path),
                      max_bytes=max_bytes, max_nodes=max_nodes)


def parse_yaml(text: str, source: str = "<yaml>", *, max_bytes: int = MAX_DOCUMENT_BYTES,
               max_nodes: int = MAX_NODES) -> Any:
    """The YAML document of `text` (see the module docstring for what is refused)."""
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ConfigError(f"{source}: larger than {max_bytes:,} bytes")
    try:
        loader = _BoundedLoader(text, max_nodes)
    except yaml.reader.ReaderError as err:          # a control character, refused up front
        at = err.position
        raise ConfigError(f"{source}:{text.count(chr(10), 0, at) + 1}:"
                          f"{at - text.rfind(chr(10), 0, at)}: character {chr(err.character)!r} "
                          "is not allowed (YAML allows no control characters)") from None
    try:
        return loader.get_single_data()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "invalid YAML"
        raise ConfigError(f"{source}{where}: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()


def parse_pairs(text: str, source: str) -> dict[str, Any]:
    """`key=value,key=value,...` as a dict, for the options that take parameters (`source`:
    `--param`, `--model dfs:`, ...; errors read `source key: what`).

    Each value is one plain YAML scalar read by `parse_yaml` (`10`, `0.5`, `false`, `down`; no
    tags, brackets or mappings); an item without `=` extends the value before it into a list
    (`order=down,right,up,left`); an empty value is the empty text. A key given twice, an item
    before any key, a key that is no identifier, an empty item and text over `MAX_OPTION_CHARS`
    are refused.
    """
    if len(text) > MAX_OPTION_CHARS:
        raise ConfigError(f"{source} {short(text)}: {len(text):,} characters (allowed: at most "
                          f"{MAX_OPTION_CHARS:,})")
    out: dict[str, Any] = {}
    key = None
    for item in text.split(","):
        name, sep, raw = item.partition("=")
        if sep:
            key = name.strip()
            if not _KEY.fullmatch(key):
                raise ConfigError(f"{source} {short(item)}: "
                                  + (f"{short(key)} is not a key ({_KEY_RULE})" if key else
                                     "no key (use key=value)"))
            if key in out:
                raise ConfigError(f"{source} {key}: given twice")
            out[key] = _scalar(raw, f"{source} {key}")
        elif key is None or not item.strip():
            raise ConfigError(f"{source} {short(text)}: "
                              + ("not key=value" if key is None else "an empty item"))
        else:
            previous = out[key]
            out[key] = [*(previous if isinstance(previous, list) else [previous]),
                        _scalar(item, f"{source} {key}")]
    return out


def _scalar(raw: str, source: str) -> Any:
    """One plain YAML scalar of an option value ('' stays '')."""
    if raw.strip()[:1] in ("[", "{"):
        raise ConfigError(f"{source}: {short(raw.strip())}: no brackets (a list is written "
                          "a,b,c)")
    if not raw.strip():
        return ""
    value = parse_yaml(raw, source)
    if isinstance(value, (list, dict)):
        raise ConfigError(f"{source}: {short(raw)} is not a plain value (a number, a word, "
                          "true or false)")
    return value


class Reader:
    """Typed readers over raw YAML data; every error is `source: key.path: what (allowed)`."""

    def __init__(self, source: str, base: Path | None = None) -> None:
        self.source = source
        self.base = base if base is not None else Path.cwd()

    def fail(self, path: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {path}: {message}" if path else
                           f"{self.source}: {message}")

    def mapping(self, value: Any, path: str, keys: Iterable[str], required: Iterable[str] = ()
                ) -> dict:
        """A mapping whose keys are among `keys`, with every `required` key present."""
        keys = tuple(keys)
        if not isinstance(value, dict):
            raise self.fail(path, f"{short(value)} is not a mapping (allowed keys: "
                            f"{', '.join(keys)})")
        for key in value:
            if key not in keys:
                where = f"{path}.{key}" if path else str(key)
                hint = did_you_mean(key, keys) or f" (allowed: {', '.join(keys)})"
                raise self.fail(where, f"unknown key{hint}")
        for key in required:
            if key not in value:
                raise self.fail(f"{path}.{key}" if path else key, "missing (required)")
        return value

    def integer(self, value: Any, path: str, low: int = 0, high: int = INT64_MAX) -> int:
        """An integer in [low, high] (YAML's booleans are not integers)."""
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            top = "2^63 - 1" if high == INT64_MAX else f"{high:,}"
            raise self.fail(path, f"{short(value)} (allowed: an integer from {low:,} to {top})")
        return value

    def number(self, value: Any, path: str, low: float, high: float) -> float:
        """A finite number in [low, high]."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                low <= value <= high):
            raise self.fail(path, f"{short(value)} (allowed: a number from {low:g} to {high:g})")
        return float(value)

    def flag(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"{short(value)} (allowed: true, false)")
        return value

    def text(self, value: Any, path: str, max_length: int = 10_000) -> str:
        if not isinstance(value, str) or len(value) > max_length:
            raise self.fail(path, f"{short(value)} (allowed: text of at most {max_length:,} "
                            "characters)")
        return value

    def name(self, value: Any, path: str) -> str:
        """A name that becomes a directory or table entry (`NAME_PATTERN`)."""
        if not isinstance(value, str) or not NAME_PATTERN.fullmatch(value):
            raise self.fail(path, f"{short(value)} (allowed: {_NAME_RULE})")
        return value

    def choice(self, value: Any, path: str, allowed: Iterable[str], what: str) -> str:
        """One of `allowed`; the closest is suggested."""
        allowed = list(allowed)
        if not isinstance(value, str) or value not in allowed:
            hint = did_you_mean(value, allowed) or f" (allowed: {', '.join(allowed)})"
            raise self.fail(path, f"{short(value)} is not {what}{hint}")
        return value

    def listing(self, value: Any, path: str, what: str, *, nonempty: bool = True,
                max_items: int = MAX_ITEMS) -> list:
        """A list of at most `max_items` (non-empty unless told)."""
        if not isinstance(value, list) or (nonempty and not value):
            raise self.fail(path, f"{short(value)} (allowed: a {'non-empty ' * nonempty}list of "
                            f"{what})")
        if len(value) > max_items:
            raise self.fail(path, f"{len(value):,} entries (allowed: at most {max_items:,})")
        return value

    def file(self, value: Any, path: str, what: str) -> Path:
        """An existing regular file (`errors.file_problem`), relative to the config's folder
        unless absolute."""
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"{short(value)} (allowed: a path to {what})")
        file = Path(value) if Path(value).is_absolute() else self.base / value
        try:
            file = file.resolve()
        except (OSError, RuntimeError, ValueError) as err:   # a loop, a long name, a NUL
            raise self.fail(path, f"{short(value)}: cannot resolve ({err})") from None
        problem = file_problem(file)
        if problem is not None:
            raise self.fail(path, f"{short(value, 300)}: {problem} ({file})")
        return file
