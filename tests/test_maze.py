"""Tests of mazesim.maze: the model, exact text round-trip, JSON metadata, every format error."""

import json
import re
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.errors import MazeFormatError, load_json
from mazesim.maze import (
    DELTAS,
    DIRECTIONS,
    DOWN,
    LEFT,
    PASSAGE,
    RIGHT,
    UP,
    WALL,
    Maze,
    format_maze,
    maze_from_json,
    maze_to_json,
    parse_maze,
    parse_size,
    read_maze,
    write_maze,
)

from fixture_paths import DATA

TUTORIAL = DATA / "tutorial_7x13.txt"


def test_tutorial_file_reads_like_the_source():
    maze = read_maze(TUTORIAL)
    assert maze.shape == (7, 13)  # source 000: "大きさ: 7 行 × 13 列"
    assert maze.start == (1, 1) and maze.goal == (1, 11)
    assert maze.grid[1, 2] == PASSAGE and maze.grid[2, 2] == WALL  # maze[1][2] '.', [2][2] '#'
    assert maze.grid.dtype == np.uint8 and dict(maze.marks) == {}


def test_directions_are_canonical():
    assert (UP, RIGHT, DOWN, LEFT) == (0, 1, 2, 3)
    assert DIRECTIONS == ("up", "right", "down", "left")
    assert DELTAS.tolist() == [[-1, 0], [0, 1], [1, 0], [0, -1]]


def test_text_round_trip_is_exact(tmp_path):
    text = TUTORIAL.read_text()
    assert format_maze(parse_maze(text)) == text
    out = tmp_path / "copy.txt"
    write_maze(read_maze(TUTORIAL), out)
    assert out.read_text() == text


def test_spaces_and_blank_edges_read_as_passages():
    maze = parse_maze("\n\n#####\n#S G#\n#A  #\n#####\n\n")
    assert format_maze(maze) == "#####\n#S.G#\n#A..#\n#####\n"
    assert dict(maze.marks) == {"A": (2, 1)}


def test_marks_and_overlay():
    maze = parse_maze("#####\n#SBG#\n#A..#\n#####")
    assert dict(maze.marks) == {"A": (2, 1), "B": (1, 2)}
    assert format_maze(maze, {(2, 2): "*", (1, 1): "*"}) == "#####\n#SBG#\n#A*.#\n#####\n"


def test_border_is_optional():
    maze = parse_maze("S..\n.#.\n..G")
    assert maze.shape == (3, 3) and maze.goal == (2, 2)
    assert maze.open_directions((0, 0)) == [RIGHT, DOWN]
    assert maze.open_directions((1, 0)) == [UP, DOWN]


@st.composite
def _texts(draw):
    h, w = draw(st.integers(1, 8)), draw(st.integers(2, 8))
    cells = draw(st.lists(st.sampled_from("#."), min_size=h * w, max_size=h * w))
    rows = [cells[i * w:(i + 1) * w] for i in range(h)]
    letters = draw(st.lists(st.sampled_from("ABCXYZ"), unique=True, max_size=3))
    places = draw(st.lists(st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)),
                           min_size=len(letters) + 2, max_size=len(letters) + 2, unique=True))
    for letter, (r, c) in zip(["S", "G"] + letters, places):
        rows[r][c] = letter
    return "".join("".join(row) + "\n" for row in rows)


@given(_texts())
def test_any_valid_text_round_trips(text):
    maze = parse_maze(text)
    assert format_maze(maze) == text
    again = maze_from_json(json.loads(json.dumps(maze_to_json(maze))))
    assert format_maze(again) == text and np.array_equal(again.grid, maze.grid)


def test_json_keeps_metadata(tmp_path):
    meta = {"generator": "digging", "size": [7, 13], "seed": 3, "options": {"braid": 0.1}}
    maze = Maze(read_maze(TUTORIAL).grid, (1, 1), (1, 11), {"A": (5, 5)}, meta)
    out = tmp_path / "m.json"
    write_maze(maze, out)
    data = json.loads(out.read_text())
    assert data["format"] == "mazesim" and data["version"] == 1
    assert data["rows"][1] == "#S....#....G#" and data["rows"][5] == "#....A......#"
    back = read_maze(out)
    assert dict(back.meta) == meta and dict(back.marks) == {"A": (5, 5)}
    assert np.array_equal(back.grid, maze.grid) and back.goal == (1, 11)


def test_model_is_read_only():
    maze = read_maze(TUTORIAL)
    with pytest.raises(ValueError):
        maze.grid[1, 1] = WALL
    with pytest.raises(AttributeError):
        maze.start = (1, 2)  # type: ignore[misc]
    with pytest.raises(TypeError):
        maze.marks["A"] = (1, 2)  # type: ignore[index]


def test_grid_is_copied():
    grid = np.zeros((1, 2), np.uint8)
    maze = Maze(grid, (0, 0), (0, 1))
    grid[0, 1] = WALL
    assert maze.grid[0, 1] == PASSAGE


@pytest.mark.parametrize("text, message", [
    ("#####\n#S.G#\n####", r"m\.txt:3:5: row has 4 characters, expected 5 like line 1"),
    ("\n#####\n#S.G#\n######", r"m\.txt:4:6: row has 6 characters, expected 5 like line 2"),
    ("#####\n#S%G#\n#####", r"m\.txt:2:3: unknown character '%' \(allowed: # \. space S G A-Z\)"),
    ("#####\n#SaG#\n#####", r"m\.txt:2:3: unknown character 'a'"),
    ("#####\n#S\tG#\n#####", r"m\.txt:2:3: unknown character '\\t'"),
    ("#####\n#S.G#\n#.S.#", r"m\.txt:3:3: duplicate 'S' \(first at line 2, column 2\)"),
    ("#####\n#SAG#\n#A..#", r"m\.txt:3:2: duplicate 'A' \(first at line 2, column 3\)"),
    ("\n\n#####\n#G.G#", r"m\.txt:4:4: duplicate 'G' \(first at line 4, column 2\)"),
    ("#####\n#S..#\n#####", r"m\.txt: no 'G' \(goal\) in the maze"),
    ("#####\n#..G#\n#####", r"m\.txt: no 'S' \(start\) in the maze"),
    ("\n  \n", r"m\.txt: no maze rows"),
])
def test_malformed_text_names_line_and_column(text, message):
    with pytest.raises(MazeFormatError, match=message):
        parse_maze(text, "m.txt")


def test_read_errors_name_the_file(tmp_path):
    with pytest.raises(MazeFormatError, match=r"nope\.txt: no such file"):
        read_maze(tmp_path / "nope.txt")
    with pytest.raises(MazeFormatError, match="a directory, not a file"):
        read_maze(tmp_path)
    with pytest.raises(MazeFormatError, match="/dev/zero: not a regular file"):
        read_maze("/dev/zero")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"#\xff#\n")
    with pytest.raises(MazeFormatError, match=r"bad\.txt: not UTF-8 text"):
        read_maze(bad)
    malformed = tmp_path / "m.txt"
    malformed.write_text("#####\n#S?G#\n#####\n")
    with pytest.raises(MazeFormatError, match=r"m\.txt:2:3: unknown character '\?'"):
        read_maze(malformed)


@pytest.mark.parametrize("content, message", [
    ('{"rows": ["#S.G#",', r"m\.json:1:\d+: "),
    ('{\n  "rows": 5\n}', r"m\.json: JSON maze needs a 'rows' list of strings"),
    ('[1, 2]', r"m\.json: JSON maze needs a 'rows' list"),
    ('{"rows": ["#S.G#", 7]}', r"m\.json: 'rows' must hold strings"),
    ('{"rows": ["#S.G#"], "meta": []}', r"m\.json: 'meta' must be an object"),
    ('{"rows": ["#S.G#", "#.#"]}', r"m\.json:2:4: row has 3 characters"),
])
def test_malformed_json(tmp_path, content, message):
    path = tmp_path / "m.json"
    path.write_text(content)
    with pytest.raises(MazeFormatError, match=message):
        read_maze(path)


@pytest.mark.parametrize("kwargs, message", [
    ({"start": (0, 0)}, r"start: \(0, 0\) is a wall"),
    ({"goal": (3, 1)}, r"goal: \(3, 1\) is outside the 3x5 grid"),
    ({"start": "x"}, r"start: 'x' is not a \(row, col\) pair"),
    ({"marks": {"A": (0, 1)}}, r"mark A: \(0, 1\) is a wall"),
    ({"grid": np.full((3, 5), 2)}, "grid values must be 0 .passage. or 1 .wall."),
    ({"grid": np.zeros((0, 3))}, r"non-empty 2-D array, got shape \(0, 3\)"),
])
def test_bad_models(kwargs, message):
    grid = np.ones((3, 5), np.uint8)
    grid[1, 1:4] = PASSAGE
    args = {"grid": grid, "start": (1, 1), "goal": (1, 3)} | kwargs
    with pytest.raises(MazeFormatError, match=message):
        Maze(**args)


@pytest.mark.parametrize("size, expected", [
    (31, (31, 31)), ("31", (31, 31)), ("31x21", (31, 21)), ("11X 15", (11, 15)),
    ((5, 7), (5, 7)), ([9, 3], (9, 3)),
])
def test_parse_size(size, expected):
    assert parse_size(size) == expected


@pytest.mark.parametrize("size", ["31x", "x", "3x4x5", True, (3,), [3, "4"], 0, "0x5", 2.5])
def test_bad_sizes(size):
    with pytest.raises(MazeFormatError, match="size: "):
        parse_size(size)


def test_maze_pickles_with_marks_and_meta():
    import pickle

    maze = Maze(np.array([[0, 0, 0]]), (0, 0), (0, 2), {"A": (0, 1)}, {"seed": 3})
    back = pickle.loads(pickle.dumps(maze))
    assert np.array_equal(back.grid, maze.grid) and not back.grid.flags.writeable
    assert (back.start, back.goal, dict(back.marks), dict(back.meta)) == (
        (0, 0), (0, 2), {"A": (0, 1)}, {"seed": 3})


# --- ceilings and hostile input ------------------------------------------------------------

@pytest.mark.parametrize("size, message", [
    ("²x²", r"size: '²x²' is not a size"),              # '²'.isdigit() is True; int('²') fails
    ("٣", r"size: '٣' is not a size"),
    ("9" * 5000, r"size: '9999.*\.\.\. is not a size"),  # int() refuses 4,300 digits
    ("99999x99999", r"size: 99,999x99,999 is 9,999,800,001 cells \(allowed: at most "
                    r"25,010,001, e.g. 5,001x5,001\)"),
    (10**100, r"size: more than 10\^12 cells \(allowed: at most 25,010,001"),
    ((3, 2**80), r"size: more than 10\^12 cells"),
])
def test_sizes_are_ascii_and_bounded(size, message):
    with pytest.raises(MazeFormatError, match=message):
        parse_size(size)
    assert parse_size("5001x5001") == (5001, 5001)


def test_a_text_maze_above_the_cell_ceiling_is_refused_before_it_is_built():
    row = "#" * 5002 + "\n"
    with pytest.raises(MazeFormatError, match=r"big.txt: 5,002x5,002 is 25,020,004 cells "
                                              r"\(allowed: at most 25,010,001"):
        parse_maze(row * 5002, "big.txt")


@pytest.mark.slow
def test_the_largest_maze_reads_in_seconds():
    rows = ["#" * 5001] + ["#" + "." * 4999 + "#"] * 4999 + ["#" * 5001]
    rows[1] = "#S" + "." * 4997 + "G#"
    began = time.perf_counter()
    maze = parse_maze("\n".join(rows))
    assert maze.shape == (5001, 5001) and maze.goal == (1, 4999)
    assert time.perf_counter() - began < 10


def test_the_first_fault_in_reading_order_is_reported():
    with pytest.raises(MazeFormatError, match=r"m:2:2: unknown character '%'"):
        parse_maze("#####\n#%SG#\n##", "m")                # before the ragged row after it
    with pytest.raises(MazeFormatError, match=r"m:3:3: row has 2 characters"):
        parse_maze("#####\n#S.G#\n##\n#%###", "m")         # the ragged row comes first
    with pytest.raises(MazeFormatError, match=r"m:2:3: duplicate 'A' \(first at line 2, column "
                                              r"2\)"):
        parse_maze("#####\n#AAS#\n#%G.#", "m")


@pytest.mark.parametrize("text, message", [
    ('{"rows":' + "[" * 100_000 + "]" * 100_000 + "}",     # RecursionError before
     r"m.json: nested deeper than 64 levels"),
    ('{"rows": ["#S.G#"], "meta": {"x": ' + "9" * 5001 + "}}",   # ValueError before
     r"m.json:1:35: an integer of 5,001 digits \(allowed: at most 64\)"),
    ('{"rows": ["#S.G#"], "meta": ' + "[" * 70 + "]" * 70 + "}",
     r"m.json: 'meta' must be an object"),
    ('{"rows": ["#S.G#"], "meta": {"a": ' + "[" * 70 + "]" * 70 + "}}",
     r"m.json: 'meta' nested deeper than 64 levels"),
    ('{"rows": ["#S.G#"]', r"m.json:1:19: Expecting ',' delimiter"),
], ids=["deep rows", "long integer", "meta a list", "deep meta", "cut"])
def test_hostile_json_mazes_are_one_line(tmp_path, text, message):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(MazeFormatError, match=message):
        read_maze(path)


def test_a_maze_whose_start_is_its_goal_is_not_written(tmp_path):
    maze = Maze(np.zeros((1, 3), np.uint8), (0, 1), (0, 1))
    with pytest.raises(MazeFormatError, match=r"x.txt: start and goal are both \(0, 1\)"):
        write_maze(maze, tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


def test_a_grid_above_the_cell_ceiling_is_refused():
    with pytest.raises(MazeFormatError, match=r"grid: 1x25,010,002 is 25,010,002 cells"):
        Maze(np.broadcast_to(np.uint8(0), (1, 25_010_002)), (0, 0), (0, 1))


@pytest.mark.parametrize("seen, message", [
    ('"abc"', r"seen_at_start: 'abc' \(allowed: a list of \[row, col\] passages\)"),
    ("null", r"seen_at_start: None \(allowed: a list"),
    ("[[0, 0]]", r"seen_at_start\[0\]: \(0, 0\) is a wall"),
    ("[[1, 1], [9, 1]]", r"seen_at_start\[1\]: \(9, 1\) is outside the 3x5 grid"),
    ("[[1e400, 0]]", r"seen_at_start\[0\]: \[inf, 0\] \(allowed: a \[row, col\] pair of "
                     r"integers\)"),
    ("[[1.5, 1]]", r"seen_at_start\[0\]: \[1.5, 1\] \(allowed"),
    ('[["1", 1]]', r"seen_at_start\[0\]: \['1', 1\] \(allowed"),
    ("[[true, 1]]", r"seen_at_start\[0\]: \[True, 1\] \(allowed"),
    ("[[1, 2, 3]]", r"seen_at_start\[0\]: \[1, 2, 3\] \(allowed"),
    ("[[1, 2], [1, 2]]", r"seen_at_start\[1\]: \(1, 2\) is listed twice"),
    ("[" + ", ".join(["[1, 1]"] * 16) + "]",
     r"seen_at_start: 16 cells \(allowed: at most the 15 cells of the 3x5 grid\)"),
], ids=["text", "null", "wall", "off-grid", "overflow", "float", "string", "bool", "triple",
        "twice", "too many"])
def test_seen_at_start_is_checked_where_the_maze_is_read(tmp_path, seen, message):
    """Issue 33, point 6: a JSON maze's cells shown at the start are checked on reading, one
    line naming the file and the cell (they imported and failed later, or were truncated)."""
    path = tmp_path / "m.json"
    path.write_text('{"rows": ["#####", "#S.G#", "#####"], "meta": {"name": "m", '
                    f'"seen_at_start": {seen}}}}}')
    with pytest.raises(MazeFormatError, match=f"^{re.escape(str(path))}: maze 'm': meta {message}"):
        read_maze(path)


ROWS = ["#####", "#S.G#", "#####"]


@pytest.mark.parametrize("indent", [None, 1], ids=["compact", "as written"])
def test_a_long_seen_list_is_refused_before_it_is_parsed(tmp_path, monkeypatch, indent):
    """Issue 33, point 17: 64 MiB of duplicate cells shown at the start took 10-60 s and 1.4 GB
    to parse before they were refused; they are counted in the file's bytes instead, and only
    the rest is parsed (a stand-in in their place)."""
    parsed = []
    monkeypatch.setattr("mazesim.maze.load_json", lambda text, *rest: parsed.append(text) or
                        load_json(text, *rest))
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"rows": ROWS, "meta": {
        "name": "m", "seen_at_start": [[1, 1]] * 20_000, "seed": 3}}, indent=indent))
    with pytest.raises(MazeFormatError, match=f"^{re.escape(str(path))}: maze 'm': meta "
                       r"seen_at_start: 20,000 cells \(allowed: at most the 15 cells of the "
                       r"3x5 grid\)$"):
        read_maze(path)
    assert len(parsed) == 1 and '"seen_at_start": "<seen_at_start>"' in parsed[0]
    assert len(parsed[0]) < 200


PAIRS = json.dumps([[1, 1]] * 1_000)


@pytest.mark.parametrize("meta, seen", [
    ('{"options": {"seen_at_start": ' + PAIRS + '}}', None),
    ('{"seen_at_start": ' + PAIRS + ', "seen_at_start": [[1, 2]]}', [[1, 2]]),
], ids=["nested", "the later key"])
def test_long_lists_elsewhere_are_not_the_cells_shown(tmp_path, meta, seen):
    """A long list of pairs that is not meta's `seen_at_start` (in another mapping, or a key
    given twice, where the later one counts) is no refusal."""
    path = tmp_path / "m.json"
    path.write_text(f'{{"rows": {json.dumps(ROWS)}, "meta": {meta}}}')
    assert read_maze(path).meta.get("seen_at_start") == seen


def test_every_passage_shown_at_the_start_reads_back(tmp_path):
    maze = read_maze(TUTORIAL)
    cells = [[int(r), int(c)] for r, c in np.argwhere(maze.grid == PASSAGE)]
    out = tmp_path / "m.json"
    write_maze(Maze(maze.grid, maze.start, maze.goal, maze.marks, {"seen_at_start": cells}), out)
    assert read_maze(out).meta["seen_at_start"] == cells


def test_good_seen_at_start_cells_read_as_int_pairs(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"rows": ["#####", "#S.G#", "#####"], "meta": {"seen_at_start": '
                    '[[1, 2], [1, 1]]}}')
    assert read_maze(path).meta["seen_at_start"] == [[1, 2], [1, 1]]
    maze = Maze(np.array([[0, 0]]), (0, 0), (0, 1),
                meta={"seen_at_start": ((np.int64(0), np.int32(1)),)})
    assert maze.meta["seen_at_start"] == [[0, 1]]
