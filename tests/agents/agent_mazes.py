"""Mazes shared by the agent tests: hand-made ones and a hypothesis strategy over generators.

Imported by name (`from agent_mazes import ...`): pytest puts this folder on sys.path.
"""

import numpy as np
from hypothesis import strategies as st

from mazesim.generators import generate
from mazesim.maze import parse_maze

# A T reached after four moves up: the weighted walker's counts are up 5, right 1, down 1, left 1
# at A, and both up (a short dead end) and right (towards G) are unexplored.
T_JUNCTION = parse_maze("""
#####
#.#G#
#.#.#
#A..#
#.###
#.###
#.###
#S###
#####
""")

PERFECT_GENERATORS = ("digging", "stick-knocking", "wall-extending", "prim", "kruskal",
                      "wilson", "hunt-and-kill", "binary-tree", "sidewinder", "eller")


@st.composite
def mazes(draw, braid=True, max_size=15):
    """Generated mazes of odd sizes 5..max_size, perfect or braided."""
    name = draw(st.sampled_from(PERFECT_GENERATORS))
    h = draw(st.integers(2, max_size // 2)) * 2 + 1
    w = draw(st.integers(2, max_size // 2)) * 2 + 1
    fraction = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0])) if braid else 0.0
    placement = draw(st.sampled_from(["corners", "random"]))
    return generate(name, (h, w), seed=draw(st.integers(0, 10_000)), braid=fraction,
                    placement=placement)


def tremaux_directed_counts(positions):
    """Times each directed passage (cell, next cell) was walked."""
    counts = {}
    for a, b in zip(map(tuple, positions[:-1]), map(tuple, positions[1:])):
        counts[(a, b)] = counts.get((a, b), 0) + 1
    return counts


__all__ = ["T_JUNCTION", "mazes", "tremaux_directed_counts", "np"]
