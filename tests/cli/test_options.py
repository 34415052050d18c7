"""Shared option types: numbers are ASCII with a range checked while parsing, `-p key=value`
values go through the bounded YAML reader; every fault is one `Error:` line, exit 2."""

import pytest
from click.testing import CliRunner

from mazesim.cli import main
from mazesim.cli._options import parse_params
from mazesim.errors import ConfigError

from fixture_paths import DATA

TUTORIAL = str(DATA / "tutorial_7x13.txt")
BIG = str(2**70)


def _error(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("args, message", [
    # Unicode digits reached int() (ValueError tracebacks)
    (["simulate", TUTORIAL, "--agent", "dfs", "--vision", "²"],
     "Invalid value for '--vision': '²' (allowed: full or an integer from 0 to 10,000, a label "
     "such as 'isovist 10, map known', key=value pairs such as isovist=10,map=known, or a "
     "mapping {window: k | isovist: r | sweep: true, occlusion, memory, map: known, exit: "
     "arrival})"),
    (["knight", "--board", "8", "--from", "²,1", "--to", "1,1"],
     "Invalid value for '--from': '²,1' is not a cell (use ROW,COL: two integers)"),
    (["generate", "digging", "--size", "²x²", "--seed", "1"],
     "size: '²x²' is not a size (use 31, '31x31' or [31, 31])"),
    (["terrain", str(DATA / "terrain_4x7.txt"), "--from", "٣,1", "--to", "1,1"],
     "Invalid value for '--from': '٣,1' is not a cell"),
    # numbers past int64 reached numba or SQLite
    (["simulate", TUTORIAL, "--agent", "dfs", "--vision", BIG],
     f"Invalid value for '--vision': {BIG} (allowed: full or an integer from 0 to 10,000)"),
    (["simulate", TUTORIAL, "--agent", "dfs", "--vision", "9" * 5000],
     "Invalid value for '--vision': '" + "9" * 56 + "... (allowed: full or an integer"),
    (["simulate", TUTORIAL, "--agent", "dfs", "--seed", BIG],
     f"Invalid value for '--seed': {BIG} is not in the range 0<=x<=9223372036854775807."),
    (["generate", "digging", "--seed", BIG], "Invalid value for '--seed'"),
    (["chase", TUTORIAL, "--chasers", "1", "--steps", "3", "--seed", "-1"],
     "Invalid value for '--seed': -1 is not in the range 0<=x<=9223372036854775807."),
    (["replay", str(DATA), "--trial", BIG],
     f"Invalid value for '--trial': {BIG} is not in the range 0<=x<=9223372036854775807."),
    (["run", TUTORIAL, "--workers", BIG],
     f"Invalid value for '--workers': {BIG} is not in the range 1<=x<=1024."),
    (["simulate", TUTORIAL, "--agent", "dfs", "--trials", str(10**12)],
     "Invalid value for '--trials': 1000000000000 is not in the range 1<=x<=1000000."),
    (["render", TUTORIAL, "-o", "x.png", "--scale", "100000"],
     "Invalid value for '--scale': 100000 is not in the range 1<=x<=10000."),
    (["generate", "digging", "--seed", "1", "--braid", "nan"],     # click's range passes NaN
     "Error: braid: nan (allowed: a number in [0, 1])"),
    # -p values reached the YAML parser unguarded (tracebacks)
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", "order=["],
     "Error: --param order: '[': no brackets (a list is written a,b,c)"),
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", "order=" + "[" * 5000],
     "Error: --param order: '" + "[" * 56 + "...: no brackets (a list is written a,b,c)"),
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", "max_steps=10", "-p", "max_steps=20"],
     "Error: --param max_steps: given twice"),
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", "max_steps=a: 1"],
     "Error: --param max_steps: 'a: 1' is not a plain value (a number, a word, true or false)"),
    (["generate", "eller", "--seed", "1", "-p", "join=!!python/name:os.system"],
     "Error: --param join:1:1: tag '!!python/name:os.system' is not allowed (allowed: plain "
     "values, lists and mappings)"),
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", "max_steps=" + "9" * 5000],
     "Error: --param max_steps:1:1: an integer of 5,000 characters (allowed: at most 64)"),
    (["simulate", TUTORIAL, "--agent", "dfs", "-p", f"max_steps={BIG}"],
     "Error: dfs: max_steps: 1,180,591,620,717,411,303,424 (allowed: at most 1,000,000,000)"),
], ids=lambda value: " ".join(value)[:48] if isinstance(value, list) else None)
def test_numbers_and_params_fail_at_parse_time_with_one_line(args, message):
    assert message in _error(*args)


def test_params_read_plain_yaml_scalars_and_comma_lists():
    assert parse_params(("max_steps=10", "order=down,right,up,left", "goal_seeking=false",
                         "label=")) == {
        "max_steps": 10, "order": ["down", "right", "up", "left"], "goal_seeking": False,
        "label": ""}
    with pytest.raises(ConfigError, match=r"--param seed:1:1: tag '!!binary' is not allowed"):
        parse_params(("seed=!!binary eHg=",))


def test_in_range_values_still_work():
    result = CliRunner().invoke(main, ["simulate", TUTORIAL, "--agent", "dfs", "--vision", "2",
                                       "--seed", str(2**63 - 1), "--trials", "3"])
    assert result.exit_code == 0, result.output
    assert "3 trial(s)" in result.output


def test_library_defaults_are_read_from_the_library_when_needed(monkeypatch, tmp_path):
    """`fit --cv/--starts` and `tree --vision` show and pass the library's own constants (here
    changed, so a default restated in the CLI would fail)."""
    import mazesim.humans as humans
    from mazesim.humans.fitting import junction as fit

    monkeypatch.setattr(fit, "DEFAULT_FOLDS", 7)
    monkeypatch.setattr(fit, "DEFAULT_STARTS", 4)
    shown = " ".join(CliRunner().invoke(main, ["fit", "--help"]).output.split())
    assert "each person's decisions. [default: 7; 0<=x<=100]" in shown
    assert "(the first is deterministic). [default: 4; 1<=x<=50]" in shown

    def given(run_dir, models, **options):
        raise ConfigError(f"folds {options['folds']}, starts {options['starts']}")

    monkeypatch.setattr(humans, "fit_models", given)
    assert _error("fit", str(tmp_path)) == "Error: folds 7, starts 4"
    shown = " ".join(CliRunner().invoke(main, ["tree", "--help"]).output.split())
    assert "[default: sweep, map known]" in shown
