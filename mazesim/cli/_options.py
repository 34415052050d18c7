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
from pathlib import Path
from typing import Any, Collection, Sequence

import click

from mazesim.errors import ConfigError, DataError, MazesimError, short
from mazesim.limits import INT64_MAX, MAX_TRIALS, MAX_WORKERS

__all__ = ["CELL", "VISION", "SEED", "TRIALS", "LibraryDefault", "parse_params", "output_folder",
           "wrote"]

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
WORKERS = click.IntRange(1, MAX_WORKERS)
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


def output_folder(path: str | None, names: Collection[str]) -> None:
    """The one rule of every command that writes a folder (`-o FOLDER`), checked before the
    work starts: the folder is new, empty, or holds only files named in `names` (an earlier
    output of the same command, which is replaced). Anything else is refused, so that nothing
    of another kind is written over; a run directory (`import`) is never written over."""
    if path is None:
        return
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise DataError(f"-o {path}: is a file, not a folder")
    if folder.is_dir():
        foreign = sorted(p.name for p in folder.iterdir() if p.name not in names
                         or not p.is_file() or p.is_symlink())
        if foreign:
            raise DataError(f"-o {path}: holds {short(foreign[0])}"
                            + (f" and {len(foreign) - 1} more" if len(foreign) > 1 else "")
                            + ", which this command does not write; give a new or empty folder, "
                              "or one this command wrote before")


def wrote(paths: Sequence[str | Path], names: Collection[str] = (), say: bool = True) -> None:
    """Say what a command wrote (`wrote PATH`, a folder's files listed; not with `say` False:
    a JSON result); the files of `names` left from an earlier output and not written again
    are removed (no stale table stays)."""
    if not paths:
        return
    if names:
        folder = Path(paths[0]).parent
        for name in set(names) - {Path(p).name for p in paths}:
            (folder / name).unlink(missing_ok=True)
    if say:
        click.echo(f"wrote {Path(paths[0]).parent}: {', '.join(Path(p).name for p in paths)}"
                   if names else f"wrote {', '.join(map(str, paths))}")
