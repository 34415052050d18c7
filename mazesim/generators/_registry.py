"""The generator registry: specs by name, the `@register` decorator, size and option checks.

Family modules import `register` and `check_size` from here; the package `__init__` imports the
family modules explicitly, which fills the registry once (STYLE.md, Generators and agents).
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from mazesim.errors import GeneratorError, MazeFormatError, did_you_mean
from mazesim.maze import Size, parse_size

__all__ = ["GeneratorSpec", "register", "check_size", "check_fraction", "lookup", "REGISTRY"]

MIN_GRID = 3  # the smallest generated grid: one room inside a wall border

REGISTRY: dict[str, "GeneratorSpec"] = {}


@dataclass(frozen=True)
class GeneratorSpec:
    """A registered generator: its name, one-line description, family function and options.

    `options` maps each option name to its default; the family function takes them as keyword-only
    arguments after `rng`. `checks` maps an option to the function that validates its value
    (`check_fraction`, ...): options are checked before any work, and without generating.
    """

    name: str
    description: str
    function: Callable[..., np.ndarray]
    options: Mapping[str, Any]
    checks: Mapping[str, Callable[[Any, str], Any]] = field(
        default_factory=lambda: MappingProxyType({}))

    def resolve_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults updated by `given`, each checked; an unknown option or a bad value
        raises GeneratorError (listing ours, or naming the option)."""
        if not given:
            return dict(self.options)
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            allowed = ", ".join(self.options) or "none"
            raise GeneratorError(
                f"generator {self.name!r}: unknown option {unknown[0]!r} (options: {allowed})"
            )
        resolved = {**self.options, **given}
        for option, check in self.checks.items():
            check(resolved[option], f"{self.name}: {option}")
        return resolved


def register(name: str, checks: Mapping[str, Callable[[Any, str], Any]] | None = None
             ) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Decorator: register a family function `(size, rng, *, options...) -> grid` under `name`.

    The description is the first line of the function's docstring; the options are its
    keyword-only parameters with their defaults; `checks` validate option values (see
    `GeneratorSpec`).
    """

    def decorate(function: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        if name in REGISTRY:
            raise RuntimeError(f"generator {name!r} registered twice")
        params = inspect.signature(function).parameters.values()
        options = {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}
        summary = (function.__doc__ or "").strip().splitlines()
        REGISTRY[name] = GeneratorSpec(
            name, summary[0] if summary else "", function, MappingProxyType(options),
            MappingProxyType(dict(checks or {}))
        )
        return function

    return decorate


def lookup(name: str) -> GeneratorSpec:
    """The spec registered under `name`; otherwise GeneratorError with the names and the closest."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        pass
    names = sorted(REGISTRY)
    raise GeneratorError(f"unknown generator {name!r} (known: {', '.join(names)})"
                         f"{did_you_mean(name, names)}")


def check_size(size: Any) -> Size:
    """Grid size `(H, W)` from anything `parse_size` reads (at most `limits.MAX_MAZE_CELLS`
    cells); odd sides >= 3, else GeneratorError."""
    try:
        h, w = parse_size(size)
    except MazeFormatError as err:
        raise GeneratorError(str(err)) from None
    if h < MIN_GRID or w < MIN_GRID or h % 2 == 0 or w % 2 == 0:
        raise GeneratorError(
            f"size {h}x{w}: a generated grid needs odd sides >= {MIN_GRID} "
            f"(rooms at odd coordinates inside a wall border, e.g. 31x31)"
        )
    return h, w


def check_fraction(value: Any, name: str) -> float:
    """`value` as a float in [0, 1] (a probability or share), else GeneratorError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise GeneratorError(f"{name}: {value!r} (allowed: a number in [0, 1])")
    return float(value)
