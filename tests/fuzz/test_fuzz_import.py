"""Fuzz the readers and the importer of recorded trajectories (`mazesim import`): any long CSV,
Maze Search Task table or map gives a result or one MazesimError line, in bounded time and
memory, and an import that fails leaves no run directory.

Inputs: valid files with one field replaced by a hostile value (other digits, huge numbers,
quotes, separators, a BOM), random text over each format's alphabet, and valid walks whose
import must give back exactly the cells written.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.humans.data.importer import import_source
from mazesim.humans.data.sources import read_csv, read_mst, read_mst_maze

from fuzz_support import EXAMPLES, FUZZ, result_or_error

CORRIDOR = "#######\n#S.A.G#\n###.###\n#######\n"
MAP = "5\n4\n33533\n06660\n03330\n23330\n"
CSV_ROWS = [["participant", "maze", "trial", "step", "row", "col", "t_ms"]] + [
    ["p", "m", "1", str(k), "1", str(k + 1), "" if k == 0 else "250"] for k in range(5)]
MST_ROWS = [["subject", "world", "trialNo", "steps", "path", "times"],
            ["s1", "fork", "1", "5", "p(2,0)p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);",
             "900;500;400;300;200;"],
            ["s2", "fork", "2", "3", "p(2,0)p(2,1);p(3,1);p(2,1);", "1;1;1;"]]
HOSTILE = st.one_of(
    st.sampled_from(["", " ", "-1", "0", "١", "٣", "²", "２", "0_3", "1e3", "nan", "inf",
                     "9" * 30, str(2**63), str(-2**63 - 1), '"', '"x', "x\"y", ",", "\t",
                     "\n", "\r\n", "\ufeff", ";", "p(1,1)", "p(١,١)", f"p({10**20},1)",
                     "p(1,1)p(1,1)", "../m", "m\x00", "\u202e", "x" * 5000]),
    st.text(max_size=12))


def _table(rows: list[list[str]], sep: str) -> str:
    return "".join(sep.join(row) + "\n" for row in rows)


@st.composite
def _mutated(draw, rows, sep):
    rows = [list(row) for row in rows]
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(rows) - 1))
        c = draw(st.integers(0, len(rows[r])))
        value = draw(HOSTILE)
        if c == len(rows[r]):
            rows[r].append(value)                   # a field beyond the header
        else:
            rows[r][c] = value
    if draw(st.booleans()):
        rows.append(list(draw(st.sampled_from(rows))))      # a duplicated row
    return draw(st.sampled_from(["", "\ufeff", "\n\n"])) + _table(rows, sep)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-import")
    (root / "mazes").mkdir()
    (root / "mazes" / "m.txt").write_text(CORRIDOR)
    (root / "mst" / "mazes").mkdir(parents=True)
    (root / "mst" / "mazes" / "fork.txt").write_text(MAP)
    return root


def _import_or_error(source_of, run):
    """Read and import; on any error, no run directory is left."""
    shutil.rmtree(run, ignore_errors=True)
    result = result_or_error(lambda: import_source(source_of(), run, skip_invalid=True))
    if isinstance(result, Exception):
        assert not run.exists()
    return result


@FUZZ
@given(text=st.one_of(_mutated(CSV_ROWS, ","), st.text(
    alphabet=st.sampled_from(list('pm01,9"\n\r \ufeff١²-_')), max_size=300)))
def test_long_csvs(folders, text):
    (folders / "walks.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
    _import_or_error(lambda: read_csv(folders / "walks.csv", folders / "mazes"),
                     folders / "run")


@FUZZ
@given(text=_mutated(MST_ROWS, "\t"))
def test_mst_tables(folders, text):
    (folders / "mst" / "plandata.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
    _import_or_error(lambda: read_mst(folders / "mst"), folders / "run")


@FUZZ
@given(text=st.one_of(
    st.text(alphabet=st.sampled_from(list("0235634\n\r ²٣\ufeff")), max_size=120),
    st.lists(st.sampled_from(["5", "4", "5000", "0", "99999", "²", "٤", "33533", "06660",
                              "23330", "5002", "x", "", "\ufeff4", "3" * 6000]),
             max_size=7).map("\n".join)))
def test_mst_maps(folders, text):
    (folders / "map.txt").write_text(text, encoding="utf-8", errors="surrogatepass")
    result_or_error(lambda: read_mst_maze(folders / "map.txt"))


@settings(FUZZ, max_examples=min(EXAMPLES, 40))          # a whole import each
@given(moves=st.lists(st.sampled_from([-1, 1]), max_size=30), order=st.randoms())
def test_a_valid_walk_comes_back_cell_for_cell(folders, moves, order):
    """Any walk along the corridor, its rows in any order, imports as exactly those cells."""
    cols = [1]
    for move in moves:
        if cols[-1] == 5:                            # G ends the walk
            break
        cols.append(min(max(cols[-1] + move, 1), 5))
    cols = [c for k, c in enumerate(cols) if k == 0 or c != cols[k - 1]]
    rows = [f"p,m,3,{k},1,{c}\n" for k, c in enumerate(cols)]
    order.shuffle(rows)
    (folders / "walks.csv").write_text("participant,maze,trial,step,row,col\n" + "".join(rows))
    (rec,) = read_csv(folders / "walks.csv", folders / "mazes").recordings
    assert np.array_equal(rec.positions, [[1, c] for c in cols])
    summary = _import_or_error(lambda: read_csv(folders / "walks.csv", folders / "mazes"),
                               folders / "run")
    assert (summary.trials, summary.unfinished) == (1, int(cols[-1] != 5))
