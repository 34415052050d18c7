"""The session config of a human trial (DESIGN.md section 9): mazes, order, vision, output, and
who takes part how.

A session YAML file (every relative path is relative to this file)::

    name: play-demo
    seed: 7                        # root seed: generator blocks without a seed, orders, tokens
    order: latin                   # fixed (the listed order), shuffled, or latin
    output: ../results/play-demo   # the run directory
    practice:                      # optional, always first, in the listed order
      - {generator: digging, size: 7, seed: 1, vision: full}
    mazes:
      - {file: ../experiments/play-demo/branch.txt, vision: 2}
      - {generator: stick-knocking, size: 15, seed: 3, vision: {isovist: 10, map: known}}
    participants: {entry: link, generate: 30, pilot: [pilot-1]}     # see entry.py
    pages: {consent: consent.md, instructions: instructions.md}     # see pages.py
    questions: [{id: age, kind: number, text: Your age, min: 18}]   # see questions.py
    completion: {code: C0DE1234}                                    # see pages.py

A maze is a `file` (text or JSON) or a generator block (`generator`, `size`, `seed`, `braid`,
`placement`, `options`), as in experiment configs (`mazesim.experiment.config.maze_block`, the
same reader); every maze has a `vision` (any vision of DESIGN.md section 5, default full) and an
optional `name` (its id in the database). A maze whose goal cannot be reached is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from mazesim.agents import FULL, Vision, parse_vision
from mazesim.errors import ConfigError, MazesimError
from mazesim.experiment.config import GeneratedMazes, MazeFile, maze_block, plain
from mazesim.maze import Maze
from mazesim.play.entry import Participants, check_participant, parse_participants
from mazesim.play.orders import FIXED, ORDERS, main_order
from mazesim.play.pages import Completion, Pages, parse_completion, parse_pages
from mazesim.play.questions import Question, parse_questions
from mazesim.schema import INT64_MAX, Reader, read_yaml

__all__ = ["MAX_SESSION_MAZES", "MAX_PLAY_SIDE", "IDENTITY_KEYS", "PlayMaze", "Session",
           "load_session", "parse_session"]

MAX_SESSION_MAZES = 1000
MAX_PLAY_SIDE = 201
"""Largest grid side a participant is shown (61 still has 10-pixel cells at 1366x768)."""
IDENTITY_KEYS = ("name", "seed", "order", "practice", "mazes", "questions")
"""What a reopened run directory must share with the session: the data's meaning. Entry rules,
pages and the completion may change between restarts (more ids, a corrected page)."""
DEFAULT_OUTPUT_ROOT = "results"
_TOP_KEYS = ("name", "seed", "order", "output", "practice", "mazes", "participants", "pages",
             "questions", "completion")
_MAZE_EXTRA = ("vision", "name")


@dataclass(frozen=True, eq=False)
class PlayMaze:
    """One maze of a session: its id, the maze, the vision and its provenance."""

    id: str
    maze: Maze
    vision: Vision
    practice: bool
    source: Mapping[str, Any]


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
    participants: Participants = field(default_factory=Participants)
    pages: Pages = field(default_factory=Pages)
    questions: tuple[Question, ...] = ()
    completion: Completion = field(default_factory=Completion)

    def maze(self, maze_id: str) -> PlayMaze:
        """The maze named `maze_id`; ConfigError when there is none."""
        try:
            return self._by_id[maze_id]
        except KeyError:
            raise ConfigError(f"session {self.name}: no maze {maze_id!r}") from None

    @cached_property
    def _by_id(self) -> dict[str, PlayMaze]:
        return {m.id: m for m in self.practice + self.mazes}

    def order_of(self, participant: str, number: int) -> list[str]:
        """Maze ids in the order `participant` meets them (`mazesim.play.orders`): practice
        first; `number` counts the participants of their kind (pilot or not) before them."""
        main = main_order(self.order, [m.id for m in self.mazes], self.seed,
                          check_participant(participant), number)
        return [m.id for m in self.practice] + main

    @property
    def identity(self) -> dict[str, Any]:
        """The part of `config` a reopened run directory must match (`IDENTITY_KEYS`)."""
        return {key: self.config[key] for key in IDENTITY_KEYS}


def load_session(path: str | Path) -> Session:
    """Read and validate a session YAML file; errors name the file and the key path."""
    path = Path(path)
    return parse_session(read_yaml(path), source=str(path), base_dir=path.parent)


def parse_session(data: Any, *, source: str = "<session>", base_dir: str | Path = ".") -> Session:
    """Validate a session mapping (see the module docstring) and build its mazes."""
    base_dir = Path(base_dir)
    reader = Reader(source, base_dir)
    data = reader.mapping(data, "", _TOP_KEYS, required=("name", "mazes"))
    name = reader.name(data["name"], "name")
    seed = reader.integer(data.get("seed", 0), "seed", 0, INT64_MAX)
    order = reader.choice(data.get("order", FIXED), "order", ORDERS, "an order")
    output = _output(reader, data.get("output", f"{DEFAULT_OUTPUT_ROOT}/{name}"), base_dir)
    practice = _maze_list(reader, data.get("practice", []), "practice", seed, True)
    mazes = _maze_list(reader, data["mazes"], "mazes", seed, False)
    ids = [m.id for m in practice + mazes]
    for i, maze_id in enumerate(ids):
        if maze_id in ids[:i]:
            raise reader.fail("mazes", f"maze name {maze_id!r} is used twice")
    participants = parse_participants(reader, data.get("participants"))
    pages = parse_pages(reader, data.get("pages"))
    questions = parse_questions(reader, data.get("questions", []))
    completion = parse_completion(reader, data.get("completion"))
    config = {
        "name": name, "seed": seed, "order": order, "output": str(output),
        "practice": [dict(m.source) for m in practice], "mazes": [dict(m.source) for m in mazes],
        "questions": [q.to_config() for q in questions],
        "participants": participants.to_config(), "pages": dict(pages.files),
        "completion": completion.to_page(),
    }
    return Session(name, seed, order, output, practice, mazes, config, participants, pages,
                   questions, completion)


def _output(reader: Reader, value: Any, base_dir: Path) -> Path:
    if not isinstance(value, str) or not value:
        raise reader.fail("output", f"{value!r} (allowed: a directory path)")
    path = Path(value) if Path(value).is_absolute() else base_dir / value
    path = path.resolve()
    if path.exists() and not path.is_dir():
        raise reader.fail("output", f"{value!r}: {path} is a file, not a directory")
    return path


def _maze_list(reader: Reader, items: Any, key: str, seed: int, practice: bool
               ) -> tuple[PlayMaze, ...]:
    items = reader.listing(items, key, "mazes", nonempty=not practice,
                           max_items=MAX_SESSION_MAZES)
    prefix = "practice" if practice else "maze"
    return tuple(_maze_entry(reader, item, f"{key}[{i}]", f"{prefix}-{i + 1}", seed, practice)
                 for i, item in enumerate(items))


def _maze_entry(reader: Reader, item: Any, path: str, default_id: str, seed: int,
                practice: bool) -> PlayMaze:
    from mazesim.analysis import distance_map

    block, extra = maze_block(reader, item, path, extra=_MAZE_EXTRA, count=False)
    try:
        vision = parse_vision(extra.get("vision", FULL), f"{path}.vision")
    except MazesimError as err:
        raise reader.fail("", str(err)) from None
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
    h, w = maze.shape
    if max(h, w) > MAX_PLAY_SIDE:
        raise reader.fail(path, f"maze {maze_id}: {h}x{w} (allowed on a screen: at most "
                          f"{MAX_PLAY_SIDE}x{MAX_PLAY_SIDE})")
    if distance_map(maze)[maze.goal] < 0:
        raise reader.fail(path, f"maze {maze_id}: G {maze.goal} cannot be reached from S "
                          f"{maze.start}")
    source.update(name=maze_id, vision=vision.to_config())
    return PlayMaze(maze_id, maze, vision, practice, source)
