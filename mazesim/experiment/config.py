"""The experiment config (DESIGN.md section 8): YAML schema, validation and the resolved form.

Everything is checked before any work starts or any directory is made; every error names the
config file, the key path, the bad value and what is allowed::

    first.yaml: agents[2].type: 'bsf' is not an agent; did you mean 'bfs'?
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

import yaml

from mazesim.errors import ConfigError, MazesimError, did_you_mean, read_text
from mazesim.maze import DIRECTIONS, Maze, parse_size, read_maze

__all__ = [
    "DEFAULT_OUTPUT",
    "DEFAULT_SAMPLES",
    "CORRELATION_METHODS",
    "GeneratedMazes",
    "MazeFile",
    "AgentSpec",
    "Probe",
    "Config",
    "load_config",
    "config_from_dict",
    "resolved_config",
    "vision_label",
]

DEFAULT_OUTPUT = "results"
DEFAULT_SAMPLES = 3  # trajectories kept per (maze, agent, vision): the first trials
CORRELATION_METHODS = ("pearson", "spearman")
DEFAULT_CORRELATION_PARAMETERS = (
    "solution_length", "max_depth", "branch_points", "branch_points_on_path", "detour_depth",
)  # the study's Table 1 (section 3.2)
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOP_KEYS = ("name", "description", "seed", "mazes", "agents", "vision", "parameters", "analysis",
             "output", "trajectories")
_GENERATOR_KEYS = ("generator", "size", "count", "placement", "braid", "options")
_FILE_KEYS = ("file", "sha256")
_AGENT_KEYS = ("type", "trials", "label")
_ANALYSIS_KEYS = ("correlations", "branch_choices")


@dataclass(frozen=True)
class GeneratedMazes:
    """A block of `count` mazes from one generator; maze i gets its own seed stream."""

    generator: str
    size: tuple[int, int]
    count: int
    placement: Any = "corners"
    braid: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class MazeFile:
    """A maze read from a file (absolute path); `maze` is the parsed maze, `sha256` its text's."""

    file: Path
    sha256: str
    maze: Maze


@dataclass(frozen=True)
class AgentSpec:
    """One agent of the sweep: its registered `type`, `trials` per cell, parameters and label."""

    type: str
    trials: int
    params: Mapping[str, Any]
    label: str


@dataclass(frozen=True)
class Probe:
    """A branch-choice probe: the mark and the human counts per direction (maybe empty)."""

    mark: str
    human: Mapping[str, int]


@dataclass(frozen=True, eq=False)
class Config:
    """A validated experiment config; `source` is the file it came from (for messages)."""

    name: str
    seed: int
    mazes: tuple[GeneratedMazes | MazeFile, ...]
    agents: tuple[AgentSpec, ...]
    vision: tuple[Any, ...]
    parameters: tuple[str, ...]
    methods: tuple[str, ...]
    correlation_parameters: tuple[str, ...]
    probes: tuple[Probe, ...]
    output: str = DEFAULT_OUTPUT
    trajectories: int = DEFAULT_SAMPLES
    description: str = ""
    source: str = "<config>"

    @property
    def maze_count(self) -> int:
        return sum(b.count if isinstance(b, GeneratedMazes) else 1 for b in self.mazes)

    @property
    def vision_labels(self) -> tuple[str, ...]:
        """Vision entries as the text stored in the tables (`full`, `2`, or YAML for a mapping)."""
        return tuple(vision_label(v) for v in self.vision)


def read_yaml(path: str | Path) -> Any:
    """The YAML document of `path`; unreadable files and bad YAML raise ConfigError (line:col)."""
    try:
        return yaml.safe_load(read_text(path, ConfigError))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}{where}: {problem}") from None


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file."""
    path = Path(path)
    return config_from_dict(read_yaml(path), source=str(path), base=path.resolve().parent)


def config_from_dict(data: Any, *, source: str = "<config>", base: Path | None = None) -> Config:
    """Validate a config mapping; relative maze files are relative to `base` (default: cwd)."""
    return _Validator(source, base or Path.cwd()).config(data)


def resolved_config(config: Config) -> dict[str, Any]:
    """The config with every default filled in, as plain YAML-ready data (stored in a run)."""
    mazes: list[dict[str, Any]] = []
    for block in config.mazes:
        if isinstance(block, MazeFile):
            mazes.append({"file": str(block.file), "sha256": block.sha256})
        else:
            mazes.append({"generator": block.generator, "size": f"{block.size[0]}x{block.size[1]}",
                          "count": block.count, "placement": _plain(block.placement),
                          "braid": block.braid, "options": _plain(block.options)})
    agents = [{"type": a.type, "label": a.label, "trials": a.trials, **_plain(a.params)}
              for a in config.agents]
    probes = [{"mark": p.mark, "human": dict(p.human)} for p in config.probes]
    return {
        "name": config.name,
        "description": config.description,
        "seed": config.seed,
        "mazes": mazes,
        "agents": agents,
        "vision": [_plain(v) for v in config.vision],
        "parameters": list(config.parameters),
        "analysis": {
            "correlations": {"methods": list(config.methods),
                             "parameters": list(config.correlation_parameters)},
            "branch_choices": probes,
        },
        "output": config.output,
        "trajectories": config.trajectories,
    }


def _plain(value: Any) -> Any:
    """Tuples and mappings as lists and dicts (what YAML and JSON write)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def vision_label(value: Any) -> str:
    if isinstance(value, Mapping):
        return yaml.safe_dump(_plain(value), default_flow_style=True, sort_keys=True).strip()
    return str(value)


def _suggest(value: Any, allowed: Any, what: str) -> str:
    allowed = list(allowed)
    return f"{value!r} is not {what}" + (did_you_mean(value, allowed)
                                         or f" (allowed: {', '.join(allowed)})")


class _Validator:
    """Walks the raw YAML data; every error carries the source and the key path."""

    def __init__(self, source: str, base: Path) -> None:
        self.source = source
        self.base = base

    def fail(self, path: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {path}: {message}" if path else
                           f"{self.source}: {message}")

    # -- small typed readers --------------------------------------------------------------
    def mapping(self, value: Any, path: str, keys: tuple[str, ...], required=()) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"{_short(value)} is not a mapping (allowed keys: "
                            f"{', '.join(keys)})")
        for key in value:
            if key not in keys:
                where = f"{path}.{key}" if path else str(key)
                hint = did_you_mean(key, keys) or f" (allowed: {', '.join(keys)})"
                raise self.fail(where, f"unknown key{hint}")
        for key in required:
            if key not in value:
                where = f"{path}.{key}" if path else key
                raise self.fail(where, "missing (required)")
        return value

    def integer(self, value: Any, path: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(path, f"{_short(value)} (allowed: an integer >= {minimum})")
        return value

    def listing(self, value: Any, path: str, what: str, nonempty: bool = True) -> list:
        if not isinstance(value, list) or (nonempty and not value):
            raise self.fail(path, f"{_short(value)} (allowed: a non-empty list of {what})")
        return value

    def choice(self, value: Any, path: str, allowed: Any, what: str) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(path, _suggest(value, allowed, what))
        return value

    # -- the sections -----------------------------------------------------------------------
    def config(self, data: Any) -> Config:
        from mazesim.analysis import PARAMETERS

        data = self.mapping(data, "", _TOP_KEYS, required=("name", "seed", "mazes", "agents"))
        name = data["name"]
        if not isinstance(name, str) or not _NAME_PATTERN.match(name):
            raise self.fail("name", f"{_short(name)} (allowed: letters, digits, '_', '.', '-'; "
                            "it names the results directory)")
        seed = self.integer(data["seed"], "seed")
        mazes = tuple(self.maze_block(b, f"mazes[{i}]")
                      for i, b in enumerate(self.listing(data["mazes"], "mazes", "maze blocks")))
        agents = self.agents(self.listing(data["agents"], "agents", "agents"))
        vision = self.vision(self.listing(data.get("vision", ["full"]), "vision",
                                          "'full' or integers"))
        params = data.get("parameters", list(PARAMETERS))
        params = tuple(self.choice(p, f"parameters[{i}]", PARAMETERS, "a parameter")
                       for i, p in enumerate(self.listing(params, "parameters", "parameters")))
        methods, corr_params, probes = self.analysis(data.get("analysis", {}), params, mazes)
        output = data.get("output", DEFAULT_OUTPUT)
        if not isinstance(output, str) or not output:
            raise self.fail("output", f"{_short(output)} (allowed: a directory path)")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail("description", f"{_short(description)} (allowed: text)")
        samples = self.integer(data.get("trajectories", DEFAULT_SAMPLES), "trajectories")
        return Config(name, seed, mazes, agents, vision, params, methods, corr_params, probes,
                      output, samples, description, self.source)

    def maze_block(self, block: Any, path: str) -> GeneratedMazes | MazeFile:
        if isinstance(block, dict) and "file" in block:
            return self.maze_file(self.mapping(block, path, _FILE_KEYS), path)
        from mazesim.generators import GENERATORS, generate

        block = self.mapping(block, path, _GENERATOR_KEYS + _FILE_KEYS, required=("generator",))
        extra = [k for k in _FILE_KEYS if k in block]
        if extra:
            raise self.fail(f"{path}.{extra[0]}", "only for file blocks ({file: path})")
        generator = self.choice(block["generator"], f"{path}.generator", GENERATORS,
                                "a generator")
        try:
            size = parse_size(block.get("size", 31), f"{path}.size")
        except MazesimError as err:
            raise self.fail("", str(err)) from None
        count = self.integer(block.get("count", 1), f"{path}.count", minimum=1)
        braid = block.get("braid", 0.0)
        if isinstance(braid, bool) or not isinstance(braid, (int, float)) or not 0 <= braid <= 1:
            raise self.fail(f"{path}.braid", f"{_short(braid)} (allowed: a number in [0, 1])")
        options = block.get("options", {})
        if not isinstance(options, dict):
            raise self.fail(f"{path}.options", f"{_short(options)} (allowed: a mapping)")
        placement = block.get("placement", "corners")
        spec = GeneratedMazes(generator, size, count, placement, float(braid), options)
        try:  # one small trial generation checks size, placement and options now
            generate(generator, size, seed=0, braid=spec.braid, placement=placement, **options)
        except (MazesimError, TypeError) as err:
            raise self.fail(path, str(err)) from None
        return spec

    def maze_file(self, block: dict, path: str) -> MazeFile:
        raw = block["file"]
        if not isinstance(raw, str) or not raw:
            raise self.fail(f"{path}.file", f"{_short(raw)} (allowed: a maze file path)")
        file = Path(raw) if Path(raw).is_absolute() else (self.base / raw)
        file = file.resolve()
        if not file.is_file():
            raise self.fail(f"{path}.file", f"{raw!r}: no such file ({file})")
        try:
            maze = read_maze(file)
        except MazesimError as err:
            raise self.fail(f"{path}.file", str(err)) from None
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        expected = block.get("sha256")
        if expected is not None and expected != digest:
            raise self.fail(f"{path}.sha256", f"{file} has changed (sha256 {digest[:12]}..., "
                            f"expected {str(expected)[:12]}...)")
        return MazeFile(file, digest, maze)

    def agents(self, entries: list) -> tuple[AgentSpec, ...]:
        from mazesim.agents import AGENTS, make_agent

        specs: list[AgentSpec] = []
        for i, entry in enumerate(entries):
            path = f"agents[{i}]"
            if not isinstance(entry, dict):
                raise self.fail(path, f"{_short(entry)} is not a mapping ({{type, trials, ...}})")
            if "type" not in entry:
                raise self.fail(f"{path}.type", "missing (required)")
            kind = self.choice(entry["type"], f"{path}.type", AGENTS, "an agent")
            allowed = _AGENT_KEYS + tuple(f.name for f in fields(AGENTS[kind]))
            entry = self.mapping(entry, path, allowed, required=("trials",))
            trials = self.integer(entry["trials"], f"{path}.trials", minimum=1)
            params = {k: v for k, v in entry.items() if k not in _AGENT_KEYS}
            try:
                make_agent(kind, **params)
            except (MazesimError, TypeError, ValueError) as err:
                raise self.fail(path, str(err)) from None
            label = entry.get("label", kind)
            if not isinstance(label, str) or not _NAME_PATTERN.match(label):
                raise self.fail(f"{path}.label", f"{_short(label)} (allowed: letters, digits, "
                                "'_', '.', '-')")
            if any(s.label == label for s in specs):
                raise self.fail(path, f"agent {label!r} appears twice; give each a distinct "
                                "'label'")
            specs.append(AgentSpec(kind, trials, params, label))
        return tuple(specs)

    def vision(self, entries: list) -> tuple[Any, ...]:
        from mazesim.agents.vision import parse_vision

        seen = set()
        for i, value in enumerate(entries):
            try:
                parse_vision(value, f"vision[{i}]")
            except (MazesimError, TypeError, ValueError) as err:
                raise self.fail("", str(err)) from None
            label = vision_label(value)
            if label in seen:
                raise self.fail(f"vision[{i}]", f"{_short(value)} appears twice")
            seen.add(label)
        return tuple(entries)

    def analysis(self, data: Any, params: tuple[str, ...], mazes: tuple) -> tuple:
        data = self.mapping(data if data is not None else {}, "analysis", _ANALYSIS_KEYS)
        corr = self.mapping(data.get("correlations", {}) or {}, "analysis.correlations",
                            ("methods", "parameters"))
        path = "analysis.correlations"
        methods = tuple(self.choice(m, f"{path}.methods[{i}]", CORRELATION_METHODS, "a method")
                        for i, m in enumerate(self.listing(
                            corr.get("methods", list(CORRELATION_METHODS)), f"{path}.methods",
                            "methods")))
        default = [p for p in DEFAULT_CORRELATION_PARAMETERS if p in params] or list(params)
        corr_params = tuple(
            self.choice(p, f"{path}.parameters[{i}]", params, "a computed parameter")
            for i, p in enumerate(self.listing(corr.get("parameters", default),
                                               f"{path}.parameters", "parameters")))
        raw = data.get("branch_choices", [])
        raw = [raw] if isinstance(raw, dict) else raw
        probes = tuple(self.probe(p, f"analysis.branch_choices[{i}]", mazes)
                       for i, p in enumerate(self.listing(raw, "analysis.branch_choices",
                                                          "probes", nonempty=False)))
        return methods, corr_params, probes

    def probe(self, data: Any, path: str, mazes: tuple) -> Probe:
        data = self.mapping(data, path, ("mark", "human"), required=("mark",))
        mark = data["mark"]
        if not isinstance(mark, str) or len(mark) != 1 or not mark.isupper() or mark in "SG":
            raise self.fail(f"{path}.mark", f"{_short(mark)} (allowed: a capital letter "
                            "other than S and G)")
        files = [(i, b) for i, b in enumerate(mazes) if isinstance(b, MazeFile)]
        if not files:
            raise self.fail(f"{path}.mark", f"{mark!r}: no maze file in 'mazes' (generated "
                            "mazes have no marks)")
        for i, block in files:
            if mark not in block.maze.marks:
                have = ", ".join(block.maze.marks) or "none"
                raise self.fail(f"{path}.mark", f"{mark!r} is not marked in mazes[{i}] "
                                f"({block.file.name}; marks: {have})")
        human = self.mapping(data.get("human", {}) or {}, f"{path}.human", DIRECTIONS)
        counts = {d: self.integer(human[d], f"{path}.human.{d}") for d in DIRECTIONS
                  if d in human}
        return Probe(mark, counts)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
