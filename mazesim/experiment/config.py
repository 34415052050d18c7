"""The experiment config (DESIGN.md section 8): YAML schema, validation and the resolved form.

Everything is checked before any work starts or any directory is made, by the one config
reader (`mazesim.schema.Reader`); every error names the config file, the key path, the bad value
and what is allowed. The validated `Config` holds built objects: `Maze`s of file blocks, built
agents, `Vision`s. `maze_block` also reads the maze entries of play sessions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from mazesim.agents import AGENTS, AgentBase, Vision, agent_keys, make_agent, parse_vision
from mazesim.analysis import PARAMETERS
from mazesim.errors import MazesimError
from mazesim.experiment.storage import HUMAN
from mazesim.generators import GENERATORS, check, generate
from mazesim.limits import INT64_MAX, MAX_STEPS, MAX_TRIALS
from mazesim.maze import DIRECTIONS, Maze, Size, parse_size, read_maze
from mazesim.schema import Reader, read_yaml, short
from mazesim.walks.simulate import check_reachable

__all__ = [
    "DEFAULT_OUTPUT",
    "DEFAULT_SAMPLES",
    "CORRELATION_METHODS",
    "DEFAULT_CORRELATION_PARAMETERS",
    "CAPPED",
    "REGRESSION_ERRORS",
    "GeneratedMazes",
    "MazeFile",
    "AgentSpec",
    "Probe",
    "Config",
    "load_config",
    "config_from_dict",
    "resolved_config",
    "human_run_config",
    "maze_block",
    "plain",
]

DEFAULT_OUTPUT = "results"
DEFAULT_SAMPLES = 3  # trajectories kept per (maze, agent, vision): the first trials
CORRELATION_METHODS = ("pearson", "spearman")
DEFAULT_CORRELATION_PARAMETERS = (
    "solution_length", "max_depth", "branch_points", "branch_points_on_path", "detour_depth",
)  # the study's Table 1 (section 3.2)
CAPPED = ("exclude", "include")
"""`analysis.capped`: whether trials that hit `max_steps` count in the means."""
REGRESSION_ERRORS = ("hc3", "nonrobust")
"""`analysis.regression.errors`: the regression's standard errors, heteroscedasticity-robust
(HC3, the default: the spread of moves per maze grows with their size) or classical OLS."""
MAX_MAZES = 100_000
"""Most mazes of one config."""
MAX_MAZE_CELLS_IN_ALL = 200_000_000
"""Most grid cells of all the mazes of one config: the runner keeps every maze in memory and
its text in the database (about 3 bytes a cell; 100,000 mazes of 31x31 are 96 million)."""
MAX_SWEEP_TRIALS = 10**7
"""Most trials of a whole sweep (mazes x agents x vision x trials): about 0.4 GB of database,
and the report reads every trial row (about 0.7 KB each while it computes)."""
_TOP_KEYS = ("name", "description", "seed", "mazes", "agents", "vision", "parameters", "analysis",
             "output", "trajectories")
_GENERATOR_KEYS = ("generator", "size", "count", "seed", "placement", "braid", "options")
_FILE_KEYS = ("file", "sha256")
_AGENT_KEYS = ("type", "trials", "label")
_ANALYSIS_KEYS = ("correlations", "branch_choices", "capped", "regression")


@dataclass(frozen=True)
class GeneratedMazes:
    """A block of `count` mazes from one generator: maze i gets its own stream of the root seed,
    or, with a block `seed`, the seed `seed + i`."""

    generator: str
    size: Size
    count: int = 1
    seed: int | None = None
    placement: Any = "corners"
    braid: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict)

    def maze(self, seed: int) -> Maze:
        return generate(self.generator, self.size, seed=seed, braid=self.braid,
                        placement=self.placement, **dict(self.options))

    def check(self) -> None:
        """Raise what generating the block's mazes would (`generators.check`: no kernel runs or
        compiles, so a config is checked at once on a fresh install)."""
        check(self.generator, self.size, seed=0 if self.seed is None else self.seed,
              braid=self.braid, placement=self.placement, **dict(self.options))


@dataclass(frozen=True, eq=False)
class MazeFile:
    """A maze read from a file (absolute path); `sha256` is its text's digest."""

    file: Path
    sha256: str
    maze: Maze


@dataclass(frozen=True, eq=False)
class AgentSpec:
    """One agent of the sweep: the built agent, its trials per cell and its label."""

    agent: AgentBase
    trials: int
    label: str

    @property
    def type(self) -> str:
        return self.agent.name


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
    vision: tuple[Vision, ...]
    parameters: tuple[str, ...]
    methods: tuple[str, ...]
    correlation_parameters: tuple[str, ...]
    probes: tuple[Probe, ...]
    output: str = DEFAULT_OUTPUT
    trajectories: int = DEFAULT_SAMPLES
    description: str = ""
    capped: str = "exclude"
    source: str = "<config>"
    errors: str = REGRESSION_ERRORS[0]

    @property
    def maze_count(self) -> int:
        return sum(b.count if isinstance(b, GeneratedMazes) else 1 for b in self.mazes)

    @property
    def vision_labels(self) -> tuple[str, ...]:
        """Vision entries as the text stored in the tables (`full`, `2`, ...)."""
        return tuple(str(v) for v in self.vision)

    @property
    def trial_count(self) -> int:
        return self.maze_count * len(self.vision) * sum(a.trials for a in self.agents)


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file."""
    path = Path(path)
    return config_from_dict(read_yaml(path), source=str(path), base=path.resolve().parent)


def config_from_dict(data: Any, *, source: str = "<config>", base: Path | None = None) -> Config:
    """Validate a config mapping; relative maze files are relative to `base` (default: cwd)."""
    return _config(Reader(source, base), data)


def human_run_config(name: str, description: str, seed: int, mazes: list[dict[str, Any]],
                     visions: list[Any], marks: Iterable[str], output: str | Path
                     ) -> dict[str, Any]:
    """A run of people (agent `human`, recorded or imported) in the shape of `resolved_config`,
    so that `mazesim report` reads it like a simulated run: Table 1 with people as the movement
    source, choices at every mark of the mazes."""
    return {
        "name": name,
        "description": description,
        "seed": seed,
        "mazes": mazes,
        "agents": [{"type": HUMAN, "label": HUMAN, "trials": 0}],
        "vision": visions,
        "parameters": list(PARAMETERS),
        "analysis": {
            "correlations": {"methods": list(CORRELATION_METHODS),
                             "parameters": list(DEFAULT_CORRELATION_PARAMETERS)},
            "branch_choices": [{"mark": mark, "human": {}} for mark in marks],
        },
        "output": str(output),
        "trajectories": 0,
    }


def resolved_config(config: Config) -> dict[str, Any]:
    """The config with every default filled in, as plain YAML-ready data (stored in a run)."""
    mazes: list[dict[str, Any]] = []
    for block in config.mazes:
        if isinstance(block, MazeFile):
            mazes.append({"file": str(block.file), "sha256": block.sha256})
        else:
            entry = {"generator": block.generator, "size": f"{block.size[0]}x{block.size[1]}",
                     "count": block.count, "placement": plain(block.placement),
                     "braid": block.braid, "options": plain(block.options)}
            if block.seed is not None:
                entry["seed"] = block.seed
            mazes.append(entry)
    agents = [{"type": a.type, "label": a.label, "trials": a.trials, **plain(a.agent.params())}
              for a in config.agents]
    probes = [{"mark": p.mark, "human": dict(p.human)} for p in config.probes]
    return {
        "name": config.name,
        "description": config.description,
        "seed": config.seed,
        "mazes": mazes,
        "agents": agents,
        "vision": [v.to_config() for v in config.vision],
        "parameters": list(config.parameters),
        "analysis": {
            "correlations": {"methods": list(config.methods),
                             "parameters": list(config.correlation_parameters)},
            "branch_choices": probes,
            "capped": config.capped,
            "regression": {"errors": config.errors},
        },
        "output": config.output,
        "trajectories": config.trajectories,
    }


def plain(value: Any) -> Any:
    """Tuples and mappings as lists and dicts (what YAML and JSON write)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def maze_block(reader: Reader, data: Any, path: str, *, extra: tuple[str, ...] = (),
               count: bool = True) -> tuple[GeneratedMazes | MazeFile, dict[str, Any]]:
    """A generator block (`generator`, `size`, `seed`, `placement`, `braid`, `options`, and
    `count` when `count`) or a file block (`file`, `sha256`) of a config, checked as its
    mazes would be generated (or its maze read); with the caller's `extra` keys, returned
    apart."""
    is_file = isinstance(data, dict) and "file" in data
    keys = _FILE_KEYS if is_file else tuple(k for k in _GENERATOR_KEYS if count or k != "count")
    data = reader.mapping(data, path, keys + extra, required=("file",) if is_file
                          else ("generator",))
    rest = {k: data[k] for k in extra if k in data}
    if is_file:
        return _maze_file(reader, data, path), rest
    generator = reader.choice(data["generator"], f"{path}.generator", GENERATORS,
                              "a generator")
    try:
        size = parse_size(data.get("size", 31), f"{path}.size")
    except MazesimError as err:
        raise reader.fail("", str(err)) from None
    block = GeneratedMazes(
        generator, size,
        reader.integer(data.get("count", 1), f"{path}.count", 1, MAX_MAZES),
        None if data.get("seed") is None else reader.integer(data["seed"], f"{path}.seed", 0,
                                                             INT64_MAX),
        data.get("placement", "corners"),
        reader.number(data.get("braid", 0.0), f"{path}.braid", 0.0, 1.0),
        reader.mapping(data.get("options", {}), f"{path}.options",
                       GENERATORS[generator].options))
    try:
        block.check()
    except (MazesimError, TypeError) as err:
        raise reader.fail(path, str(err)) from None
    if not isinstance(block.placement, str):
        for cell, what in zip(block.placement, ("start", "goal")):
            if cell[0] % 2 == 0 or cell[1] % 2 == 0:      # the first maze is not every maze
                raise reader.fail(f"{path}.placement", f"{what} {tuple(cell)} is not a room "
                                  "(allowed: odd row and column, a passage in every maze)")
    return block, rest


def _maze_file(reader: Reader, block: dict, path: str) -> MazeFile:
    file = reader.file(block["file"], f"{path}.file", "a maze file")
    try:
        maze = read_maze(file)
    except MazesimError as err:
        raise reader.fail(f"{path}.file", str(err)) from None
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    expected = block.get("sha256")
    if expected is not None and expected != digest:
        raise reader.fail(f"{path}.sha256", f"{file} has changed (sha256 {digest[:12]}..., "
                          f"expected {str(expected)[:12]}...)")
    return MazeFile(file, digest, maze)


def _config(reader: Reader, data: Any) -> Config:
    data = reader.mapping(data, "", _TOP_KEYS, required=("name", "seed", "mazes", "agents"))
    name = reader.name(data["name"], "name")
    seed = reader.integer(data["seed"], "seed", 0, INT64_MAX)
    mazes = tuple(maze_block(reader, b, f"mazes[{i}]")[0]
                  for i, b in enumerate(reader.listing(data["mazes"], "mazes", "maze blocks")))
    if sum(b.count if isinstance(b, GeneratedMazes) else 1 for b in mazes) > MAX_MAZES:
        raise reader.fail("mazes", f"more than {MAX_MAZES:,} mazes in all")
    for i, block in enumerate(mazes):
        if isinstance(block, MazeFile):       # what `run` would refuse (generated mazes are
            try:                              # perfect: every cell is reachable)
                check_reachable(block.maze)
            except MazesimError as err:
                raise reader.fail(f"mazes[{i}].file", f"{block.file}: {err}") from None
    cells = sum(b.count * b.size[0] * b.size[1] if isinstance(b, GeneratedMazes)
                else b.maze.grid.size for b in mazes)
    if cells > MAX_MAZE_CELLS_IN_ALL:
        raise reader.fail("mazes", f"{cells:,} grid cells in all, about {cells * 3 / 1e9:,.1f} "
                          f"GB to build and store (allowed: at most "
                          f"{MAX_MAZE_CELLS_IN_ALL:,})")
    agents = _agents(reader, reader.listing(data["agents"], "agents", "agents"))
    vision = _vision(reader, reader.listing(data.get("vision", ["full"]), "vision",
                                            "visions (full, an integer or a mapping)"))
    params = data.get("parameters", list(PARAMETERS))
    params = tuple(reader.choice(p, f"parameters[{i}]", PARAMETERS, "a parameter")
                   for i, p in enumerate(reader.listing(params, "parameters", "parameters")))
    methods, corr_params, probes, capped, errors = _analysis(reader, data.get("analysis", {}),
                                                             params, mazes)
    output = data.get("output", "results")
    if not isinstance(output, str) or not output:
        raise reader.fail("output", f"{short(output)} (allowed: a directory path)")
    description = reader.text(data.get("description", ""), "description")
    samples = reader.integer(data.get("trajectories", DEFAULT_SAMPLES), "trajectories", 0,
                             1000)
    for i, spec in enumerate(agents):
        for j, view in enumerate(vision):
            try:
                spec.agent.check_vision(view)
            except MazesimError as err:
                raise reader.fail(f"agents[{i}]", f"{err} (vision[{j}])") from None
    config = Config(name, seed, mazes, agents, vision, params, methods, corr_params, probes,
                    output, samples, description, capped, reader.source, errors)
    if config.trial_count > MAX_SWEEP_TRIALS:
        raise reader.fail("agents", f"{config.trial_count:,} trials in all, mazes x vision x "
                          f"trials (allowed: at most {MAX_SWEEP_TRIALS:,})")
    return config


def _agents(reader: Reader, entries: list) -> tuple[AgentSpec, ...]:
    specs: list[AgentSpec] = []
    for i, entry in enumerate(entries):
        path = f"agents[{i}]"
        if not isinstance(entry, dict):
            raise reader.fail(path, f"{short(entry)} is not a mapping ({{type, trials, ...}})")
        if "type" not in entry:
            raise reader.fail(f"{path}.type", "missing (required)")
        kind = reader.choice(entry["type"], f"{path}.type", AGENTS, "an agent")
        entry = reader.mapping(entry, path, _AGENT_KEYS + tuple(agent_keys(kind)),
                               required=("trials",))
        trials = reader.integer(entry["trials"], f"{path}.trials", 1, MAX_TRIALS)
        if entry.get("max_steps") is not None:
            reader.integer(entry["max_steps"], f"{path}.max_steps", 0, MAX_STEPS)
        try:
            agent = make_agent(kind, **{k: v for k, v in entry.items() if k not in _AGENT_KEYS})
        except (MazesimError, TypeError, ValueError) as err:
            raise reader.fail(path, str(err)) from None
        label = reader.name(entry.get("label", kind), f"{path}.label")
        if any(s.label == label for s in specs):
            raise reader.fail(path, f"agent {label!r} appears twice; give each a distinct "
                              "'label'")
        specs.append(AgentSpec(agent, trials, label))
    return tuple(specs)


def _vision(reader: Reader, entries: list) -> tuple[Vision, ...]:
    visions: list[Vision] = []
    for i, value in enumerate(entries):
        try:
            vision = parse_vision(value, f"vision[{i}]")
        except MazesimError as err:
            raise reader.fail("", str(err)) from None
        if vision in visions:
            raise reader.fail(f"vision[{i}]", f"{short(value)} is the same as "
                              f"vision[{visions.index(vision)}] ({vision})")
        visions.append(vision)
    return tuple(visions)


def _analysis(reader: Reader, data: Any, params: tuple[str, ...], mazes: tuple) -> tuple:
    data = reader.mapping(data if data is not None else {}, "analysis", _ANALYSIS_KEYS)
    path = "analysis.correlations"
    corr = reader.mapping(data.get("correlations", {}) or {}, path, ("methods", "parameters"))
    methods = tuple(reader.choice(m, f"{path}.methods[{i}]", CORRELATION_METHODS, "a method")
                    for i, m in enumerate(reader.listing(
                        corr.get("methods", list(CORRELATION_METHODS)), f"{path}.methods",
                        "methods")))
    default = [p for p in DEFAULT_CORRELATION_PARAMETERS if p in params] or list(params)
    corr_params = tuple(
        reader.choice(p, f"{path}.parameters[{i}]", params, "a computed parameter")
        for i, p in enumerate(reader.listing(corr.get("parameters", default),
                                             f"{path}.parameters", "parameters")))
    raw = data.get("branch_choices", [])
    raw = [raw] if isinstance(raw, dict) else raw
    probes = tuple(_probe(reader, p, f"analysis.branch_choices[{i}]", mazes)
                   for i, p in enumerate(reader.listing(raw, "analysis.branch_choices",
                                                        "probes", nonempty=False)))
    capped = reader.choice(data.get("capped", CAPPED[0]), "analysis.capped", CAPPED,
                           "a way to treat capped trials")
    regression = reader.mapping(data.get("regression", {}) or {}, "analysis.regression",
                                ("errors",))
    errors = reader.choice(regression.get("errors", REGRESSION_ERRORS[0]),
                           "analysis.regression.errors", REGRESSION_ERRORS,
                           "a kind of standard errors")
    return methods, corr_params, probes, capped, errors


def _probe(reader: Reader, data: Any, path: str, mazes: tuple) -> Probe:
    data = reader.mapping(data, path, ("mark", "human"), required=("mark",))
    mark = data["mark"]
    if not isinstance(mark, str) or len(mark) != 1 or not "A" <= mark <= "Z" or mark in "SG":
        raise reader.fail(f"{path}.mark", f"{short(mark)} (allowed: a capital letter other "
                          "than S and G)")
    files = [(i, b) for i, b in enumerate(mazes) if isinstance(b, MazeFile)]
    if not files:
        raise reader.fail(f"{path}.mark", f"{mark!r}: no maze file in 'mazes' (generated mazes "
                          "have no marks)")
    for i, block in files:
        if mark not in block.maze.marks:
            have = ", ".join(block.maze.marks) or "none"
            raise reader.fail(f"{path}.mark", f"{mark!r} is not marked in mazes[{i}] "
                              f"({block.file.name}; marks: {have})")
    human = reader.mapping(data.get("human", {}) or {}, f"{path}.human", DIRECTIONS)
    counts = {d: reader.integer(human[d], f"{path}.human.{d}", 0, 10**9) for d in DIRECTIONS
              if d in human}
    return Probe(mark, counts)
