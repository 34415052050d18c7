"""Text and PNG pictures of mazes, routes, visited cells and visit-count heat maps.

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

from mazesim.errors import MazeFormatError
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
    "maze_text",
    "maze_image",
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

_PATH_WIDTH_SHARE = 3  # the route line is a third of a cell wide
_GAP = 10  # pixels between images in `side_by_side`
_LABEL_HEIGHT = 18
_MIN_LETTER_SCALE = 8  # mark letters are drawn from this many pixels per cell


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
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
        raise MazeFormatError(f"scale: {scale!r} (allowed: an integer >= 1)")
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
