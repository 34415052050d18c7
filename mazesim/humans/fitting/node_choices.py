"""The node decisions a node model is fitted to (DESIGN.md section 11): people's choices among
the children of decision nodes, on the flat decisions of the trees (`DecisionNodes`), with the
cells each person had walked up to each node (what `node-choice`'s walk features read).

Two sources: a run of people (`run_node_choices`: our trees, one per maze, merged (equal
states one node: the same decisions on maps of any size), and our cut of every walk,
`mazesim.humans.data.run.node_decisions`; a person's first walk of each maze only, as the
authors kept: a second walk of a map is no longer a search), and the Maze Search Task
authors' own tables (`peer_node_choices`). On experiment 1 both give the same 5,971 decisions
of 116 people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes, decision_nodes
from mazesim.agents.node_models import NodeLogit
from mazesim.agents.trees import _tree_vision, maze_name
from mazesim.errors import AgentError, DataError
from mazesim.humans.data.run import HumanRun, node_decisions
from mazesim.humans.peer.reproduce import peer_choices

__all__ = ["NodeChoices", "run_node_choices", "peer_node_choices", "check_observed"]


@dataclass(frozen=True, eq=False)
class NodeChoices:
    """People's decisions at nodes, one item per decision: `decision` (index into
    `decisions`), `rows` (the chosen child's row there), `participant` (index into
    `participants`, sorted ids), `walks` (the cells walked from the start to the node, (L, 2));
    `source` names where they come from."""

    decisions: DecisionNodes
    decision: np.ndarray
    rows: np.ndarray
    participant: np.ndarray
    participants: tuple[str, ...]
    walks: tuple[np.ndarray, ...]
    source: str

    def __len__(self) -> int:
        return len(self.decision)

    @property
    def children(self) -> np.ndarray:
        """The number of children at each decision."""
        return np.diff(self.decisions.start)[self.decision]

    @property
    def people(self) -> tuple[str, ...]:
        """The participant id of each decision."""
        return tuple(self.participants[p] for p in self.participant)

    def select(self, keep: np.ndarray) -> NodeChoices:
        """The decisions where the bool array `keep` is set (participants renumbered)."""
        keep = np.asarray(keep, dtype=bool)
        people = [self.participants[p] for p in self.participant[keep]]
        walks = [w for w, k in zip(self.walks, keep) if k]
        return _choices(self.decisions, self.decision[keep].tolist(),
                        self.rows[keep].tolist(), people, walks, self.source)

    def baseline_bits(self) -> float:
        """Bits per decision of a uniform choice among the children."""
        return float(np.mean(np.log2(self.children))) if len(self) else math.nan


def _choices(decisions: DecisionNodes, decision: list[int], rows: list[int],
             people: list[str], walks: list[np.ndarray], source: str) -> NodeChoices:
    if not decision:
        raise DataError(f"{source}: no node decision (a node with two or more children): "
                        "nothing to fit")
    ids, person = np.unique(np.asarray(people, dtype=str), return_inverse=True)
    return NodeChoices(decisions, np.asarray(decision, dtype=np.int64),
                       np.asarray(rows, dtype=np.int64), person.ravel().astype(np.int64),
                       tuple(str(i) for i in ids), tuple(walks), source)


def run_node_choices(run: HumanRun, vision=None) -> NodeChoices:
    """The node decisions of every participant's first walk of each maze of `run`, on trees
    built once per maze with `vision` (default the authors' sweep, the map known, the exit
    shown as the run's people saw it: `node_decisions`); DataError
    for a run whose people had no observation nodes (`check_observed`)."""
    check_observed(run)
    nodes = node_decisions(run, vision)
    nodes = nodes.select(nodes.first).decisions()
    names = {m: maze_name(tree.maze) for m, tree in nodes.trees.items()}
    keys = {m: f"{m}:{name}" if list(names.values()).count(name) > 1 else name
            for m, name in names.items()}
    decisions = decision_nodes({keys[m]: tree for m, tree in nodes.trees.items()})
    decision, rows, people, walks = [], [], [], []
    for i in range(len(nodes)):
        t = decisions.names.index(keys[int(nodes.maze[i])])
        d = decisions.decision(keys[int(nodes.maze[i])],
                               decisions.trees[t].nodes[int(nodes.node[i])].name)
        trial = run.trials[int(nodes.trial[i])]
        decision.append(d)
        rows.append(int(decisions.start[d]) + int(nodes.choice[i]))
        people.append(trial.participant)
        walks.append(np.asarray(trial.positions[:int(nodes.arrived[i]) + 1], dtype=np.int64))
    return _choices(decisions, decision, rows, people, walks, str(run.path))


def check_observed(run: HumanRun) -> None:
    """DataError unless every trial of `run` was walked under a vision with observation nodes
    (limited, the map known, with memory: what a decision tree assumes). Under full vision or
    an unknown map the trees, hence the node decisions, would describe a task the people did
    not do."""
    for vision in dict.fromkeys(t.vision for t in run.trials):
        try:
            _tree_vision(vision)
        except AgentError as err:
            raise DataError(f"{run.path}: its people walked under vision {str(vision)!r}; node "
                            f"models need observation nodes ({err})") from None


def peer_node_choices(peer: str | Path, mazes: str | Path) -> NodeChoices:
    """The authors' decisions on their trees (`mazesim.humans.peer.reproduce.peer_choices`: the
    people they kept)."""
    peers = peer_choices(peer, mazes)
    decisions = peers.decisions
    decision = decisions.row_decision[peers.rows]
    return _choices(decisions, decision.tolist(), peers.rows.tolist(), list(peers.people),
                    list(peers.walks), str(peer))


def logit_inputs(model: NodeLogit, choices: NodeChoices
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features of every child row of every decision, each decision's first row and the
    chosen row."""
    x = model.feature_rows(choices.decisions, choices.decision, choices.walks)
    start, _, chosen = chosen_rows(choices)
    return x, start, chosen


def feature_scale(x: np.ndarray, start: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each feature's standard deviation around its decision's mean over the decisions
    `keep` (1 where it does not vary): standardising for the numerics only."""
    counts = np.diff(start)
    which = np.repeat(np.arange(len(counts)), counts)
    centred = x - (np.add.reduceat(x, start[:-1]) / counts[:, None])[which]
    rows = keep[which]
    sd = np.sqrt((centred[rows] ** 2).sum(axis=0) / max(rows.sum() - keep.sum(), 1))
    return np.where(sd > 0, sd, 1.0)


def chosen_rows(choices: NodeChoices) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each decision's first row among the observed rows, their count, and the chosen row."""
    counts = choices.children
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    chosen = start[:-1] + choices.rows - choices.decisions.start[choices.decision]
    return start, counts, chosen.astype(np.int64)
