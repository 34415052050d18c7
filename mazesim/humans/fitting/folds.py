"""Seeded folds over groups of mazes: cross-validation that scores a model on mazes it was not
fitted to (new mazes), beside the folds over participants (new people).

A maze's **group** comes from its name (`maze_group`): a twin (`NAME_mirror`, the mirror image of
`NAME`) is in `NAME`'s group, and a family of maps named `FAMILY_...` (the Maze Search Task's
`3ways_1`, ..., `Equal_10vs2`, `Loop_1`) is one group, so that no twin and no close variant of a
held-out maze is ever trained on. A name without `_` is a group of its own. A maze whose meta names
its `base_grid` (a transformed copy of another grid: the value-guided construal's flips and
rotations) is named by it (`group_name`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from mazesim.agents.trees import maze_name
from mazesim.errors import DataError, check_integer
from mazesim.maze import Maze
from mazesim.limits import MAX_FOLDS

__all__ = ["MIRROR", "maze_group", "maze_folds", "group_name"]

MIRROR = "_mirror"
"""The suffix of a mirrored twin's name."""
_STREAM = 2**32 - 3     # spawn key of the groups' shuffle (participants' folds use 0, 1, ...)


def group_name(maze: Maze) -> str:
    """The name a maze is grouped by: its `meta["base_grid"]` if any, else its name."""
    base = maze.meta.get("base_grid")
    return base if isinstance(base, str) and base else maze_name(maze)


def maze_group(name: str) -> str:
    """The group of the maze called `name` (the module docstring).

    >>> [maze_group(n) for n in ("3ways_1_mirror", "4ways", "Equal_10vs2", "Loop_2", "map07")]
    ['3ways', '4ways', 'Equal', 'Loop', 'map07']
    """
    base = name[:-len(MIRROR)] if name.endswith(MIRROR) and len(name) > len(MIRROR) else name
    head = base.split("_", 1)[0]
    return head or base


def maze_folds(names: Sequence[str], folds: int, seed: int) -> np.ndarray:
    """The fold (0 .. folds - 1) of each maze of `names`: the distinct groups, sorted, shuffled
    by `seed` and dealt into `folds` parts; DataError when there are fewer groups than folds."""
    groups = sorted({maze_group(n) for n in names})
    listed = f"{', '.join(groups[:8])}{', ...' if len(groups) > 8 else ''}"
    if len(groups) < 2:
        raise DataError(f"maze folds: the mazes form {len(groups)} group ({listed}): folds over "
                        "groups of mazes need two")
    check_integer(folds, "maze folds", 2, min(len(groups), MAX_FOLDS), DataError,
                  f"the groups of mazes, {listed}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_STREAM,)))
    fold_of = dict(zip((groups[i] for i in rng.permutation(len(groups))),
                       np.arange(len(groups)) % folds))
    return np.array([fold_of[maze_group(n)] for n in names], dtype=np.int64)
