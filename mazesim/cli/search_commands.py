"""Search commands: knight, terrain, chase (DESIGN.md section 10)."""

from __future__ import annotations

import json
import math

import click
import numpy as np

from mazesim.cli import main
from mazesim.cli._options import CELL, SEED, wrote
from mazesim.errors import LevelError
from mazesim.maze import read_maze
from mazesim.search.knight import MAX_PATH_BOARD, knight_distance, knight_path
from mazesim.search.pursuit import CHASER_NAMES, chase as run_chase, chase_scene, chase_text, \
    place_chasers
from mazesim.search.terrain import CONVENTIONS, cost_to_goal, read_costs, terrain_route

__all__ = ["knight", "terrain", "chase"]

_FILE = click.Path(dir_okay=False)  # the readers report a missing file in one line
_DEFAULT_CHASE_SEED = 0


@main.command()
@click.option("--board", type=click.IntRange(min=1), required=True, help="Board size N (N x N).")
@click.option("--from", "source", type=CELL, required=True, help="Start square R,C (1-based).")
@click.option("--to", "target", type=CELL, required=True, help="Target square R,C (1-based).")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"moves": N, "path": [[r, c], ...]} (1-based squares).')
def knight(board, source, target, as_json):
    """Fewest knight moves between two squares (any N; the path up to N = 100)."""
    a, b = _square(board, source, "--from"), _square(board, target, "--to")
    report = {"moves": knight_distance(board, a, b)}
    if board <= MAX_PATH_BOARD:
        report["path"] = [[r + 1, c + 1] for r, c in knight_path(board, a, b)]
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(f"moves: {report['moves']}")
    if "path" in report:
        click.echo("path: " + " ".join(f"({r},{c})" for r, c in report["path"]))


@main.command()
@click.argument("costs_file", type=_FILE)
@click.option("--from", "start", type=CELL, required=True, help="Start cell R,C (0-based).")
@click.option("--to", "goal", type=CELL, required=True, help="Goal cell R,C (0-based).")
@click.option("--convention", type=click.Choice(CONVENTIONS), default="enter",
              show_default=True, help="Which cells a route pays for: each cell it enters (the goal, not the start), "
                   "or each it leaves (the start, not the goal).")
@click.option("--table", "with_table", is_flag=True, help="Also print the cost-to-goal table.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"cost": C, "route": [[r, c], ...]} (+ "table" with --table).')
def terrain(costs_file, start, goal, convention, with_table, as_json):
    """Least-cost route over a terrain-cost grid (CSV or whitespace text; inf or # impassable)."""
    costs = read_costs(costs_file)
    cost, route = terrain_route(costs, start, goal, convention=convention)
    report = {"cost": _number(cost), "route": [list(cell) for cell in route]}
    if with_table:
        table = cost_to_goal(costs, goal, convention=convention)
        report["table"] = [[_number(v) for v in row] for row in table.tolist()]
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(f"cost: {report['cost']}")
    click.echo("route: " + " ".join(f"({r},{c})" for r, c in route))
    if with_table:
        click.echo(_table_text(report["table"]))


@main.command()
@click.argument("maze_file", type=_FILE)
@click.option("--chasers", type=click.IntRange(0, len(CHASER_NAMES)), required=True,
              help="Number of chasers, placed at random passage cells (drawn A, B, ...).")
@click.option("--steps", type=click.IntRange(min=0), required=True, help="Steps to run.")
@click.option("--seed", type=SEED, default=_DEFAULT_CHASE_SEED, show_default=True,
              help="Seed of the placement (and of the player's walk with --wander).")
@click.option("--wander", is_flag=True, help="The player (at S) walks at random; else stays.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Draw a PNG (chasers' tracks as a heat map) instead of printing the maze.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"steps": T, "player": [r, c], "chasers": [{"name", "cell", '
                   '"distance", "caught"}, ...]} (null: no route / never caught).')
def chase(maze_file, chasers, steps, seed, wander, output, as_json):
    """Chasers that each step one cell down a distance map from the player at S, until they
    catch the player or STEPS run out."""
    maze = read_maze(maze_file)
    rng = np.random.default_rng(seed)
    cells = place_chasers(maze, chasers, rng, avoid=maze.start)
    result = run_chase(maze, maze.start, cells, steps, rng if wander else None)
    report = result.to_dict()
    if output:
        _draw_chase(maze, result, output)
    text = json.dumps(report) if as_json else _chase_text(maze, report, not output)
    if text:                                   # nothing to say: a picture of no chasers
        click.echo(text)
    if output and not as_json:
        wrote([output])


def _chase_text(maze, report: dict, picture: bool) -> str:
    """The final position (as a picture unless drawn to a file) and one line per chaser."""
    lines = []
    if picture:
        final = [chaser["cell"] for chaser in report["chasers"]]
        lines.append(chase_text(maze, tuple(report["player"]), final).rstrip("\n"))
    for chaser in report["chasers"]:
        (r, c), state = chaser["cell"], _chaser_state(chaser["distance"], chaser["caught"])
        lines.append(f"{chaser['name']} ({r},{c}): {state}")
    return "\n".join(lines)


def _chaser_state(dist: int | None, caught: int | None) -> str:
    if dist is None:
        return "no route to the player"
    if dist == 0:
        return f"caught at step {caught}"
    return f"{dist} move{'' if dist == 1 else 's'} away"


def _square(board: int, square: tuple[int, int], option: str) -> tuple[int, int]:
    """A 1-based square of the command line as a 0-based cell."""
    if not all(1 <= v <= board for v in square):
        raise LevelError(f"{option}: square {square[0]},{square[1]} is off the {board}x{board} "
                         f"board (rows and columns 1..{board})")
    return square[0] - 1, square[1] - 1


def _number(value: float) -> float | int | None:
    """Whole costs as ints, unreachable (inf) as None: JSON has no infinity."""
    if math.isinf(value):
        return None
    return int(value) if value == int(value) else value


def _table_text(rows: list[list]) -> str:
    shown = [["-" if v is None else str(v) for v in row] for row in rows]
    width = max(len(v) for row in shown for v in row)
    return "\n".join(" ".join(v.rjust(width) for v in row) for row in shown)


def _draw_chase(maze, result, output: str) -> None:
    from mazesim.render import maze_image, save_image

    scene, visits = chase_scene(maze, result)
    save_image(maze_image(scene, visits=visits), output)
