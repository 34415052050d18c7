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
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from mazesim.agents.trees import DecisionTree, Node
from mazesim.errors import DataError
from mazesim.humans.data.sources import read_mst_maze
from mazesim.maze import Cell

__all__ = ["TREE_TABLE", "DECISION_TABLE", "EXCLUDED", "PeerNode", "read_peer_trees",
           "read_peer_decisions",
           "FIT_TABLE", "PEER_MODELS", "PeerValues", "PeerFit", "read_peer_values",
           "read_peer_fits"]

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
    rows = _records(path)
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
    rows = _records(path)
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


# --- The authors' model tables: values/MODEL.csv and fit_models.csv ---------------------------

FIT_TABLE = "fit_models.csv"
VALUES_FOLDER = "values"
PEER_MODELS: Mapping[str, tuple[str, str]] = {
    "eu": ("Expected_Utility", "EU"), "du": ("Discounted_Utility", "DU"),
    "pw": ("Probability_Weighted_Utility", "PW"), "pw-du": ("PW_DU", "PW_DU"),
    "steps": ("Heuristic_Steps", "Steps"), "cells": ("Heuristic_Cells", "Cells"),
    "steps-cells": ("Heuristic_Steps_Cells", "Steps-Cells"), "random": ("Random", "Random")}
"""Our node models (`mazesim.agents.node_models`) by the authors' names: the stem of their
value table and their label in `fit_models.csv`."""
_VALUE_PREFIX = "value_"
_KEYS = ("world", "node", "child")
_GRID_NAMES = {1: ("tau",), 2: ("tau", "k"), 3: ("tau", "gamma", "beta")}   # their R code's
_FIT_PARAMS = ("tau", "gamma", "beta", "k")
_NA = "NA"


@dataclass(frozen=True, eq=False)
class PeerValues:
    """One model's value table: a row per (world, decision node, child), the table's order;
    `grid` the parameter values of each column (from the headers `value_tau_gamma_beta` or
    `value_tau_k`; the random model's one column is tau = 1), `probabilities` (rows, columns)
    as printed (4 decimals)."""

    world: tuple[str, ...]
    node: tuple[str, ...]
    child: tuple[str, ...]
    grid: Mapping[str, np.ndarray]
    probabilities: np.ndarray


@dataclass(frozen=True)
class PeerFit:
    """One row of `fit_models.csv`: the authors' label of the model, the person, their
    cross-validated log-likelihood (natural log, summed over the test folds) and the fitted
    parameters (means over the five folds' choices; NaN where the model has none)."""

    model: str
    subject: str
    ll: float
    tau: float
    gamma: float
    beta: float
    k: float


def read_peer_values(peer: str | Path, model: str) -> PeerValues:
    """The authors' table `peer/values/STEM.csv` of our node model `model` (a key of
    `PEER_MODELS`)."""
    if model not in PEER_MODELS:
        raise DataError(f"no table of the authors for model {model!r} (they have: "
                        f"{', '.join(PEER_MODELS)})")
    path = Path(peer) / VALUES_FOLDER / f"{PEER_MODELS[model][0]}.csv"
    header, rows = _table(path)
    columns = header[len(_KEYS):]
    if tuple(header[:len(_KEYS)]) != _KEYS or not columns or not all(
            c.startswith(_VALUE_PREFIX) for c in columns):
        raise DataError(f"{path}:1: header {','.join(header[:4])},... (allowed: "
                        f"{','.join(_KEYS)},value_...)")
    points = [c[len(_VALUE_PREFIX):].split("_") for c in columns]
    names = _GRID_NAMES.get(len(points[0]))
    if names is None or any(len(p) != len(names) for p in points):
        raise DataError(f"{path}:1: value columns of {len(points[0])} parameters (allowed: "
                        "1 to 3, the same in every column)")
    grid = {name: np.array([_number(p[i], path, 1) for p in points])
            for i, name in enumerate(names)}
    values = np.array([[_number(v, path, line) for v in row[len(_KEYS):]]
                       for line, row in enumerate(rows, start=2)])
    return PeerValues(*(tuple(row[i] for row in rows) for i in range(len(_KEYS))),
                      grid, values.reshape(len(rows), len(columns)))


def read_peer_fits(peer: str | Path) -> list[PeerFit]:
    """Every row of `peer/fit_models.csv`, in the table's order."""
    path = Path(peer) / FIT_TABLE
    header, rows = _table(path)
    missing = [key for key in ("model", "subject", "LL", *_FIT_PARAMS) if key not in header]
    if missing:
        raise DataError(f"{path}:1: no column {missing[0]!r}")
    at = {key: header.index(key) for key in ("model", "subject", "LL", *_FIT_PARAMS)}
    return [PeerFit(row[at["model"]], row[at["subject"]],
                    *(_number(row[at[key]], path, line) for key in ("LL", *_FIT_PARAMS)))
            for line, row in enumerate(rows, start=2)]


def _records(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file as mappings from its header's names."""
    header, rows = _table(path)
    return [dict(zip(header, row)) for row in rows]


def _table(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV file, every row as long as the header."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            header, *rows = list(csv.reader(handle))
    except OSError as err:
        raise DataError(f"{path}: cannot read ({err.strerror or err})") from None
    except ValueError:
        raise DataError(f"{path}: empty file") from None
    for line, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise DataError(f"{path}:{line}: {len(row)} fields (the header has {len(header)})")
    return header, rows


def _number(text: str, path: Path, line: int) -> float:
    if text == _NA:
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise DataError(f"{path}:{line}: {text!r} is not a number (or NA)") from None
