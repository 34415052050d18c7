"""What every file reader shares (`errors.read_text`): only regular files within the size limit
are read, anything else is one line naming the file and what it is."""

import os
import time

import pytest

from mazesim.errors import MazesimError
from mazesim.experiment.config import load_config
from mazesim.limits import MAX_FILE_BYTES
from mazesim.maze import read_maze
from mazesim.play.session import load_session
from mazesim.schema import MAX_DOCUMENT_BYTES
from mazesim.search.sokoban import read_level
from mazesim.search.sokoban.level import MAX_LEVEL_FILE_BYTES
from mazesim.search.terrain import read_costs

READERS = {
    "text maze": (read_maze, ".txt", MAX_FILE_BYTES),
    "json maze": (read_maze, ".json", MAX_FILE_BYTES),
    "config": (load_config, ".yaml", MAX_DOCUMENT_BYTES),
    "session": (load_session, ".yaml", MAX_DOCUMENT_BYTES),
    "sokoban level": (read_level, ".xsb", MAX_LEVEL_FILE_BYTES),
    "cost grid": (read_costs, ".txt", MAX_FILE_BYTES),
}


def _not_files(tmp_path, suffix, limit):
    """(path, what the message says) for every kind of input that is not a readable file."""
    fifo = tmp_path / f"fifo{suffix}"
    os.mkfifo(fifo)
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    big = tmp_path / f"big{suffix}"
    with open(big, "wb") as handle:              # sparse: takes no disk space
        handle.truncate(limit + 1)
    binary = tmp_path / f"binary{suffix}"
    binary.write_bytes(b"#\xff#\n")
    return [
        (tmp_path / f"nope{suffix}", "no such file"),
        (folder, "a directory, not a file"),
        ("/dev/null", "not a regular file"),
        ("/dev/zero", "not a regular file"),
        (fifo, "not a regular file"),            # would block an open() for ever
        (big, f"{limit + 1:,} bytes (allowed: at most {limit:,})"),
        (binary, "not UTF-8 text (byte 2)"),
    ]


@pytest.mark.parametrize("kind", READERS)
def test_every_reader_refuses_what_is_not_a_file(tmp_path, kind):
    read, suffix, limit = READERS[kind]
    for path, problem in _not_files(tmp_path, suffix, limit):
        began = time.perf_counter()
        with pytest.raises(MazesimError) as raised:
            read(path)
        assert str(raised.value) == f"{path}: {problem}"
        assert time.perf_counter() - began < 1.0


@pytest.mark.parametrize("kind", READERS)
def test_an_empty_file_is_a_format_error_not_a_missing_file(tmp_path, kind):
    read, suffix, _ = READERS[kind]
    empty = tmp_path / f"empty{suffix}"
    empty.write_text("")
    with pytest.raises(MazesimError) as raised:
        read(empty)
    assert str(raised.value).startswith(f"{empty}") and "no such file" not in str(raised.value)


def test_printable_escapes_what_a_terminal_would_act_on():
    from mazesim.errors import printable

    assert printable("id\x00\x1b]0;owned\x07 \x1b[2J\x9b1m") == \
        "id\\x00\\x1b]0;owned\\x07 \\x1b[2J\\x9b1m"
    assert printable("a\nb\rc\td\x7f") == "a\\nb\\rc\\td\\x7f"
    assert printable("\u202eevil\u2066 \u2028") == "\\u202eevil\\u2066 \\u2028"
    assert printable("bad-\udcff.txt") == "bad-\\udcff.txt"    # an undecodable file name byte
    assert printable("Maze é ü 迷路 \\ ok") == "Maze é ü 迷路 \\ ok"
    assert printable(7) == "7"
