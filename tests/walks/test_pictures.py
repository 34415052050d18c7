"""Trajectory pictures: the study's style, heat maps, agents side by side."""


import numpy as np

from mazesim.agents import make_agent
from mazesim.maze import read_maze
from mazesim.render import (GOAL_COLOUR, PASSAGE_COLOUR, START_COLOUR, VISITED_COLOUR,
                            WALL_COLOUR)
from mazesim.walks import simulate
from mazesim.walks.metrics import visit_counts
from mazesim.walks.pictures import (comparison_image, decision_tree_image, heat_map_image,
                                    trajectory_image)

from fixture_paths import DATA

TUTORIAL = read_maze(DATA / "tutorial_7x13.txt")
SCALE = 4


def _cell_colour(image, cell):
    r, c = cell
    return image.getpixel((c * SCALE + 1, r * SCALE + 1))


def test_trajectory_in_the_study_style():
    walk = simulate(TUTORIAL, make_agent("dfs", order="down,right,up,left", goal_seeking=False),
                    0, seed=0)
    image = trajectory_image(TUTORIAL, walk, scale=SCALE)
    assert image.size == (13 * SCALE, 7 * SCALE)
    assert _cell_colour(image, (0, 0)) == WALL_COLOUR
    assert _cell_colour(image, (5, 11)) == VISITED_COLOUR       # the dead end it tried
    assert _cell_colour(image, (1, 2)) == PASSAGE_COLOUR        # never visited: white
    assert _cell_colour(image, TUTORIAL.start) == START_COLOUR
    assert _cell_colour(image, TUTORIAL.goal) == GOAL_COLOUR


def test_heat_map_is_hottest_where_walks_pass_most():
    walks = [simulate(TUTORIAL, make_agent("random-walk", goal_seeking=False), 0, seed=s)
             for s in range(5)]
    image = np.asarray(heat_map_image(TUTORIAL, walks, scale=SCALE))
    assert image.shape == (7 * SCALE, 13 * SCALE, 3)
    visited = {tuple(p) for w in walks for p in w.positions.tolist()}
    unvisited = [(r, c) for r in range(7) for c in range(13)
                 if TUTORIAL.grid[r, c] == 0 and (r, c) not in visited]
    for cell in unvisited:
        assert tuple(image[cell[0] * SCALE + 1, cell[1] * SCALE + 1]) == PASSAGE_COLOUR
    counts = sum(visit_counts(TUTORIAL, w.positions) for w in walks)
    counts[TUTORIAL.start] = counts[TUTORIAL.goal] = 0
    hot = np.unravel_index(np.argmax(counts), counts.shape)
    cool = min(visited - {TUTORIAL.start, TUTORIAL.goal}, key=lambda cell: counts[cell])
    green = [image[r * SCALE + 1, c * SCALE + 1][1] for r, c in (hot, cool)]
    assert counts[hot] > counts[cool] and green[0] < green[1]      # the ramp darkens with use


def test_comparison_side_by_side():
    agents = {"dfs": make_agent("dfs"), "shortest": make_agent("shortest")}
    image = comparison_image(TUTORIAL, agents, 0, seed=1, scale=SCALE)
    assert image.width == 2 * 13 * SCALE + 10 and image.height > 7 * SCALE
    heat = comparison_image(TUTORIAL, agents, 0, seed=1, trials=5, scale=SCALE)
    assert heat.size == image.size


def test_a_decision_tree_over_its_map():
    from mazesim.agents.trees import decision_tree
    from mazesim.maze import parse_maze
    from mazesim.render import DARK_COLOUR, DECISION_COLOUR

    fork = parse_maze("#######\n###S###\n###.###\n#.....#\n#.###.#\n#G###.#\n#######")
    image = np.asarray(decision_tree_image(decision_tree(fork), scale=SCALE * 5))
    cell = SCALE * 5
    assert tuple(image[4 * cell + 1, 1 * cell + 1]) == DARK_COLOUR          # dark floor
    rings = np.all(image == DECISION_COLOUR, axis=2)
    rows, cols = np.nonzero(rings)
    assert (set(rows // cell), set(cols // cell)) == ({3}, {3})              # one decision
