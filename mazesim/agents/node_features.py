"""Features of every child at a decision node that a searcher met on a walk, for the node-level
choice model (`mazesim.agents.node_models`, `node-choice`): what the planners of Kryven et al.
(2024) say of the child, and what the walk so far says.

Each feature stands for one thing a searcher weighs (the value is larger where the child is more
attractive, or the weight learns the sign):

- `du-G` for G in `HORIZONS`: minus the Discounted Utility value of the child at discount
  gamma = G (beta 1; `mazesim.agents.planners`): the expected steps to the exit when planning
  that far ahead. A person's own weights over the horizons mix them into a value of their own
  (a short planner weights `du-0`, a far-sighted one `du-1`), where DU fits one gamma and one
  temperature per person.
- `log-steps`, `log-cells`: log S (the walk to the child) and log(1 + N) (the dark cells it
  reveals) on their own, beyond the plan: the authors' Steps and Cells heuristics, on a log
  scale (a step more matters less on a long walk).
- `revisit`: the share of the child's path (its cells after the node's) already walked: going
  over known floor reveals nothing on the way (the junction yardstick's `visited`).
- `reverse`: the child's path starts by stepping back to the cell the walk came from (the
  junction yardstick's `reverse`: turning round costs).

The walk so far at an observed decision is the cells walked from the start up to the node's
cell, in order (`walks[i]`, an (L, 2) array or a sequence of cells ending at the node).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes
from mazesim.agents.planners import planner_values
from mazesim.errors import AgentError

__all__ = ["HORIZONS", "NODE_FEATURES", "observed_rows", "child_features", "walk_features"]

HORIZONS = (0.0, 0.5, 0.7, 0.9, 1.0)
"""The discounts of the `du-G` features: the authors' grid's ends and three points between."""
NODE_FEATURES = (*(f"du-{g:g}" for g in HORIZONS), "log-steps", "log-cells", "revisit",
                 "reverse")
_PLAN_BETA = 1.0


def observed_rows(decisions: DecisionNodes, decision: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """For observed decisions (indices into `decisions`, one per choice a walker made): the
    first row of each among the result's rows (`start`, length + 1) and the child row of
    `decisions` each of those rows is (`rows`)."""
    decision = np.asarray(decision, dtype=np.int64)
    if decision.ndim != 1 or (decision.size and not (
            0 <= decision.min() and decision.max() < decisions.size)):
        raise AgentError(f"decision: {decision.size} values (allowed: integers from 0 to "
                         f"{decisions.size - 1}, the decisions of the trees)")
    counts = np.diff(decisions.start)[decision]
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rows = np.repeat(decisions.start[decision] - start[:-1], counts) + np.arange(start[-1])
    return start, rows


def walk_features(decisions: DecisionNodes, decision: np.ndarray,
                  walks: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """`revisit` and `reverse` of every child row of the observed decisions (the module
    docstring); AgentError where a walk does not end at its node's cell."""
    start, rows = observed_rows(decisions, decision)
    if len(walks) != len(start) - 1:
        raise AgentError(f"walks: {len(walks)} for {len(start) - 1} decisions (allowed: one "
                         "walk per decision)")
    revisit, reverse = np.zeros(len(rows)), np.zeros(len(rows))
    for o, walk in enumerate(walks):
        d = int(decision[o])
        nodes = decisions.trees[decisions.decision_tree[d]].nodes
        cells = [tuple(int(v) for v in cell) for cell in np.asarray(walk).reshape(-1, 2)]
        here = nodes[decisions.decision_node[d]].cell
        if not cells or cells[-1] != here:
            raise AgentError(f"walks[{o}]: ends at {cells[-1] if cells else 'nothing'}, not at "
                             f"its node's cell {here}")
        seen = set(cells)
        came_from = next((c for c in reversed(cells) if c != here), None)
        for r in range(start[o], start[o + 1]):
            path = nodes[decisions.row_node[rows[r]] - decisions.base[decisions.decision_tree[d]]
                         ].path[1:]
            revisit[r] = sum(c in seen for c in path) / len(path)
            reverse[r] = float(came_from is not None and path[0] == came_from)
    return revisit, reverse


def child_features(decisions: DecisionNodes, decision: np.ndarray,
                   walks: Sequence[np.ndarray]) -> np.ndarray:
    """Every feature of `NODE_FEATURES` (columns) at every child row of the observed
    decisions (rows, as `observed_rows`)."""
    _, rows = observed_rows(decisions, decision)
    child = decisions.row_node[rows]
    values = planner_values(decisions, np.array(HORIZONS), np.full(len(HORIZONS), _PLAN_BETA))
    columns = [-values[child, g] for g in range(len(HORIZONS))]
    columns += [np.log(decisions.steps[child]), np.log1p(decisions.cells[child]),
                *walk_features(decisions, decision, walks)]
    return np.stack(columns, axis=1)
