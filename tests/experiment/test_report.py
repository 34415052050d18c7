"""The report: the same run gives the same bytes; what it says and what it refuses to print."""

import csv
import re
import shutil

import numpy as np
import pytest

from mazesim import load_run
from mazesim.experiment import background
from mazesim.experiment.report import build_report
from mazesim.experiment.statistics import holm
from mazesim.experiment.tables import Omitted, omitted_conditions

from experiment_fixtures import run_small, write_config
from report_fixtures import human_run, simulated_run

TABLES = ("mazes.csv", "trials.csv", "choices.csv", "correlations.csv", "regression.csv",
          "summary.csv", "branch_choices.csv", "report.md")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    run_dir = simulated_run(tmp_path_factory.mktemp("sim"))
    return run_dir, build_report(run_dir)


def _bytes(run_dir, names):
    return {name: (run_dir / name).read_bytes() for name in names}


def test_two_reports_of_one_run_are_byte_identical(sim):
    run_dir, report = sim
    figures = sorted(p.relative_to(run_dir).as_posix()
                     for p in (run_dir / "figures").glob("*.png"))
    first = _bytes(run_dir, TABLES + tuple(figures))
    build_report(run_dir)
    assert _bytes(run_dir, TABLES + tuple(figures)) == first


def test_figures_drawn_in_this_process_give_the_same_bytes(sim, tmp_path, monkeypatch):
    """The report draws its figures in a forked process where it can; without one (no fork,
    one core) every file is the same."""
    run_dir, _ = sim
    names = TABLES + tuple(p.relative_to(run_dir).as_posix()
                           for p in sorted((run_dir / "figures").glob("*.png")))
    here = shutil.copytree(run_dir, tmp_path / run_dir.name)
    monkeypatch.setattr(background, "_worth_forking", lambda: False)
    build_report(here)
    assert _bytes(here, names) == _bytes(run_dir, names)


def test_csv_flags_are_0_or_1_in_every_table(sim):
    run_dir, _ = sim
    for path in run_dir.glob("*.csv"):
        text = path.read_text()
        assert not re.search(r"\b(True|False|true|false|nan)\b", text), path.name
    with open(run_dir / "trials.csv") as handle:
        assert {row["reached"] for row in csv.DictReader(handle)} <= {"0", "1"}


def test_p_adjusted_is_holm_over_the_whole_table(sim):
    run_dir, report = sim
    p = [c.p for c in report.correlations]
    assert np.allclose([c.p_adjusted for c in report.correlations], holm(p), equal_nan=True)
    tests = int(np.isfinite(p).sum())
    assert f"Holm's step-down correction over all {tests:,} tests" in report.path.read_text()


def test_conditions_where_vision_cannot_matter_are_said_not_shown(sim):
    run_dir, report = sim
    assert omitted_conditions(load_run(run_dir)) == [
        Omitted("dfs", "full", "walks the shortest path in every trial: its moves are the "
                "solution length, so r = 1 with solution_length by construction"),
        Omitted("random-walk", "full", "walks the shortest path in every trial: its moves are "
                "the solution length, so r = 1 with solution_length by construction"),
        Omitted("weighted-walker", "full", "ignores vision: the same agent as at vision 2, "
                "shown there")]
    text = report.path.read_text()
    table_1 = text[text.index("(Table 1)"):text.index("## Regression")]
    assert "- dfs, vision full: walks the shortest path in every trial" in table_1
    assert "### pearson, vision full" not in table_1      # all its conditions are omitted
    rows = re.findall(r"^\| (\S+) \| \S+ \| \d+ \|", table_1[table_1.index("vision 2"):], re.M)
    assert set(rows) == {"weighted-walker", "dfs", "random-walk"}


def test_every_figure_is_referenced_with_a_caption(sim):
    run_dir, report = sim
    text = report.path.read_text()
    drawn = sorted(p.name for p in (run_dir / "figures").glob("*.png"))
    assert sorted(f.path.name for f in report.figures) == drawn
    for i, figure in enumerate(report.figures, 1):
        assert f"![{figure.caption}](figures/{figure.path.name})" in text
        assert f"*Figure {i}. {figure.caption}*" in text
    assert {"scatter-vision-2.png", "moves-boxplot.png", "choices-A.png",
            "heatmap-maze0-dfs-vision-2.png", "trajectory-maze0-dfs-vision-2.png"} <= set(drawn)


def test_trajectory_figures_are_titled_with_the_trial(sim):
    run_dir, report = sim
    run = load_run(run_dir)
    first = run.trials[(run.trials.maze_id == 0) & (run.trials.agent == "dfs")
                       & (run.trials.vision == "2")].iloc[0]
    (figure,) = [f for f in report.figures if f.path.name == "trajectory-maze0-dfs-vision-2.png"]
    assert figure.caption == (f"Trial {first.trial_id} (dfs, vision 2) on maze 0 (digging): "
                              "visited cells grey, walls black.")


def test_choices_at_a_give_the_exact_test_and_the_power(sim):
    _, report = sim
    text = report.path.read_text()
    walker = [t for t in report.choices if t.agent == "weighted-walker" and t.vision == "2"][0]
    assert walker.test == "exact" and walker.power.people == 14
    assert (f"**weighted-walker, vision 2, mark A**: {walker.n} trials left the mark; exact test "
            f"against the 14 people: p = ") in text
    assert f"with probability {walker.power.power:.1%}" in text
    assert "| up |" in text and "people's share (95% CI)" in text


@pytest.fixture
def capped_run(tmp_path):
    data = {"name": "capped", "seed": 1,
            "mazes": [{"generator": "digging", "size": 11, "count": 4}],
            "agents": [{"type": "random-walk", "trials": 10, "max_steps": 600},
                       {"type": "dfs", "trials": 3}],
            "vision": [2]}
    return run_small(write_config(tmp_path / "cfg", data), tmp_path / "out").run_dir


def test_capped_trials_are_flagged_and_excluded(capped_run):
    report = build_report(capped_run)
    (walk,) = [s for s in report.summaries if s.agent == "random-walk"]
    run = load_run(capped_run)
    mine = run.trials[run.trials.agent == "random-walk"]
    assert walk.capped_share == pytest.approx(mine.capped.mean()) and 0.2 < walk.capped_share < 1
    assert walk.counted == (~mine.capped).sum()
    assert walk.mean == pytest.approx(mine.moves[~mine.capped].mean())
    text = report.path.read_text()
    assert (f"⚠ random-walk, vision 2: {walk.capped_share:.1%} of 40 trials capped: its mean is "
            "that of the trials that reached G in time") in text
    assert "dfs, vision 2: " not in text.split("## Mazes")[0].split("⚠ random-walk")[1]


def test_a_run_of_people_is_compared_with_nobody(tmp_path):
    run_dir = human_run(tmp_path / "run")
    report = build_report(run_dir)
    text = report.path.read_text()
    assert "nan" not in text.lower().replace("mean", "")
    assert ("Too few mazes: no correlation of this run has an interval (Fisher's z needs at "
            "least 4 mazes with a mean, Spearman's bootstrap 10; this run has at most 1 per "
            "condition;") in text
    assert "No condition could be fit: 1 maze for 6 terms: too few to fit." in text
    (test,) = report.choices
    assert test.test == "" and test.power is None
    assert ("**human, vision 2, mark A**: 2 people left the mark; no test: these are the run's "
            "people, compared here with nobody") in text
    assert "expected of" not in text and "exact test" not in text.split("(Table 2)")[1]
    rows = list(csv.DictReader(open(run_dir / "branch_choices.csv")))
    assert [(r["direction"], r["count"], r["test"], r["p"]) for r in rows] == [
        ("right", "1", "", ""), ("left", "1", "", "")]


def test_a_mark_no_trial_reached_is_one_line_not_an_empty_block(tmp_path):
    data = {"name": "unreached", "seed": 1, "mazes": [{"file": "maze.txt"}],
            "agents": [{"type": "dfs", "trials": 2, "max_steps": 3}], "vision": [2],
            "analysis": {"branch_choices": {"mark": "A", "human": {"up": 10, "right": 4}}}}
    run_dir = run_small(write_config(tmp_path / "cfg", data), tmp_path / "out").run_dir
    text = build_report(run_dir).path.read_text()
    assert "No trial left the mark: mark A, dfs, vision 2." in text
    assert "**dfs, vision 2, mark A**" not in text
