"""Runs of people in the experiment report and beside a simulated run (`compare_runs`)."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from scipy import stats

from mazesim.errors import DataError
from mazesim.experiment.config import config_from_dict
from mazesim.experiment.runner import run_experiment
from mazesim.experiment.storage import RunStore
from mazesim.humans import load_human_run
from mazesim.experiment.choices import exact_test
from mazesim.experiment.statistics import holm
from mazesim.humans.compare.runs import compare_runs, format_comparison
from mazesim.play.report import build_play_report, is_play_run, participant_rows

from tests.play.conftest import CORRIDOR, TUTORIAL, WINDOW_MAZE

# Through the bottom of the tutorial maze: two branch points, A (5, 3) and (5, 9), each with
# three open directions; `DETOUR` first turns left at A into the dead end.
BOTTOM = ["down", "down", "right", "right", "down", "down"] + ["right"] * 6 + \
    ["up", "up", "right", "right", "up", "up"]
DETOUR = BOTTOM[:6] + ["left", "left", "right", "right"] + BOTTOM[6:]
WINDOW_WALK = ["right", "right", "left", "left"] + ["down"] * 4 + ["right"] * 6 + ["up", "up"] + \
    ["left", "left", "up", "up"] + ["right"] * 4 + ["down"] * 8
MAZES = [TUTORIAL, WINDOW_MAZE, CORRIDOR]
WALKS = {"p1": [BOTTOM, WINDOW_WALK, ["right"] * 3],
         "p2": [DETOUR, ["right", "left"] * 2 + WINDOW_WALK, ["right", "left", "right", "right",
                                                                "right"]]}


@pytest.fixture
def human_run(session_factory):
    from mazesim.play.run import open_run

    session = session_factory([(text, 0) for text in MAZES], output="human")
    recorder = open_run(session)
    for participant, walks in WALKS.items():
        recorder.join(participant)
        for i, walk in enumerate(walks):
            recorder.start(participant, f"m{i}")
            for seq, direction in enumerate(walk, 1):
                assert recorder.move(participant, f"m{i}", seq, direction)[0] == "accepted"
    assert recorder.join("p2")["phase"] == "done"
    recorder.store.close()
    return session.output


@pytest.fixture
def sim_run(tmp_path, human_run):
    names = []
    for i, text in enumerate(MAZES):
        (tmp_path / f"s{i}.txt").write_text(text, encoding="utf-8")
        names.append({"file": f"s{i}.txt"})
    config = config_from_dict({
        "name": "sim", "seed": 3, "mazes": names, "vision": [0],
        "agents": [{"type": "random-walk", "trials": 20}, {"type": "weighted-walker", "trials": 20},
                   {"type": "shortest", "trials": 1}],
    }, source="sim.yaml", base=tmp_path)
    return run_experiment(config, output=tmp_path / "sims", report=False).run_dir


def test_play_report_adds_participants_to_the_experiment_report(human_run):
    assert is_play_run(human_run)
    rows = participant_rows(human_run)
    assert [(r.participant, r.maze, r.moves, r.reached) for r in rows] == [
        (p, f"m{i}", len(w), True) for p, walks in WALKS.items() for i, w in enumerate(walks)]
    p2 = rows[3]
    assert p2.choices == "A:left" and rows[0].choices == "A:right"
    assert p2.efficiency == pytest.approx(14 / len(DETOUR))      # tutorial: 14 moves
    assert p2.seconds >= 0 and p2.first_move_seconds >= 0
    report = build_play_report(human_run)
    text = report.path.read_text(encoding="utf-8")
    assert "| human | 0 | 6 |" in text                       # 6 human trials at vision 0
    assert "## Participants" in text and "| p2 | m0 | 0 | 22 | yes | 0.636 |" in text
    with open(human_run / "participants.csv", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert [row["moves"] for row in table] == [str(r.moves) for r in rows]
    with open(human_run / "trials.csv", encoding="utf-8") as handle:
        trials = list(csv.DictReader(handle))
    assert {(t["agent"], t["seed"], t["participant"]) for t in trials} == {
        ("human", "", "p1"), ("human", "", "p2")}
    # the trial's index among those of its maze (as for agents), not the participant's number
    assert sorted((t["maze_id"], t["trial"]) for t in trials) == [
        (m, i) for m in ("0", "1", "2") for i in ("0", "1")]


def test_compare_with_a_simulated_run(human_run, sim_run):
    result = compare_runs(human_run, sim_run)
    assert result.matched == {0: 0, 1: 1, 2: 2}
    scores = {x.agent: x for x in result.scores}
    assert set(scores) == {"random-walk", "weighted-walker"}
    assert result.unscored == ("shortest: shortest gives no step probabilities",)
    walk = scores["random-walk"]
    assert (walk.how, walk.trials, walk.params) == ("fixed", 6, {"goal_seeking": True})
    # the people's decisions: uniform among the open directions unless a seen goal is planned
    people = load_human_run(human_run)
    assert walk.decisions == len(people.decisions)
    assert walk.bits <= walk.baseline_bits + 1e-12 and walk.baseline_bits == pytest.approx(
        people.decisions.baseline_bits())
    assert walk.ci[0] <= walk.bits <= walk.ci[1]
    total = sum(p.bits * p.decisions for p in walk.participants)
    assert total / walk.decisions == pytest.approx(walk.bits)
    assert all(p.ci[0] <= p.bits <= p.ci[1] for p in walk.participants)
    walker = scores["weighted-walker"]
    # the walker never revisits while an unexplored way is open (p2's detour does): no minus
    # infinity, the lapse takes those choices
    assert math.isfinite(walker.bits) and walker.lapse > 0
    best = result.best_agent("0")
    assert best.bits == min(x.bits for x in result.scores)
    (test_a,) = [t for t in result.choices if t.agent == "weighted-walker" and t.mark == "A"]
    human = {d.direction: d.human for d in test_a.directions if d.human is not None}
    assert human == {"right": 1, "left": 1} and test_a.human_n == 2
    with RunStore(sim_run) as sim:
        counts = dict(sim.query("SELECT direction, COUNT(*) FROM choices WHERE agent = ? AND "
                                "first = 1 AND mark = 'A' GROUP BY direction",
                                ("weighted-walker",)))
    assert {d.direction: d.count for d in test_a.directions if d.count} == counts
    table = np.array([[counts.get(d, 0) for d in ("up", "right", "left") if counts.get(d, 0)
                       or d in human], [human.get(d, 0) for d in ("up", "right", "left")
                                        if counts.get(d, 0) or d in human]])
    assert test_a.fisher_p == pytest.approx(exact_test(table.tolist()))   # 2 x k, exact
    finite = [p for p in (t.fisher_p for t in result.choices) if math.isfinite(p)]
    assert [p for p in result.holm_p if math.isfinite(p)] == pytest.approx(
        holm(finite))
    (corr,) = [c for c in result.correlations if c.agent == "random-walk"
               and c.method == "pearson"]
    with RunStore(sim_run) as sim:
        sim_mean = [m for (m,) in sim.query("SELECT AVG(moves) FROM trials WHERE agent = "
                                            "'random-walk' AND capped = 0 GROUP BY maze_id "
                                            "ORDER BY maze_id")]      # one trial is capped
    human_mean = [np.mean([len(w[i]) for w in WALKS.values()]) for i in range(3)]
    assert corr.n == 3 and corr.r == pytest.approx(stats.pearsonr(human_mean, sim_mean)[0])
    text = format_comparison(result)
    assert "Best predictor of people, vision 0: **" in text
    assert "| 0 | random-walk | fixed: goal_seeking True |" in text
    assert "| participant | trials |" in text
    assert "Holm p |" in text


def test_compare_counts_moves_by_the_report_s_rule(tmp_path, human_run):
    """Capped trials are not move counts: the agents' means per maze follow the counting rule
    (300 moves cap the random walk on the two larger mazes; four corridors that no walk fills
    keep the condition under the 20 % that would switch to the restricted mean), not the plain
    mean of every trial."""
    names = []
    extra = [f"{'#' * (n + 4)}\n#S{'.' * n}G#\n{'#' * (n + 4)}\n" for n in (3, 4, 5, 6)]
    for i, text in enumerate(MAZES + extra):
        (tmp_path / f"c{i}.txt").write_text(text, encoding="utf-8")
        names.append({"file": f"c{i}.txt"})
    human_mean = [np.mean([len(w[i]) for w in WALKS.values()]) for i in range(3)]
    for capped_rule in ("exclude", "include"):
        config = config_from_dict({
            "name": f"capped-{capped_rule}", "seed": 5, "mazes": names, "vision": [0],
            "agents": [{"type": "random-walk", "trials": 30, "max_steps": 300}],
            "analysis": {"capped": capped_rule},
        }, source="capped.yaml", base=tmp_path)
        sim = run_experiment(config, output=tmp_path / "sims", report=False).run_dir
        (corr,) = [c for c in compare_runs(human_run, sim).correlations if c.method == "pearson"]
        with RunStore(sim) as store:
            rows = np.array(store.query("SELECT maze_id, moves, capped FROM trials WHERE "
                                        "maze_id < 3 ORDER BY maze_id"), dtype=float)
            share = store.query("SELECT AVG(capped) FROM trials")[0][0]
        assert 0.1 < share <= 0.2 and corr.estimate == "mean" and corr.n == 3
        maze, moves, capped = rows[:, 0], rows[:, 1], rows[:, 2].astype(bool)
        plain = [moves[maze == m].mean() for m in range(3)]
        uncapped = [moves[(maze == m) & ~capped].mean() for m in range(3)]
        expected = plain if capped_rule == "include" else uncapped
        assert corr.r == pytest.approx(stats.pearsonr(human_mean, expected)[0])
        assert plain != pytest.approx(uncapped)


def test_compare_can_fit_the_agents_to_the_people(human_run, sim_run):
    fixed = {x.agent: x for x in compare_runs(human_run, sim_run).scores}
    fitted = {x.agent: x for x in compare_runs(human_run, sim_run, fit=True).scores}
    walker = fitted["weighted-walker"]
    assert walker.how == "fitted" and set(walker.params) >= {"initial_count"}
    assert walker.bits <= fixed["weighted-walker"].bits + 1e-9      # the fit includes the default
    assert fitted["random-walk"].how == "fixed"                     # nothing to fit


def test_compare_refuses_runs_that_do_not_fit(human_run, sim_run, session_factory):
    with pytest.raises(DataError, match="not a run of people"):
        compare_runs(sim_run, human_run)
    with pytest.raises(DataError, match="a run of people, not a simulated run"):
        compare_runs(human_run, human_run)
    from mazesim.play.run import open_run

    other = session_factory([("#####\n#S.G#\n#####\n", "full")], output="other")
    open_run(other).store.close()
    with pytest.raises(DataError, match="shares no maze"):
        compare_runs(other.output, sim_run)


def test_report_command_adds_participants_only_to_a_play_run(human_run, sim_run):
    from click.testing import CliRunner

    from mazesim.cli import main

    result = CliRunner().invoke(main, ["report", str(human_run)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {human_run / 'report.md'} and ")
    text = (human_run / "report.md").read_text(encoding="utf-8")
    assert "## Participants" in text and "| p1 | m2 | 0 | 3 | yes | 1.000 |" in text
    with open(human_run / "participants.csv", encoding="utf-8") as handle:
        assert len(list(csv.DictReader(handle))) == 6
    result = CliRunner().invoke(main, ["report", str(sim_run)])
    assert result.exit_code == 0, result.output
    text = (sim_run / "report.md").read_text(encoding="utf-8")
    assert "| random-walk |" in text and "## Participants" not in text
    assert not (sim_run / "participants.csv").exists()


def test_fit_reads_a_play_run_like_an_imported_one(human_run):
    from mazesim.humans import fit_models

    report = fit_models(human_run, ["random-walk", "weighted-walker"], folds=2, seed=0)
    assert report.participants == 2 and report.decisions == len(load_human_run(human_run)
                                                                .decisions)
    assert all(math.isfinite(m.cv_bits) for m in report.models)


def test_compare_fits_every_model_agent(tmp_path, human_run):
    """`compare --fit` with every agent that gives step probabilities in the simulated run."""
    from mazesim.humans import default_models

    (tmp_path / "s0.txt").write_text(TUTORIAL, encoding="utf-8")
    config = config_from_dict({
        "name": "every", "seed": 3, "mazes": [{"file": "s0.txt"}], "vision": [0],
        "agents": [{"type": name, "trials": 2} for name in default_models()],
    }, source="every.yaml", base=tmp_path)
    run = run_experiment(config, output=tmp_path / "sims", report=False).run_dir
    scores = compare_runs(human_run, run, fit=True).scores
    assert sorted({s.agent for s in scores}) == sorted(default_models())
    assert all(math.isfinite(s.bits) for s in scores)


def test_names_and_ids_from_the_runs_are_escaped_in_the_markdown(tmp_path):
    from mazesim.humans.compare.runs import AgentBits, Comparison, ParticipantBits

    evil = "<script>alert(1)</script>|![x](http://t.example/)\x1b[2J"
    person = ParticipantBits(evil, 1, 3, 1.0, (0.5, 1.5))
    score = AgentBits("a<b>", "0", "fixed", {}, 0.1, 1, 3, 1.0, (0.5, 1.5), 1.58, (person,))
    text = format_comparison(Comparison(tmp_path / "<i>people", tmp_path / "sim", {0: 0}, (), (),
                                        (), (score,), ("x|y",)))
    assert all(raw not in text for raw in ("<script", "<b>", "<i>", "\x1b"))
    assert "| &lt;script&gt;alert(1)&lt;/script&gt;\\|!\\[x\\](http://t.example/)\\\\x1b\\[2J | 1 " \
           "| 3 |" in text
    assert "**a&lt;b&gt;**" in text and "- not scored: x\\|y" in text
    assert text.startswith(f"# {tmp_path}/&lt;i&gt;people (people) against")


def test_compare_prints_json_and_writes_its_tables_without_nan(tmp_path, human_run, sim_run):
    """`compare --json -o`: one JSON object (NaN as null, with the reason), comparison.md and
    its tables; rows too small for a statistic say so instead of printing nan."""
    from click.testing import CliRunner

    from mazesim.cli import main
    from mazesim.humans.compare.output import (BITS_CSV, CHOICES_CSV, COMPARISON, MOVES_CSV,
                                               PARTICIPANTS_CSV)

    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", str(human_run), str(sim_run), "--json", "-o",
                                       str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output, parse_constant=lambda name: pytest.fail(name))
    assert {r["method"]: (r["r"], r["n"], r["note"]) for r in data["correlations"]
            if r["agent"] == "random-walk"} == {
        "pearson": (pytest.approx(data["correlations"][0]["r"]), 3, ""),
        "spearman": (None, 3, "too few: 3 mazes with both means (spearman needs 10)")}
    assert {s["agent"] for s in data["scores"]} == {"random-walk", "weighted-walker"}
    assert all(p["ci"] is not None for s in data["scores"] for p in s["participants"])
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [COMPARISON, BITS_CSV, PARTICIPANTS_CSV, MOVES_CSV, CHOICES_CSV])
    text = (out / COMPARISON).read_text(encoding="utf-8")
    assert "nan" not in text
    assert ("No r where too few mazes have both means (Pearson 3, Spearman 10): vision 0, 3 mazes "
            "(3 rows).") in text
    with open(out / MOVES_CSV, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["agent"], r["method"], r["r"] == "") for r in rows] == [
        (a, m, m == "spearman") for a in ("random-walk", "weighted-walker", "shortest")
        for m in ("pearson", "spearman")]
    plain = CliRunner().invoke(main, ["compare", str(human_run), str(sim_run)])
    assert plain.output == text


def test_one_trial_per_participant_has_no_interval(tmp_path, human_run, sim_run):
    people = compare_runs(human_run, sim_run)
    walk = [x for x in people.scores if x.agent == "random-walk"][0]
    # the trials with a junction decision
    assert all(p.trials == 2 and p.ci[0] <= p.ci[1] for p in walk.participants)
    from mazesim.humans.compare.runs import _participant_table

    one = walk.participants[0].__class__("p9", 1, 4, 1.0, (math.nan, math.nan))
    lines = _participant_table([walk.__class__(**{**walk.__dict__, "participants": (one,)})])
    assert lines[1] == "Per participant (bits per decision, one trial each: no interval):"
    assert lines[-1] == "| p9 | 1 | 4 | 1.000 |"
