"""Every command of README.md runs as written on a fresh clone (issue 22).

The command lines of the README's indented code blocks are read from the file (a new line is
picked up by itself) and run with `subprocess` in a temporary workspace laid out like a clone:
`root/shared` (the data repository, `../shared`) beside `root/repo`, whose `configs/`, `tests/`,
`experiments/` and `examples/` are links to this checkout's, so that `results/` is written in
the workspace.
One test per block; each block is self-contained (it first makes what another block would have
made: PREPARE). Lines that cannot run unattended are in SKIP with the reason; what the test
changes in a line is in SUBSTITUTIONS. A line with a placeholder nobody substitutes fails.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, strategies as st

from tests.play.conftest import Client
from tests.processes import STOP_SECONDS, reaped

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SHARED = Path(__file__).parents[1].parent / "shared"
COMMAND_WORDS = ("mazesim", "python", "python3", "sqlite3", "api", "api()")
MAZE_ROW = re.compile(r"[#. A-Z]+")
TIMEOUT = 3600                      # seconds per command: a hang fails, a slow machine does not

# Lines that cannot run unattended, with the reason.
SKIP = {
    "python3 -m venv .venv && . .venv/bin/activate":
        "creates and activates a virtual environment in the clone (the tests run in one already)",
    "python -m pip install -e . && mazesim run configs/quickstart.yaml":
        "installs into the Python running the tests; its run is the Experiments block's "
        "`mazesim run configs/quickstart.yaml`",
    "python -m pip install -e '.[test]' && python -m pytest -n 2 --slow":
        "installs, and runs this very suite (CI runs the line verbatim: .ci/run)",
    "mazesim run CONFIG --resume":
        "CONFIG is a placeholder, and resuming needs an interrupted run (the kill-and-resume "
        "test of tests/experiment does it)",
    "mazesim run CONFIG --dask tcp://host:8786":
        "needs a Dask scheduler at host:8786 (tests/experiment run one in process)",
}

# What the test changes in a line before running it (pattern, replacement, reason), in order.
SUBSTITUTIONS = [
    (r"results/([\w.-]+)/<run-id>", lambda m, ws: ws.latest_run(m[1]),
     "the run directory the preceding `mazesim run` of that config made in the workspace"),
    (r"^mazesim play (?!.*--port )(.*)$", lambda m, ws: f"mazesim play {m[1]} --port 0",
     "a free port, not the default 8000, which another program or a parallel test may hold "
     "(a server line is started, its start line read, then it is stopped with Ctrl-C)"),
    (r"--port 8000\b", lambda m, ws: "--port 0", "the same"),
    (r"http://127\.0\.0\.1:8000/", lambda m, ws: ws.url,
     "the address of the server the block talks to (on a free port, as above)"),
]

# Blocks whose lines take minutes (run with `python -m pytest --slow`, as CI does).
SLOW = {
    "experiments": "the study's first experiment and the branch point A (minutes)",
    "human-trials": "mazesim run configs/play-demo-agents.yaml: 3,600 trials",
    "search-problems": "Microban level 139 spends its 10 s time limit, as written",
    "human-data-and-model-fitting": "every model fitted to 119 people with 5-fold "
                                    "cross-validation, and the play-demo agents' run (minutes)",
}

# The two longest blocks (4.4 and 1.0 min on 2 cores): started first, one on each worker.
LONGEST = ("experiments", "human-data-and-model-fitting")

# README lines that other blocks rely on (PREPARE runs them first).
GENERATE_MAZE = "mazesim generate digging --size 31x31 --seed 1 -o results/maze.txt"
PLAY_DEMO = "mazesim play configs/play-demo.yaml"
RUN_DEMO_AGENTS = "mazesim run configs/play-demo-agents.yaml"

# Inline commands of the README's text: where each is run, or why it is not.
INLINE = {
    "python -m pytest": "the test suite itself",
    "python benchmarks/bench_generators.py": "tests/test_benchmarks.py runs every benchmark "
                                             "with --quick",
    "mazesim play SESSION.yaml": "a form (SESSION.yaml); run as the Human trials block's lines",
    "mazesim report RUN_DIR": "a form (RUN_DIR); run as `mazesim report results/play-demo`",
    "mazesim play": "a name, not a line",
    "mazesim tree": "a name, not a line",
    "mazesim report": "a name, not a line",
    "mazesim run CONFIG": "a form (CONFIG); run as the Experiments block's lines",
    "mazesim analyze FILE --json": "a form (FILE); run as `mazesim analyze results/maze.txt --json`",
    'python -c "import secrets; print(2**62 + secrets.randbelow(2**62))"':
        "run by test_the_seed_one_liner_prints_a_seed_of_at_least_2_62",
    "mazesim report results/maze-study": "run by the backup block while the server records",
    "mazesim play configs/play-demo.yaml": "the Human trials block's first line",
}


@dataclass(frozen=True)
class Block:
    """An indented code block of the README: its id (from the paragraph before it) and lines."""

    id: str
    lines: tuple[str, ...]


def readme_blocks(text: str) -> list[Block]:
    """The command blocks of the README (the maze-format example is not one)."""
    lines, blocks, fenced, i = text.splitlines(), [], False, 0
    while i < len(lines):
        if lines[i].startswith("```"):
            fenced = not fenced
        elif not fenced and lines[i].startswith("    ") and not lines[i - 1].strip():
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body = [line.strip() for line in lines[i:j] if line.strip()]
            lead = _paragraph_lead(lines, i)
            if not all(MAZE_ROW.fullmatch(line) for line in body):
                blocks.append(Block(_block_id(lead), tuple(_command(b) for b in body)))
            i = j
            continue
        i += 1
    return blocks


def _paragraph_lead(lines: list[str], i: int) -> str:
    """The first line of the paragraph above line i."""
    k = i - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    while k > 0 and lines[k - 1].strip():
        k -= 1
    return lines[k]


def _block_id(lead: str) -> str:
    head = re.split(r"[(:,]", lead.replace("`", ""))[0]
    return "-".join(re.findall(r"[a-z0-9]+", head.lower())[:6])


def _command(line: str) -> str:
    """A line without its trailing `# comment` (a `#` inside quotes is kept)."""
    if line.split()[0] not in COMMAND_WORDS:
        raise AssertionError(f"README line {line!r} is not a command ({', '.join(COMMAND_WORDS)})"
                             ": add its kind to tests/test_readme.py")
    for cut in re.finditer(r"\s+#(\s|$)", line):
        if not _open_quote(line[:cut.start()]):
            return line[:cut.start()]
    return line


def _open_quote(prefix: str) -> bool:
    try:
        shlex.split(prefix)
    except ValueError:
        return True
    return False


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


class Workspace:
    """A temporary clone: root/shared and root/repo; runs README lines in root/repo."""

    def __init__(self, root: Path) -> None:
        if not SHARED.is_dir():
            pytest.skip(f"{SHARED}: the shared data repository (../shared of the repo) is "
                        "missing; README lines read ../shared/...")
        self.repo = root / "repo"
        (self.repo / "configs").mkdir(parents=True)
        (self.repo / "results").mkdir()                 # a clone has it (results/README.md)
        (root / "shared").symlink_to(SHARED.resolve())
        for config in (ROOT / "configs").iterdir():     # files linked one by one: a session's
            (self.repo / "configs" / config.name).symlink_to(config)   # ../results stays here
        for name in ("tests", "experiments", "examples"):
            (self.repo / name).symlink_to(ROOT / name)
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.url = None

    def latest_run(self, name: str) -> str:
        runs = sorted((self.repo / "results" / name).glob("*/results.sqlite"))
        assert runs, f"no run of {name} in the workspace: run its config first"
        return str(runs[-1].parent.relative_to(self.repo))

    def run(self, line: str) -> None:
        """Run a README line; its exit code must be 0 (stderr shown otherwise)."""
        started = time.perf_counter()
        if _is_server(line):
            with self.serving(line, WHILE_SERVING.get(line.split()[2])):
                pass
        elif line.split()[0] == "sqlite3":
            self.shell(line)
        else:
            done = subprocess.run(argv(substitute(line, self)), cwd=self.repo, env=self.env,
                                  capture_output=True, text=True, timeout=TIMEOUT)
            assert done.returncode == 0, f"{line}\nexit code {done.returncode}\n{done.stderr}"
        print(f"{time.perf_counter() - started:7.2f} s  {line}")

    def shell(self, script: str) -> subprocess.CompletedProcess:
        done = subprocess.run(["bash", "-c", script], cwd=self.repo, env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, f"{script}\nexit code {done.returncode}\n{done.stderr}"
        return done

    @contextmanager
    def serving(self, line: str, during=None):
        """Start a `mazesim play` line, check its start line, run `during(self)` and the body,
        stop it with Ctrl-C: exit code 0."""
        words = argv(substitute(line, self))
        process = subprocess.Popen(words, cwd=self.repo, env=self.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        with reaped(process):               # stopped, or killed, whatever the test's outcome
            first = process.stdout.readline()
            assert first, f"{line}: no start line\n{process.stderr.read()}"
            if "--json" in words:
                info = json.loads(first)
                assert {"url", "dashboard", "output", "links"} <= set(info), first
                self.url = info["url"]
            else:
                found = re.fullmatch(r"Session \S+: open (\S+) in a browser\n", first)
                assert found, first
                self.url = found.group(1)
            if during:
                during(self)
            yield self
            process.send_signal(signal.SIGINT)     # right after the start line: must stop too
            code = process.wait(timeout=STOP_SECONDS)
        errors = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        assert code == 0, f"{line}: exit code {code}\n{errors}"


def substitute(line: str, ws) -> str:
    for pattern, replace, _ in SUBSTITUTIONS:
        line = re.sub(pattern, lambda m: replace(m, ws), line)
    return line


def argv(line: str) -> list[str]:
    """A line as argv: `mazesim` -> this Python's `-m mazesim`, `python` -> this Python. A
    placeholder left over fails."""
    words = shlex.split(line)
    placeholders = [w for w in words if re.search(r"<[^>]*>|^[A-Z][A-Z_]+$", w)]
    if placeholders:
        raise AssertionError(f"README line {line!r}: no substitution for {placeholders}; add "
                             "one to SUBSTITUTIONS (or the line to SKIP, with the reason)")
    if words[0] == "mazesim":
        return [sys.executable, "-m", "mazesim", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise AssertionError(f"README line {line!r}: no way to run {words[0]!r}")


def _is_server(line: str) -> bool:
    words = line.split()
    return words[:2] == ["mazesim", "play"] and "--help" not in words


# -- what the blocks rely on --------------------------------------------------------------------

_STEPS = {(-1, 0): "up", (0, 1): "right", (1, 0): "down", (0, -1): "left"}


def finish_play_demo(ws: Workspace) -> None:
    """Two participants go through the demo over the JSON API: consent, the practice and the
    three mazes along their shortest routes (one bump), the end questions."""
    from mazesim.analysis.routes import shortest_path
    from mazesim.play.session import load_session

    session = load_session(ws.repo / "configs" / "play-demo.yaml")
    mazes = {m.id: m.maze for m in (*session.practice, *session.mazes)}
    client = Client(ws.url)
    for person in ("r1", "r2"):
        state = client.join(person)
        for _ in range(20):
            if state["phase"] == "done":
                break
            if state["phase"] == "consent":
                state = client.post("/api/consent", {"participant": person, "agree": True})[1]
            elif state["phase"] == "questions":
                answers = {"age": 30, "strategy": "kept to the left wall"}
                state = client.post("/api/answer", {"participant": person, "answers": answers})[1]
            else:
                maze = state["maze"]["id"]
                state = {"state": client.start(person, maze)}
                route = shortest_path(mazes[maze])
                if person == "r2":
                    blocked = next(d for d, name in _STEPS.items() if name not in
                                   state["state"]["view"]["open"])
                    status, _ = client.bump(person, maze, 1, 1, _STEPS[blocked])
                    assert status == 200
                for seq, (a, b) in enumerate(zip(route[:-1], route[1:]), 1):
                    status, state = client.move(person, maze, seq, _STEPS[tuple(b - a)])
                    assert status == 200 and state["status"] == "accepted", state
            state = state["state"]
        assert state["phase"] == "done", state


def write_study(ws: Workspace) -> None:
    """The README's session example as study.yaml, with the files it names."""
    text = README.read_text(encoding="utf-8")
    (ws.repo / "study.yaml").write_text(re.search(r"```yaml\n(.*?)```", text, re.S).group(1),
                                        encoding="utf-8")
    for page in ("consent", "instructions", "debrief"):
        (ws.repo / f"{page}.md").write_text(f"The {page} page.\n", encoding="utf-8")
    (ws.repo / "practice.txt").write_text("######\n#S..G#\n######\n", encoding="utf-8")
    shutil.copy(ROOT / "experiments" / "play-demo" / "branch.txt", ws.repo / "branch.txt")


def check_backup(ws: Workspace) -> None:
    """The copies are whole databases; `mazesim report results/maze-study` works while the
    server records ("Export at any time, also while recording")."""
    results = ws.repo / "results"
    copies = [results / "backup.sqlite", *sorted(results.glob("backup-*.sqlite"))]
    assert len(copies) == 2 and copies[0].is_file()      # (the README writes them there)
    for copy in copies:
        with sqlite3.connect(copy) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    ws.run("mazesim report results/maze-study")


def check_demo_report(ws: Workspace) -> None:
    """The demo's report has the two scripted participants on its four mazes (practice too),
    each along a shortest route, r2 with one bump a maze."""
    with open(ws.repo / "results" / "play-demo" / "participants.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sorted((r["participant"], r["maze"]) for r in rows) == [
        (p, m) for p in ("r1", "r2")
        for m in ("full-31", "isovist-known", "practice", "window-branch")], rows
    assert all(r["reached"] == "1" and r["moves"] == r["solution_length"] for r in rows), rows
    assert [int(r["bumps"]) for r in rows] == [int(r["participant"] == "r2") for r in rows]


WHILE_SERVING = {"configs/play-demo.yaml": finish_play_demo}


def prepare_maze(ws):
    ws.run(GENERATE_MAZE)
    return nullcontext()


def prepare_study(ws):
    write_study(ws)
    return nullcontext()


def prepare_human_data(ws):
    ws.run(PLAY_DEMO)
    ws.run(RUN_DEMO_AGENTS)
    return nullcontext()


def prepare_backup(ws):
    """The README's study recording while its backup lines run."""
    write_study(ws)
    return ws.serving("mazesim play study.yaml --port 0 --json")


def prepare_api(ws):
    """The demo served while its curl lines run."""
    if shutil.which("curl") is None:
        pytest.skip("the JSON API block calls curl, which is not installed")
    return ws.serving(PLAY_DEMO)


# block id -> what it relies on that another block (or the reader) makes; the context it
# returns holds while the block runs (a server the block talks to).
PREPARE = {
    "agents": prepare_maze,
    "search-problems": prepare_maze,
    "human-trials": prepare_study,
    "online-studies": prepare_study,
    "human-data-and-model-fitting": prepare_human_data,
    "back-up-while-the-server-runs": prepare_backup,
    "with-mazesim-play-configs-play-demo": prepare_api,
}

# What a block's output must show beyond exit codes 0, checked while its context holds.
AFTER = {
    "human-trials": check_demo_report,
    "back-up-while-the-server-runs": check_backup,
}


def _params():
    for block in BLOCKS:
        marks = ([pytest.mark.slow] if block.id in SLOW else []) + (
            [pytest.mark.first] if block.id in LONGEST else [])
        yield pytest.param(block, id=block.id, marks=marks)


@pytest.mark.parametrize("block", _params())
def test_readme_block_runs_as_written(block, tmp_path):
    lines = [line for line in block.lines if line not in SKIP]
    if not lines:
        pytest.skip(f"every line is in SKIP: {[SKIP[line] for line in block.lines]}")
    ws = Workspace(tmp_path)
    started = time.perf_counter()
    with PREPARE.get(block.id, lambda ws: nullcontext())(ws):
        if lines[0].startswith("api()"):
            _run_api_block(ws, lines)
        else:
            for line in lines:
                if line.split()[0] == "sqlite3" and shutil.which("sqlite3") is None:
                    continue
                ws.run(line)
        AFTER.get(block.id, lambda ws: None)(ws)
    print(f"block {block.id}: {time.perf_counter() - started:.1f} s")
    if any(line.split()[0] == "sqlite3" for line in lines) and shutil.which("sqlite3") is None:
        pytest.skip("the other lines passed; the sqlite3 line needs the sqlite3 program")


def _run_api_block(ws: Workspace, lines: list[str]) -> None:
    """The curl calls as one bash script against the running demo; every reply is a state."""
    script = substitute("\n".join(lines), ws)
    replies = [json.loads(out) for out in ws.shell(script).stdout.splitlines()]
    assert len(replies) == len(lines) - 1
    assert all("state" in reply and "error" not in reply for reply in replies), replies
    assert replies[-1]["state"]["bumps"] == 1 and replies[-1]["state"]["seq"] == 2


def test_every_readme_command_is_run_or_skipped_with_a_reason():
    """Each README command line is run by its block's test or is in SKIP; every table entry
    names something the README has (a stale one fails)."""
    every = [line for block in BLOCKS for line in block.lines]
    ids = [block.id for block in BLOCKS]
    assert len(ids) == len(set(ids)), ids
    assert not set(SKIP) - set(every), f"SKIP lines no longer in README: {set(SKIP) - set(every)}"
    for table in (PREPARE, SLOW, AFTER):
        assert not set(table) - set(ids), f"blocks no longer in README: {set(table) - set(ids)}"
    for line in (GENERATE_MAZE, PLAY_DEMO, RUN_DEMO_AGENTS):
        assert line in every, line
    stand_in = SimpleNamespace(latest_run=lambda name: f"results/{name}/RUN", url="http://x/")
    for pattern, _, reason in SUBSTITUTIONS:
        assert any(re.search(pattern, line) for line in every), f"unused: {pattern} ({reason})"
    for line in every:
        if line not in SKIP and line.split()[0] not in ("api", "api()", "sqlite3"):
            argv(substitute(line, stand_in))          # a placeholder left over fails here


def test_inline_commands_are_run_or_named():
    """The README's inline `mazesim ...` and `python ...` spans: each is in INLINE."""
    text = README.read_text(encoding="utf-8")
    spans = set(re.findall(r"`((?:mazesim|python)(?: [^`]*)?)`", text))
    assert spans == set(INLINE), (spans - set(INLINE), set(INLINE) - spans)


def test_readme_commands_write_under_results():
    """Lines wrote maze.txt, maze.png and walk.png into the clone's root, untracked and not
    ignored: every file or folder a README line writes is under `results/` (git-ignored)."""
    for line in (line for block in BLOCKS for line in block.lines):
        words = shlex.split(line)
        written = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--output")]
        written += re.findall(r"\.backup (\S+)", line)                 # sqlite3's and Python's
        written += re.findall(r"backup\(sqlite3\.connect\('([^']+)'\)", line)
        assert all(w.startswith("results/") for w in written), line


def test_every_benchmark_is_in_the_readme():
    text = README.read_text(encoding="utf-8")
    missing = [p.name for p in sorted((ROOT / "benchmarks").glob("bench_*.py"))
               if p.name not in text]
    assert not missing, missing


def test_the_library_example_runs_and_its_random_walk_is_random():
    """The example printed the solution length for a random walk (goal seeking at full vision
    walks the shortest path): its first block runs, and the walk's mean is far above it."""
    code = re.search(r"```python\n(from mazesim import generate.*?)```",
                     README.read_text(encoding="utf-8"), re.S).group(1)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=TIMEOUT)
    solution, _, mean = done.stdout.splitlines()
    assert float(mean) > 3 * int(solution)


def test_the_seed_one_liner_prints_a_seed_of_at_least_2_62():
    words = shlex.split('python -c "import secrets; print(2**62 + secrets.randbelow(2**62))"')
    out = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True,
                         check=True).stdout
    assert 2 ** 62 <= int(out) < 2 ** 63


def test_blocks_are_read_with_their_comments_cut():
    """The parser: ids from the paragraph lead, comments cut outside quotes, maze text left out."""
    text = ("Mazes (generate):\n\n    mazesim generators      # the 12 generators\n"
            "    python -c \"print('# not a comment')\"  # a comment\n\nOne line per row:\n\n"
            "    #####\n    #S.G#\n    #####\n")
    assert readme_blocks(text) == [Block("mazes", (
        "mazesim generators", "python -c \"print('# not a comment')\""))]
    with pytest.raises(AssertionError, match="'curl x' is not a command"):
        readme_blocks("Other:\n\n    curl x\n")


@given(st.lists(st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1),
                min_size=1, max_size=5),
       st.text(st.characters(codec="ascii", exclude_characters="\n\r"), max_size=30))
def test_a_trailing_comment_is_cut_and_quoted_hashes_kept(words, comment):
    """`mazesim ARGS  # comment` -> `mazesim ARGS`, also when an argument is a quoted `x # y`."""
    line = shlex.join(["mazesim", *words, "x # kept"])
    assert _command(f"{line}   # {comment}") == line
    assert shlex.split(_command(line))[-1] == "x # kept"
