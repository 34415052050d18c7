"""The Maze Search Task paper's model comparison reproduced on the authors' own data: their
trees and people's decisions (`mazesim.humans.peer.tables`), our node models
(`mazesim.agents.node_models`) and our copy of their protocol (`mazesim.humans.peer.grid`),
set beside their `fit_models.csv`.

Their folds were random and unseeded, so a person's cross-validated log-likelihood depends on
the fold draw; `compare_with_peers` runs the protocol once per seed, and the spread over seeds
is the yardstick for the gap to their figures. With `tables=True` it scores the authors'
printed value tables instead of our values: the same protocol on the same numbers as theirs,
which separates the fold draw from any difference of the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes, decision_nodes
from mazesim.agents.node_models import NODE_MODELS, node_model
from mazesim.errors import DataError
from mazesim.humans.data.run import bits
from mazesim.humans.peer.grid import FLOOR, FOLDS, GridFit, grid_fit, prior_of
from mazesim.humans.peer.tables import (EXCLUDED, PEER_MODELS, read_peer_decisions, read_peer_fits,
                                 read_peer_trees, read_peer_values)

__all__ = ["PeerChoices", "PeerComparison", "peer_choices", "compare_with_peers",
           "best_model_counts", "MAX_SEEDS"]

MIN_CHILDREN = 2        # a decision is a node with two or more children
ROUNDING = 0.01         # nats per person: their tables print 4 decimals
MAX_SEEDS = 1000        # fold draws of one comparison (about half a second each)


@dataclass(frozen=True, eq=False)
class PeerChoices:
    """The authors' decisions on their trees: the flat decisions of every tree, and per
    decision the chosen child's row, the person, the map, the node and the chosen child
    (NIDs), and the cells the person walked from the start up to the node (the segments of
    the table's nodes before it, in order; (L, 2) arrays)."""

    decisions: DecisionNodes
    rows: np.ndarray
    people: tuple[str, ...]
    worlds: tuple[str, ...]
    nodes: tuple[str, ...]
    chosen: tuple[str, ...]
    walks: tuple[np.ndarray, ...]


def peer_choices(peer: str | Path, mazes: str | Path) -> PeerChoices:
    """Every decision of the people the authors kept (`EXCLUDED` left out), on their trees
    (`read_peer_trees(peer, mazes)`); DataError if a decision's children are not the tree's."""
    decisions = decision_nodes(read_peer_trees(peer, mazes))
    table = [d for d in read_peer_decisions(peer) if d.subject not in EXCLUDED]
    walks = _walks(decisions, table)
    kept = [d for d in table if len(d.children) >= MIN_CHILDREN]
    rows = []
    for d in kept:
        at = decisions.decision(d.world, d.node)        # DataError: no such map or decision
        nodes = decisions.trees[decisions.decision_tree[at]].nodes
        children = {nodes[c].name for c in nodes[decisions.decision_node[at]].children}
        if children != set(d.children):
            raise DataError(f"{d.subject} {d.world} {d.node}: children {sorted(d.children)} "
                            f"(the tree has {sorted(children)})")
        rows.append(decisions.row(d.world, d.node, d.chosen))
    return PeerChoices(decisions, np.array(rows, dtype=np.int64),
                       *(tuple(getattr(d, key) for d in kept)
                         for key in ("subject", "world", "node", "chosen")),
                       tuple(walks[d.subject, d.world, d.node] for d in kept))


def _walks(decisions: DecisionNodes, table: list) -> dict[tuple[str, str, str], np.ndarray]:
    """The cells walked up to every node of `table` (the tree's root cell, then each later
    node's segment), by (person, map, node)."""
    out, walked = {}, {}
    for d in table:
        key = d.subject, d.world
        if key not in walked:
            if d.world not in decisions.names:
                continue                                  # peer_choices names it
            tree = decisions.trees[decisions.names.index(d.world)]
            walked[key] = [tree.nodes[0].cell]            # the table writes the root's own
        else:                                             # cell in another order
            walked[key].extend(d.path)
        out[d.subject, d.world, d.node] = np.array(walked[key], dtype=np.int64)
    return out


@dataclass(frozen=True, eq=False)
class PeerComparison:
    """Our protocol's fits of each model (one `GridFit` per seed) beside the authors' per
    person log-likelihoods (`theirs`, in the fits' order of people)."""

    models: tuple[str, ...]
    seeds: tuple[int, ...]
    fits: Mapping[str, tuple[GridFit, ...]]
    theirs: Mapping[str, np.ndarray]

    @property
    def people(self) -> tuple[str, ...]:
        return self.fits[self.models[0]][0].people

    @property
    def n(self) -> int:
        """The number of decisions."""
        return self.fits[self.models[0]][0].n

    def bits(self, model: str) -> np.ndarray:
        """Our pooled bits per decision, one per seed."""
        return np.array([fit.pooled_bits for fit in self.fits[model]])

    def their_bits(self, model: str) -> float:
        """Theirs: -sum of their LL / ln 2 / n."""
        return bits(float(self.theirs[model].sum()), self.n)

    def ll_gap(self, model: str) -> np.ndarray:
        """Our summed LL relative to theirs minus 1, one per seed (both are negative: a
        negative gap means ours is nearer 0, the better fit)."""
        return np.array([fit.ll for fit in self.fits[model]]) / self.theirs[model].sum() - 1

    def person_gap(self, model: str, draw: int = 0) -> np.ndarray:
        """Our LL minus theirs, per person, at the `draw`-th seed."""
        return self.fits[model][draw].test_ll - self.theirs[model]

    def summary(self) -> list[dict]:
        """One row per model: our bits (mean, min and max over seeds, and a 95 % interval over
        people at the first seed), theirs, and the LL gap over seeds."""
        rows = []
        for model in self.models:
            bits, gap = self.bits(model), self.ll_gap(model)
            low, high = self.fits[model][0].bits_interval(seed=self.seeds[0])
            rows.append({"model": model, "n": self.n, "people": len(self.people),
                         "seeds": len(self.seeds), "bits": float(bits.mean()),
                         "bits_min": float(bits.min()), "bits_max": float(bits.max()),
                         "ci_low": low, "ci_high": high, "their_bits": self.their_bits(model),
                         "ll_gap": float(gap.mean()), "ll_gap_min": float(gap.min()),
                         "ll_gap_max": float(gap.max())})
        return rows

    def person_summary(self) -> list[dict]:
        """One row per model: our LL minus theirs per person at the first seed (median,
        quartiles, largest), the median spread of a person's LL over the seeds (its standard
        deviation), and the share of people whose LL of theirs lies within the range of ours
        over the seeds (widened by the tables' rounding)."""
        rows = []
        for model in self.models:
            ours = np.array([fit.test_ll for fit in self.fits[model]])
            gap, theirs = self.person_gap(model), self.theirs[model]
            inside = (theirs >= ours.min(axis=0) - ROUNDING) & \
                (theirs <= ours.max(axis=0) + ROUNDING)
            q1, median, q3 = np.percentile(gap, [25, 50, 75])
            rows.append({"model": model, "people": len(theirs), "seeds": len(self.seeds),
                         "gap_median": float(median), "gap_q1": float(q1),
                         "gap_q3": float(q3), "gap_max": float(np.abs(gap).max()),
                         "spread": float(np.median(ours.std(axis=0))),
                         "inside": float(inside.mean())})
        return rows


def compare_with_peers(peer: str | Path, mazes: str | Path, *, seeds: Sequence[int] = (0,),
                       models: Sequence[str] | None = None, tables: bool = False,
                       folds: int = FOLDS, floor: float = FLOOR) -> PeerComparison:
    """Fit `models` (default: every model the authors have a table of) to the authors'
    decisions by their protocol, once per seed, beside their `fit_models.csv`; `tables`
    scores their printed value tables instead of our values."""
    models, seeds = tuple(models or PEER_MODELS), tuple(seeds)
    if not 1 <= len(seeds) <= MAX_SEEDS:
        raise DataError(f"seeds: {len(seeds)} (allowed: 1 to {MAX_SEEDS})")
    for model in models:
        node_model(model)                                    # unknown names first
        if model not in PEER_MODELS:
            raise DataError(f"model {model!r}: the authors did not fit it (they fitted: "
                            f"{', '.join(PEER_MODELS)})")
    choices = peer_choices(peer, mazes)
    theirs = _their_lls(peer, models, sorted(set(choices.people)))
    fits = {}
    for model in models:
        chosen, points = _chosen(peer, model, choices, tables)
        fits[model] = tuple(grid_fit(chosen, choices.people, points, seed=seed, folds=folds,
                                     floor=floor, log_prior=prior_of(points))
                            for seed in seeds)
    return PeerComparison(models, seeds, fits, theirs)


def best_model_counts(lls: Mapping[str, np.ndarray]) -> dict[str, int]:
    """How many people each model fits best (highest LL; equal ones: the first in the
    mapping's order), from per-person LLs aligned over the same people."""
    names = list(lls)
    best = np.argmax(np.stack([np.asarray(lls[m]) for m in names]), axis=0)
    return {m: int(np.sum(best == i)) for i, m in enumerate(names)}


def _chosen(peer: str | Path, model: str, choices: PeerChoices, tables: bool
            ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """P of the chosen child (decisions, G) and the grid points: our values over the model's
    grid, or the authors' table (their columns, their grid)."""
    spec = NODE_MODELS[model]
    if not tables:
        points = spec.points()
        return spec.grid_probabilities(choices.decisions, points)[choices.rows], points
    table = read_peer_values(peer, model)
    where = {key: i for i, key in enumerate(zip(table.world, table.node, table.child))}
    keys = list(zip(choices.worlds, choices.nodes, choices.chosen))
    missing = [key for key in keys if key not in where]
    if missing:
        raise DataError(f"{model}: no row of the authors' table for {missing[0]}")
    points = {p.name: table.grid[p.name] for p in spec.params}
    return table.probabilities[[where[key] for key in keys]], points


def _their_lls(peer: str | Path, models: Sequence[str], people: Sequence[str]
               ) -> dict[str, np.ndarray]:
    """The authors' cross-validated LL of each model and person (sorted ids)."""
    table: dict[tuple[str, str], float] = {}
    for row in read_peer_fits(peer):
        table[row.model, row.subject] = row.ll
    out = {}
    for model in models:
        label = PEER_MODELS[model][1]
        missing = [p for p in people if (label, p) not in table]
        if missing:
            raise DataError(f"fit_models.csv: no {label} row for {missing[0]}")
        out[model] = np.array([table[label, p] for p in people])
    return out
