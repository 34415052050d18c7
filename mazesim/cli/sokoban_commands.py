"""The `sokoban` command: solve one level of an XSB file (DESIGN.md section 10)."""

from __future__ import annotations

import json

import click

from mazesim.cli import main, say_compiling
from mazesim.errors import printable
from mazesim.search.sokoban import METHODS, PRUNES, SokobanResult, read_level, solve

__all__ = ["sokoban"]


@main.command()
@click.argument("level_file", type=click.Path(dir_okay=False))  # the reader names a missing file
@click.option("--level", "number", type=click.IntRange(min=1), default=1, show_default=True,
              help="Level number in the file (1-based).")
@click.option("--method", type=click.Choice(METHODS), default="astar", show_default=True,
              help="bfs: move-optimal; astar: push-optimal A* (with --time-limit, greedy search "
                   "takes over late: then not optimal).")
@click.option("--prune", type=click.Choice(PRUNES), default=None,
              help="Deadlock pruning (default: dead-squares for bfs, full for astar).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds before giving up, set-up included; a first run compiles kernels "
                   "before the clock starts (default: none; astar then runs A* forward only).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def sokoban(level_file: str, number: int, method: str, prune: str | None,
            time_limit: float | None, as_json: bool) -> None:
    """Solve a Sokoban level: moves, pushes, the LURD solution, states explored and time."""
    from mazesim.jit import compiling

    with compiling(say_compiling):               # on a terminal, a first run says it compiles
        level = read_level(level_file, number)
        result = solve(level, method=method, prune=prune, time_limit=time_limit,
                       notice=say_compiling)
    click.echo(json.dumps(result.to_dict()) if as_json else _text(printable(level.source), result))


def _text(source: str, result: SokobanResult) -> str:
    cost = f"{result.states:,} states explored, {result.seconds:.3f} s"
    if result.timed_out:
        return f"{source}: not solved within the time limit ({cost})"
    if not result.solved:
        return f"{source}: no solution: the level is unsolvable ({cost})"
    kind = {"bfs": "move-optimal", "astar": "push-optimal"}[result.method] if result.optimal \
        else "not proven optimal"
    stage = "" if result.stage is None else f"\nstage: {result.stage}"
    return (f"{source}: solved ({kind})\nmoves: {result.moves}\npushes: {result.pushes}\n"
            f"solution: {result.solution}\nstates: {cost}{stage}")
