"""A figure drawn in horizontal bands by several processes and joined: each band is the whole
canvas rendered with only its part drawn (white elsewhere), cut to the rows it uses; joined by
the darker pixel, which is exact while no two bands draw on one pixel. Without matplotlib, so
the process that joins need not import it."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from PIL import Image

__all__ = ["Band", "band", "write_bands"]

Band = tuple[tuple[int, int], int, np.ndarray]
"""Part of a figure: the whole canvas's (height, width) in pixels, the band's first pixel row
and its RGBA pixels."""


def band(pixels: np.ndarray) -> Band:
    """The band of a rendered canvas (RGBA, white background): from its first to its last
    pixel row with something drawn."""
    used = np.flatnonzero((pixels[:, :, :3] != 255).any(axis=(1, 2)))
    first, last = (int(used[0]), int(used[-1]) + 1) if used.size else (0, 0)
    return pixels.shape[:2], first, pixels[first:last].copy()


def write_bands(path: Path, bands: Sequence[Band]) -> Path:
    """The figure of `bands` (of one canvas) as a PNG at `path`."""
    canvas = np.full((*bands[0][0], 4), 255, np.uint8)
    for _, first, pixels in bands:
        part = canvas[first:first + len(pixels)]
        np.minimum(part, pixels, out=part)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(canvas[:, :, :3]).save(path, format="PNG")   # opaque: RGB, 10 % smaller
    return path
