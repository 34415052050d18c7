"""The session config of a human trial (DESIGN.md section 9): mazes, order, vision, output.

A session YAML file::

    name: play-demo
    seed: 7                        # root seed: generator blocks without a seed, shuffled orders
    order: shuffled                # or fixed (the listed order)
    output: results/play-demo      # the run directory (relative to the working directory)
    practice:                      # optional, always first, in the listed order
      - {generator: digging, size: 7, seed: 1, vision: full}
    mazes:
      - {file: ../experiments/play-demo/branch.txt, vision: full}
      - {generator: stick-knocking, size: 15, seed: 3, vision: 2}

A maze is a `file` (text or JSON; relative to the config file) or a generator block
(`generator`, `size`, `seed`, `braid`, `placement`, `options`); every maze has a `vision`
(`full` or an integer k >= 0, default full) and an optional `name` (its id in the database).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mazesim.agents.vision import parse_vision
from mazesim.errors import ConfigError, MazesimError, did_you_mean
from mazesim.experiment.config import read_yaml
from mazesim.maze import Maze, read_maze

__all__ = [
    "FULL",
    "PARTICIPANT_MAX_LENGTH",
    "PlayMaze",
    "Session",
    "load_session",
    "parse_session",
    "check_participant",
    "maze_order",
]

FULL = "full"
ORDERS = ("fixed", "shuffled")
PARTICIPANT_MAX_LENGTH = 64
_PARTICIPANT_RE = re.compile(r"[A-Za-z0-9_-]+")
_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_TOP_KEYS = ("name", "seed", "order", "output", "practice", "mazes")
_FILE_KEYS = ("file", "vision", "name")
_GENERATOR_KEYS = ("generator", "size", "seed", "braid", "placement", "options", "vision", "name")
DEFAULT_OUTPUT_ROOT = "results"


@dataclass(frozen=True, eq=False)
class PlayMaze:
    """One maze of a session: its id, the maze, the vision (`"full"` or k) and its provenance."""

    id: str
    maze: Maze
    vision: str | int
    practice: bool
    source: Mapping[str, Any]

    @property
    def k(self) -> int | None:
        """The window radius, or None under full vision."""
        return None if self.vision == FULL else int(self.vision)


@dataclass(frozen=True, eq=False)
class Session:
    """A parsed session config; `config` is the resolved mapping written to the run directory."""

    name: str
    seed: int
    order: str
    output: Path
    practice: tuple[PlayMaze, ...]
    mazes: tuple[PlayMaze, ...]
    config: Mapping[str, Any]

    def maze(self, maze_id: str) -> PlayMaze:
        """The maze named `maze_id`; ConfigError when there is none."""
        for item in self.practice + self.mazes:
            if item.id == maze_id:
                return item
        raise ConfigError(f"session {self.name}: no maze {maze_id!r}")


def load_session(path: str | Path) -> Session:
    """Read and validate a session YAML file; errors name the file and the key path."""
    path = Path(path)
    return parse_session(read_yaml(path), source=str(path), base_dir=path.parent)


def parse_session(data: Any, *, source: str = "<session>", base_dir: str | Path = ".") -> Session:
    """Validate a session mapping (see the module docstring) and build its mazes."""
    where = f"{source}:"
    if not isinstance(data, dict):
        raise ConfigError(f"{where} a session config must be a mapping")
    _check_keys(data, _TOP_KEYS, where, "")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ConfigError(f"{where} name: {name!r} (required; letters, digits, _ . - only)")
    seed = _integer(data.get("seed", 0), f"{where} seed", minimum=0)
    order = data.get("order", "fixed")
    if order not in ORDERS:
        raise ConfigError(f"{where} order: {order!r} (allowed: {', '.join(ORDERS)})")
    output = data.get("output", f"{DEFAULT_OUTPUT_ROOT}/{name}")
    if not isinstance(output, str) or not output:
        raise ConfigError(f"{where} output: {output!r} (a directory path)")
    base = Path(base_dir)
    practice = _maze_list(data.get("practice", []), "practice", where, base, seed, True)
    mazes = _maze_list(data.get("mazes"), "mazes", where, base, seed, False)
    if not mazes:
        raise ConfigError(f"{where} mazes: the session needs at least one maze")
    ids = [m.id for m in practice + mazes]
    for i, maze_id in enumerate(ids):
        if maze_id in ids[:i]:
            raise ConfigError(f"{where} maze name {maze_id!r} is used twice")
    config = {
        "name": name, "seed": seed, "order": order, "output": output,
        "practice": [dict(m.source) for m in practice], "mazes": [dict(m.source) for m in mazes],
    }
    return Session(name, seed, order, Path(output), practice, mazes, config)


def check_participant(participant: Any) -> str:
    """Return a valid participant id or raise ConfigError (letters, digits, _ and -, 1 to 64)."""
    if not isinstance(participant, str) or not participant:
        raise ConfigError("participant id: required (letters, digits, _ and -)")
    if len(participant) > PARTICIPANT_MAX_LENGTH:
        raise ConfigError(
            f"participant id: {len(participant)} characters (at most {PARTICIPANT_MAX_LENGTH})"
        )
    if not _PARTICIPANT_RE.fullmatch(participant):
        raise ConfigError(f"participant id: {participant!r} (allowed: letters, digits, _ and -)")
    return participant


def maze_order(session: Session, participant: str) -> list[str]:
    """Maze ids in the order `participant` meets them: practice first, then the session's order.

    A shuffled order is drawn from a stream seeded by the session seed and the participant id, so
    it is the same on every reload and server restart and independent of other participants.
    """
    participant = check_participant(participant)
    main = [m.id for m in session.mazes]
    if session.order == "shuffled":
        entropy = [session.seed, *participant.encode("ascii")]
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        main = [main[i] for i in rng.permutation(len(main))]
    return [m.id for m in session.practice] + main


def _maze_list(items: Any, key: str, where: str, base: Path, seed: int,
               practice: bool) -> tuple[PlayMaze, ...]:
    if items is None:
        items = []
    if not isinstance(items, list):
        raise ConfigError(f"{where} {key}: must be a list of mazes")
    prefix = "practice" if practice else "maze"
    return tuple(_maze_entry(item, f"{key}[{i}]", f"{prefix}-{i + 1}", where, base, seed,
                             practice) for i, item in enumerate(items))


def _maze_entry(item: Any, path: str, default_id: str, where: str, base: Path, seed: int,
                practice: bool) -> PlayMaze:
    if not isinstance(item, dict):
        raise ConfigError(f"{where} {path}: must be a mapping with 'file' or 'generator'")
    if ("file" in item) == ("generator" in item):
        raise ConfigError(f"{where} {path}: needs exactly one of 'file' or 'generator'")
    vision = _vision(item.get("vision", FULL), f"{where} {path}.vision")
    maze_id = item.get("name", default_id)
    if not isinstance(maze_id, str) or not _NAME_RE.fullmatch(maze_id):
        raise ConfigError(f"{where} {path}.name: {maze_id!r} (letters, digits, _ . - only)")
    if "file" in item:
        _check_keys(item, _FILE_KEYS, where, path)
        file = item["file"]
        if not isinstance(file, str):
            raise ConfigError(f"{where} {path}.file: {file!r} is not a path")
        full_path = (base / file) if not Path(file).is_absolute() else Path(file)
        try:
            maze = read_maze(full_path)
        except MazesimError as err:
            raise ConfigError(f"{where} {path}.file: {err}") from None
        source = {"file": file, "name": maze_id, "vision": vision}
    else:
        _check_keys(item, _GENERATOR_KEYS, where, path)
        maze, source = _generated(item, path, where, seed)
        source = {**source, "name": maze_id, "vision": vision}
    return PlayMaze(maze_id, maze, vision, practice, source)


def _generated(item: dict, path: str, where: str, seed: int) -> tuple[Maze, dict]:
    from mazesim.generators import generate  # the generators registry loads numba kernels

    options = item.get("options", {})
    if not isinstance(options, dict):
        raise ConfigError(f"{where} {path}.options: must be a mapping")
    maze_seed = _integer(item.get("seed", seed), f"{where} {path}.seed", minimum=0)
    braid = item.get("braid", 0.0)
    if isinstance(braid, bool) or not isinstance(braid, (int, float)) or not 0 <= braid <= 1:
        raise ConfigError(f"{where} {path}.braid: {braid!r} (a fraction in [0, 1])")
    placement = item.get("placement", "corners")
    try:
        maze = generate(item["generator"], item.get("size"), seed=maze_seed, braid=float(braid),
                        placement=placement, **options)
    except MazesimError as err:
        raise ConfigError(f"{where} {path}: {err}") from None
    source = {"generator": item["generator"], "size": item.get("size"), "seed": maze_seed,
              "braid": float(braid), "placement": placement, "options": dict(options)}
    return maze, source


def _vision(value: Any, where: str) -> str | int:
    try:
        vision = parse_vision(value, where)
    except MazesimError as err:
        raise ConfigError(str(err)) from None
    return FULL if vision.k is None else vision.k


def _integer(value: Any, where: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{where}: {value!r} (an integer >= {minimum})")
    return value


def _check_keys(data: dict, allowed: tuple[str, ...], where: str, path: str) -> None:
    for key in data:
        if key not in allowed:
            place = f"{path}.{key}" if path else str(key)
            raise ConfigError(f"{where} {place}: unknown key (allowed: {', '.join(allowed)})"
                              f"{did_you_mean(key, allowed)}")
