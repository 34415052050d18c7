"""Option types shared by the commands: sizes, cells, vision, key=value parameters."""

from __future__ import annotations

from typing import Any

import click
import yaml

from mazesim.errors import MazesimError
from mazesim.maze import parse_size

__all__ = ["SIZE", "CELL", "VISION", "parse_params"]


class _Size(click.ParamType):
    name = "HxW"

    def convert(self, value: Any, param, ctx):
        try:
            return parse_size(value, param.name if param else "size")
        except MazesimError as err:
            self.fail(str(err), param, ctx)


class _Cell(click.ParamType):
    name = "R,C"

    def convert(self, value: Any, param, ctx):
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
            self.fail(f"{value!r} is not a cell (use ROW,COL)", param, ctx)
        return int(parts[0]), int(parts[1])


class _Vision(click.ParamType):
    name = "full|K"

    def convert(self, value: Any, param, ctx):
        if value == "full" or isinstance(value, int):
            return value
        if str(value).isdigit():
            return int(value)
        self.fail(f"{value!r} (allowed: full or an integer >= 0)", param, ctx)


SIZE = _Size()
CELL = _Cell()
VISION = _Vision()


def parse_params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--param key=value` pairs into a dict; values read as YAML scalars, commas make lists."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r} is not key=value", param_hint="--param")
        items = [yaml.safe_load(v) if v else v for v in raw.split(",")]
        params[key.strip()] = items if "," in raw else items[0]
    return params
