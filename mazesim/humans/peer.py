"""The Maze Search Task authors' own tables (their `csv_files/`), read for comparison.

Kryven et al. (2024) computed, with their own code, the decision tree of every map
(`tree_builder.csv`), every person's node decisions (`subject_decisions_with_values.csv`), their
models' choice probabilities over parameter grids (`values/MODEL.csv`) and each person's fit
(`fit_models.csv`). mazesim builds all of these itself; these readers exist so that tests and
write-ups can set the two side by side. Positions in the authors' tables are (x, y) = (column,
row); they are turned into (row, col) here.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from mazesim.agents.trees import DecisionTree, Node
from mazesim.errors import DataError
from mazesim.humans.sources import read_mst_maze
from mazesim.maze import Cell

__all__ = ["TREE_TABLE", "read_peer_trees"]

TREE_TABLE = "tree_builder.csv"
_POINT = re.compile(r"p?\((\d+),\s*(\d+)\)")
_ROOT_PARENT = "NA"


def read_peer_trees(peer: str | Path, mazes: str | Path) -> dict[str, DecisionTree]:
    """The authors' tree of every map in `peer/tree_builder.csv`, over the map files in the
    folder `mazes` (`NAME.txt`, the Maze Search Task format), by map name; nodes in the
    table's order (breadth-first), named by their NID."""
    path = Path(peer) / TREE_TABLE
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as err:
        raise DataError(f"{path}: cannot read ({err.strerror or err})") from None
    by_world: dict[str, list[dict]] = {}
    for row in rows:
        by_world.setdefault(row["world"], []).append(row)
    return {world: _tree(world, table, Path(mazes) / f"{world}.txt")
            for world, table in by_world.items()}


def _tree(world: str, rows: list[dict], maze_file: Path) -> DecisionTree:
    names = [row["NID"] for row in rows]
    index = {name: k for k, name in enumerate(names)}
    children: dict[int, list[int]] = {k: [] for k in range(len(rows))}
    for k, row in enumerate(rows):
        if row["PARENTID"] != _ROOT_PARENT:
            children[index[row["PARENTID"]]].append(k)
    nodes = []
    for k, row in enumerate(rows):
        distances = tuple(sorted(int(v) for v in row["cellDistances"].split(",") if v.strip()))
        nodes.append(Node(
            cell=_cells(row["nodeLocation"])[0],
            parent=-1 if row["PARENTID"] == _ROOT_PARENT else index[row["PARENTID"]],
            path=tuple(_cells(row["pathFromParent"])),
            revealed=(), distances=distances, remaining=int(row["blackremains"]),
            depth=int(row["depth"]), steps_from_root=int(row["stepsFromRoot"]),
            children=tuple(children[k]), name=row["NID"]))
    return DecisionTree(read_mst_maze(maze_file), tuple(nodes))


def _cells(text: str) -> list[Cell]:
    """(row, col) of each `p(x, y)` or `(x, y)` in `text`."""
    return [(int(y), int(x)) for x, y in _POINT.findall(text)]
