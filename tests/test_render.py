"""Tests of mazesim.render: exact text overlays, pixel colours at known cells, sizes."""

import numpy as np
import pytest
from PIL import Image

from mazesim.errors import MazeFormatError
from mazesim.maze import Maze, parse_maze, read_maze
from mazesim.render import (
    MAX_SCALE,
    DARK_COLOUR,
    DECISION_COLOUR,
    DEFAULT_SCALE,
    DEPTH_COLOURS,
    GOAL_COLOUR,
    HEAT_COLOURS,
    MARK_COLOUR,
    PASSAGE_COLOUR,
    PATH_COLOUR,
    START_COLOUR,
    VISITED_COLOUR,
    WALL_COLOUR,
    maze_image,
    maze_text,
    save_image,
    side_by_side,
    tree_image,
)

from fixture_paths import DATA

# The tutorial's BFS route (source 000), written out so render is tested without analysis.
TUTORIAL_ROUTE = ([(1, c) for c in range(1, 6)] + [(2, 5), (3, 5), (3, 6), (3, 7), (2, 7)]
                  + [(1, c) for c in range(7, 12)])
TUTORIAL_PICTURE = """\
#############
#S****#****G#
#.###*#*###.#
#...#***#...#
###.#####.###
#...........#
#############
"""


@pytest.fixture(scope="module")
def tutorial():
    return read_maze(DATA / "tutorial_7x13.txt")


def pixel(image, cell, scale, corner=False):
    """Colour at the centre (or the top-left pixel) of `cell`."""
    r, c = cell
    offset = 0 if corner else scale // 2
    return image.getpixel((c * scale + offset, r * scale + offset))


def test_text_route_is_the_tutorial_picture(tutorial):
    assert maze_text(tutorial, path=TUTORIAL_ROUTE) == TUTORIAL_PICTURE


def test_text_visited_and_marks():
    maze = parse_maze("#######\n#S.A.G#\n#.###.#\n#######")
    visited = np.zeros(maze.shape, bool)
    visited[1:3, :] = True  # walls in the mask are not drawn over
    text = maze_text(maze, path=[(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)], visited=visited)
    assert text == "#######\n#S*A*G#\n#+###+#\n#######\n"
    assert maze_text(maze) == "#######\n#S.A.G#\n#.###.#\n#######\n"


def test_image_size_follows_scale(tutorial):
    assert maze_image(tutorial).size == (13 * DEFAULT_SCALE, 7 * DEFAULT_SCALE)
    assert maze_image(tutorial, scale=3).size == (39, 21)
    assert DEFAULT_SCALE >= 8  # a 31x31 maze is at least 248 pixels wide
    assert maze_image(tutorial).mode == "RGB"


def test_image_colours_at_known_cells(tutorial):
    scale = 12
    visited = np.zeros(tutorial.shape, bool)
    visited[5, 1:12] = True
    image = maze_image(tutorial, path=TUTORIAL_ROUTE, visited=visited, scale=scale)
    assert pixel(image, (0, 0), scale) == WALL_COLOUR
    assert pixel(image, (3, 1), scale) == PASSAGE_COLOUR  # unvisited passage
    assert pixel(image, (5, 4), scale) == VISITED_COLOUR
    assert pixel(image, (1, 3), scale) == PATH_COLOUR  # the line through the centre
    assert pixel(image, (1, 3), scale, corner=True) == PASSAGE_COLOUR  # ... a third wide
    assert pixel(image, (1, 1), scale, corner=True) == START_COLOUR
    assert pixel(image, (1, 11), scale, corner=True) == GOAL_COLOUR
    assert pixel(image, (2, 2), scale) == WALL_COLOUR  # the route never paints a wall


def test_heat_map_ramp():
    maze = parse_maze("#######\n#S...G#\n#######")
    visits = np.zeros(maze.shape, np.int64)
    visits[1, 2], visits[1, 3], visits[1, 4] = 1, 2, 3
    visits[0, 0] = 99  # counts on walls are neither drawn nor part of the scale
    image = maze_image(maze, visits=visits, scale=8)
    assert pixel(image, (1, 2), 8) == HEAT_COLOURS[0]  # one visit: the low end
    assert pixel(image, (1, 3), 8) == HEAT_COLOURS[1]  # half way to the largest count
    assert pixel(image, (1, 4), 8) == HEAT_COLOURS[-1]  # the largest count
    assert pixel(image, (0, 0), 8) == WALL_COLOUR
    visits[1, 2] = 0
    assert pixel(maze_image(maze, visits=visits, scale=8), (1, 2), 8) == PASSAGE_COLOUR


def test_heat_map_over_visited_and_single_count():
    maze = parse_maze("######\n#S..G#\n######")
    visits = np.zeros(maze.shape, np.int64)
    visits[1, 2] = 5
    image = maze_image(maze, visits=visits, visited=np.ones(maze.shape, bool), scale=8)
    assert pixel(image, (1, 2), 8) == HEAT_COLOURS[-1]  # the largest count, even alone
    assert pixel(image, (1, 3), 8) == VISITED_COLOUR  # visited, count 0: grey stays


def test_marks_are_coloured_and_lettered():
    maze = parse_maze("#####\n#SAG#\n#####")
    image = maze_image(maze, scale=20)
    assert pixel(image, (1, 2), 20, corner=True) == MARK_COLOUR
    cell = np.asarray(image)[20:40, 40:60].reshape(-1, 3)
    assert (cell == (255, 255, 255)).all(1).any()  # the letter A is drawn in white
    small = maze_image(maze, scale=2)  # too small for letters: the colour only
    assert {pixel(small, (1, 2), 2, corner=True), pixel(small, (1, 2), 2)} == {MARK_COLOUR}


def test_single_cell_route_is_a_dot():
    maze = Maze(np.zeros((1, 1), np.uint8), (0, 0), (0, 0))
    assert maze_image(maze, path=[(0, 0)], scale=9).getpixel((4, 4)) == PATH_COLOUR


@pytest.mark.parametrize("kwargs, message", [
    ({"scale": 0}, "scale: 0 .allowed: an integer from 1 to"),
    ({"scale": 2.5}, "scale: 2.5"),
    ({"path": [(1, 1), (9, 1)]}, r"path: cell \(9, 1\) is outside the 3x5 grid"),
    ({"path": [1, 2, 3]}, r"path: expected \(row, col\) cells"),
    ({"visited": np.zeros((2, 2), bool)}, r"visited: mask of shape \(2, 2\), grid is \(3, 5\)"),
    ({"visits": np.zeros((3, 5))}, r"visits: expected integer counts of shape \(3, 5\)"),
])
def test_bad_arguments(kwargs, message):
    maze = parse_maze("#####\n#S.G#\n#####")
    with pytest.raises(MazeFormatError, match=message):
        maze_image(maze, **kwargs)


def test_side_by_side_layout():
    red = Image.new("RGB", (30, 20), (255, 0, 0))
    blue = Image.new("RGB", (40, 50), (0, 0, 255))
    sheet = side_by_side([red, blue])
    assert sheet.size == (30 + 10 + 40, 50)
    assert sheet.getpixel((0, 0)) == (255, 0, 0) and sheet.getpixel((45, 49)) == (0, 0, 255)
    assert sheet.getpixel((35, 10)) == PASSAGE_COLOUR  # the gap
    labelled = side_by_side([red, blue], ["bfs", "dfs"])
    assert labelled.size == (80, 18 + 50) and labelled.getpixel((0, 18)) == (255, 0, 0)
    with pytest.raises(MazeFormatError, match="1 labels for 2 images"):
        side_by_side([red, blue], ["one"])
    with pytest.raises(MazeFormatError, match="no images"):
        side_by_side([])


def test_save_image(tmp_path, tutorial):
    out = tmp_path / "maze.png"
    save_image(maze_image(tutorial, scale=4), out)
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (52, 28)
    with pytest.raises(MazeFormatError, match=r"maze\.nope: cannot write image"):
        save_image(maze_image(tutorial), tmp_path / "maze.nope")
    with pytest.raises(MazeFormatError, match="cannot write image"):
        save_image(maze_image(tutorial), tmp_path / "missing" / "maze.png")


def test_a_picture_that_would_not_fit_is_refused_before_any_pixel(monkeypatch):
    """A 5,001 x 5,001 maze at scale 10 took 7.4 GB; now it is refused with the estimate."""
    maze = Maze(np.broadcast_to(np.uint8(0), (5001, 5001)), (0, 0), (0, 1))
    monkeypatch.setattr(np, "kron", None)                  # no pixel may be made
    with pytest.raises(MazeFormatError, match=r"scale 10: a 5,001x5,001 maze would be "
                                              r"50,010x50,010 pixels \(7.5 GB as RGB\) "
                                              r"\(allowed: at most 100,000,000 pixels; scale 1 "
                                              r"or less fits\)"):
        maze_image(maze, scale=10)
    with pytest.raises(MazeFormatError, match=r"scale 10000: a 3x5 maze would be 50,000x30,000 "
                                              r"pixels \(4.5 GB as RGB\) .*scale 2581 or less"):
        maze_image(parse_maze("#####\n#S.G#\n#####"), scale=10_000)
    assert MAX_SCALE == 10_000


def test_tree_image_draws_dark_floor_nodes_paths_and_rings():
    maze = parse_maze("#####\n#S..#\n#..G#\n#####")
    dark = np.zeros(maze.shape, bool)
    dark[2, 1] = True
    scale = 20
    image = np.asarray(tree_image(maze, [(1, 1), (1, 3)], [[], [(1, 1), (1, 2), (1, 3)]],
                                  depths=[0, 1], decisions=[True, False], dark=dark,
                                  scale=scale))
    assert image.shape == (4 * scale, 5 * scale, 3)
    assert tuple(image[2 * scale + 1, 1 * scale + 1]) == DARK_COLOUR
    assert tuple(image[1 * scale + 1, 2 * scale + 1]) == PASSAGE_COLOUR
    assert tuple(image[scale // 2 + scale, scale // 2 + scale]) == START_COLOUR     # root dot
    ring = np.all(image[scale:2 * scale, scale:2 * scale] == DECISION_COLOUR, axis=2)
    assert ring.any()
    assert not np.all(image[scale:2 * scale, 3 * scale:4 * scale] == DECISION_COLOUR,
                      axis=2).any()
    lane = np.all(image[scale:2 * scale, 2 * scale:3 * scale] == DEPTH_COLOURS[0], axis=2)
    assert lane.any()                                 # the path through (1, 2), at depth 1


def test_tree_image_checks_its_arguments():
    maze = parse_maze("#####\n#S.G#\n#####")
    with pytest.raises(MazeFormatError, match="tree_image: 1 cells, 2 paths, 1 depths and 1 "
                                              "decision flags"):
        tree_image(maze, [(1, 1)], [[], []], depths=[0], decisions=[False])
    with pytest.raises(MazeFormatError, match=r"path: cell \(5, 5\) is outside"):
        tree_image(maze, [(1, 1)], [[(1, 1), (5, 5)]], depths=[1], decisions=[False])
