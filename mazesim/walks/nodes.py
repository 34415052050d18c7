"""A walk on a decision tree (DESIGN.md section 11): the node-to-node segments it walked, and the
child it took at each node, up to the observation of the exit.

**The rule** (the Maze Search Task authors' `subject_data_parser.path_to_node`, followed
exactly; their `subject_decisions_with_values.csv` of experiment 1 is a test): the walk starts
at the root; each later position that is the cell of a child of the current node moves the
walk to that child; the cut ends at the first node whose observation reveals the exit (the
root, if the start shows it or the exit is not dark) or at the walk's end. Each node passed
but the last gives a `NodeChoice`: its children, the child taken, and the steps at which the
walk reached the node and the child. A **decision** is a choice among two or more children;
a node with one child is kept, marked (`is_decision` false).

**Why every walk fits the tree.** Between two nodes the walk observes nothing new (by the
tree's vision, on the map the nodes so far have revealed): the first cell from which it would
is reached through cells that see nothing new, and the tree holds every such cell as a child
(by a shortest path). So the node path is the sequence of the walk's observing cells. What a
walk does that the tree's paths do not is absorbed by this: a segment walked need not be the
tree's path (people wander, go back through the parent's cell to a child on the other side: the
same child, more steps than its S); a child c whose new cells another child c' also sees is,
once c is reached, a child of c only if it still reveals something (what was seen at c is no
longer new), else the walk passes it without a node; walking back over seen floor is never a
node. A walk observed under another vision (the task's people saw by line of sight) is cut by
the tree's vision: its nodes are where that vision would observe something. A merged tree
(`decision_tree(..., merged=True)`) cuts a walk into the same children: unfolded from the root
it is the tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mazesim.agents.trees import DecisionTree
from mazesim.walks.simulate import check_walk

__all__ = ["NodeChoice", "node_choices", "NodeCutter"]


@dataclass(frozen=True)
class NodeChoice:
    """One node a walk passed: the node's index, its children (indices, the tree's order), the
    child taken, the step at which the walk reached the node (0 at the root) and the step at
    which it reached the child (`positions[arrived:reached + 1]` is the segment walked)."""

    node: int
    children: tuple[int, ...]
    chosen: int
    arrived: int
    reached: int

    @property
    def is_decision(self) -> bool:
        """Two or more children: a choice the models are scored on."""
        return len(self.children) >= 2

    @property
    def choice(self) -> int:
        """The place of the child taken among `children`."""
        return self.children.index(self.chosen)


class NodeCutter:
    """Cuts walks of one maze on its tree (the lookups made once: each node's children by
    cell, and the nodes whose observation shows the exit)."""

    def __init__(self, tree: DecisionTree) -> None:
        self.tree = tree
        nodes = tree.nodes
        self._child_at = [{nodes[c].cell: c for c in node.children} for node in nodes]
        self._shows_exit = tree.shows_exit()

    def cut(self, positions: Any) -> tuple[NodeChoice, ...]:
        """The nodes `positions` (a walk from the start, one step at a time over passages)
        passed, with the child taken at each (the module docstring)."""
        walk = check_walk(self.tree.maze, positions)
        out = []
        node, arrived = 0, 0
        if self._shows_exit[0]:
            return ()
        for step, cell in enumerate(map(tuple, walk[1:].tolist()), start=1):
            child = self._child_at[node].get(cell)
            if child is None:
                continue
            out.append(NodeChoice(node, self.tree.nodes[node].children, child, arrived, step))
            node, arrived = child, step
            if self._shows_exit[node]:
                break
        return tuple(out)


def node_choices(tree: DecisionTree, positions: Any) -> tuple[NodeChoice, ...]:
    """The nodes a walk passed on `tree` and the child taken at each, up to the observation
    of the exit (the module docstring); AgentError for a walk that does not start at S or
    leaves the floor.

    Examples
    --------
    >>> from mazesim.agents.trees import decision_tree
    >>> from mazesim.maze import parse_maze
    >>> tree = decision_tree(parse_maze("#######\\n###S###\\n###.###\\n#.....#\\n#.###.#\\n"
    ...                                 "#G###.#\\n#######"))
    >>> walk = [(1, 3), (2, 3), (3, 3), (3, 4), (3, 5), (3, 4), (3, 3), (3, 2), (3, 1)]
    >>> [(c.node, c.children, c.chosen, c.is_decision) for c in node_choices(tree, walk)]
    [(0, (1,), 1, False), (1, (2, 3), 2, True), (2, (4,), 4, False)]
    """
    return NodeCutter(tree).cut(np.asarray(positions))
