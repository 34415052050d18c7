"""Text and PNG pictures of mazes, routes, visited cells, visit-count heat maps and decision
trees drawn over their maps.

Depends only on `mazesim.maze` and plain arrays (DESIGN.md section 1). Text follows the tutorial
(source 000): the route as `*` over passages, S, G and marks kept. Images follow the study: walls
black, passages white, visited cells grey; the route is a coloured line through cell centres.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mazesim.errors import MazeFormatError, check_integer
from mazesim.limits import MAX_IMAGE_PIXELS, gigabytes
from mazesim.maze import PASSAGE, WALL, Maze, format_maze

__all__ = [
    "PATH_CHAR",
    "VISITED_CHAR",
    "DEFAULT_SCALE",
    "MAX_SCALE",
    "WALL_COLOUR",
    "PASSAGE_COLOUR",
    "VISITED_COLOUR",
    "PATH_COLOUR",
    "START_COLOUR",
    "GOAL_COLOUR",
    "MARK_COLOUR",
    "HEAT_COLOURS",
    "DARK_COLOUR",
    "DECISION_COLOUR",
    "DEPTH_COLOURS",
    "TREE_SCALE",
    "maze_text",
    "maze_image",
    "tree_image",
    "side_by_side",
    "save_image",
]

PATH_CHAR = "*"
VISITED_CHAR = "+"

DEFAULT_SCALE = 10
"""Pixels per cell: a 31x31 maze becomes 310x310 pixels."""
MAX_SCALE = math.isqrt(MAX_IMAGE_PIXELS)
"""The largest scale any picture fits (`limits.MAX_IMAGE_PIXELS`, a one-cell maze)."""

RGB = tuple[int, int, int]
WALL_COLOUR: RGB = (0, 0, 0)
PASSAGE_COLOUR: RGB = (255, 255, 255)
VISITED_COLOUR: RGB = (170, 170, 170)
PATH_COLOUR: RGB = (30, 100, 230)
START_COLOUR: RGB = (0, 160, 60)
GOAL_COLOUR: RGB = (200, 0, 160)
MARK_COLOUR: RGB = (0, 170, 200)
LABEL_COLOUR: RGB = (255, 255, 255)
HEAT_COLOURS: tuple[RGB, ...] = ((255, 240, 170), (253, 141, 60), (189, 0, 38))
"""Heat map ramp (yellow, orange, dark red), linear from one visit to the largest count."""
DARK_COLOUR: RGB = (120, 120, 140)
"""Floor not yet seen (the Maze Search Task's dark cells)."""
DECISION_COLOUR: RGB = (220, 30, 30)
"""The ring around a decision node (two or more children)."""
DEPTH_COLOURS: tuple[RGB, ...] = ((30, 100, 230), (0, 160, 160), (90, 170, 0), (230, 150, 0),
                                  (200, 60, 160), (110, 60, 200))
"""Colours of a tree's paths and nodes by depth (1, 2, ...; cycling)."""
TREE_SCALE = 40
"""Pixels per cell of a tree picture: a 10x10 map becomes 400x400 pixels."""

_PATH_WIDTH_SHARE = 3  # the route line is a third of a cell wide
_GAP = 10  # pixels between images in `side_by_side`
_LABEL_HEIGHT = 18
_MIN_LETTER_SCALE = 8  # mark letters are drawn from this many pixels per cell
_LANES = 5  # paths of successive depths run in this many lanes across a cell
_DOT_SHARE, _RING_SHARE = 6, 3  # node dot and decision ring radii: a sixth, a third of a cell


def maze_text(maze: Maze, *, path: Any = None, visited: Any = None) -> str:
    """The text format with the route as `*` and visited passages as `+` (S, G, marks on top).

    `path` and `visited` are cells (n, 2) or boolean masks of the grid's shape; only passages
    are drawn over.

    Examples
    --------
    >>> from mazesim.maze import parse_maze
    >>> print(maze_text(parse_maze("#####\\n#S.G#\\n#####"), path=[(1, 1), (1, 2), (1, 3)]), end="")
    #####
    #S*G#
    #####
    """
    overlay = {}
    for mask, char in ((_mask(maze, visited, "visited"), VISITED_CHAR),
                       (_mask(maze, path, "path"), PATH_CHAR)):
        overlay.update({(int(r), int(c)): char for r, c in np.argwhere(mask)})
    return format_maze(maze, overlay)


def maze_image(maze: Maze, *, path: Any = None, visited: Any = None, visits: Any = None,
               scale: int = DEFAULT_SCALE) -> Image.Image:
    """An RGB picture of `maze`, `scale` pixels per cell.

    Parameters
    ----------
    path : cells (n, 2), optional
        Drawn as a line through the cell centres, in `PATH_COLOUR`.
    visited : cells (n, 2) or boolean mask, optional
        Passages painted `VISITED_COLOUR` (the study's grey).
    visits : int array of the grid's shape, optional
        Visit counts drawn as a heat map (`HEAT_COLOURS`) over passages with a count > 0.
    """
    scale = _check_scale(maze, scale)
    passage = maze.grid == PASSAGE
    pixels = np.empty(maze.shape + (3,), np.uint8)
    pixels[maze.grid == WALL] = WALL_COLOUR
    pixels[passage] = PASSAGE_COLOUR
    pixels[_mask(maze, visited, "visited")] = VISITED_COLOUR
    if visits is not None:
        counts = _counts(maze, visits)
        hot = passage & (counts > 0)
        if hot.any():
            high = counts[hot].max()
            pixels[hot] = _heat((counts[hot] - 1) / max(high - 1, 1))
    for cell, colour in [(c, MARK_COLOUR) for c in maze.marks.values()] + [
            (maze.start, START_COLOUR), (maze.goal, GOAL_COLOUR)]:
        pixels[cell] = colour
    image = Image.fromarray(np.kron(pixels, np.ones((scale, scale, 1), np.uint8)), "RGB")
    draw = ImageDraw.Draw(image)
    if path is not None:
        _draw_route(draw, _cells(maze, path, "path"), scale)
    if scale >= _MIN_LETTER_SCALE:
        font = ImageFont.load_default(size=scale)
        for name, (r, c) in maze.marks.items():
            centre = ((c + 0.5) * scale, (r + 0.5) * scale)
            draw.text(centre, name, fill=LABEL_COLOUR, font=font, anchor="mm")
    return image


def tree_image(maze: Maze, cells: Any, paths: Sequence[Any], *, depths: Sequence[int],
               decisions: Sequence[bool], dark: Any = None, scale: int = TREE_SCALE
               ) -> Image.Image:
    """A decision tree over its map: walls black, floor white, `dark` floor `DARK_COLOUR`, S and
    G marked; node k a dot at `cells[k]`, reached by the line `paths[k]` (cells from its
    parent's cell, empty at the root), both in the colour of its depth (`DEPTH_COLOURS`), each
    depth in a lane of its own across the cells it passes so that paths along one corridor
    stay apart; decision nodes ringed in `DECISION_COLOUR`."""
    scale = _check_scale(maze, scale)
    nodes = _cells(maze, cells, "cells")
    if not len(paths) == len(depths) == len(decisions) == len(nodes):
        raise MazeFormatError(f"tree_image: {len(nodes)} cells, {len(paths)} paths, "
                              f"{len(depths)} depths and {len(decisions)} decision flags "
                              "(allowed: one of each per node)")
    pixels = np.empty(maze.shape + (3,), np.uint8)
    pixels[maze.grid == WALL] = WALL_COLOUR
    pixels[maze.grid == PASSAGE] = PASSAGE_COLOUR
    pixels[_mask(maze, dark, "dark")] = DARK_COLOUR
    pixels[maze.start], pixels[maze.goal] = START_COLOUR, GOAL_COLOUR
    image = Image.fromarray(np.kron(pixels, np.ones((scale, scale, 1), np.uint8)), "RGB")
    draw = ImageDraw.Draw(image)
    lane = scale / (_LANES + 1)
    width = max(1, scale // (2 * _LANES))
    for path, depth in zip(paths, depths):
        route = _cells(maze, path, "path")
        if len(route) > 1:
            shift = lane * (1 + depth % _LANES)
            ends = [((c + 0.5) * scale, (r + 0.5) * scale) for r, c in (route[0], route[-1])]
            draw.line([ends[0]] + [(c * scale + shift, r * scale + shift)
                                   for r, c in route.tolist()] + [ends[1]],
                      fill=_depth_colour(depth), width=width, joint="curve")
    dot, ring = max(1, scale // _DOT_SHARE), max(2, scale // _RING_SHARE)
    for (r, c), depth, decision in zip(nodes.tolist(), depths, decisions):
        x, y = (c + 0.5) * scale, (r + 0.5) * scale
        if decision:
            draw.ellipse((x - ring, y - ring, x + ring, y + ring), outline=DECISION_COLOUR,
                         width=max(1, scale // 20))
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=_depth_colour(depth),
                     outline=WALL_COLOUR)
    return image


def _depth_colour(depth: int) -> RGB:
    return DEPTH_COLOURS[(depth - 1) % len(DEPTH_COLOURS)] if depth > 0 else START_COLOUR


def side_by_side(images: Sequence[Image.Image], labels: Sequence[str] | None = None
                 ) -> Image.Image:
    """Images in one row on white, `_GAP` pixels apart, each under its label if given."""
    images = list(images)
    if not images:
        raise MazeFormatError("side_by_side: no images")
    if labels is not None and len(labels) != len(images):
        raise MazeFormatError(f"side_by_side: {len(labels)} labels for {len(images)} images")
    top = _LABEL_HEIGHT if labels is not None else 0
    width = sum(im.width for im in images) + _GAP * (len(images) - 1)
    sheet = Image.new("RGB", (width, top + max(im.height for im in images)), PASSAGE_COLOUR)
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=_LABEL_HEIGHT - 4)
    x = 0
    for i, image in enumerate(images):
        sheet.paste(image.convert("RGB"), (x, top))
        if labels is not None:
            draw.text((x + image.width / 2, top / 2), str(labels[i]), fill=WALL_COLOUR,
                      font=font, anchor="mm")
        x += image.width + _GAP
    return sheet


def save_image(image: Image.Image, path: str | Path) -> None:
    """Write `image`; the format follows the suffix (`.png` recommended)."""
    try:
        image.save(Path(path))
    except (OSError, ValueError, KeyError) as err:
        raise MazeFormatError(f"{path}: cannot write image ({err})") from None


def _check_scale(maze: Maze, scale: Any) -> int:
    """`scale` as an int >= 1 at which `maze` fits in `limits.MAX_IMAGE_PIXELS`, checked
    before any pixel is drawn."""
    check_integer(scale, "scale", 1, error=MazeFormatError)
    h, w = maze.shape
    pixels = h * w * int(scale) ** 2
    if pixels > MAX_IMAGE_PIXELS:
        fits = math.isqrt(MAX_IMAGE_PIXELS // (h * w))   # >= 1: MAX_MAZE_CELLS is below
        raise MazeFormatError(
            f"scale {scale}: a {h:,}x{w:,} maze would be {w * scale:,}x{h * scale:,} pixels "
            f"({gigabytes(3 * pixels)} as RGB) (allowed: at most {MAX_IMAGE_PIXELS:,} pixels; "
            f"scale {fits} or less fits)")
    return int(scale)


def _draw_route(draw: ImageDraw.ImageDraw, cells: np.ndarray, scale: int) -> None:
    centres = [((c + 0.5) * scale, (r + 0.5) * scale) for r, c in cells.tolist()]
    width = max(1, scale // _PATH_WIDTH_SHARE)
    if len(centres) == 1:
        (x, y), half = centres[0], width / 2
        draw.rectangle((x - half, y - half, x + half, y + half), fill=PATH_COLOUR)
    elif centres:
        draw.line(centres, fill=PATH_COLOUR, width=width, joint="curve")


def _heat(share: np.ndarray) -> np.ndarray:
    """Colours (n, 3) for shares in [0, 1] along `HEAT_COLOURS`, linear between stops."""
    stops = np.linspace(0.0, 1.0, len(HEAT_COLOURS))
    ramp = np.array(HEAT_COLOURS, float)
    return np.stack([np.interp(share, stops, ramp[:, k]) for k in range(3)], 1).round()


def _counts(maze: Maze, visits: Any) -> np.ndarray:
    counts = np.asarray(visits)
    if counts.shape != maze.shape or not np.issubdtype(counts.dtype, np.integer):
        raise MazeFormatError(
            f"visits: expected integer counts of shape {maze.shape}, got {counts.dtype} "
            f"{counts.shape}"
        )
    return counts


def _cells(maze: Maze, cells: Any, name: str) -> np.ndarray:
    """`cells` as an int array (n, 2) of in-bounds cells."""
    array = np.asarray(cells)
    if array.size == 0:
        return np.empty((0, 2), np.int64)
    if array.ndim != 2 or array.shape[1] != 2 or not np.issubdtype(array.dtype, np.integer):
        raise MazeFormatError(f"{name}: expected (row, col) cells (n, 2), got shape "
                              f"{array.shape}")
    h, w = maze.shape
    outside = (array[:, 0] < 0) | (array[:, 0] >= h) | (array[:, 1] < 0) | (array[:, 1] >= w)
    if outside.any():
        raise MazeFormatError(f"{name}: cell {tuple(array[outside][0].tolist())} is outside "
                              f"the {h}x{w} grid")
    return array


def _mask(maze: Maze, cells: Any, name: str) -> np.ndarray:
    """Boolean mask of the passages among `cells` (cells (n, 2) or a boolean mask)."""
    mask = np.zeros(maze.shape, bool)
    if cells is None:
        return mask
    array = np.asarray(cells)
    if array.dtype == bool:
        if array.shape != maze.shape:
            raise MazeFormatError(f"{name}: mask of shape {array.shape}, grid is {maze.shape}")
        mask |= array
    else:
        rows_cols = _cells(maze, array, name)
        mask[rows_cols[:, 0], rows_cols[:, 1]] = True
    return mask & (maze.grid == PASSAGE)
