"""Option types shared by the commands: sizes, cells, vision, seeds, key=value parameters.

`--vision` takes every vision of DESIGN section 5 in every form the configs take, read by the
one parser (`mazesim.agents.parse_vision`): a label (`full`, `2`, `2, occlusion, no memory`,
`isovist 10, map known`, `sweep, map known`), key=value pairs of the config mapping
(`window=2,occlusion=true`, `isovist=10,map=known`, `sweep=true,memory=false`) or the mapping
itself (`{isovist: 10, map: known}`); each gives a `Vision`, whose label is the one form stored
and printed.

Every number on the command line has a range checked while parsing, so nothing out of range
reaches the library, numba or SQLite: digits are ASCII only (`'²'.isdigit()` is True, and
`int('²')` fails), and the ranges are the library's own ceilings (`mazesim.limits`).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import click

from mazesim.errors import ConfigError, MazesimError, short
from mazesim.limits import INT64_MAX, MAX_TRIALS

__all__ = ["CELL", "VISION", "SEED", "TRIALS", "LibraryDefault", "parse_params"]

_INTEGER = re.compile(r"-?[0-9]{1,19}")
_OWN_NAME = re.compile(r"^--vision[.:]? *")
"""The option's name at the start of a library message (click names it already)."""


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
    name = "VISION"

    def convert(self, value: Any, param, ctx):
        from mazesim.agents.vision import Vision, parse_vision

        if isinstance(value, Vision):
            return value
        try:
            return parse_vision(str(value), "--vision")
        except MazesimError as err:
            self.fail(_OWN_NAME.sub("", str(err)), param, ctx)


CELL = _Cell()
VISION = _Vision()
SEED = click.IntRange(0, INT64_MAX)
"""A root seed: what a run database stores (0 to 2^63 - 1)."""
TRIALS = click.IntRange(1, MAX_TRIALS)


class LibraryDefault:
    """An option's default that is a library constant, read only when the option needs it
    (parsing, or the command's --help shows it): listing the commands imports nothing heavy,
    and the CLI never restates a default the library defines."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)

    def __str__(self) -> str:
        return str(self())


def parse_params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--param key=value` pairs into one dict (`mazesim.schema.parse_pairs`: plain scalars,
    commas make lists, a key given twice refused); YAML is imported only when pairs are given."""
    if not pairs:
        return {}
    from mazesim.schema import parse_pairs

    params: dict[str, Any] = {}
    for pair in pairs:
        for key, value in parse_pairs(pair, "--param").items():
            if key in params:
                raise ConfigError(f"--param {key}: given twice")
            params[key] = value
    return params
