"""Generator commands: generate, generators (DESIGN.md section 3).

Apart from the maze-file commands so that `generate` imports no analysis, drawing or numba: one
small maze runs its kernels as Python, quicker than loading numba (`mazesim.jit.one_run`).
"""

from __future__ import annotations

import json

import click

from mazesim.cli import main
from mazesim.cli._options import SEED, parse_params
from mazesim.maze import format_maze, maze_to_json, write_maze

__all__ = ["generate", "generators"]


@main.command()
@click.argument("algorithm")
@click.option("--size", default="31x31", metavar="HxW", show_default=True,
              help="Grid size HxW (odd; 31x31 = 15 x 15 rooms, the study's size).")
@click.option("--seed", type=SEED, required=True, help="Root seed: same seed, same maze.")
@click.option("--braid", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Share of dead ends opened into loops.")
@click.option("--placement", default="corners", show_default=True,
              metavar="corners|random|farthest", help="Where S and G go.")
@click.option("-p", "--param", "params", multiple=True, metavar="KEY=VALUE",
              help="Generator option (repeatable).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write here (JSON with metadata if it ends in .json) instead of stdout, and "
                   "say so.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the maze as one JSON object (rows and metadata, the .json format).")
def generate(algorithm, size, seed, braid, placement, params, output, as_json):
    """Generate a maze with ALGORITHM (see `mazesim generators`)."""
    from mazesim.generators import check_size, generate as make
    from mazesim.jit import one_run

    h, w = check_size(size)
    with one_run((h, w)):
        maze = make(algorithm, size, seed=seed, braid=braid, placement=placement,
                    **parse_params(params))
    if output:
        write_maze(maze, output)
    if as_json:
        click.echo(json.dumps(maze_to_json(maze)))
    elif output:
        click.echo(f"wrote {output}: {maze.shape[0]}x{maze.shape[1]} {algorithm} maze, seed "
                   f"{seed}, S {maze.start}, G {maze.goal}")
    else:
        click.echo(format_maze(maze), nl=False)


@main.command()
@click.option("--json", "as_json", is_flag=True,
              help='Print {name: {"description": ..., "options": {option: default}}}.')
def generators(as_json):
    """List the maze generators with one-line descriptions."""
    from mazesim.generators import GENERATORS

    if as_json:
        click.echo(json.dumps({name: {"description": spec.description,
                                      "options": dict(spec.options)}
                               for name, spec in GENERATORS.items()}))
        return
    width = max(map(len, GENERATORS))
    for name, spec in GENERATORS.items():
        click.echo(f"{name:<{width}}  {spec.description}")
