"""Cell-level agents on the node yardstick (DESIGN.md section 11): the probability that an agent,
walking on from a person's history at a decision node, reaches each child's observation first.

At a node decision a person has walked from the start to the node's cell. A cell-level agent
(a `KernelAgent`: its step distribution depends on the whole history, through its visits, its
known map and its own state) reads that walk, then walks on, drawing each step, until it enters
the cell of one of the node's children: the child whose observation happens first (the rule that
cuts walks on the tree, `mazesim.walks.nodes`: the next node is the first later position at a
child's cell). `rollouts` such walks per decision, each from its own seeded stream, estimate
the probability of each child; a child never reached would get 0 and a person's choice of it an
infinite cost, so the estimate is the Krichevsky-Trofimov one, (n_c + 1/2) / (n + K / 2) for K
children and n walks that reached a child (`PRIOR`). A walk that reaches none within `horizon`
moves of the node (the agents' cap: 50 per passage cell) counts for none and is reported.

The Monte-Carlo error: each estimate has the binomial variance p (1 - p) / n; the bits per
decision are scored from two independent halves of the rollouts as well (`NodeRollouts.halves`),
whose difference shows the noise of the estimate at half the rollouts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mazesim.agents.base import KernelAgent, default_max_steps, trial_streams
from mazesim.agents.vision import MST_VISION, Vision
from mazesim.errors import AgentError, check_integer, check_seed
from mazesim.humans.fitting.node_choices import NodeChoices

__all__ = ["NodeRollouts", "node_rollouts", "PRIOR", "MAX_ROLLOUT_STEPS"]

PRIOR = 0.5
"""The count added to every child (Krichevsky-Trofimov): no child of positive probability gets
an estimate of 0."""
MAX_ROLLOUT_STEPS = 2 * 10**9
"""Most steps walked in all (decisions x rollouts x steps): a ceiling checked before walking,
on the worst case (every rollout walking its whole horizon)."""


@dataclass(frozen=True, eq=False)
class NodeRollouts:
    """Where the rollouts of every decision of `choices` ended: `counts` (rows of the observed
    decisions, as `node_features.observed_rows`: each child's count), `unresolved` (per decision:
    rollouts that reached no child), `rollouts` per decision, the counts of the first half of
    the rollouts (`first_half`), and the mean steps walked beyond the node."""

    choices: NodeChoices
    counts: np.ndarray
    first_half: np.ndarray
    unresolved: np.ndarray
    rollouts: int
    mean_steps: float

    def probabilities(self, counts: np.ndarray | None = None) -> np.ndarray:
        """The estimate of each child's probability (rows,) from `counts` (default all)."""
        counts = self.counts if counts is None else counts
        start = np.concatenate([[0], np.cumsum(self.choices.children)])
        which = np.repeat(np.arange(len(self.choices)), self.choices.children)
        totals = np.add.reduceat(counts, start[:-1])[which] if len(counts) else counts
        return (counts + PRIOR) / (totals + PRIOR * self.choices.children[which])

    def chosen(self, counts: np.ndarray | None = None) -> np.ndarray:
        """The estimated probability of the child each person took (decisions,)."""
        start = np.concatenate([[0], np.cumsum(self.choices.children)])[:-1]
        picked = self.choices.rows - self.choices.decisions.start[self.choices.decision]
        return self.probabilities(counts)[start + picked]

    def bits(self, counts: np.ndarray | None = None) -> float:
        """Bits per decision: -mean log2 of the chosen child's estimated probability."""
        return float(-np.mean(np.log2(self.chosen(counts))))

    def halves(self) -> tuple[float, float]:
        """Bits per decision from the first and from the second half of the rollouts."""
        return self.bits(self.first_half), self.bits(self.counts - self.first_half)


def node_rollouts(agent: KernelAgent, choices: NodeChoices, *, vision: Vision = MST_VISION,
                  rollouts: int = 1000, seed: int = 0) -> NodeRollouts:
    """Roll `agent` on from every decision of `choices` (the module docstring), seeing with
    `vision` (default the Maze Search Task's, what people saw); decision i draws its rollouts
    from `SeedSequence(seed, spawn_key=(i,))`. AgentError for an agent without step
    probabilities, a bad count or seed, or work past `MAX_ROLLOUT_STEPS`."""
    if not isinstance(agent, KernelAgent):
        raise AgentError(f"{getattr(agent, 'name', agent)!r}: gives no step probabilities (only "
                         "a cell-level agent is rolled on)")
    check_integer(rollouts, "rollouts", 2, 100_000, AgentError)
    check_seed(seed, AgentError)
    decisions = choices.decisions
    trees = [decisions.trees[t] for t in decisions.decision_tree[choices.decision]]
    horizons = [default_max_steps(tree.maze) for tree in trees]
    work = int(rollouts) * sum(h + len(w) for h, w in zip(horizons, choices.walks))
    if work > MAX_ROLLOUT_STEPS:
        raise AgentError(f"{agent.name}: {len(choices):,} decisions x {rollouts:,} rollouts "
                         f"may walk {work:,} steps (allowed: at most {MAX_ROLLOUT_STEPS:,}; "
                         "lower the rollouts)")
    counts = np.zeros(int(choices.children.sum()), np.int64)
    first_half = np.zeros_like(counts)
    unresolved = np.zeros(len(choices), np.int64)
    at, steps = 0, 0
    half = rollouts // 2
    for i, (d, tree, walk, horizon) in enumerate(zip(choices.decision.tolist(), trees,
                                                     choices.walks, horizons)):
        node = tree.nodes[int(decisions.decision_node[d])]
        cells = [tree.nodes[c].cell for c in node.children]
        stop = np.zeros(tree.maze.shape, np.bool_)
        for cell in cells:
            stop[cell] = True
        streams = trial_streams(np.random.SeedSequence(int(seed), spawn_key=(i,)), rollouts)
        [(ends, moves)] = agent.walk_on(tree.maze, vision, [(walk, stop, streams)],
                                        len(walk) - 1 + horizon)
        index = {cell: k for k, cell in enumerate(cells)}
        ended = np.array([index.get((r, c), -1) for r, c in ends.tolist()])
        unresolved[i] = int(np.count_nonzero(ended < 0))
        k = len(cells)
        counts[at:at + k] = np.bincount(ended[ended >= 0], minlength=k)
        early = ended[:half]
        first_half[at:at + k] = np.bincount(early[early >= 0], minlength=k)
        steps += int(moves.sum()) - rollouts * (len(walk) - 1)
        at += k
    return NodeRollouts(choices, counts, first_half, unresolved, int(rollouts),
                        steps / max(rollouts * len(choices), 1) if len(choices) else math.nan)
