"""Small decision trees written by hand for the node-model tests: each node given by its parent,
its steps from the parent and the distances to the cells it reveals; `remaining` follows the
authors' rule (the root's is every dark cell, a child's its parent's minus what it reveals)."""

from __future__ import annotations

import numpy as np

from mazesim.agents.trees import DecisionTree, Node
from mazesim.maze import Maze

MAZE = Maze(np.zeros((1, 2), dtype=np.uint8), (0, 0), (0, 1))


def tree(dark: int, spec: list[tuple[int, int, tuple[int, ...]]]) -> DecisionTree:
    """`spec[k]` = (parent, steps, distances) of node k, the root's parent -1; a parent need
    not come before its children."""
    remaining = [0] * len(spec)
    order = [k for k, (parent, _, _) in enumerate(spec) if parent < 0]
    for k in order:
        parent, _, distances = spec[k]
        remaining[k] = (dark if parent < 0 else remaining[parent]) - len(distances)
        order.extend(c for c, (p, _, _) in enumerate(spec) if p == k)
    nodes = tuple(
        Node(cell=(0, 0), parent=parent, path=((0, 0),) * (steps + 1) if parent >= 0 else (),
             revealed=(), distances=tuple(sorted(distances)), remaining=remaining[k], depth=0,
             steps_from_root=0, children=tuple(c for c, s in enumerate(spec) if s[0] == k),
             name=f"n{k}")
        for k, (parent, steps, distances) in enumerate(spec))
    return DecisionTree(MAZE, nodes)


# A root with two leaves: a (2 steps, reveals 2 cells at distances 1, 2) and b (5 steps, 3
# cells at 1, 1, 4), out of 5 dark cells: p = 2/5 and 3/5, d = 1.5 and 2.
FORK = tree(5, [(-1, 0, ()), (0, 2, (1, 2)), (0, 5, (1, 1, 4))])

# A chain: the root (10 dark cells) offers a (1 step, 2 cells at 1, 3: p = 0.2, d = 2) and b
# (4 steps, 6 cells: p = 0.6, d = 3); a then offers the leaves c (2 steps, 4 cells, d = 2,
# p = 4/8) and e (3 steps, 4 cells, d = 2, p = 4/8).
CHAIN = tree(10, [(-1, 0, ()), (0, 1, (1, 3)), (0, 4, (1, 2, 3, 3, 4, 5)),
                  (1, 2, (1, 1, 2, 4)), (1, 3, (2, 2, 2, 2))])
