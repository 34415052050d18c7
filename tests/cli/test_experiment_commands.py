"""CLI: mazesim validate, run, replay, report (exit codes, the one Error line, outputs)."""

import copy
import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mazesim.cli import experiment_commands, main
from mazesim.cli._progress import Progress

ROOT = Path(__file__).resolve().parents[2]
MAZE = ROOT / "experiments" / "branch-point-a" / "maze.txt"
CONFIG = {
    "name": "cli",
    "seed": 3,
    "mazes": [{"generator": "digging", "size": 11, "count": 3}, {"file": "maze.txt"}],
    "agents": [{"type": "weighted-walker", "trials": 4}, {"type": "dfs", "trials": 3}],
    "vision": ["full", 2],
    "analysis": {"branch_choices": [{"mark": "A", "human": {"up": 10, "right": 4}}]},
}


UNREACHABLE = "#######\n#S.#.G#\n#######\n"


def _write(folder: Path, data: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "maze.txt").write_text(MAZE.read_text())
    (folder / "unreachable.txt").write_text(UNREACHABLE)
    path = folder / "exp.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return _write(tmp_path / "cfg", CONFIG)


def test_validate_ok(config):
    result = _invoke("validate", config)
    assert result.exit_code == 0
    assert result.output == "OK: cli: 4 mazes x 2 agents x 2 vision = 16 units, 56 trials\n"


@pytest.mark.parametrize("change, line", [
    (lambda d: d["agents"][1].update(type="bsf"),
     "exp.yaml: agents[1].type: 'bsf' is not an agent; did you mean 'bfs'?"),
    (lambda d: d["mazes"][0].update(count=-1),
     "exp.yaml: mazes[0].count: -1 (allowed: an integer from 1 to 100,000)"),
    (lambda d: d["mazes"][1].update(file="nope.txt"),
     "exp.yaml: mazes[1].file: 'nope.txt': no such file"),
    (lambda d: d.update(colour="red"), "exp.yaml: colour: unknown key (allowed: name, description"),
    (lambda d: d["analysis"]["branch_choices"][0].update(mark="Q"),
     "exp.yaml: analysis.branch_choices[0].mark: 'Q' is not marked in mazes[1]"),
    # validation passed what run refused (issue: hardening)
    (lambda d: d["mazes"][0].update(size=3),
     "exp.yaml: mazes[0]: size 3x3: a single room, and S and G need two different ones"),
    (lambda d: d["mazes"][0].update(placement=[[1, 1], [1, 1]]),
     "exp.yaml: mazes[0]: placement: start and goal are the same cell (1, 1)"),
    (lambda d: d["mazes"].append({"file": "unreachable.txt"}),
     "unreachable.txt: the goal (1, 5) is unreachable from the start (1, 1)"),
    (lambda d: d.update(vision=[2**70]),
     "exp.yaml: vision[0]: 1180591620717411303424 (allowed: full or an integer from 0 to "
     "10,000)"),
    (lambda d: d.update(vision=["full", "FULL"]),
     "exp.yaml: vision[1]: 'FULL' is the same as vision[0] (full)"),
    (lambda d: d.update(vision=[" 2", 2]), "exp.yaml: vision[1]: 2 is the same as vision[0] (2)"),
    (lambda d: d["agents"][1].update(max_steps=10**12),
     "exp.yaml: agents[1].max_steps: 1000000000000 (allowed: an integer from 0 to "
     "1,000,000,000)"),
    (lambda d: d["agents"][1].update(trials=10**12),
     "exp.yaml: agents[1].trials: 1000000000000 (allowed: an integer from 1 to 1,000,000)"),
    (lambda d: d["mazes"][0].update(count=10**12),
     "exp.yaml: mazes[0].count: 1000000000000 (allowed: an integer from 1 to 100,000)"),
    (lambda d: d.update(mazes=[{"generator": "digging", "size": 51, "count": 100_000}],
                        analysis={}),
     "exp.yaml: mazes: 260,100,000 grid cells in all, about 0.8 GB to build and store "
     "(allowed: at most 200,000,000)"),
    (lambda d: d.update(mazes=[{"generator": "digging", "size": 5, "count": 100_000}],
                        analysis={}, agents=[{"type": "dfs", "trials": 100}]),
     "exp.yaml: agents: 20,000,000 trials in all, mazes x vision x trials (allowed: at most "
     "10,000,000)"),
    (lambda d: d["mazes"][1].update(file="/tmp"),
     "exp.yaml: mazes[1].file: '/tmp': a directory, not a file (/tmp)"),
    (lambda d: d["mazes"][1].update(file="/dev/null"),
     "exp.yaml: mazes[1].file: '/dev/null': not a regular file (/dev/null)"),
], ids=lambda value: value[:40] if isinstance(value, str) else None)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_broken_config_one_error_line_and_nothing_created(tmp_path, change, line, command):
    data = copy.deepcopy(CONFIG)
    change(data)
    path = _write(tmp_path / "cfg", data)
    out = tmp_path / "out"
    args = ("run", path, "--output", out) if command == "run" else ("validate", path)
    result = _invoke(*args)
    assert result.exit_code == 2
    (error,) = result.output.splitlines()
    assert error.startswith("Error: ") and line in error
    assert not out.exists()


def test_duplicate_yaml_keys_are_refused_not_last_one_wins(tmp_path):
    path = _write(tmp_path / "cfg", CONFIG)
    lines = path.read_text().splitlines() + ["seed: 4"]
    path.write_text("\n".join(lines) + "\n")
    first = lines.index("seed: 3") + 1
    result = _invoke("validate", path)
    assert result.exit_code == 2
    assert result.output == (f"Error: {path}:{len(lines)}:1: duplicate key 'seed' (first at "
                             f"line {first})\n")


def test_run_replay_report(config, tmp_path):
    out = tmp_path / "out"
    result = _invoke("run", config, "--output", out)
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    steps = [step.split("] ", 1)[1] for step in result.stderr.splitlines()   # one line a step,
             if "] compiling " not in step]           # and one more on a cold cache (CI's)
    assert steps[:2] == ["mazes: building 4 and measuring their parameters ...",
                         "trials: 56 in 16 units ..."]
    assert [step.split(":")[0] for step in steps[2:]] == ["report"] * 3
    run_dir = Path(line.rsplit(" -> ", 1)[1])
    assert line.startswith("Done: 56 trials (4 mazes x 2 agents x 2 vision), ")
    assert run_dir.parent == out / "cli" and (run_dir / "report.md").is_file()

    picture = tmp_path / "trial.png"
    result = _invoke("replay", run_dir, "--trial", 45, "-o", picture)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("trial 45: maze 3, weighted-walker, vision full, trial 3: ")
    assert "- identical" in result.output and picture.stat().st_size > 0

    (run_dir / "report.md").unlink()
    result = _invoke("report", run_dir)
    assert result.exit_code == 0 and (run_dir / "report.md").is_file()
    assert "Table 2" in (run_dir / "report.md").read_text()


def test_replay_bad_trial(config, tmp_path):
    out = tmp_path / "out"
    _invoke("run", config, "--output", out)
    (run_dir,) = (out / "cli").iterdir()
    result = _invoke("replay", run_dir, "--trial", 999)
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"Error: trial_id: 999 is not a trial of {run_dir} (allowed: 0 to 55)"]


def test_resume_without_unfinished_run(config, tmp_path):
    result = _invoke("run", config, "--resume", "--output", tmp_path / "out")
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and "resume: no unfinished run of 'cli'" in \
        result.output


def test_report_on_a_directory_that_is_not_a_run(tmp_path):
    result = _invoke("report", tmp_path)
    assert result.exit_code == 2 and "not a run directory" in result.output


def test_validate_json(config):
    result = _invoke("validate", config, "--json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {"kind": "experiment", "name": "cli", "mazes": 4,
                                         "agents": ["weighted-walker", "dfs"],
                                         "vision": ["full", "2"], "units": 16, "trials": 56}


def test_validate_reads_a_play_session_too():
    """It said `order: unknown key` with the experiment's keys."""
    session = ROOT / "configs" / "play-demo.yaml"
    result = _invoke("validate", session)
    assert result.exit_code == 0, result.output
    assert result.output == ("OK: session play-demo: 3 mazes after 1 practice, order latin, "
                             "vision full / 2 / isovist 10, map known\n")
    assert json.loads(_invoke("validate", session, "--json").output) == {
        "kind": "session", "name": "play-demo", "mazes": 3, "practice": 1, "order": "latin",
        "vision": ["full", "2", "isovist 10, map known"],
        "output": str(ROOT / "results" / "play-demo")}


@pytest.mark.parametrize("text, error", [
    ("name: s\norder: sideways\nmazes: [{file: maze.txt}]\n",
     "order: 'sideways' is not an order (allowed: fixed, shuffled, latin)"),
    ("name: s\nmazes: [{file: maze.txt, vision: sideways}]\n", "mazes[0].vision"),
    ("name: s\nseed: 1\nmazes: [{file: maze.txt}]\nagent: []\n",
     "agent: unknown key; did you mean 'agents'?"),     # an experiment with a typo stays one
])
def test_validate_tells_session_errors_as_a_session(tmp_path, text, error):
    (tmp_path / "maze.txt").write_text(MAZE.read_text())
    (tmp_path / "s.yaml").write_text(text)
    result = _invoke("validate", tmp_path / "s.yaml")
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith(f"Error: {tmp_path / 's.yaml'}") and error in line, line


def test_run_report_replay_json(config, tmp_path):
    result = _invoke("run", config, "--output", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)
    run_dir = Path(done["run_dir"])
    assert {k: done[k] for k in ("mazes", "units", "trials", "resumed")} == {
        "mazes": 4, "units": 16, "trials": 56, "resumed": False}
    assert run_dir.parent == tmp_path / "out" / "cli" and done["moves"] > 0

    result = _invoke("report", run_dir, "--json")
    assert result.exit_code == 0, result.output
    written = json.loads(result.output)
    assert written["report"] == str(run_dir / "report.md")
    assert {Path(p).name for p in written["tables"]} == {
        "mazes.csv", "trials.csv", "choices.csv", "correlations.csv", "regression.csv",
        "vif.csv", "summary.csv", "branch_choices.csv"}
    assert written["figures"] and all(Path(p).is_file() for p in written["figures"])

    result = _invoke("replay", run_dir, "--trial", 45, "--json")
    assert result.exit_code == 0, result.output
    again = json.loads(result.output)
    assert {k: again[k] for k in ("trial_id", "maze_id", "agent", "vision", "trial",
                                  "identical", "picture")} == {
        "trial_id": 45, "maze_id": 3, "agent": "weighted-walker", "vision": "full", "trial": 3,
        "identical": True, "picture": None}
    assert (again["moves"], again["reached"]) == (again["stored_moves"], again["stored_reached"])


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def _told(tty: bool) -> str:
    """What the run's progress says for a cold run: 60 s compiling three kernel groups, mazes,
    100 trials in 2 s, the report."""
    now = [0.0]
    stream = _Stream(tty)
    told = Progress(stream, clock=lambda: now[0])
    for done, label in enumerate(["walks of dfs", "generator digging", "bootstrap"]):
        told.compiling(done, 3, label)
        now[0] += 20.0
    told.compiling(3, 3, "")
    told.stage("mazes: building 2 and measuring their parameters")
    now[0] += 1.0
    told.stage("trials: 100 in 4 units")
    for done in (0, 25, 50, 75, 100):
        told.trials(done, 100)
        now[0] += 0.5
    told.stage("report: the figures")
    told.close()
    return stream.getvalue()


def test_a_piped_run_says_one_line_a_step():
    assert _told(tty=False).splitlines() == [
        "[   0.0 s] compiling 3 kernel groups (first run only) ...",
        "[  60.0 s] mazes: building 2 and measuring their parameters ...",
        "[  61.0 s] trials: 100 in 4 units ...",
        "[  63.5 s] report: the figures ..."]


def test_on_a_terminal_the_bar_counts_trials_after_the_compilation():
    said = _told(tty=True)
    steps = said.replace("\r", "\n").splitlines()
    assert "compiling kernels (first run only): 1 of 3 done; now generator digging" in said
    assert "compiled 3 kernel groups in 60.0 s (first run only)" in said
    assert steps.index("mazes: building 2 and measuring their parameters ...") > steps.index(
        "\x1b[Kcompiled 3 kernel groups in 60.0 s (first run only)")
    bars = [s for s in steps if "trials  [" in s]
    assert "0/100" in bars[0] and "100/100  50 trials/s" in bars[-1]  # 100 in 2 s, not 62
    assert len(bars) == 5 and said.endswith("report: the figures ...\n")


def test_a_resumed_run_counts_only_the_trials_left():
    stream = _Stream(True)
    told = Progress(stream, clock=lambda: 0.0)
    told.trials(40, 100)
    told.trials(100, 100)
    told.close()
    assert "60/60" in stream.getvalue() and "100/" not in stream.getvalue()


def test_a_count_is_drawn_in_place_on_a_terminal_and_nothing_is_said_when_piped():
    """fit and predict ran 48 s and 100 s without a word on a terminal; piped, their output
    stays their result alone."""
    now = [0.0]
    for tty in (True, False):
        stream = _Stream(tty)
        told = Progress(stream, clock=lambda: now[0])
        for done in range(4):
            told.count("models fitted (now dfs)" if done < 3 else "models fitted", done, 3)
            now[0] += 1.0
        said = stream.getvalue()
        if tty:
            assert said.split("\r") == ["", "\x1b[Kmodels fitted (now dfs): 0 of 3",
                                        "\x1b[Kmodels fitted (now dfs): 1 of 3",
                                        "\x1b[Kmodels fitted (now dfs): 2 of 3", "\x1b[K"]
        else:
            assert said == ""
