"""Hostile and damaged inputs of `mazesim import` (issue 23, second round): one line each, exit
code 2, no run directory; a killed import leaves no run that looks complete; maps that are not
the ones people saw are warned of."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.errors import DataError
from mazesim.experiment.storage import RunStore
from mazesim.humans import import_csv, import_mst, load_human_run
from mazesim.humans.data.sources import MAX_TOTAL_CELLS, read_csv, read_mst

from tests.humans.conftest import GOOD, LINE

HEADER = "participant,maze,trial,step,row,col\n"
CORRIDOR = "#######\n#S...G#\n#######\n"
WALK = "".join(f"p,m,1,{k},1,{k + 1}\n" for k in range(5))
MST_LINE = ("s9", "line", 7, "p(0,0)p(1,0);p(2,0);p(3,0);", "1;1;1;")


def _csv(tmp_path: Path, text: str, mazes: dict | None = None) -> tuple[Path, Path]:
    folder = tmp_path / "mazes"
    folder.mkdir(exist_ok=True)
    for name, maze in (mazes or {"m": CORRIDOR}).items():
        (folder / f"{name}.txt").write_text(maze, encoding="utf-8")
    path = tmp_path / "walks.csv"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path, folder


def _import(args: list[str], tmp_path: Path):
    result = CliRunner().invoke(main, ["import", *args, "-o", str(tmp_path / "run")])
    return result, (tmp_path / "run").exists()


@pytest.mark.parametrize("rows, message", [
    ("p,m,1,0,1" + "0" * 30 + ",1\n", "step 0: row '1" + "0" * 30 + "' is out of range"),
    ("".join(f"p,m,{2**63},{k},1,{k + 1}\n" for k in range(5)),
     f"trial '{2**63}' is out of range (allowed: -2^63 to 2^63 - 1)"),
    ("p,m,1,0,١,1\n", "step 0: row '١' is not an integer"),
    ("p,m,1,0,1,２\n", "step 0: col '２' is not an integer"),
    ("p,m,1,0_0,1,1\n", "step '0_0' is not an integer"),
])
def test_csv_numbers_are_ascii_int64_or_one_line(tmp_path, rows, message):
    path, folder = _csv(tmp_path, HEADER + rows)
    result, made = _import(["csv", str(path), "--mazes", str(folder)], tmp_path)
    assert result.exit_code == 2 and not made
    assert result.output.count("\n") == 1 and message in result.output, result.output


def test_csv_times_are_ascii_decimals(tmp_path):
    path, folder = _csv(tmp_path, HEADER.strip() + ",t_ms\np,m,1,0,1,1,\np,m,1,1,1,2,١٢\n")
    (problem,) = read_csv(path, folder).unreadable
    assert (problem.line, problem.step, problem.reason) == (3, 1,
                                                            "t_ms '١٢' is not a number >= 0")


@pytest.mark.parametrize("text, message", [
    (HEADER + 'p,m,1,0,1,1\n"p,m,1,1,1,2\n' + "p,m,1,2,1,3\n" * 80,
     "walks.csv:3: unexpected end of data (a quote not closed?)"),
    (HEADER + 'p,m,1,0,1,1\n"p\nq",m,1,1,1,2\n',
     "walks.csv:3: a quoted field runs over lines 3 to 4 (a quote not closed?)"),
    (HEADER + "p,m,1,0,1,1,99\n", "walks.csv:2: 7 fields, the header has 6 (a field beyond "
                                  "the header)"),
])
def test_broken_csv_structure_is_one_line_without_echo(tmp_path, text, message):
    path, folder = _csv(tmp_path, text)
    result, made = _import(["csv", str(path), "--mazes", str(folder)], tmp_path)
    assert result.exit_code == 2 and not made
    assert result.output == f"Error: {path.parent / message}\n"


def test_a_table_that_is_not_utf8_is_one_line(tmp_path):
    path, folder = _csv(tmp_path, (HEADER + WALK + "p\xe9,m,1,0,1,1\n").encode("latin-1"))
    with pytest.raises(DataError, match=r"walks.csv: not UTF-8 text \(near line \d+\)$"):
        read_csv(path, folder)


@pytest.mark.parametrize("prefix", ["\ufeff", "\n\n", "\ufeff\r\n \r\n"])
def test_a_bom_and_blank_lines_before_the_header_are_skipped(tmp_path, prefix):
    path, folder = _csv(tmp_path, prefix + HEADER + WALK)
    assert len(read_csv(path, folder).recordings) == 1


def test_a_bom_in_plandata_and_in_a_map_is_skipped(write_mst):
    folder = write_mst(mazes={"fork": "\ufeff" + "5\n4\n33533\n06660\n03330\n23330\n",
                              "line": LINE})
    table = folder / "plandata.csv"
    table.write_text("\ufeff" + table.read_text(encoding="utf-8"), encoding="utf-8")
    source = read_mst(folder)
    assert len(source.recordings) == 3 and source.mazes["fork"].start == (0, 2)


def test_a_misnamed_column_after_blank_lines_names_its_line(tmp_path):
    path, folder = _csv(tmp_path, "\n\nsubject,maze,trial,step,row,col\n")
    with pytest.raises(DataError, match=r"walks.csv:3: unknown column 'subject'"):
        read_csv(path, folder)


@pytest.mark.parametrize("row, maze, message", [
    (("s9", "line", 10**30, "p(0,0)p(1,0);", "1;"), LINE,
     f"trialNo '{10**30}' is out of range"),
    (("s9", "line", 7, "p(99999999999999999999,3)p(1,0);", "1;"), LINE,
     "step 0: p(99999999999999999999,3) is off any map (sides at most 5,000)"),
    (("s9", "line", 7, "p(٠,0)p(1,0);", "1;"), LINE, "is not p(x,y) cells"),
    (("s9", "line", 7, "p(0,0)p(1,0);", "١;"), LINE, "times '١' is not a number >= 0"),
    (MST_LINE, "²\n1\n5002", "line.txt:1: not a width from 1 to 5,000"),
    (MST_LINE, "٤\n1\n5002", "line.txt:1: not a width from 1 to 5,000"),
    (MST_LINE, "4\n1\n5002\n", None),
])
def test_mst_numbers_are_ascii_int64_or_one_line(write_mst, tmp_path, row, maze, message):
    folder = write_mst([row], mazes={"line": maze})
    result, made = _import(["mst", str(folder)], tmp_path)
    if message is None:
        assert result.exit_code == 0 and made
        return
    assert result.exit_code == 2 and not made
    assert result.output.count("\n") == 1 and message in result.output, result.output


def test_a_duplicated_mst_row_is_a_problem_not_a_second_trial(write_mst, tmp_path):
    folder = write_mst(GOOD + [GOOD[0]])
    with pytest.raises(DataError, match=r"plandata.csv:5: participant s1, maze fork: trialNo 1 "
                                        r"of this subject again \(first on line 2\)"):
        import_mst(folder, tmp_path / "run")
    summary = import_mst(folder, tmp_path / "run", skip_invalid=True)
    assert (summary.trials, len(summary.skipped)) == (3, 1)


def test_a_maze_file_never_echoes_what_is_not_a_maze(write_mst, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("hunter2:x:0:0:hunter2:/home:/bin/sh\nhunter3:x:1:1::/:\n")
    folder = write_mst()
    (folder / "mazes" / "line.txt").unlink()
    (folder / "mazes" / "line.txt").symlink_to(secret)
    result, made = _import(["mst", str(folder)], tmp_path)
    assert result.exit_code == 2 and not made
    assert "hunter" not in result.output and "line.txt:1: not a width" in result.output


def test_a_maze_path_that_is_a_directory_says_so(tmp_path):
    path, folder = _csv(tmp_path, HEADER + WALK, mazes={"other": CORRIDOR})
    (folder / "m.txt").mkdir()
    with pytest.raises(DataError, match=f"maze file {folder / 'm.txt'}: a directory, not a file"):
        import_csv(path, folder, tmp_path / "run")


def test_the_mazes_declared_cells_are_bounded_before_any_is_read(write_mst, tmp_path):
    side = 5_000
    maps = {f"big{i}": f"{side}\n{side}\n52" for i in range(MAX_TOTAL_CELLS // side**2 + 1)}
    rows = [(f"s{i}", name, 1, "p(0,0)p(1,0);", "1;") for i, name in enumerate(maps)]
    folder = write_mst(rows, mazes=maps)
    began = time.perf_counter()
    with pytest.raises(DataError, match=rf"mazes: the 2 maze files declare 50,000,000 cells in "
                                        rf"all \(allowed: at most {MAX_TOTAL_CELLS:,} cells\)"):
        read_mst(folder)
    assert time.perf_counter() - began < 1.0


def test_mazesim_maze_files_are_bounded_by_their_bytes_and_say_so(tmp_path):
    """Issue 33, point 18: the bound counts a mazesim file's bytes (a cell takes at least one);
    the message called them cells."""
    big = CORRIDOR + " " * (MAX_TOTAL_CELLS // 2)
    walks = WALK + "".join(f"p,n,1,{k},1,{k + 1}\n" for k in range(5))
    path, folder = _csv(tmp_path, HEADER + walks, mazes={"m": big, "n": big})
    with pytest.raises(DataError, match=rf"the 2 maze files declare {2 * len(big):,} bytes \(a "
                                        rf"cell takes at least one\) in all \(allowed: at most "
                                        rf"{MAX_TOTAL_CELLS:,} cells\)"):
        import_csv(path, folder, tmp_path / "run")


def test_a_map_that_hides_its_size_from_the_first_bytes_is_counted_when_read(write_mst, tmp_path):
    padded = " " * 100 + "4000\n4000\n52"                 # past the bytes read for the sizes
    maps = {"a": padded, "b": padded}
    rows = [("s1", "a", 1, "p(0,0)p(1,0);", "1;"), ("s2", "b", 1, "p(0,0)p(1,0);", "1;")]
    with pytest.raises(DataError, match=r"mazes: the maze files up to b.txt have 32,000,000 "
                                        r"cells in all"):
        read_mst(write_mst(rows, mazes=maps))


def _walks_out_of_the_map(n: int, end: str) -> list[tuple]:
    return [(f"s{i}", "line", 1, end, "1;" * end.count(";")) for i in range(n)]


def test_a_map_whose_trials_end_elsewhere_is_warned_of(write_mst, tmp_path):
    rows = _walks_out_of_the_map(3, "p(0,0)p(1,0);p(2,0);") + [GOOD[1]]
    summary = import_mst(write_mst(rows), tmp_path / "run")
    warning = ("maze line: 3 of 4 trials end on (0, 2), not on its exit G (0, 3): the map is "
               "likely not the one people saw")
    assert summary.warnings == (warning,) and summary.unfinished == 3
    assert summary.to_json()["warnings"] == [warning]
    with RunStore(tmp_path / "run") as store:
        assert store.meta("warnings") == [warning]
    result = CliRunner().invoke(main, ["import", "mst", str(write_mst(rows, name="again")),
                                       "-o", str(tmp_path / "run2"), "--json"])
    assert json.loads(result.output)["warnings"] == [warning]


def test_unfinished_trials_on_different_cells_or_too_few_are_not_warned_of(write_mst, tmp_path):
    rows = (_walks_out_of_the_map(2, "p(0,0)p(1,0);p(2,0);")
            + [("s8", "line", 1, "p(0,0)p(1,0);", "1;")])
    assert import_mst(write_mst(rows), tmp_path / "run").warnings == ()


def test_a_map_whose_trials_pass_its_exit_is_warned_of_in_the_error(write_mst, tmp_path):
    rows = _walks_out_of_the_map(3, "p(0,0)p(1,0);p(2,0);p(3,0);p(2,0);")
    with pytest.raises(DataError, match=r"step 4: goes on after reaching G at step 3; maze "
                                        r"line: 3 of 3 trials pass its exit G \(0, 3\) and go "
                                        r"on: the map is likely not the one people saw"):
        import_mst(write_mst(rows), tmp_path / "run")


_KILLER = textwrap.dedent("""
    import os, signal, sys
    from mazesim.humans.data import importer
    name = sys.argv[3]
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    setattr(importer.os if name == "rename" else importer, name, die)
    importer.import_mst(sys.argv[1], sys.argv[2])
""")


@pytest.mark.slow                       # a Python process each (a few seconds on a loaded machine)
@pytest.mark.parametrize("where", ["write_samples", "write_trials", "rename"])
def test_a_killed_import_leaves_no_run_and_the_next_one_clears_it(write_mst, tmp_path, where):
    folder, run = write_mst(), tmp_path / "out" / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", _KILLER, str(folder), str(run), where],
                          env=env, capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr[-500:]
    assert not run.exists()
    (leftover,) = (tmp_path / "out").iterdir()
    assert leftover.name.startswith(".run.import-")
    summary = import_mst(folder, run)
    assert summary.trials == 3 and [p.name for p in (tmp_path / "out").iterdir()] == ["run"]
    assert len(load_human_run(run).trials) == 3


def test_a_live_imports_folder_is_left_alone(write_mst, tmp_path):
    from mazesim.experiment.rundir import lock_run

    live = tmp_path / ".run.import-live"
    live.mkdir()
    lock = lock_run(live, "another import")
    try:
        import_mst(write_mst(), tmp_path / "run")
    finally:
        lock.release()
    assert live.is_dir() and (tmp_path / "run").is_dir()


def test_the_long_csv_keeps_numbers_not_text(tmp_path):
    """A long CSV's rows are kept as columns of int64 (a 63 MiB file took 1.9 GB as lists of
    strings, and every read allocated the 64 MiB ceiling at once): 30,000 rows of 300 trials
    read within 200 bytes a row at the peak, the file's text included (1.9 GB / 5.5 million
    rows was 350; this input took 2,600 before, 150 now)."""
    import tracemalloc

    rows = "".join(f"p{i // 100},m,1,{i % 100},1,1\n" for i in range(30_000))
    path, folder = _csv(tmp_path, HEADER + rows, {"m": "#" * 12 + "\n#S........G#\n" + "#" * 12})
    tracemalloc.start()
    try:
        source = read_csv(path, folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(source.recordings) == 300
    assert np.array_equal(source.recordings[0].positions, np.ones((100, 2)))
    assert peak < 200 * 30_000, peak
