"""Pictures of walks in the study's style (walls black, never visited white, visited grey, start
and goal marked), visit heat maps, several agents side by side on one maze, and decision trees
over their maps.

Drawing itself is `mazesim.render`'s; this module turns trajectories into its inputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from PIL import Image

from mazesim.agents import AgentBase, Vision, parse_vision
from mazesim.agents.trees import DecisionTree, dark_floor
from mazesim.maze import Maze
from mazesim.records import Trajectory
from mazesim.render import DEFAULT_SCALE, TREE_SCALE, maze_image, side_by_side, tree_image
from mazesim.walks.metrics import batch_summary, visit_counts
from mazesim.walks.simulate import simulate_many

__all__ = ["trajectory_image", "heat_map_image", "comparison_image", "decision_tree_image"]


def _positions(walk: Trajectory | Any) -> np.ndarray:
    return walk.positions if isinstance(walk, Trajectory) else np.asarray(walk, np.int64)


def trajectory_image(maze: Maze, walk: Trajectory | Any, *, scale: int = DEFAULT_SCALE
                     ) -> Image.Image:
    """One walk as the study draws it (figures 2 and 6): every visited passage grey."""
    return maze_image(maze, visited=_positions(walk).reshape(-1, 2), scale=scale)


def heat_map_image(maze: Maze, walks: Iterable[Trajectory | Any], *,
                   scale: int = DEFAULT_SCALE) -> Image.Image:
    """Visits summed over `walks`, as a heat map."""
    counts = np.zeros(maze.shape, np.int64)
    for walk in walks:
        counts += visit_counts(maze, _positions(walk))
    return maze_image(maze, visits=counts, scale=scale)


def comparison_image(maze: Maze, agents: Mapping[str, AgentBase], vision: Vision | str | int,
                     seed: int | np.random.SeedSequence, *, trials: int = 1,
                     scale: int = DEFAULT_SCALE) -> Image.Image:
    """Each labelled agent on `maze`, side by side: the walk of trial 0 when `trials` is 1,
    else the heat map of all trials; each label shows the mean movement count (of the trials
    not capped, `metrics.batch_summary`)."""
    images, labels = [], []
    for label, agent in agents.items():
        batch = simulate_many(maze, agent, vision, trials, seed, keep_positions=True)
        images.append(trajectory_image(maze, batch.positions[0], scale=scale) if trials == 1
                      else heat_map_image(maze, batch.positions, scale=scale))
        mean = batch_summary(batch)["mean_moves"]
        labels.append(f"{label}: {'all capped' if mean is None else f'{mean:.0f} moves'}")
    return side_by_side(images, labels)


def decision_tree_image(tree: DecisionTree, *, scale: int = TREE_SCALE) -> Image.Image:
    """`tree` over its map (`render.tree_image`): the dark floor, every node as a dot, each
    child's path from its parent as a line, the decision nodes ringed."""
    return tree_image(tree.maze, [node.cell for node in tree.nodes],
                      [node.path for node in tree.nodes],
                      depths=[node.depth for node in tree.nodes],
                      decisions=[len(node.children) >= 2 for node in tree.nodes],
                      dark=dark_floor(tree.maze, parse_vision(tree.vision).exit_on_arrival),
                      scale=scale)
