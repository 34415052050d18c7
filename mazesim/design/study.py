"""A designed study: the predicted per-person recovery of a set of mazes, and the study written
out (mazes, a `mazesim play` session, a report).

**Recovery.** Simulated people are drawn from the fit's per-person population (a `Panel` of
their own, not the design's sample), each walks every maze once by their model (at each decision
a child drawn with the model's probabilities, the tree walkers' rule,
`mazesim.agents.tree_walkers`: the walk ends at the node that reveals the exit), and each is
fitted alone by the Maze Search Task authors' protocol (`mazesim.humans.peer.grid`: every model's
grid, 5 folds of the person's decisions, the 1/tau prior), the model with the highest
cross-validated likelihood taken (equal ones share the person). A person with fewer decisions
than folds cannot be fitted: counted apart (`unfit`), never as recovered.

**How many people.** A study of n people who all follow one model names the model whose summed
cross-validated log-likelihood is highest; `Recovery.groups[n][i]` is the share of `GROUPS`
groups of n of model i's fitted people (drawn with replacement) for which that is model i.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes, decision_nodes
from mazesim.design.information import MazeTable, Panel
from mazesim.humans.peer.grid import FOLDS, MAX_GRID_CELLS, fit_node_model

__all__ = ["Recovery", "recovery", "simulate_walks", "GROUP_SIZES", "GROUPS"]

GROUP_SIZES = (1, 2, 5, 10, 20, 50, 100)
GROUPS = 500
"""Groups of people drawn per size and model (`Recovery.groups`)."""
GROUP_STREAM = 2**32 - 4


@dataclass(frozen=True, eq=False)
class Recovery:
    """`confusion[i, j]`: the share of model i's simulated people best fitted by model j;
    `unfit[i]`: the share with too few decisions to fit; `people` per model; `groups[n][i]`:
    the share of groups of n of model i's people whose summed score names model i; `own[i, k]`
    the share of model i's person k recovered (1, 0, or shared among equal scores)."""

    models: tuple[str, ...]
    confusion: np.ndarray
    unfit: np.ndarray
    people: int
    groups: dict[int, np.ndarray]
    own: np.ndarray

    def accuracy_among(self, keep: np.ndarray) -> float:
        """The share recovered among the people of `keep` (models, people; bool); NaN if none."""
        return float(self.own[keep].mean()) if keep.any() else math.nan

    @property
    def accuracy(self) -> float:
        """The share of simulated people whose own model fits them best."""
        return float(np.mean(np.diag(self.confusion)))

    def people_needed(self, share: float = 0.95) -> int | None:
        """The smallest group size of `GROUP_SIZES` at which every model is named in at least
        `share` of the groups (None if no size is enough)."""
        return next((n for n, v in self.groups.items() if v.min() >= share), None)

    def to_json(self) -> dict:
        return {"models": list(self.models), "people": self.people,
                "accuracy": self.accuracy,
                "confusion": [[float(v) for v in row] for row in self.confusion],
                "unfit": [float(v) for v in self.unfit],
                "groups": {str(n): [float(x) for x in v] for n, v in self.groups.items()},
                "people_needed": self.people_needed()}


def simulate_walks(panel: Panel, model: str, tables: Sequence[MazeTable],
                   rng: np.random.Generator) -> tuple[DecisionNodes, np.ndarray, np.ndarray]:
    """Every sampled person of `model` in `panel` walks every maze once: the mazes' decisions
    laid out together, and per decision met its chosen row and the person (column)."""
    together = decision_nodes({t.name: t.decisions.trees[0] for t in tables})
    live = np.concatenate([t.live for t in tables])
    p = panel.people[model].probabilities(together)
    kids = np.bincount(together.parent[together.parent >= 0], minlength=len(live))
    only = np.full(len(live), -1)
    single = together.parent >= 0
    only[together.parent[single]] = np.flatnonzero(single)   # the child of a one-child node
    at_decision = np.full(len(live), -1)
    at_decision[together.base[together.decision_tree] + together.decision_node] = \
        np.arange(together.size)
    rows, people = [], []
    for person in range(p.shape[1]):
        for root in together.base[:-1]:
            node = int(root)
            while live[node] and kids[node]:
                d = at_decision[node]
                if d < 0:
                    node = int(only[node])
                    continue
                lo, hi = together.start[d], together.start[d + 1]
                row = lo + min(int(np.searchsorted(np.cumsum(p[lo:hi, person]),
                                                   rng.random() * p[lo:hi, person].sum())),
                               hi - lo - 1)
                rows.append(row)
                people.append(person)
                node = int(together.row_node[row])
    return together, np.array(rows, np.int64), np.array(people, np.int64)


def recovery(panel: Panel, tables: Sequence[MazeTable], seed: int) -> Recovery:
    """The predicted per-person recovery on `tables` of the panel's people (module
    docstring); the walks of model m from `SeedSequence(seed, spawn_key=(m,))`, the folds
    from `seed`."""
    names = panel.names
    n = len(panel.people[names[0]])
    confusion, unfit = np.zeros((len(names), len(names))), np.zeros(len(names))
    own = np.zeros((len(names), n))
    groups = {g: np.zeros(len(names)) for g in GROUP_SIZES}
    for m, name in enumerate(names):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(m,)))
        together, rows, person = simulate_walks(panel, name, tables, rng)
        counts = np.bincount(person, minlength=n)
        fitted = np.flatnonzero(counts >= FOLDS)
        unfit[m] = 1.0 - len(fitted) / n
        if not len(fitted):
            continue
        ll = np.stack([_test_ll(panel.rivals[b].model, together, rows, person, counts, fitted,
                                seed) for b in names], axis=1)
        own[m, fitted] = _shares(ll)[:, m]
        confusion[m] = _shares(ll).sum(axis=0) / n
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(GROUP_STREAM, m)))
        for g in GROUP_SIZES:
            pick = rng.integers(0, len(ll), size=(GROUPS, g))
            groups[g][m] = _shares(ll[pick].sum(axis=1))[:, m].mean()
    return Recovery(names, confusion, unfit, n, groups, own)


def _shares(ll: np.ndarray) -> np.ndarray:
    """Each row's best column (equal ones share the row)."""
    best = ll == ll.max(axis=1, keepdims=True)
    return best / best.sum(axis=1, keepdims=True)


def _test_ll(model, together: DecisionNodes, rows: np.ndarray, person: np.ndarray,
             counts: np.ndarray, fitted: np.ndarray, seed: int) -> np.ndarray:
    """The protocol's test log-likelihood of each person of `fitted` under `model`, fitted in
    groups of people whose decisions x grid points stay within the protocol's ceiling."""
    out, group, cells = [], [], 0
    for i in fitted.tolist() + [-1]:
        if group and (i < 0 or cells + counts[i] * model.size > MAX_GRID_CELLS // 2):
            keep = np.isin(person, group)
            out.append(fit_node_model(model, together, rows[keep],
                                      [f"{p:06d}" for p in person[keep]], seed=seed).test_ll)
            group, cells = [], 0
        if i >= 0:
            group.append(i)
            cells += counts[i] * model.size
    return np.concatenate(out)
