"""Maze-file commands: analyze, solve, render (DESIGN.md sections 2 and 4)."""

from __future__ import annotations

import json

import click

from mazesim.analysis import DESCRIPTIONS, TUTORIAL_DFS_ORDER, dfs_path, parameters
from mazesim.analysis import shortest_path
from mazesim.cli import main
from mazesim.errors import SearchError
from mazesim.maze import read_maze
from mazesim.render import DEFAULT_SCALE, MAX_SCALE, maze_image, maze_text, save_image

__all__ = ["analyze", "solve", "render"]

_MAZE_FILE = click.Path(dir_okay=False)  # read_maze reports a missing file in one line


@main.command()
@click.argument("maze_file", type=_MAZE_FILE)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyze(maze_file, as_json):
    """Print the study's parameters of a maze file (null/- when the goal is unreachable)."""
    values = parameters(read_maze(maze_file))
    if as_json:
        click.echo(json.dumps(values))
        return
    width = max(map(len, values))
    for name, value in values.items():
        shown = "-" if value is None else f"{value:.4g}" if isinstance(value, float) else value
        click.echo(f"{name:<{width}}  {shown:>8}  {DESCRIPTIONS[name]}")


@main.command()
@click.argument("maze_file", type=_MAZE_FILE)
@click.option("--method", type=click.Choice(["bfs", "dfs"]), default="bfs", show_default=True,
              help="bfs: the canonical shortest route; dfs: the route a DFS returns.")
@click.option("--order", help="DFS neighbour order [default: "
              f"{','.join(TUTORIAL_DFS_ORDER)}, the tutorial's].")
@click.option("--json", "as_json", is_flag=True, help='Print {"moves": N, "path": [[r, c], ...]}.')
def solve(maze_file, method, order, as_json):
    """Solve a maze file: print it with the route as `*` and the number of moves."""
    maze = read_maze(maze_file)
    if order and method != "dfs":
        raise SearchError("--order applies only to --method dfs")
    path = dfs_path(maze, order or TUTORIAL_DFS_ORDER) if method == "dfs" else shortest_path(maze)
    if as_json:
        click.echo(json.dumps({"moves": len(path) - 1, "path": path.tolist()}))
    else:
        click.echo(maze_text(maze, path=path) + f"moves: {len(path) - 1}")


@main.command()
@click.argument("maze_file", type=_MAZE_FILE)
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="PNG file to write.")
@click.option("--path", "with_path", is_flag=True, help="Draw the shortest route.")
@click.option("--scale", type=click.IntRange(1, MAX_SCALE), default=DEFAULT_SCALE,
              show_default=True, help="Pixels per cell.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"output": ..., "width": px, "height": px, "scale": ..., "moves": N '
                   'of the route drawn or null}.')
def render(maze_file, output, with_path, scale, as_json):
    """Draw a maze file as a PNG (walls black, passages white, S green, G magenta)."""
    maze = read_maze(maze_file)
    path = shortest_path(maze) if with_path else None
    image = maze_image(maze, path=path, scale=scale)
    save_image(image, output)
    moves = None if path is None else len(path) - 1
    if as_json:
        click.echo(json.dumps({"output": output, "width": image.width, "height": image.height,
                               "scale": scale, "moves": moves}))
        return
    click.echo(f"wrote {output}: {image.width}x{image.height} pixels, {scale} per cell"
               + ("" if moves is None else f", the shortest route ({moves} moves)"))
