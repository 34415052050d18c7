"""The report: the same run gives the same bytes; what it says and what it refuses to print."""

import csv
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from mazesim import load_run
from mazesim.experiment import background
from mazesim.experiment.report import build_report, walk_mazes
from mazesim.experiment.results import records_frame
from mazesim.experiment.statistics import Correlation, holm
from mazesim.experiment.tables import (Omitted, condition_correlations, correlation_table,
                                       holm_adjusted, omitted_conditions, outcomes)

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


@pytest.mark.parametrize("cores", [1, 4])
def test_table_1_in_any_number_of_pieces_gives_the_same_bytes(sim, tmp_path, monkeypatch,
                                                               cores):
    """Table 1 is computed in one piece per core (each condition's bootstrap seeded by its
    coordinates, Holm's correction over all of them after): any count, the same files."""
    from mazesim.experiment import report as report_module

    run_dir, _ = sim
    names = TABLES + tuple(p.relative_to(run_dir).as_posix()
                           for p in sorted((run_dir / "figures").glob("*.png")))
    here = shutil.copytree(run_dir, tmp_path / run_dir.name)
    monkeypatch.setattr(report_module, "cores", lambda: cores)
    pieces = []
    build_report(here, cpu=pieces)
    assert _bytes(here, names) == _bytes(run_dir, names)
    tables = [name for name, _ in pieces if name == "condition_correlations"]
    assert len(tables) == cores


def test_table_1_is_holm_over_the_pieces_of_every_condition(sim):
    run_dir, report = sim
    run = load_run(run_dir)
    shown = outcomes(run)
    rows = [r for part in (shown[:1], shown[1:4], shown[4:])
            for r in condition_correlations(run, part)]
    pd.testing.assert_frame_equal(
        records_frame(holm_adjusted(rows, report.omitted), Correlation),
        records_frame(correlation_table(run, report.omitted), Correlation))
    assert len(rows) == len(report.correlations) and len(shown) >= 5


def test_csv_flags_are_0_or_1_in_every_table(sim):
    run_dir, _ = sim
    for path in run_dir.glob("*.csv"):
        text = path.read_text()
        assert not re.search(r"\b(True|False|true|false|nan)\b", text), path.name
    with open(run_dir / "trials.csv") as handle:
        assert {row["reached"] for row in csv.DictReader(handle)} <= {"0", "1"}


def test_p_adjusted_is_holm_over_the_conditions_that_are_findings(sim):
    run_dir, report = sim
    none = {(o.agent, o.vision) for o in report.omitted}
    family = [c for c in report.correlations if (c.agent, c.vision) not in none]
    assert np.allclose([c.p_adjusted for c in family], holm([c.p for c in family]),
                       equal_nan=True)
    left = [c for c in report.correlations if (c.agent, c.vision) in none]
    assert left and all(np.isnan(c.p_adjusted) for c in left)
    assert any(np.isfinite(c.p) for c in left)
    tests = int(np.isfinite([c.p for c in family]).sum())
    outside = int(np.isfinite([c.p for c in left]).sum())
    text = report.path.read_text()
    assert (f"Holm's step-down correction over the {tests:,} tests of the conditions that are "
            f"findings (both methods, every stratum; the {outside:,} tests of the conditions "
            "below that are no findings are not in the family") in text
    rows = list(csv.DictReader(open(run_dir / "correlations.csv")))
    assert {r["p_adjusted"] for r in rows if (r["agent"], r["vision"]) in none} == {""}


def test_the_report_opens_with_a_summary(sim):
    run_dir, report = sim
    text = report.path.read_text()
    summary = text[text.index("## Summary"):text.index("## Moves")]
    run = load_run(run_dir)
    assert (f"- **Run**: a run of agents; 6 mazes (digging 3, stick-knocking 2, file 1); 3 agents "
            f"(weighted-walker, dfs, random-walk); vision full, 2; {len(run.trials):,} trials; "
            "root seed 7;") in summary
    assert "- **Moves, vision 2** (mean [95% interval]): from " in summary
    assert "- **No findings**: 3 conditions where vision cannot matter" in summary
    family = [c for c in report.correlations if np.isfinite(c.p_adjusted)]
    held = sum(c.p_adjusted < 0.05 for c in family)
    assert f"- **Table 1**: {held} of {len(family)} tests in Holm's family" in summary
    walker = [t for t in report.choices if t.agent == "weighted-walker" and t.vision == "2"][0]
    assert f"- **Mark A, weighted-walker, vision 2**: {walker.power.direction} " in summary
    assert "nan" not in text.lower().replace("mean", "")


def test_conditions_where_vision_cannot_matter_are_said_not_shown(sim):
    run_dir, report = sim
    why = ("walks the shortest path in every trial (at full vision it sees the exit from the "
           "first step, and goal seeking, the default, walks straight to it; `goal_seeking: "
           "false` walks by its own rule): its moves are the solution length, so r = 1 with "
           "solution_length by construction")     # a random walk that walked no random walk
    assert omitted_conditions(load_run(run_dir)) == [
        Omitted("dfs", "full", why), Omitted("random-walk", "full", why),
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
            "heatmaps-dfs-vision-2.png", "trajectories-dfs-vision-2.png"} <= set(drawn)
    # the full-vision conditions are all no findings: no scatter plot, no walk pictures
    assert not {"scatter-vision-full.png", "trajectories-dfs-vision-full.png",
                "heatmaps-weighted-walker-vision-full.png"} & set(drawn)
    assert "- Vision full: no scatter plot; every condition is no finding (see Table 1)." in text
    assert ("- No trajectories or heat maps of the conditions that are no findings (their walks "
            "are shortest paths, or the same agent's at another vision): weighted-walker, vision "
            "full; dfs, vision full; random-walk, vision full.") in text


def test_walk_figures_show_a_spread_of_mazes_titled_with_the_trials(sim):
    run_dir, report = sim
    run = load_run(run_dir)
    assert walk_mazes(run.mazes.maze_id, run.mazes.stratum) == [0, 3, 5]   # one per stratum
    assert walk_mazes(range(5), ["a"] * 5) == [0, 1, 2]
    assert walk_mazes([7, 8, 9, 10], ["a", "a", "b", "b"]) == [7, 9, 8]
    (figure,) = [f for f in report.figures if f.path.name == "trajectories-dfs-vision-2.png"]
    assert figure.caption == ("dfs, vision 2: the first stored trial on maze 0 (digging), maze 3 "
                              "(stick-knocking), maze 5 (file): visited cells grey, walls black.")
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


def test_capped_trials_are_flagged_and_correlated_through_their_restricted_means(capped_run):
    report = build_report(capped_run)
    (walk,) = [s for s in report.summaries if s.agent == "random-walk"]
    run = load_run(capped_run)
    mine = run.trials[run.trials.agent == "random-walk"]
    assert walk.capped_share == pytest.approx(mine.capped.mean()) and 0.2 < walk.capped_share < 1
    assert walk.counted == (~mine.capped).sum()
    assert walk.mean == pytest.approx(mine[~mine.capped].groupby("maze_id").moves.mean().mean())
    assert walk.tau == 600 and walk.restricted_mean == pytest.approx(
        mine.moves.clip(upper=600).groupby(mine.maze_id).mean().mean())
    text = report.path.read_text()
    assert (f"⚠ random-walk, vision 2: {walk.capped_share:.1%} of 40 trials capped: its mean is "
            "that of the trials that reached G in time") in text
    assert "its restricted mean to tau = 600 moves (the smallest cap it hit)" in text
    assert "dfs, vision 2: " not in text.split("## Correlation")[0].split("⚠ random-walk")[1]
    # Table 1 and the regression of the walker use the restricted means, and say so
    rows = [c for c in report.correlations if c.agent == "random-walk"]
    assert {(c.estimate, c.tau) for c in rows} == {("restricted mean", 600.0)}
    assert {(c.estimate, c.tau) for c in report.correlations if c.agent == "dfs"} == {
        ("mean", c.tau) for c in report.correlations if c.agent == "dfs"}
    assert "| random-walk | *all* | 4 | 32% ⚠, restricted mean to 600 moves |" in text
    per_maze = mine.moves.clip(upper=600).groupby(mine.maze_id).mean()
    (pooled,) = [c for c in rows if c.parameter == "solution_length" and c.method == "pearson"]
    lengths = run.mazes.set_index("maze_id").solution_length.loc[per_maze.index]
    assert pooled.r == pytest.approx(np.corrcoef(lengths, per_maze)[0, 1])
    stored = list(csv.DictReader(open(capped_run / "correlations.csv")))
    assert {(r["estimate"], r["tau"]) for r in stored if r["agent"] == "random-walk"} == {
        ("restricted mean", "600.0")}


def test_a_run_of_people_is_compared_with_nobody(tmp_path):
    run_dir = human_run(tmp_path / "run")
    report = build_report(run_dir)
    text = report.path.read_text()
    assert "nan" not in text.lower().replace("mean", "")
    assert ("Too few mazes: no correlation of this run has an interval (Fisher's z needs at "
            "least 4 mazes with a mean, Spearman's bootstrap 10; this run has at most 1 maze per "
            "condition;") in text
    assert "1 mazes" not in text and "(nan)" not in text
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
