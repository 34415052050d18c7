"""A run of people as the fitting code reads it: mazes, trials, their junction decisions, and
their node decisions.

A **junction decision** is a departure from a cell with `records.BRANCH_DEGREE` (3) or more open
neighbours, reversals included: exactly the choice records of a walk
(`mazesim.walks.choice_records`), so a play run and an imported run give the same decisions.
Bits per decision are -mean log2 p(chosen) over them; the uniform baseline is the mean log2 of
the number of open directions.

A **step decision** is every move of a walk (`step_decisions`): in full view, where almost every
open cell offers several moves, each move is a choice. A move with one open direction is kept
(every model gives it probability 1, so it costs no bits; bits per decision are then bits per
step). The level is the run's (meta `decision_level`, written by its import; `junction` when
absent) unless `load_human_run` is given one.

A **node decision** is a choice among two or more children of a node of the maze's decision
tree (`mazesim.agents.trees`, the Maze Search Task paper's yardstick): `node_decisions(run)`
cuts every trial on its maze's tree (`mazesim.walks.nodes`, the authors' rule) and returns the
nodes passed as parallel arrays. Bits per node decision are -mean log2 p(chosen child); the
uniform baseline is the mean log2 of the number of children.

Runs are read through `mazesim.experiment.storage.RunStore` (the same tables `mazesim.load_run`
returns as DataFrames).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Sequence

import numpy as np

from mazesim.agents import Vision, parse_vision
from mazesim.agents.trees import MAX_TREE_NODES, DecisionTree, decision_tree, people_tree_vision
from mazesim.errors import DataError, short
from mazesim.experiment.storage import HUMAN, RunStore
from mazesim.maze import Maze, parse_maze
from mazesim.records import mask_directions

__all__ = ["HumanTrial", "HumanRun", "Decisions", "NodeDecisions", "LEVELS", "load_human_run",
           "step_decisions",
           "node_decisions", "excluded", "participant_list", "run_maze", "bits",
           "MAX_RUN_TRIALS", "MAX_RUN_PARTICIPANTS", "MAX_DECISIONS", "MAX_EXCLUDED"]

LEVELS = ("junction", "step")
"""The decision levels of a run's `Decisions` (the node level is `NodeDecisions`)."""
MAX_RUN_TRIALS = 1_000_000
"""Most trials of a run read for fitting or comparison."""
MAX_RUN_PARTICIPANTS = 100_000
"""Most participants of a run."""
MAX_EXCLUDED = 100_000
"""Most participants or mazes one exclusion names."""
MAX_DECISIONS = 10_000_000
"""Most junction decisions (the fits hold a few floats per decision and direction)."""


@dataclass(frozen=True, eq=False)
class HumanTrial:
    """One stored trial of a person: who, which maze, with what vision, the cells walked."""

    trial_id: int
    participant: str
    maze_id: int
    vision: Vision
    positions: np.ndarray


@dataclass(frozen=True, eq=False)
class Decisions:
    """Every junction decision of a run, as parallel arrays (one item per decision).

    `trial` indexes `HumanRun.trials`, `step` the move (positions[step] is the cell left),
    `chosen` the direction taken, `open` the (D, 4) bool mask of open directions, `participant`
    indexes `HumanRun.participants`.
    """

    trial: np.ndarray
    step: np.ndarray
    chosen: np.ndarray
    open: np.ndarray
    participant: np.ndarray

    def __len__(self) -> int:
        return len(self.trial)

    @property
    def n_open(self) -> np.ndarray:
        return self.open.sum(axis=1)

    def baseline_bits(self) -> float:
        """Bits per decision of a uniform choice among the open directions."""
        return float(np.mean(np.log2(self.n_open))) if len(self) else float("nan")

    @classmethod
    def of_trial(cls, trial: int, step, chosen, open_, participant: int) -> Decisions:
        """One trial's decisions (`trial` and `participant` indices, the rest per decision)."""
        n = len(step)
        return cls(np.full(n, trial, np.int64), np.asarray(step, np.int64),
                   np.asarray(chosen, np.int64), np.asarray(open_, bool).reshape(n, 4),
                   np.full(n, participant, np.int64))

    @classmethod
    def joined(cls, parts: Sequence[Decisions]) -> Decisions:
        """The decisions of `parts`, one after the other."""
        if not parts:
            return cls.of_trial(0, [], [], [], 0)
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts])
                     for f in fields(cls)))


@dataclass(frozen=True, eq=False)
class HumanRun:
    """The mazes (with what they show at the start) and the trials of a run of people;
    `groups`: the trial indices by (maze_id, vision label), the trials an agent reads together."""

    path: Path
    mazes: dict[int, Maze]
    trials: tuple[HumanTrial, ...]
    participants: tuple[str, ...]
    decisions: Decisions
    groups: dict[tuple[int, str], list[int]]
    level: str = LEVELS[0]
    """What `decisions` holds (`LEVELS`)."""

    def select(self, keep: np.ndarray) -> HumanRun:
        """The run of the trials where the bool array `keep` (one per trial) is set."""
        kept = np.flatnonzero(keep)
        new = np.full(len(self.trials), -1)
        new[kept] = np.arange(len(kept))
        trials = tuple(self.trials[k] for k in kept)
        people = tuple(dict.fromkeys(t.participant for t in trials))
        d = self.decisions
        rows = keep[d.trial]
        index = {p: i for i, p in enumerate(people)}
        old = np.array([index.get(p, -1) for p in self.participants], np.int64)
        decisions = Decisions(new[d.trial[rows]], d.step[rows], d.chosen[rows], d.open[rows],
                              old[d.participant[rows]])
        return HumanRun(self.path, self.mazes, trials, people, decisions, _groups(trials),
                        self.level)


@dataclass(frozen=True, eq=False)
class NodeDecisions:
    """Every node the trials of a run passed with a child taken, as parallel arrays (one item
    per node passed, in trial order, then walk order).

    `trees` holds the merged tree of each maze by maze id (a node and its children are
    indices into `trees[maze].nodes`). `trial` indexes `HumanRun.trials`, `participant`
    `HumanRun.participants`; `node` and `chosen` (the child taken) are node indices, `choice`
    the place of the chosen child among the node's children, `children` their number;
    `arrived` and `reached` the steps at which the walk reached the node and the child;
    `first` is set on the trials that are their participant's first on that maze (the authors
    kept only those). Nodes with one child are kept: `decisions()` drops them.
    """

    trees: dict[int, DecisionTree]
    trial: np.ndarray
    participant: np.ndarray
    maze: np.ndarray
    node: np.ndarray
    chosen: np.ndarray
    choice: np.ndarray
    children: np.ndarray
    arrived: np.ndarray
    reached: np.ndarray
    first: np.ndarray

    def __len__(self) -> int:
        return len(self.trial)

    def select(self, keep: np.ndarray) -> NodeDecisions:
        """The rows where the bool array `keep` (one per row) is set."""
        return NodeDecisions(self.trees, *(getattr(self, name)[keep] for name in _NODE_COLUMNS))

    def decisions(self) -> NodeDecisions:
        """The rows of nodes with two or more children: the decisions."""
        return self.select(self.children >= 2)

    def baseline_bits(self) -> float:
        """Bits per decision of a uniform choice among the children (over the decisions)."""
        many = self.children[self.children >= 2]
        return float(np.mean(np.log2(many))) if len(many) else float("nan")


_NODE_COLUMNS = ("trial", "participant", "maze", "node", "chosen", "choice", "children",
                 "arrived", "reached", "first")


def node_decisions(run: HumanRun, vision: Vision | str | int | dict | None = None, *,
                   max_nodes: int = MAX_TREE_NODES) -> NodeDecisions:
    """The nodes every trial of `run` passed on its maze's decision tree (built once per maze
    with `vision`, by default the authors' sweep with the exit shown as the run's people saw
    it (`people_tree_vision`), equal states merged: the same cuts as the tree's, on maps of any
    size; `max_nodes` its ceiling), with the child taken at each; AgentError naming the maze
    whose graph passes the ceiling."""
    from mazesim.walks.nodes import NodeCutter

    if vision is None:
        vision = people_tree_vision(t.vision for t in run.trials)
    cutters = {m: NodeCutter(decision_tree(run.mazes[m], vision, max_nodes=max_nodes,
                                           merged=True))
               for m in sorted({t.maze_id for t in run.trials})}
    index = {p: i for i, p in enumerate(run.participants)}
    done: set[tuple[str, int]] = set()
    rows = []
    for k, trial in enumerate(run.trials):
        first = (trial.participant, trial.maze_id) not in done
        done.add((trial.participant, trial.maze_id))
        for c in cutters[trial.maze_id].cut(trial.positions):
            rows.append((k, index[trial.participant], trial.maze_id, c.node, c.chosen,
                         c.choice, len(c.children), c.arrived, c.reached, first))
    columns = np.array(rows, np.int64).reshape(-1, len(_NODE_COLUMNS)).T
    return NodeDecisions({m: cut.tree for m, cut in cutters.items()}, *columns[:-1],
                         columns[-1].astype(bool))


def participant_list(value: str) -> tuple[str, ...]:
    """Participant ids from `ID,ID,...` or from the file `value` names (ids separated by
    commas, spaces or lines; `#` starts a comment), at most `MAX_EXCLUDED`."""
    from mazesim.errors import read_text

    try:
        is_file = Path(value).is_file()
    except (OSError, ValueError):                   # too long for a file name, a NUL
        is_file = False
    if is_file:
        lines = [line.split("#", 1)[0] for line in read_text(value, DataError).splitlines()]
        ids = " ".join(lines).replace(",", " ").split()
    else:
        ids = [v.strip() for v in value.split(",")]
        if not all(ids):
            raise DataError(f"participants {short(value)}: an empty id (allowed: ID,ID,... or "
                            "a file of ids)")
    if len(ids) > MAX_EXCLUDED:
        raise DataError(f"participants {short(value)}: {len(ids):,} ids (allowed: at most "
                        f"{MAX_EXCLUDED:,})")
    return tuple(dict.fromkeys(ids))


def excluded(run: HumanRun, participants: Sequence[str] = (), mazes: Sequence[str] = ()
             ) -> HumanRun:
    """`run` without the trials of `participants` (ids) and of `mazes` (names, as
    `maze_name`); DataError naming an id or a name the run does not have."""
    from mazesim.agents.trees import maze_name

    if len(participants) > MAX_EXCLUDED or len(mazes) > MAX_EXCLUDED:
        raise DataError(f"exclusions: {len(participants):,} participants and {len(mazes):,} "
                        f"mazes (allowed: at most {MAX_EXCLUDED:,} each)")
    known = set(run.participants)
    unknown = [p for p in participants if p not in known]
    if unknown:
        raise DataError(f"{run.path}: no participant {unknown[0]!r} to exclude "
                        f"({len(run.participants)} participants)")
    names = {m: maze_name(maze) for m, maze in run.mazes.items()}
    named = set(names.values())
    missing = [m for m in mazes if m not in named]
    if missing:
        raise DataError(f"{run.path}: no maze {missing[0]!r} to exclude (mazes: "
                        f"{', '.join(sorted(set(names.values()))[:10])}"
                        f"{', ...' if len(names) > 10 else ''})")
    if not participants and not mazes:
        return run
    people, gone = set(participants), set(mazes)
    keep = np.array([t.participant not in people and names[t.maze_id] not in gone
                     for t in run.trials], dtype=bool)
    if not keep.any():
        raise DataError(f"{run.path}: the exclusions leave no trial")
    return run.select(keep)


def run_maze(text: str, meta: dict) -> Maze:
    """A stored maze with its meta (what it shows at the start travels there)."""
    maze = parse_maze(text)
    return Maze(maze.grid, maze.start, maze.goal, maze.marks, meta)


def step_decisions(maze: Maze, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Every move of a walk: its step, the direction taken and the (T, 4) bool mask of open
    directions (up, right, down, left)."""
    from mazesim.maze import DELTAS

    pos = np.asarray(positions, np.int64)
    move = pos[1:] - pos[:-1]
    chosen = np.argmax((move[:, None, :] == DELTAS[None]).all(axis=2), axis=1)
    padded = np.pad(maze.grid, 1, constant_values=1)
    near = pos[:-1, None, :] + 1 + DELTAS[None]
    return (np.arange(len(move), dtype=np.int64), chosen.astype(np.int64),
            padded[near[..., 0], near[..., 1]] == 0)


def load_human_run(run_dir: str | Path, level: str | None = None) -> HumanRun:
    """Read a run of people (kind `human`: recorded by `mazesim play` or imported) with its
    decisions at `level` (`LEVELS`; None: the run's own, meta `decision_level`, else junction);
    DataError for another run or level, a trial without its positions, or a ceiling passed;
    RunError for a walk that its maze does not allow (an edited trajectory file: checked before
    any kernel)."""
    from mazesim.walks import choice_records

    run_dir = Path(run_dir)
    with RunStore(run_dir) as store:
        if store.meta("kind") != HUMAN:
            raise DataError(f"{run_dir}: not a run of people (record one with `mazesim play` "
                            "or import one with `mazesim import`)")
        level = level or store.meta("decision_level", LEVELS[0])
        if level not in LEVELS:
            raise DataError(f"{run_dir}: decision level {level!r} (allowed: "
                            f"{', '.join(LEVELS)})")
        count = store.count_trials(HUMAN)
        if count > MAX_RUN_TRIALS:
            raise DataError(f"{run_dir}: {count:,} trials (at most {MAX_RUN_TRIALS:,})")
        mazes = {m.maze_id: run_maze(m.text, dict(m.meta)) for m in store.mazes()}
        rows = [(t.trial_id, t.participant, t.maze_id, t.vision)
                for t in store.trials(agent=HUMAN)]
        unknown = next((m for _, _, m, _ in rows if m not in mazes), None)
        if unknown is not None:
            raise DataError(f"{run_dir}: damaged: a trial of maze {unknown}, which the run "
                            "does not have")
        samples = store.samples((t for t, *_ in rows), {t: mazes[m] for t, _, m, _ in rows})
    people = tuple(dict.fromkeys(who for _, who, _, _ in rows))
    if len(people) > MAX_RUN_PARTICIPANTS:
        raise DataError(f"{run_dir}: {len(people):,} participants (at most "
                        f"{MAX_RUN_PARTICIPANTS:,})")
    visions: dict[str, Vision] = {}
    trials = []
    for trial_id, who, maze_id, label in rows:
        if trial_id not in samples:
            raise DataError(f"{run_dir}: trial {trial_id} has no stored positions")
        vision = visions.setdefault(label, parse_vision(label, f"trial {trial_id} vision"))
        trials.append(HumanTrial(trial_id, who, maze_id, vision, samples[trial_id]))
    index = {p: i for i, p in enumerate(people)}
    parts, total = [], 0
    masks = np.array([[d in mask_directions(m) for d in range(4)] for m in range(16)], bool)
    for k, trial in enumerate(trials):
        if level == "step":
            step, chosen, open_ = step_decisions(mazes[trial.maze_id], trial.positions)
        else:
            rec = choice_records(mazes[trial.maze_id], trial.positions)
            step, chosen, open_ = rec["step"], rec["chosen"], masks[rec["open"]]
        parts.append(Decisions.of_trial(k, step, chosen, open_, index[trial.participant]))
        total += len(step)
        if total > MAX_DECISIONS:
            raise DataError(f"{run_dir}: more than {MAX_DECISIONS:,} {level} decisions")
    return HumanRun(run_dir, mazes, tuple(trials), people, Decisions.joined(parts),
                    _groups(trials), level)


def _groups(trials: Sequence[HumanTrial]) -> dict[tuple[int, str], list[int]]:
    groups: dict[tuple[int, str], list[int]] = {}
    for k, trial in enumerate(trials):
        groups.setdefault((trial.maze_id, str(trial.vision)), []).append(k)
    return groups


def bits(log_likelihood: float, decisions: int) -> float:
    """Bits per decision of a natural-log likelihood over `decisions` decisions."""
    return -log_likelihood / decisions / math.log(2) if decisions else float("nan")
