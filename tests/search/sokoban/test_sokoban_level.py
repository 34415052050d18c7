"""Sokoban levels: XSB parsing, validation errors with their place, the board, verify_solution."""

import tracemalloc
from pathlib import Path

import pytest

from mazesim.errors import LevelError
from mazesim.search.sokoban import level as level_module
from mazesim.search.sokoban.level import (MAX_LEVEL_FILE_BYTES, format_level, parse_levels,
                                          read_level, read_levels, verify_solution)

DATA = Path(__file__).parents[2] / "data"
TUTORIAL = DATA / "sokoban_tutorial_9x6.txt"

TWO_LEVELS = """\
; a collection
; with a header

; First
####
#@$.#
####

#####
#+*-#
#_$ #
 ####
; Second
"""


def test_tutorial_level():
    (level,) = read_levels(TUTORIAL)
    assert level.player == (3, 6)
    assert sorted(level.boxes) == [(2, 2), (2, 6)]        # the tutorial's printed sets
    assert sorted(level.goals) == [(4, 2), (4, 5)]
    assert level.shape == (6, 9)
    assert level.title.startswith("The 9x6 example level")
    assert level.text() == TUTORIAL.read_text().split("\n", 1)[1]


def test_many_levels_titles_floor_and_ragged_rows():
    first, second = parse_levels(TWO_LEVELS, "two.txt")
    assert first.title == "First"                          # a ; line directly before
    assert second.title == "Second"                        # a ; line directly after
    assert first.shape == (3, 5) and first.rows[0] == "#### "
    assert second.player == (1, 1) and second.goals == {(1, 1), (1, 2)}
    assert second.boxes == {(1, 2), (2, 2)}
    assert second.source == "two.txt: level 2"
    assert format_level(second, second.player, second.boxes) == "#####\n#+* #\n# $ #\n ####\n"


@pytest.mark.parametrize("text, match", [
    ("####\n#@$.#\n#%###\n", r"bad.txt:3:2: unknown character '%'"),
    ("#####\n#@$ #\n#####\n", r"bad.txt: level 1 \(line 1\): 1 boxes but 0 goals"),
    ("#####\n# $.#\n#####\n", r"bad.txt: level 1 \(line 1\): no player"),
    ("######\n#@$.@#\n######\n", r"bad.txt:2:5: second player in level 1"),
    ("#####\n#@ .#\n#####\n", r"bad.txt: level 1 \(line 1\): no boxes"),
    ("; t\n#####\n#@$. \n#####\n", r"bad.txt:3:4: level 1 is not closed"),
    ("#####\n#@$.#\n## ##\n", r"bad.txt:3:3: level 1 is not closed"),
    ("###\n#@$.#\n#####\n", r"bad.txt:2:4: level 1 is not closed"),   # ragged: above the row end
    ("; only a comment\n", r"bad.txt: no level found"),
])
def test_validation_errors_name_the_place(text, match):
    with pytest.raises(LevelError, match=match):
        parse_levels(text, "bad.txt")


def test_error_names_the_level_number_in_a_collection():
    text = TWO_LEVELS + "\n######\n#@$$.#\n######\n"
    with pytest.raises(LevelError, match=r"level 3 \(line 15\): 2 boxes but 1 goals"):
        parse_levels(text, "set.txt")


def test_read_level_number_and_missing_file(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(TWO_LEVELS)
    assert read_level(path, 2).title == "Second"
    with pytest.raises(LevelError, match=r"two.txt: no level 3 \(the file has 2: 1 to 2\)"):
        read_level(path, 3)
    with pytest.raises(LevelError, match=r"missing.txt: no such file"):
        read_levels(tmp_path / "missing.txt")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("; caf\xe9\n#####\n#@$.#\n#####\n".encode("latin-1"))
    with pytest.raises(LevelError, match=r"latin.txt: not UTF-8 text"):
        read_level(latin)


def test_verify_solution_accepts_the_tutorial_solution_and_rejects_bad_ones():
    (level,) = read_levels(TUTORIAL)
    assert verify_solution(level, "ruLulDDullulDD") is True
    assert verify_solution(level, "ruLulDD") is False                  # legal, not solved
    with pytest.raises(LevelError, match=r"move 2 \(r\): walks into a wall"):
        verify_solution(level, "rr")
    with pytest.raises(LevelError, match=r"move 3 \(l\): pushes a box"):
        verify_solution(level, "rul")
    with pytest.raises(LevelError, match=r"move 1 \(R\): pushes nothing"):
        verify_solution(level, "R")
    with pytest.raises(LevelError, match=r"move 2: unknown letter 'x'"):
        verify_solution(level, "rx")


def test_verify_solution_rejects_a_blocked_push():
    (level,) = parse_levels("######\n#@$$.#\n#   .#\n######\n")
    with pytest.raises(LevelError, match=r"move 1 \(R\): the box at \(1, 2\) is blocked"):
        verify_solution(level, "R")


def test_microban_reads_all_155_levels(microban):
    levels = microban
    assert len(levels) == 155
    assert [lv.title for lv in levels[:3]] == ["1", "2", "3"]
    assert all(len(lv.boxes) == len(lv.goals) for lv in levels)


def test_a_huge_ragged_level_is_refused_before_its_rows_are_padded():
    text = "#" * 20_000 + "\n" + "#@$.#\n" + "#\n" * 1997 + "#####\n"     # 40 million cells
    tracemalloc.start()
    with pytest.raises(LevelError, match=r"^big.txt: level 1 \(line 1\): 2x20000 = 40000 cells "
                                         r"by line 2, too large \(at most 32768 cells\)$"):
        parse_levels(text, "big.txt")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20
    with pytest.raises(LevelError, match=r"32769x1 = 32769 cells by line 32769, too large"):
        parse_levels("#\n" * 40_000)


def test_the_level_count_and_the_file_size_have_ceilings(tmp_path, monkeypatch):
    monkeypatch.setattr(level_module, "MAX_LEVELS", 2)
    three = "#####\n#@$.#\n#####\n\n" * 3
    with pytest.raises(LevelError, match=r"^set.txt:9: more than 2 levels \(at most 2 in one "
                                         r"text\)$"):
        parse_levels(three, "set.txt")
    path = tmp_path / "huge.txt"
    path.write_text("#####\n#@$.#\n#####\n" + " " * MAX_LEVEL_FILE_BYTES)
    with pytest.raises(LevelError, match=rf"huge.txt: {MAX_LEVEL_FILE_BYTES + 18:,} bytes "
                                         rf"\(allowed: at most {MAX_LEVEL_FILE_BYTES:,}\)$"):
        read_levels(path)
