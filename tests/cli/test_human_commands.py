"""The `import`, `fit` and `compare` commands: JSON and text output, one-line errors, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim.cli import main

from tests.humans.conftest import FORK, GOOD, LINE, mst_table


@pytest.fixture
def mst(tmp_path):
    def write(rows=GOOD, mazes=None):
        folder = tmp_path / "mst"
        (folder / "mazes").mkdir(parents=True, exist_ok=True)
        for name, text in (mazes if mazes is not None else {"fork": FORK, "line": LINE}).items():
            (folder / "mazes" / f"{name}.txt").write_text(text)
        (folder / "plandata.csv").write_text(mst_table(rows))
        return folder
    return write


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_import_mst_json(mst, tmp_path):
    result = run("import", "mst", mst(), "-o", tmp_path / "run", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"trials": 3, "participants": 2, "mazes": 2,
                                         "moves": 15, "bumps": 0,
                                         "decision_level": "junction", "decisions": 3,
                                         "unfinished": 0, "skipped": [], "warnings": []}


def test_import_errors_are_one_line_and_leave_no_run(mst, tmp_path):
    folder = mst(GOOD + [("s3", "fork", 4, "p(2,0)p(2,1);p(2,2);", "1;1;")])
    result = run("import", "mst", folder, "-o", tmp_path / "run")
    assert result.exit_code == 2
    assert result.output == (f"Error: {folder / 'plandata.csv'}:5: participant s3, maze fork, "
                             "step 2: (2, 2) is a wall (--skip-invalid imports the valid trials "
                             "and lists the others)\n")
    assert not (tmp_path / "run").exists()
    result = run("import", "mst", folder, "-o", tmp_path / "run", "--skip-invalid", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["skipped"] == [
        {"line": 5, "participant": "s3", "maze": "fork", "step": 2,
         "reason": "(2, 2) is a wall"}]


@pytest.mark.parametrize("case, message", [
    ("missing maze", "plandata.csv:3: participant s1, maze line: no maze file"),
    ("unknown column", "plandata.csv:1: no column 'subject'"),
    ("empty", "plandata.csv: empty file (expected a header line)"),
])
def test_bad_mst_folders(mst, tmp_path, case, message):
    folder = mst(mazes={"fork": FORK} if case == "missing maze" else None)
    if case == "unknown column":
        text = (folder / "plandata.csv").read_text().replace("subject", "participant")
        (folder / "plandata.csv").write_text(text)
    if case == "empty":
        (folder / "plandata.csv").write_text("")
    result = run("import", "mst", folder, "-o", tmp_path / "run")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("Error: ") and message in result.output
    assert not (tmp_path / "run").exists()


def test_import_csv(tmp_path):
    (tmp_path / "mazes").mkdir()
    (tmp_path / "mazes" / "m.txt").write_text("######\n#S..G#\n######\n")
    (tmp_path / "walks.csv").write_text("participant,maze,trial,step,row,col\n"
                                        + "".join(f"a,m,1,{k},1,{k + 1}\n" for k in range(4)))
    result = run("import", "csv", tmp_path / "walks.csv", "--mazes", tmp_path / "mazes", "-o",
                 tmp_path / "run", "--vision", "isovist 3, map known")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {tmp_path / 'run'}: 1 trials of 1 participants")
    (tmp_path / "bad.csv").write_text("participant,maze,trial,stepp,row,col\n")
    result = run("import", "csv", tmp_path / "bad.csv", "--mazes", tmp_path / "mazes", "-o",
                 tmp_path / "run2")
    assert result.exit_code == 2 and "unknown column 'stepp'" in result.output
    result = run("import", "csv", tmp_path / "walks.csv", "--mazes", tmp_path / "mazes", "-o",
                 tmp_path / "run3", "--vision", "sideways")
    assert result.exit_code == 2 and "Invalid value for '--vision': 'sideways'" in result.output
    # issue 33, point 19: import took labels only, not the key=value pairs simulate takes
    for k, form in enumerate(["isovist=3,map=known", "{isovist: 3, map: known}"]):
        result = run("import", "csv", tmp_path / "walks.csv", "--mazes", tmp_path / "mazes",
                     "-o", tmp_path / f"form{k}", "--vision", form)
        assert result.exit_code == 0, result.output


def test_fit_json_and_files(mst, tmp_path):
    folder = mst(GOOD + [("s3", "fork", 1, "p(2,0)p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);",
                          "1;1;1;1;1;")])
    assert run("import", "mst", folder, "-o", tmp_path / "run").exit_code == 0
    result = run("fit", tmp_path / "run", "--model", "random-walk", "--model",
                 "choice-model:goal=0,region=0", "--cv", "3", "--seed", "2", "--json", "-o",
                 tmp_path / "out")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["decisions"], data["participants"]) == (4, 3)
    assert {m["model"] for m in data["models"]} == {"random-walk",
                                                    "choice-model:goal=0,region=0"}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "fit.csv", "fit.png", "fit_participants.csv", "ranking.csv"]
    text = run("fit", tmp_path / "run", "--model", "random-walk", "--cv", "0")
    assert text.exit_code == 0 and text.output.startswith("# Models fitted to")


def test_one_output_rule_and_one_message_for_every_folder(three, tmp_path):
    """`fit -o` wrote over any folder silently while `import` refused a non-empty one, and
    nothing said what was written: now a folder is new, empty or the same command's earlier
    output (replaced: a table not written again goes), else refused before the work; the
    text ends with `wrote FOLDER: files`."""
    out = tmp_path / "fit"
    result = run("fit", three, "--model", "random-walk", "--model", "weighted-walker", "--cv",
                 "3", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"wrote {out}: fit.csv, fit_participants.csv, fit.png, "
                                  "ranking.csv\n")
    result = run("fit", three, "--model", "random-walk", "--cv", "3", "-o", out, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["ranking_note"] == (
        "one model: nothing to compare")
    assert sorted(p.name for p in out.iterdir()) == ["fit.csv", "fit.png",
                                                     "fit_participants.csv"]
    (out / "notes.txt").write_text("mine")
    for args in (["fit", three, "--model", "random-walk"], ["predict", three, "--fit", out],
                 ["compare", three, three]):
        result = run(*args, "-o", out)
        assert result.exit_code == 2 and result.stderr == (
            f"Error: -o {out}: holds 'fit.csv' and 3 more, which this command does not write; "
            "give a new or empty folder, or one this command wrote before\n") if args[0] != \
            "fit" else result.stderr == (
            f"Error: -o {out}: holds 'notes.txt', which this command does not write; give a "
            "new or empty folder, or one this command wrote before\n"), result.output
    assert (out / "notes.txt").read_text() == "mine"
    result = run("import", "mst", tmp_path / "mst", "-o", out)
    assert result.exit_code == 2 and "exists and is not an empty folder" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--cv", "9"], "folds: 9 (allowed: 0 for none, or 2 to 2: the participants with a junction "
                    "decision, at most 100)"),
    (["--model", "nobody"], "unknown agent 'nobody'"),
    (["--by", "maze"], "Invalid value for '--by'"),
])
def test_fit_errors_are_one_line(mst, tmp_path, args, message):
    run("import", "mst", mst(), "-o", tmp_path / "run")
    result = run("fit", tmp_path / "run", *args)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert message in result.output


@pytest.mark.parametrize("model, message", [
    ("choice-model:goal=[1,2]", "Error: model choice-model: goal: '[1': no brackets (a list "
                                "is written a,b,c)"),
    ("choice-model:goal=!!python/object/apply:os.system [ls]",
     "Error: model choice-model: goal:1:1: tag '!!python/object/apply:os.system' is not "
     "allowed"),
    ("choice-model:goal=" + "[" * 5000, "Error: model choice-model: goal: '[[["),
    ("choice-model:goal=" + "a0: &a0\n" + "  - x\n" * 9 + "".join(
        f"a{i}: &a{i}\n" + f"  - *a{i - 1}\n" * 9 for i in range(1, 10)),
     "more than 100,000 values once aliases are expanded"),
    ("choice-model:goal=0,goal=1", "Error: model choice-model: goal: given twice"),
])
def test_fit_refuses_hostile_models_in_one_line_before_reading_the_run(mst, tmp_path, model,
                                                                       message):
    run("import", "mst", mst(), "-o", tmp_path / "run")
    result = run("fit", tmp_path / "run", "--model", model, "--cv", "0")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert result.output.startswith("Error: ") and message in result.output
    (tmp_path / "empty").mkdir()                      # no run at all: the model is read first
    assert message in run("fit", tmp_path / "empty", "--model", model).output


def test_the_split_script_refuses_a_bad_model_in_one_line(mst, tmp_path):
    run("import", "mst", mst(), "-o", tmp_path / "run")
    script = Path(__file__).resolve().parents[2] / "experiments/maze-search-task/split.py"
    done = subprocess.run([sys.executable, script, tmp_path / "run", "--model",
                           "choice-model:goal=[1,2]"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(script.parents[2])})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("Error: model choice-model: goal: '[1': no brackets (a list is "
                           "written a,b,c)\n")


def test_fit_refuses_a_simulated_run(tmp_path):
    from mazesim.experiment.storage import RunStore

    (tmp_path / "sim").mkdir()
    RunStore(tmp_path / "sim", create=True).close()
    result = run("fit", tmp_path / "sim")
    assert result.exit_code == 2 and "not a run of people" in result.output


def test_play_no_longer_has_compare():
    from mazesim.cli import play_commands

    assert play_commands.__all__ == ["play"]
    assert main.get_command(None, "compare").callback.__module__ == "mazesim.cli.human_commands"


def test_an_unwritable_output_is_one_line(mst, tmp_path):
    run("import", "mst", mst(), "-o", tmp_path / "run")
    (tmp_path / "file").write_text("")
    result = run("fit", tmp_path / "run", "--model", "random-walk", "--cv", "0", "-o",
                 tmp_path / "file" / "out")
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: output folder {tmp_path / 'file'}")


def test_fit_weighs_every_person_once(mst, tmp_path):
    """`--weigh person` is the library's `fit_run(weigh="person")`; not at the node level."""
    from mazesim.humans import fit_run, load_human_run

    run("import", "mst", mst(), "-o", tmp_path / "run")
    args = ("fit", tmp_path / "run", "--model", "straight-biased", "--cv", "0", "--json")
    result = run(*args, "--weigh", "person")
    assert result.exit_code == 0, result.output
    (model,) = json.loads(result.output)["models"]
    (want,) = fit_run(load_human_run(tmp_path / "run"), ["straight-biased"], folds=0,
                      weigh="person").models
    assert model["params"] == want.estimate.params and model["lapse"] == want.estimate.lapse
    refused = run(*args, "--weigh", "person", "--level", "node")
    assert refused.exit_code == 2 and "--weigh person: a maximum-likelihood fit" in refused.output


@pytest.fixture
def three(mst, tmp_path):
    """A run of three people on the fork (one node decision each) and the line."""
    folder = mst(GOOD + [("s3", "fork", 1, "p(2,0)p(2,1);p(1,1);p(0,1);p(0,2);p(0,3);",
                          "1;1;1;1;1;")])
    assert run("import", "mst", folder, "-o", tmp_path / "run").exit_code == 0
    return tmp_path / "run"


def test_fit_node_level_json_and_files(three, tmp_path):
    result = run("fit", three, "--level", "node", "--model", "du", "--model", "node-choice",
                 "--model", "random", "--cv", "3", "--json", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {k: data[k] for k in ("level", "protocol", "decisions", "participants", "folds",
                                 "baseline_bits")} == {
        "level": "node", "protocol": "ml", "decisions": 3, "participants": 3, "folds": 3,
        "baseline_bits": 1.0}
    assert {m["model"] for m in data["models"]} == {"du", "node-choice", "random"}
    assert set(data["models"][0]) == {"model", "params", "lapse", "bits", "cv_bits",
                                      "cv_bits_ci", "aic", "bic", "params_ci", "bic_n",
                                      "params_se", "params_se_cluster", "params_se_model",
                                      "converged",
                                      "not_converged"}
    assert {m["model"] for m in data["ranking"]["models"]} == {"du", "node-choice", "random"}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "fit.csv", "fit.png", "fit_participants.csv", "ranking.csv"]
    text = run("fit", three, "--level", "node", "--model", "random", "--cv", "0")
    assert text.exit_code == 0 and text.output.startswith("# Node models fitted to")
    assert "3 node decisions of 3 participants" in text.output
    out = tmp_path / "in-sample"          # --cv 0 wrote no ranking.csv and said nothing of it
    text = run("fit", three, "--level", "node", "--model", "du", "--model", "random", "--cv",
               "0", "-o", out)
    assert "Paired comparison: none (no paired comparison without cross-validation" in \
        text.output and not (out / "ranking.csv").exists()


def test_fit_excludes_participants_and_mazes(three, tmp_path):
    (tmp_path / "out.txt").write_text("s3  # failed the quiz\n")
    for exclude in ("s3", tmp_path / "out.txt"):
        result = run("fit", three, "--level", "node", "--model", "random", "--cv", "2",
                     "--exclude-participants", exclude, "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["participants"] == 2
    junction = run("fit", three, "--model", "random-walk", "--cv", "0", "--exclude-maze",
                   "line", "--exclude-participants", "s3", "--json")
    assert junction.exit_code == 0 and json.loads(junction.output)["decisions"] == 3  # of 4
    result = run("fit", three, "--level", "node", "--exclude-maze", "fork")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "no node decision (a node with two or more children): nothing to fit" in \
        result.output


@pytest.mark.parametrize("args, message", [
    (["--protocol", "peer"], "Error: protocol 'peer' at the junction level (allowed: ml; "),
    (["--level", "node", "--protocol", "peer"],     # issue 33, point 18: was "2 to 1"
     "Error: folds 5: the peer protocol deals each person's decisions into folds, and a person "
     "has 1 (allowed: people with 2 or more; the ml protocol fits them)"),
    (["--level", "node", "--prior", "population"],
     "Error: --prior: only with --level node --protocol peer (a fit, not --params)"),
    (["--level", "node", "--prior", "flat"], "Invalid value for '--prior'"),
    (["--level", "node", "--model", "dv"], "Error: unknown node model 'dv'"),
    (["--level", "node", "--exclude-participants", "s9"], "no participant 's9' to exclude"),
    (["--level", "node", "--exclude-participants", "s1,,s2"], "participants 's1,,s2': an "
                                                             "empty id"),
    (["--exclude-maze", "maze9"], "no maze 'maze9' to exclude (mazes: fork, line)"),
    (["--level", "tree"], "Invalid value for '--level'"),
])
def test_fit_node_level_errors_are_one_line(three, args, message):
    result = run("fit", three, *args)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert message in result.output


def test_compare_excludes_too(three):
    result = run("compare", three, three, "--exclude-participants", "s9")
    assert result.exit_code == 2 and "no participant 's9' to exclude" in result.output


def test_control_characters_of_imported_ids_are_escaped_in_the_error_line(mst, tmp_path):
    """Issue 23, point 5: a NUL and an OSC sequence in an id reached the terminal raw."""
    evil = "s3\x00\x1b]52;c;aGk=\x07"
    result = run("import", "mst", mst(GOOD + [(evil, "fork", 4, "p(2,0)p(2,1);p(2,2);", "1;1;")]),
                 "-o", tmp_path / "run")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "\x00" not in result.output and "\x1b" not in result.output
    assert "participant s3\\x00\\x1b]52;c;aGk=\\x07, maze fork, step 2" in result.output
