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
from dataclasses import dataclass
from pathlib import Path

from mazesim.agents.trees import DecisionTree, Node
from mazesim.errors import DataError
from mazesim.humans.sources import read_mst_maze
from mazesim.maze import Cell

__all__ = ["TREE_TABLE", "DECISION_TABLE", "EXCLUDED", "PeerNode", "read_peer_trees",
           "read_peer_decisions"]

TREE_TABLE = "tree_builder.csv"
DECISION_TABLE = "subject_decisions_with_values.csv"
EXCLUDED = ("S43329812", "S69282470", "S26848889")
"""The people the authors left out of experiment 1 (they failed the practice quiz more than
twice; `R_model_fitting/load_data.R`)."""
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


@dataclass(frozen=True)
class PeerNode:
    """One node a person passed in the authors' table: who, which map, the node (NID), the
    children on offer (NIDs, in the table's order), the child taken, and the cells the person
    walked from the previous node to this one (the table's `path`, read as (x, y) like every
    position of the authors; at the root it is the start alone, which the table writes as
    (row, col): the reader leaves it as written)."""

    subject: str
    world: str
    node: str
    children: tuple[str, ...]
    chosen: str
    path: tuple[Cell, ...]


def read_peer_decisions(peer: str | Path) -> list[PeerNode]:
    """Every node of every person in `peer/subject_decisions_with_values.csv`, in the table's
    order (nodes with one child included: a decision is a node with two or more)."""
    path = Path(peer) / DECISION_TABLE
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as err:
        raise DataError(f"{path}: cannot read ({err.strerror or err})") from None
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["subject"], row["world"], row["nodeName"]), []).append(row)
    out = []
    for (subject, world, node), table in groups.items():
        chosen = [row["availableChildName"] for row in table if row["chosen"] == "TRUE"]
        if len(chosen) != 1:
            raise DataError(f"{path}: {subject} {world} {node}: {len(chosen)} children chosen")
        out.append(PeerNode(subject, world, node,
                            tuple(row["availableChildName"] for row in table), chosen[0],
                            tuple(_cells(table[0]["path"]))))
    return out


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
