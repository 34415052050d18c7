"""Fuzz the command line: any arguments give a result (exit 0) or one `Error:` line (exit 2),
never a traceback, within the time and memory budget of `fuzz_support`.

Arguments are drawn from fragments that have broken commands: huge, negative and non-ASCII
numbers, sizes past the ceilings, cells off the grid, files that are not files, YAML tricks in
`-p key=value`, unknown names. Work that is allowed but long (a 5,001 x 5,001 maze) is left to
the tests of each ceiling.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mazesim.agents import AGENTS
from mazesim.cli import main
from mazesim.generators import GENERATORS

from fuzz_support import FUZZ, memory_ceiling, SECONDS_PER_EXAMPLE
from test_fuzz_readers import CONFIG, TUTORIAL

LEVEL = "#####\n#@$.#\n#####\n"
COSTS = "1 2 3\n4 # 6\n7 8 9\n"
NUMBERS = ["0", "1", "-1", "2", "3", "7", "31", "²", "٣", "1e3", "2" * 25, str(2**63),
           str(2**70), "nan", "inf", "-0", "0x10", "", " 1", "1.5"]
SIZES = ["3x3", "5x5", "3x5", "²x²", "99999x99999", "0x0", "7x", "x", "31", "1000001x3", "11"]
CELLS = ["1,1", "²,1", "-1,-1", "99,99", "1", "a,b", f"{2**70},1", "0,0", "2,2"]
PARAMS = ["max_steps=10", f"max_steps={2**70}", f"max_steps={10**12}", "order=[",
          "join=!!python/name:os.system", "order=down,right,up,left", "memory=5", "x=1",
          "initial_count=-1", "=", "p_straight=2", "join=0.3", "lapse=nan", "goal_seeking=no"]
BLOCK_LAUGHS = "a0: &a0\n" + "  - lol\n" * 9 + "".join(
    f"a{i}: &a{i}\n" + f"  - *a{i - 1}\n" * 9 for i in range(1, 10))
MODELS = ["choice-model:goal=[1,2]", "choice-model:goal=!!python/object/apply:os.system [ls]",
          "choice-model:goal=" + "[" * 5000, "choice-model:goal=" + BLOCK_LAUGHS,
          "choice-model:goal=0,", "choice-model:lapse=0.1", "dfs:order=up,,down", ":", "",
          "choice-model:goal=*x", "bsf", "choice-model:goal=a: b"]
"""Hostile `--model` values (issue 23.10: tracebacks, RecursionError, MemoryError)."""
VISIONS = ["isovist=3,map=known", "window=[", "sweep=true,memory=false", "isovist=" + "9" * 70,
           "isovist 3, map known", "window=2,isovist=2", "map=known", "window=2,window=3",
           "isovist=!!python/name:os.system", "2, foggy", "=", "sweep=yes"]
"""`--vision` as labels and key=value pairs (issue 22.4), valid and not."""
NAMES = list(AGENTS) + list(GENERATORS) + ["bsf", "", "²"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Input files of every kind, and a finished run to replay, report and compare."""
    folder = tmp_path_factory.mktemp("cli-fuzz")
    (folder / "maze.txt").write_text(TUTORIAL)
    (folder / "maze.json").write_text('{"rows": ["#####", "#S.G#", "#####"]}')
    (folder / "level.xsb").write_text(LEVEL)
    (folder / "costs.txt").write_text(COSTS)
    (folder / "binary.txt").write_bytes(b"\xff\xfe\x00")
    (folder / "config.yaml").write_text(yaml.safe_dump({**CONFIG, "analysis": {}}))
    os.mkfifo(folder / "fifo")
    run = CliRunner().invoke(main, ["run", str(folder / "config.yaml"), "--output",
                                    str(folder / "out")])
    assert run.exit_code == 0, run.output
    (run_dir,) = (folder / "out" / "fuzz").iterdir()
    shutil.copytree(run_dir, folder / "run")
    names = ["maze.txt", "maze.json", "level.xsb", "costs.txt", "binary.txt", "config.yaml",
             "fifo", "run", "nope.txt"]
    return folder, [str(folder / name) for name in names] + ["/dev/zero", "/dev/null", "/tmp"]


def _commands(paths):
    """Command lines: each option present or not, each value valid or hostile (even odds)."""
    def value(hostile, valid):
        return st.one_of(st.sampled_from(valid), st.sampled_from(hostile))

    number = value(NUMBERS, ["0", "1", "2", "3", "5"])
    size, cell = value(SIZES, ["5x5", "7x9", "11"]), value(CELLS, ["1,1", "1,2", "2,1"])
    path = st.sampled_from(paths)
    name = value(NAMES, ["dfs", "random-walk", "weighted-walker", "digging", "eller"])

    def option(flag, values, required=False):
        pair = st.tuples(st.just(flag), values)
        return pair if required else st.lists(pair, max_size=1).map(
            lambda pairs: [x for p in pairs for x in p])

    param = st.lists(st.sampled_from(PARAMS), max_size=2).map(
        lambda ps: [x for p in ps for x in ("-p", p)])
    flag = st.lists(st.sampled_from(["--json", "--path", "--occlusion", "--no-memory",
                                     "--wander", "--table"]), max_size=1)
    out = st.sampled_from([[], ["-o", "OUT.png"], ["-o", "OUT.json"], ["-o", "/dev/null/x"]])
    one_path = st.lists(path, min_size=1, max_size=1)
    return st.one_of(
        st.tuples(st.just(["generate"]), st.lists(name, min_size=1, max_size=1),
                  option("--size", size), option("--seed", number, True),
                  option("--braid", value(NUMBERS, ["0", "0.5"])),
                  option("--placement", value(["far", "", "1", "random"], ["farthest"])),
                  param, out),
        st.tuples(st.sampled_from([["analyze"], ["solve"]]), one_path, flag),
        st.tuples(st.just(["render"]), one_path, option("--scale", number),
                  st.just(["-o", "OUT.png"]), flag),
        st.tuples(st.just(["simulate"]), one_path, option("--agent", name, True),
                  option("--vision", value(NUMBERS + VISIONS, ["full", "1", "2"])),
                  option("--trials", number), option("--seed", number), param, flag, out),
        st.tuples(st.just(["knight"]), option("--board", number, True),
                  option("--from", cell, True), option("--to", cell, True)),
        st.tuples(st.just(["terrain"]), one_path, option("--from", cell, True),
                  option("--to", cell, True), flag),
        st.tuples(st.just(["chase"]), one_path, option("--chasers", number, True),
                  option("--steps", number, True), option("--seed", number), flag, out),
        st.tuples(st.just(["sokoban"]), one_path, option("--level", number),
                  option("--time-limit", value(["0", "-1", "nan", "1e400", "inf"], ["0.2"]))),
        st.tuples(st.just(["validate"]), one_path),
        st.tuples(st.just(["replay"]), one_path, option("--trial", number, True)),
        st.tuples(st.just(["report"]), one_path),
        st.tuples(st.just(["compare"]), st.lists(path, min_size=2, max_size=2)),
        st.tuples(st.just(["fit"]), one_path, st.lists(value(MODELS, [
            "random-walk", "choice-model:goal=0,region=0", "dfs:order=down,right,up,left"]),
            max_size=2).map(lambda ms: [x for m in ms for x in ("--model", m)])),
        st.tuples(st.just(["tree"]), one_path, option("--vision", value(
            NUMBERS + ["sweep", "full", "sweep, no memory, map known", "isovist 0, map known"],
            ["sweep, map known", "1, map known", "isovist 3, map known"])),
            option("--scale", number), flag, out),
    ).map(lambda parts: [str(x) for part in parts for x in part])


def check_one_line_or_result(args, folder):
    """Run `mazesim ARGS`: exit 0, or exit 2 with one `Error:` line; never a traceback."""
    args = [a.replace("OUT", str(folder / "out-file")) for a in args]
    began = time.perf_counter()
    with memory_ceiling():
        result = CliRunner().invoke(main, args)
    assert time.perf_counter() - began < SECONDS_PER_EXAMPLE, args
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args, repr(result.exception))
    assert "Traceback" not in result.output, (args, result.output)
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output)
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.stderr)


@FUZZ
@given(data=st.data())
def test_commands(files, data):
    folder, paths = files
    check_one_line_or_result(data.draw(_commands(paths)), folder)


ISSUE_CASES = [
    ["simulate", "MAZE", "--agent", "dfs", "--vision", "²"],
    ["knight", "--board", "8", "--from", "²,1", "--to", "1,1"],
    ["generate", "digging", "--size", "²x²", "--seed", "1"],
    ["simulate", "MAZE", "--agent", "dfs", "-p", "order=["],
    ["generate", "eller", "--seed", "1", "-p", "join=!!python/name:os.system"],
    ["simulate", "MAZE", "--agent", "dfs", "--vision", str(2**70)],
    ["simulate", "MAZE", "--agent", "dfs", "-p", f"max_steps={2**70}"],
    ["simulate", "MAZE", "--agent", "finite-memory", "-p", f"memory={2**70}"],
    ["run", "CONFIG", "--workers", str(2**70)],
    ["replay", "RUN", "--trial", str(2**70)],
    ["simulate", "MAZE", "--agent", "dfs", "--trials", str(10**12)],
    ["simulate", "MAZE", "--agent", "dfs", "-p", f"max_steps={10**12}"],
    ["generate", "digging", "--size", "99999x99999", "--seed", "1"],
    ["chase", "MAZE", "--chasers", "2", "--steps", str(10**9)],
    ["render", "MAZE", "-o", "OUT.png", "--scale", "100000"],
    ["analyze", "/dev/zero"],
    ["generate", "digging", "--size", "3x3", "--seed", "1"],
    ["chase", "MAZE", "--chasers", "1", "--steps", "3", "--seed", "-1"],
    *(["fit", "RUN", "--model", model] for model in MODELS),
]
"""The issue's command lines that ended in a traceback (each exits 2 with one line now)."""


@pytest.mark.parametrize("args", ISSUE_CASES, ids=lambda args: " ".join(args)[:40])
def test_the_issue_cases(files, args):
    folder, _ = files
    names = {"MAZE": "maze.txt", "CONFIG": "config.yaml", "RUN": "run"}
    args = [str(folder / names[a]) if a in names else a for a in args]
    check_one_line_or_result(args, folder)
