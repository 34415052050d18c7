"""Option types shared by the commands: sizes, cells, vision, seeds, key=value parameters.

Every number on the command line has a range checked while parsing, so nothing out of range
reaches the library, numba or SQLite: digits are ASCII only (`'²'.isdigit()` is True, and
`int('²')` fails), and the ranges are the library's own ceilings (`mazesim.limits`).
"""

from __future__ import annotations

import re
from typing import Any

import click

from mazesim.errors import short
from mazesim.limits import INT64_MAX, MAX_TRIALS, MAX_VISION_RADIUS
from mazesim.schema import parse_yaml

__all__ = ["CELL", "VISION", "SEED", "TRIALS", "parse_params"]

_INTEGER = re.compile(r"-?[0-9]{1,19}")


class _Cell(click.ParamType):
    name = "R,C"

    def convert(self, value: Any, param, ctx):
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        if len(parts) != 2 or not all(_INTEGER.fullmatch(p) for p in parts):
            self.fail(f"{short(value)} is not a cell (use ROW,COL: two integers)", param, ctx)
        return int(parts[0]), int(parts[1])


class _Vision(click.ParamType):
    name = "full|K|sweep"

    def convert(self, value: Any, param, ctx):
        if value in ("full", "sweep") or isinstance(value, int):
            return value
        text = str(value)
        if _INTEGER.fullmatch(text) and 0 <= int(text) <= MAX_VISION_RADIUS:
            return int(text)
        self.fail(f"{short(value)} (allowed: full or an integer from 0 to "
                  f"{MAX_VISION_RADIUS:,}, or sweep)", param, ctx)


CELL = _Cell()
VISION = _Vision()
SEED = click.IntRange(0, INT64_MAX)
"""A root seed: what a run database stores (0 to 2^63 - 1)."""
TRIALS = click.IntRange(1, MAX_TRIALS)


def parse_params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--param key=value` pairs into a dict; values read as YAML scalars (the bounded config
    reader: no tags, no bombs), commas make lists."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{short(pair)} is not key=value", param_hint="--param")
        source = f"--param {key.strip()}"
        items = [parse_yaml(v, source) if v else v for v in raw.split(",")]
        params[key.strip()] = items if "," in raw else items[0]
    return params
