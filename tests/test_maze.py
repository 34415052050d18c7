"""Tests of mazesim.maze: the model, exact text round-trip, JSON metadata, every format error."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazesim.errors import MazeFormatError
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
