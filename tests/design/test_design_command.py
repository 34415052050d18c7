"""`mazesim design`: the same seed writes the same bytes, and bad input is one line, exit 2."""

import json

import pytest

from cli_errors import error_line
from mazesim.cli import main

SMALL = ["--mazes", "2", "--candidates", "20", "--people", "6", "--sample", "1", "--edits",
         "2", "--size", "9x9", "--seed", "4"]


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file()}


def test_the_same_seed_writes_the_same_bytes(runner, fit_dir, tmp_path):
    outs = []
    for k in range(2):
        out = tmp_path / f"study{k}"
        result = runner.invoke(main, ["design", "--fit", str(fit_dir), "--model", "steps",
                                      "--model", "cells", *SMALL, "-o", str(out), "--json"])
        assert result.exit_code == 0, result.output
        outs.append(_files(out))
        report = json.loads(result.stdout)
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == ["mazes/design-01.json", "mazes/design-02.json", "report.json",
                               "report.md", "session.yaml"]
    assert report == json.loads(outs[0]["report.json"])
    assert report["settings"]["models"] == ["steps", "cells"]
    assert set(report["sets"]) == {"designed", "random"}
    assert report["sets"]["designed"]["recovery"]["people"] == 6
    assert b"NaN" not in outs[0]["report.json"]     # one sampled person: no standard error


@pytest.mark.parametrize("args, message", [
    (["--model", "steps"], "at least two different models"),
    (["--model", "steps", "--model", "steps"], "at least two different models"),
    (["--model", "steps", "--model", "eu"], "--model eu: not in the fit"),
    (["--model", "steps", "--model", "cells", "--size", "3x3"], "size 3x3"),
    (["--model", "steps", "--model", "cells", "--candidates", "100001"], "100001 is not in"),
    (["--model", "steps", "--model", "cells", "--people", "1001"], "1001 is not in"),
])
def test_bad_input_is_one_line_and_exit_2(runner, fit_dir, tmp_path, args, message):
    base = ["design", "--fit", str(fit_dir), "--mazes", "1", "-o", str(tmp_path / "o")]
    result = runner.invoke(main, base + args)
    assert result.exit_code == 2
    assert message in error_line(result)
    assert not (tmp_path / "o").exists()


def test_a_fit_without_people_or_folder_is_refused(runner, fit_dir, tmp_path):
    result = runner.invoke(main, ["design", "--fit", str(tmp_path / "none"), "--model", "steps",
                                  "--model", "cells", "--mazes", "1", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no such folder" in error_line(result)
    (fit_dir / "fit_participants.csv").unlink()
    result = runner.invoke(main, ["design", "--fit", str(fit_dir), "--model", "steps",
                                  "--model", "cells", "--mazes", "1", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no per-person fit" in error_line(result)



def test_a_judge_population_is_simulated_and_must_hold_the_models(runner, fit_dir, tmp_path):
    result = runner.invoke(main, ["design", "--fit", str(fit_dir), "--model", "steps",
                                  "--model", "cells", *SMALL, "--judge", str(fit_dir),
                                  "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "from the --judge population" in result.stdout
    judge = tmp_path / "judge"
    judge.mkdir()
    for name in ("fit.csv", "fit_participants.csv"):
        lines = (fit_dir / name).read_text().splitlines()
        (judge / name).write_text("\n".join(x for x in lines if not x.startswith("cells"))
                                  + "\n")
    result = runner.invoke(main, ["design", "--fit", str(fit_dir), "--model", "steps",
                                  "--model", "cells", *SMALL, "--judge", str(judge),
                                  "-o", str(tmp_path / "p")])
    assert result.exit_code == 2 and "model cells: not in the fit" in error_line(result)


def test_the_command_s_ceilings_are_the_library_s():
    from mazesim.cli.design_commands import design
    from mazesim.design.information import MAX_PEOPLE
    from mazesim.design.search import MAX_CANDIDATES, MAX_EDITS, MAX_MAZES, MAX_PASSES

    ranges = {p.name: p.type.max for p in design.params if hasattr(p.type, "max")}
    assert ranges == {"mazes": MAX_MAZES, "seed": ranges["seed"], "candidates": MAX_CANDIDATES,
                      "people": MAX_PEOPLE, "sample": MAX_PEOPLE, "edits": MAX_EDITS,
                      "passes": MAX_PASSES}
