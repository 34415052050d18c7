"""`mazesim export`: Psych-DS and BIDS datasets of runs of people (the play demo's and the Maze
Search Task's), the Psych-DS check against damaged datasets, `bids-validator-deno`, and a
dataset read back as a run."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.export import check_psychds, export_run
from mazesim.export._moves import COLUMNS, labels
from mazesim.export.reader import import_dataset
from mazesim.humans import import_csv, load_human_run

from cli_errors import error_line

VALIDATOR = shutil.which("bids-validator-deno")
needs_validator = pytest.mark.skipif(VALIDATOR is None, reason="bids-validator-deno is not "
                                     "installed (pip install bids-validator-deno)")


def validate_bids(folder) -> subprocess.CompletedProcess:
    return subprocess.run([VALIDATOR, str(folder)], capture_output=True, text=True,
                          timeout=300)


def test_psych_ds_export_of_the_play_demo(play_run, tmp_path):
    summary = export_run(play_run, tmp_path / "ds", "psych-ds")
    assert (summary.participants, summary.trials, summary.mazes) == (2, 6, 3)
    assert check_psychds(tmp_path / "ds") == []
    files = sorted(p.name for p in (tmp_path / "ds" / "data").iterdir())
    assert files == ["study-playdemo_subject-r1_data.csv", "study-playdemo_subject-r2_data.csv"]
    meta = json.loads((tmp_path / "ds" / "dataset_description.json").read_text())
    assert (meta["@context"], meta["@type"]) == ("https://schema.org/", "Dataset")
    assert [v["name"] for v in meta["variableMeasured"]] == [c for c, _ in COLUMNS]
    lines = (tmp_path / "ds" / "data" / files[0]).read_text().splitlines()
    run = load_human_run(play_run)
    r1 = [t for t in run.trials if t.participant == "r1"]
    assert lines[0] == "participant,maze,trial,step,row,col,vision"
    assert len(lines) - 1 == sum(len(t.positions) for t in r1)
    assert sorted(p.stem for p in (tmp_path / "ds" / "materials" / "mazes").iterdir()) == [
        "full-31", "isovist-known", "window-branch"]


def _drop_variable(ds):
    path = ds / "dataset_description.json"
    meta = json.loads(path.read_text())
    meta["variableMeasured"] = meta["variableMeasured"][:-1]
    path.write_text(json.dumps(meta))


def _set(key, value):
    def damage(ds):
        path = ds / "dataset_description.json"
        meta = json.loads(path.read_text())
        meta[key] = value
        path.write_text(json.dumps(meta))
    return damage


def _rename_data(ds):
    for path in (ds / "data").iterdir():
        path.rename(path.with_name(path.name.replace("_data.csv", "_data2.csv")))


def _short_row(ds):
    path = next((ds / "data").iterdir())
    path.write_text(path.read_text() + "r1,full-31,1\n")


@pytest.mark.parametrize("damage, expected", [
    (lambda ds: (ds / "dataset_description.json").unlink(), "dataset_description.json: missing"),
    (lambda ds: (ds / "dataset_description.json").write_text("{"), "not valid JSON"),
    (_set("@type", "Thing"), "@type is not Dataset"),
    (_set("@context", "https://example.org/"), "@context is not schema.org"),
    (_set("description", ""), "description missing"),
    (_drop_variable, "column 'vision' is not in variableMeasured"),
    (lambda ds: shutil.rmtree(ds / "data"), "data/: missing"),
    (_rename_data, "no valid data file"),
    (_short_row, "has not as many cells as the header"),
])
def test_the_psych_ds_check_finds_a_damaged_export(play_run, tmp_path, damage, expected):
    ds = tmp_path / "ds"
    export_run(play_run, ds, "psych-ds")
    damage(ds)
    problems = check_psychds(ds)
    assert any(expected in p for p in problems), problems


def walks(run_dir):
    """The trials of a run as a sorted list of (participant, maze name, vision, cells)."""
    run = load_human_run(run_dir)
    return sorted((t.participant, run.mazes[t.maze_id].meta["name"], str(t.vision),
                   t.positions.tolist()) for t in run.trials)


@pytest.mark.parametrize("fmt", ["psych-ds", "bids"])
def test_an_export_reads_back_as_the_same_run(play_run, tmp_path, fmt):
    export_run(play_run, tmp_path / "ds", fmt)
    summary = import_dataset(tmp_path / "ds", tmp_path / "back")
    assert (summary.trials, summary.participants, summary.mazes) == (6, 2, 3)
    assert walks(tmp_path / "back") == walks(play_run)
    seen = {m.meta["name"]: m.meta.get("seen_at_start")
            for m in load_human_run(tmp_path / "back").mazes.values()}
    assert seen == {m.meta["name"]: m.meta.get("seen_at_start")
                    for m in load_human_run(play_run).mazes.values()}


def test_a_data_file_concatenated_reads_back_through_import_csv(play_run, tmp_path):
    """The rows are `import csv`'s: the Psych-DS files concatenated give the same walks."""
    ds = tmp_path / "ds"
    export_run(play_run, ds, "psych-ds")
    lines = []
    for path in sorted((ds / "data").iterdir()):
        rows = path.read_text().splitlines()
        lines += rows if not lines else rows[1:]
    (tmp_path / "all.csv").write_text("\n".join(lines) + "\n")
    import_csv(tmp_path / "all.csv", ds / "materials" / "mazes", tmp_path / "back")
    assert walks(tmp_path / "back") == walks(play_run)


def test_a_folder_that_is_no_dataset_is_refused(play_run, tmp_path):
    from mazesim.errors import DataError

    export_run(play_run, tmp_path / "ds", "bids")
    (tmp_path / "ds" / "dataset_description.json").write_text('{"Name": "x"}')
    with pytest.raises(DataError, match="neither BIDS"):
        import_dataset(tmp_path / "ds", tmp_path / "back")
    assert not (tmp_path / "back").exists()


@needs_validator
def test_bids_export_of_the_play_demo_passes_the_validator(play_run, tmp_path):
    summary = export_run(play_run, tmp_path / "bids", "bids")
    assert [p.relative_to(tmp_path / "bids").as_posix() for p in summary.files] == [
        "sub-r1/beh/sub-r1_task-maze_beh.tsv", "sub-r2/beh/sub-r2_task-maze_beh.tsv"]
    sidecar = json.loads((tmp_path / "bids" / "task-maze_beh.json").read_text())
    header = summary.files[0].read_text().splitlines()[0].split("\t")
    assert set(header) <= set(sidecar) and all(sidecar[c]["Description"] for c in header)
    result = validate_bids(tmp_path / "bids")
    assert result.returncode == 0, result.stdout[-3000:]


@needs_validator
def test_the_validator_refuses_a_damaged_bids_export(play_run, tmp_path):
    export_run(play_run, tmp_path / "bids", "bids")
    (tmp_path / "bids" / "dataset_description.json").unlink()
    assert validate_bids(tmp_path / "bids").returncode != 0


@pytest.mark.slow
def test_the_maze_search_task_exports_in_both_formats(experiment_1_run, tmp_path):
    psych = export_run(experiment_1_run, tmp_path / "psych", "psych-ds")
    assert (psych.participants, psych.trials, psych.mazes) == (119, 4_758, 40)
    assert check_psychds(tmp_path / "psych") == []
    bids = export_run(experiment_1_run, tmp_path / "bids", "bids")
    assert len(bids.files) == 119
    rows = sum(len(p.read_text().splitlines()) - 1 for p in bids.files)
    run = load_human_run(experiment_1_run)
    assert rows == sum(len(t.positions) for t in run.trials)
    import_dataset(tmp_path / "bids", tmp_path / "back")
    assert walks(tmp_path / "back") == walks(experiment_1_run)
    if VALIDATOR is None:
        pytest.skip("bids-validator-deno is not installed")
    result = validate_bids(tmp_path / "bids")
    assert result.returncode == 0, result.stdout[-3000:]


def test_labels_keep_letters_and_digits_or_number_everyone():
    assert labels(["S84", "p-1", "a_b"]) == ["S84", "p1", "ab"]
    assert labels(["p-1", "p1", "x"]) == ["p1", "p2", "p3"]          # two would merge
    assert labels(["P1", "p1"]) == ["p1", "p2"]                      # case-blind file systems
    assert labels(["***"]) == ["p1"]


def test_the_command_writes_and_refuses_a_used_folder(play_run, tmp_path):
    runner = CliRunner()
    out = tmp_path / "ds"
    result = runner.invoke(main, ["export", str(play_run), "--format", "bids", "-o", str(out),
                                  "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"format": "bids", "output": str(out),
                                         "participants": 2, "trials": 6, "mazes": 3,
                                         "files": 2}
    again = runner.invoke(main, ["export", str(play_run), "--format", "bids", "-o", str(out)])
    assert again.exit_code == 2
    assert error_line(again) == f"Error: output {out}: exists and is not an empty folder"
    wrong = runner.invoke(main, ["export", str(play_run), "--format", "csv", "-o", str(out)])
    assert wrong.exit_code == 2 and "'csv' is not one of" in error_line(wrong)
    back = runner.invoke(main, ["import", "dataset", str(out), "-o", str(tmp_path / "back"),
                                "--json"])
    assert back.exit_code == 0, back.output
    assert json.loads(back.stdout)["trials"] == 6


def test_a_run_without_trials_is_refused_before_anything_is_written(tmp_path):
    from mazesim.errors import DataError

    from tests.formats.conftest import play_demo_run

    run = play_demo_run(tmp_path / "nobody", people=())
    with pytest.raises(DataError, match="no trials of people to export"):
        export_run(run, tmp_path / "ds", "psych-ds")
    assert not (tmp_path / "ds").exists()


def test_the_command_offers_the_library_s_formats():
    from mazesim.cli.export_commands import export
    from mazesim.export import FORMATS

    option = next(p for p in export.params if p.name == "fmt")
    assert tuple(option.type.choices) == FORMATS


def test_a_folder_without_a_run_is_refused_before_anything_is_written(tmp_path):
    from mazesim.errors import RunError

    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match="not a run directory"):
        export_run(tmp_path / "empty", tmp_path / "ds", "bids")
    assert not (tmp_path / "ds").exists()
