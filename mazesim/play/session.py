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
(`generator`, `size`, `seed`, `braid`, `placement`, `options`), as in experiment configs
(`mazesim.experiment.config.maze_block`, the same reader); every maze has a `vision` (`full` or
a window k >= 0, default full) and an optional `name` (its id in the database).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from mazesim.agents import FULL, Vision, parse_vision
from mazesim.errors import ConfigError, MazesimError
from mazesim.experiment.config import GeneratedMazes, MazeFile, maze_block, plain
from mazesim.maze import Maze
from mazesim.schema import INT64_MAX, Reader, read_yaml

__all__ = [
    "PARTICIPANT_MAX_LENGTH",
    "ORDERS",
    "PlayMaze",
    "Session",
    "load_session",
    "parse_session",
    "check_participant",
    "maze_order",
]

ORDERS = ("fixed", "shuffled")
PARTICIPANT_MAX_LENGTH = 64
MAX_SESSION_MAZES = 1000
_PARTICIPANT_RE = re.compile(r"[A-Za-z0-9_-]+")
_TOP_KEYS = ("name", "seed", "order", "output", "practice", "mazes")
_MAZE_EXTRA = ("vision", "name")
DEFAULT_OUTPUT_ROOT = "results"


@dataclass(frozen=True, eq=False)
class PlayMaze:
    """One maze of a session: its id, the maze, the vision (`"full"` or k) and its provenance."""

    id: str
    maze: Maze
    vision: Vision
    practice: bool
    source: Mapping[str, Any]

    @property
    def k(self) -> int | None:
        """The window radius, or None under full vision."""
        return self.vision.k


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
    reader = Reader(source, Path(base_dir))
    data = reader.mapping(data, "", _TOP_KEYS, required=("name", "mazes"))
    name = reader.name(data["name"], "name")
    seed = reader.integer(data.get("seed", 0), "seed", 0, INT64_MAX)
    order = reader.choice(data.get("order", "fixed"), "order", ORDERS, "an order")
    output = data.get("output", f"{DEFAULT_OUTPUT_ROOT}/{name}")
    if not isinstance(output, str) or not output:
        raise reader.fail("output", f"{output!r} (allowed: a directory path)")
    practice = _maze_list(reader, data.get("practice", []), "practice", seed, True)
    mazes = _maze_list(reader, data["mazes"], "mazes", seed, False)
    ids = [m.id for m in practice + mazes]
    for i, maze_id in enumerate(ids):
        if maze_id in ids[:i]:
            raise reader.fail("mazes", f"maze name {maze_id!r} is used twice")
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


def _maze_list(reader: Reader, items: Any, key: str, seed: int, practice: bool
               ) -> tuple[PlayMaze, ...]:
    items = reader.listing(items, key, "mazes", nonempty=not practice,
                           max_items=MAX_SESSION_MAZES)
    prefix = "practice" if practice else "maze"
    return tuple(_maze_entry(reader, item, f"{key}[{i}]", f"{prefix}-{i + 1}", seed, practice)
                 for i, item in enumerate(items))


def _maze_entry(reader: Reader, item: Any, path: str, default_id: str, seed: int,
                practice: bool) -> PlayMaze:
    block, extra = maze_block(reader, item, path, extra=_MAZE_EXTRA, count=False)
    try:
        vision = parse_vision(extra.get("vision", FULL), f"{path}.vision")
    except MazesimError as err:
        raise reader.fail("", str(err)) from None
    if not (vision.full or (vision.k is not None and vision.memory and not vision.occlusion
                            and not vision.known_map)):
        raise reader.fail(f"{path}.vision", f"{vision} (allowed here: full or a window k)")
    maze_id = reader.name(extra.get("name", default_id), f"{path}.name")
    if isinstance(block, MazeFile):
        maze = block.maze
        source = {"file": item["file"]}
    else:
        block = block if block.seed is not None else GeneratedMazes(
            block.generator, block.size, 1, seed, block.placement, block.braid, block.options)
        maze = block.maze(block.seed)
        source = {"generator": block.generator, "size": f"{block.size[0]}x{block.size[1]}",
                  "seed": block.seed, "braid": block.braid, "placement": plain(block.placement),
                  "options": plain(block.options)}
    source.update(name=maze_id, vision=vision.to_config())
    return PlayMaze(maze_id, maze, vision, practice, source)
