"""The `tree` command: the decision tree of observation nodes of a maze (DESIGN.md section 11,
`mazesim.agents.trees`), as JSON, a summary line and a picture."""

from __future__ import annotations

import json

import click

from mazesim.cli import main
from mazesim.cli._options import VISION, LibraryDefault, wrote
from mazesim.render import MAX_SCALE, TREE_SCALE

__all__ = ["tree"]


@main.command()
@click.argument("maze_file", type=click.Path(dir_okay=False))
@click.option("--vision", type=VISION,
              default=LibraryDefault("mazesim.agents.vision", "SWEEP_VISION"), show_default=True,
              help="The tree's vision: the authors' quadrant sweep, or any limited vision with "
                   "the map known, as a label ('isovist 10, map known', '2, map known') or "
                   "key=value pairs (isovist=10,map=known).")
@click.option("--merged", is_flag=True,
              help="The graph instead: nodes reached in equal states (the cell and the cells "
                   "still dark) merged, as the node models use it; the same values and cuts as "
                   "the tree's, on maps where the tree passes its ceiling.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: every node (index, name, cell, parent, depth, steps, "
                   "steps from the root, path, cells revealed and their count, remaining dark "
                   "cells, children; merged: its state) and the numbers of states and "
                   "decisions.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Also draw the tree over its map (PNG): dark floor grey, nodes as dots, "
                   "each child's path from its parent as a line, decision nodes ringed.")
@click.option("--scale", type=click.IntRange(1, MAX_SCALE), default=TREE_SCALE,
              show_default=True, help="Pixels per cell of the picture.")
def tree(maze_file, vision, merged, as_json, output, scale):
    """The decision tree of MAZE_FILE (or with --merged its graph): a mazesim maze (text or
    .json) or a Maze Search Task map (width, height, rows of codes), told apart by its first
    line."""
    from mazesim.agents.trees import decision_tree, maze_name
    from mazesim.humans.data.sources import read_any_maze
    from mazesim.render import save_image
    from mazesim.walks.pictures import decision_tree_image

    built = decision_tree(read_any_maze(maze_file), vision, merged=merged)
    if output:
        save_image(decision_tree_image(built, scale=scale), output)
    if as_json:
        click.echo(json.dumps(built.to_json()))
        return
    nodes = [built.nodes[k] for k in built.states()]
    counts = f"{len(built):,} nodes, " + (f"{len(nodes):,} states, " if merged else "")
    click.echo(f"{maze_name(built.maze)} ({built.vision}{', merged' if merged else ''}): "
               f"{counts}{sum(len(n.children) >= 2 for n in nodes):,} decisions, "
               f"{sum(not n.children for n in nodes):,} leaves, depth {max(built.levels())}")
    if output:
        wrote([output])
