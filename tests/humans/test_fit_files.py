"""Reading a fit's tables back (`fit_output.fit_rows`, `fitted_row`: `fit --params` and
`predict --fit`): issue 33's hostile fit folders are one line each, and a fit's row must hold
every parameter of its model within its bounds."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from mazesim.errors import DataError
from mazesim.humans import fit_run, import_mst, load_human_run
from mazesim.humans.fitting.output import (FIT_CSV, PARTICIPANTS_CSV, RANKING_CSV, read_fitted,
                                       write_fit)
from mazesim.humans.predict.run import read_fit

HEADER = "model,agent,lapse,params\n"
WEIGHTS = {"du-0": 0, "du-0.5": 0, "du-0.7": 0, "du-0.9": 0, "du-1": 0, "log-steps": 0,
           "log-cells": 0, "revisit": 0, "reverse": 0}


def _cell(params) -> str:
    """`params` as a CSV cell of JSON text."""
    return '"' + (params if isinstance(params, str) else json.dumps(params)).replace(
        '"', '""') + '"'


def _fit(folder: Path, *rows: str, name: str = FIT_CSV, header: str = HEADER) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(header + "".join(r + "\n" for r in rows), encoding="utf-8")
    return folder


def _both(folder: Path, message: str) -> None:
    """Both readers of a fit refuse `folder` with `message` (a regular expression)."""
    for read in (read_fit, read_fitted):
        with pytest.raises(DataError, match=message) as err:
            read(folder)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("params, message", [
    ("{}", r"choice-model': missing parameter 'closed' \(the model's parameters: reverse, "),
    ('{"closed": 1}', "missing parameter 'frontier'"),
    ("", "missing parameter 'closed'"),
])
def test_missing_parameters_are_an_error_everywhere_a_fit_is_read(tmp_path, params, message):
    """Point 1: `predict --fit` walked the agent's defaults under the fit's label."""
    _both(_fit(tmp_path, f"choice-model,choice-model,0.1,{_cell(params)}"), message)
    _both(_fit(tmp_path, 'right-hand,right-hand,0.1,"{""x"": 1}"'),
          r"right-hand': unknown parameter 'x' \(the model's parameters: none\)")


def test_node_fit_parameters_are_checked_against_the_node_model(tmp_path):
    """Points 1 and 4: a node model's row needs its parameters within their bounds."""
    with pytest.raises(DataError, match=r"'du': missing parameter 'gamma'"):
        read_fit(_fit(tmp_path / "a", 'du,du,0.1,"{""tau"": 1}"'))
    with pytest.raises(DataError, match=r"'du': tau 9 \(allowed: 0.2 to 8\)"):
        read_fit(_fit(tmp_path / "b", 'du,du,0.1,"{""tau"": 9, ""gamma"": 0.5}"'))
    huge = {**WEIGHTS, "revisit": 1e308}
    with pytest.raises(DataError, match=r"'node-choice': revisit 1e\+308 \(allowed: -1000 to "
                                        r"1000\)"):
        read_fit(_fit(tmp_path / "c", f"node-choice,node-choice,0.1,{_cell(huge)}"))
    (model,) = read_fit(_fit(tmp_path / "d", f"node-choice,node-choice,0.1,{_cell(WEIGHTS)}"))
    assert model.level == "node"


def test_a_per_person_table_is_refused_as_parameters(tmp_path):
    """Point 3: `fit --params fit_participants.csv` scored every person's row as a model."""
    _fit(tmp_path, 'right-hand,s1,0.1,"{}",own', 'right-hand,s2,0.2,"{}",own',
         name=PARTICIPANTS_CSV, header="model,participant,lapse,params,fit\n")
    with pytest.raises(DataError, match=f"params {re.escape(str(tmp_path / PARTICIPANTS_CSV))}"
                                        ": a per-person table"):
        read_fitted(tmp_path / PARTICIPANTS_CSV)


def test_an_error_in_the_per_person_table_names_that_table(tmp_path):
    """Point 18: a bad own fit was reported against fit.csv."""
    _fit(tmp_path, 'finite-memory,finite-memory,0.1,"{""horizon"": 3}"')
    _fit(tmp_path, 'finite-memory,s1,0.1,"{""horizon"": -1}",own', name=PARTICIPANTS_CSV,
         header="model,participant,lapse,params,fit\n")
    with pytest.raises(DataError, match=re.escape(f"{tmp_path / PARTICIPANTS_CSV}: model "
                                                  "'finite-memory', participant 's1'")):
        read_fit(tmp_path)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("cell, message", [
    ('"{""horizon"": ' + "9" * 400 + '}"', r"an integer of 400 digits \(allowed: at most 64\)"),
    (_cell('{"horizon": ' + _deep(60_000) + "}"), "nested deeper than 64 levels"),
    (_cell('{"horizon": ' + _deep(100) + "}"), "params must map names to finite numbers"),
    ('"' + "x" * 200_000 + '"', r"row 1: field larger than field limit \(131072\)"),
])
def test_hostile_cells_are_one_line(tmp_path, cell, message):
    """Points 7, 8, 9: a long cell, a 400-digit parameter, deep nesting were tracebacks."""
    _both(_fit(tmp_path, f"finite-memory,finite-memory,0.1,{cell}"), message)


def test_a_deep_json_fit_is_one_line(tmp_path):
    """Point 9: `--params deep.json` ended in RecursionError; the ceiling of 64 applies."""
    for depth, message in ((60_000, "nested deeper than 64 levels"),
                           (70, "nested deeper than 64 levels")):
        (tmp_path / "deep.json").write_text('{"models": ' + _deep(depth) + "}")
        with pytest.raises(DataError, match=re.escape(f"params {tmp_path / 'deep.json'}: ")
                           + message):
            read_fitted(tmp_path / "deep.json")


@pytest.mark.parametrize("lapse", ["0_5", "\u0663", "nan", "inf", "1e400", "0x1", ""])
def test_a_lapse_is_plain_decimal_text(tmp_path, lapse):
    """Point 18: `0_5` read as 5.0 (then refused as a lapse), Arabic-Indic digits as digits."""
    _both(_fit(tmp_path, f'right-hand,right-hand,{lapse},"{{}}"'),
          "needs model, lapse and params")


def test_a_byte_order_mark_is_read_and_odd_files_are_named(tmp_path):
    """Point 18: a BOM read as "no column 'model'"; a folder, a FIFO and a symlink loop as
    "no such file"."""
    (tmp_path / "bom").mkdir()
    (tmp_path / "bom" / FIT_CSV).write_bytes(b"\xef\xbb\xbf" + (
        HEADER + 'right-hand,right-hand,0.25,"{}"\n').encode())
    assert read_fitted(tmp_path / "bom")[0][1].lapse == 0.25
    assert read_fit(tmp_path / "bom")[0].lapse == 0.25
    (tmp_path / "dir" / FIT_CSV).mkdir(parents=True)
    _both(tmp_path / "dir", "fit.csv: a directory, not a file")
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / FIT_CSV)
    _both(tmp_path / "fifo", "fit.csv: not a regular file")
    (tmp_path / "loop").mkdir()
    os.symlink(FIT_CSV, tmp_path / "loop" / FIT_CSV)
    _both(tmp_path / "loop", "fit.csv: cannot read \\(Too many levels of symbolic links\\)")


def test_a_fit_holds_at_most_50_models_read_at_once(tmp_path):
    """Point 14: a 2,000-row fit.csv took 144 s, 2.89 GB and a 135,027-pixel-high figure."""
    rows = [f'right-hand:max_steps={k},right-hand,0.1,"{{}}"' for k in range(10, 2010)]
    began = time.perf_counter()
    _both(_fit(tmp_path, *rows), r"more than 50 models \(allowed: at most 50")
    assert time.perf_counter() - began < 2
    (tmp_path / "many.json").write_text(json.dumps({"models": [
        {"model": "right-hand", "lapse": 0.1, "params": {}}] * 51}))
    with pytest.raises(DataError, match=r"51 models \(allowed: at most 50\)"):
        read_fitted(tmp_path / "many.json")


def test_a_fit_written_over_a_node_fit_leaves_no_ranking(write_mst, tmp_path):
    """Point 5: `fit -o D` over an earlier node fit's folder left its ranking.csv."""
    import_mst(write_mst(), tmp_path / "run")
    report = fit_run(load_human_run(tmp_path / "run"), ["right-hand"], folds=0, seed=0)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / RANKING_CSV).write_text("model,bits\nsteps,1.0\n")
    paths = write_fit(report, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths)
