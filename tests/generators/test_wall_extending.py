"""The study's wall-extending (壁のばし法): walls grown from pillars, each joined once."""

from collections import Counter

import numpy as np

from mazesim.generators.wall_extending import wall_extending
from mazesim.maze import WALL


def test_a_lone_pillar_joins_the_border_in_all_four_directions():
    joins = Counter()
    for seed in range(400):
        grid = wall_extending((5, 5), np.random.default_rng(seed))
        inner = grid[1:4, 1:4].copy()
        assert inner[1, 1] == WALL  # every pillar ends as wall
        inner[1, 1] = 0
        ((r, c),) = np.argwhere(inner == WALL)
        joins[(int(r) - 1, int(c) - 1)] += 1
    assert set(joins) == {(-1, 0), (0, 1), (1, 0), (0, -1)}
    assert min(joins.values()) > 70  # 100 expected each


def test_walls_grow_in_long_runs_from_the_pillars():
    # Grown walls are long: most interior pillars join a neighbour pillar rather than the border
    # directly, unlike stick-knocking where only border-side pillars can touch the border.
    grid = wall_extending((41, 41), np.random.default_rng(0))
    pillars = grid[2:-2:2, 2:-2:2]
    assert (pillars == WALL).all()
    segments = int((grid[1:-1, 1:-1] == WALL).sum()) - pillars.size
    assert segments == pillars.size  # one joining segment per pillar: a forest on the border
