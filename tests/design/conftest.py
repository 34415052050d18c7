"""Fixtures of the design tests: a node-level fit folder written by hand, as `mazesim fit
--level node --protocol peer -o` writes its two tables."""

import json

import pytest
from click.testing import CliRunner

PEOPLE = {
    "steps": [{"tau": 0.2}, {"tau": 0.391}],
    "cells": [{"tau": 0.2}, {"tau": 0.28}],
    "du": [{"tau": 0.547, "gamma": 0.5}, {"tau": 1.07, "gamma": 0.9}],
}


@pytest.fixture()
def fit_dir(tmp_path):
    folder = tmp_path / "fit"
    folder.mkdir()
    pooled = ["model,agent,lapse,params"] + [f"{m},{m},0.0,{_cell(p[0])}"
                                             for m, p in PEOPLE.items()]
    own = ["model,participant,lapse,params,fit"] + [
        f"{m},P{i},0.0,{_cell(params)},own" for m, p in PEOPLE.items()
        for i, params in enumerate(p)]
    (folder / "fit.csv").write_text("\n".join(pooled) + "\n")
    (folder / "fit_participants.csv").write_text("\n".join(own) + "\n")
    return folder


def _cell(params):
    return '"' + json.dumps(params).replace('"', '""') + '"'


@pytest.fixture()
def runner():
    return CliRunner()
