"""The planners and heuristics of the Maze Search Task paper (Kryven et al. 2024, "Approximate
planning in spatial search"), as probabilities of every child at every decision node.

Value of moving to child c of node n (smaller is better), over the decision tree
(`mazesim.agents.decision_nodes` gives S, N, d and p of every node):

    V(c) = S(c) + w(p(c)) d(c) + gamma w(1 - p(c)) min over the children c' of c of V(c')

with the minimum 0 at a leaf, p(c) = N(c) / the dark cells left at n (0 where c reveals
nothing: the root, or a tree of ours whose node sees nothing new), d(c) the mean Manhattan
distance from c to the cells it reveals (0 where none), and Prelec's weighting
w(p) = exp(-(-ln p)^beta), w(0) = 0. Expected Utility has gamma = beta = 1, Discounted Utility
beta = 1, Probability Weighting gamma = 1. The heuristics value a child by its steps and cells
alone: V(c) = k S(c) - (1 - k) N(c) (Steps: k = 1, Cells: k = 0). The choice is a softmax,
P(c) proportional to exp(-V(c) / tau); equal values get equal shares.

Every function takes parameter arrays of one length G (numbers broadcast) and returns an array
(rows, G): column g holds the probabilities at the g-th setting. The planners' values depend on
(gamma, beta) only, so each distinct pair is valued once, by level from the leaves up.

A child's value depends only on its parent's state and its own (its cell and the cells still
dark: they fix S, N, d, p and everything below), so on a merged graph
(`decision_tree(..., merged=True)`), where nodes in one state share their children, the
best child is found once per state and every value is the tree's.
"""

from __future__ import annotations

import numpy as np

from mazesim.agents.decision_nodes import DecisionNodes

__all__ = ["prelec", "planner_values", "softmax", "planner_probabilities",
           "heuristic_probabilities", "uniform_probabilities"]


def prelec(p: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Prelec's probability weighting exp(-(-ln p)^beta), 0 at p = 0; p (n, 1) or (n,) and
    beta broadcast against it."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        surprise = -np.log(p)
    return np.where(p > 0, np.exp(-np.abs(surprise) ** beta), 0.0)


def planner_values(decisions: DecisionNodes, gamma: np.ndarray, beta: np.ndarray
                   ) -> np.ndarray:
    """V of every global node (nodes, G) at each (gamma, beta) pair; roots included (they are
    never chosen, their value only closes the recursion)."""
    gamma, beta = np.broadcast_arrays(np.atleast_1d(np.asarray(gamma, dtype=float)),
                                      np.atleast_1d(np.asarray(beta, dtype=float)))
    p = decisions.share[:, None]
    now = decisions.steps[:, None] + prelec(p, beta) * decisions.mean_distance[:, None]
    later = gamma * prelec(1.0 - p, beta)
    state, parent = decisions.state, decisions.parent
    has_children = np.zeros(len(decisions.share), dtype=bool)
    has_children[state[parent[parent >= 0]]] = True
    best_child = np.where(has_children[:, None], np.inf, 0.0) * np.ones_like(gamma)
    values = np.empty((len(decisions.share), len(gamma)))
    for level in reversed(decisions.levels):
        values[level] = now[level] + later[level] * best_child[state[level]]
        below = level[parent[level] >= 0]
        np.minimum.at(best_child, state[parent[below]], values[below])
    return values


def softmax(decisions: DecisionNodes, values: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """P(child) proportional to exp(-value / tau) within each decision; values (rows, G)."""
    first = decisions.start[:-1]
    lowest = np.minimum.reduceat(values, first, axis=0)[decisions.row_decision]
    weights = np.exp(-(values - lowest) / np.asarray(tau, dtype=float))
    return weights / np.add.reduceat(weights, first, axis=0)[decisions.row_decision]


def planner_probabilities(decisions: DecisionNodes, tau: np.ndarray, gamma: np.ndarray,
                          beta: np.ndarray) -> np.ndarray:
    """The planners' P(child) (rows, G); EU, DU, PW and PW-DU fix gamma and/or beta at 1."""
    tau, gamma, beta = np.broadcast_arrays(*(np.atleast_1d(np.asarray(a, dtype=float))
                                             for a in (tau, gamma, beta)))
    pairs, which = np.unique(np.stack([gamma, beta], axis=1), axis=0, return_inverse=True)
    values = planner_values(decisions, pairs[:, 0], pairs[:, 1])[decisions.row_node]
    return softmax(decisions, values[:, which.ravel()], tau)


def heuristic_probabilities(decisions: DecisionNodes, tau: np.ndarray, k: np.ndarray
                            ) -> np.ndarray:
    """The heuristics' P(child) (rows, G) for V = k S - (1 - k) N."""
    tau, k = np.broadcast_arrays(*(np.atleast_1d(np.asarray(a, dtype=float)) for a in (tau, k)))
    steps = decisions.steps[decisions.row_node][:, None]
    cells = decisions.cells[decisions.row_node][:, None]
    return softmax(decisions, k * steps - (1.0 - k) * cells, tau)


def uniform_probabilities(decisions: DecisionNodes) -> np.ndarray:
    """1 / (number of children) at every row (rows, 1): the baseline."""
    return (1.0 / np.diff(decisions.start))[decisions.row_decision][:, None]
