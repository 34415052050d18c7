"""Start-up: `mazesim --help` and `import mazesim` load no heavy library (deterministic checks of
`sys.modules` in a fresh process, not timings; benchmarks/bench_startup.py has the CPU figures)."""

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from mazesim.cli import COMMANDS, SUMMARIES, main

QUICKSTART = Path(__file__).resolve().parents[2] / "configs" / "quickstart.yaml"
HEAVY = ("numba", "scipy", "scipy.stats", "pandas", "statsmodels", "matplotlib", "PIL")


def _loaded(code: str) -> dict:
    """Run `code` in a fresh interpreter; which of HEAVY and of the command modules it loaded."""
    probe = (f"import sys, json\n{code}\nprint(json.dumps({{'heavy': sorted(m for m in "
             f"{HEAVY!r} if m in sys.modules), 'commands': sorted(m for m in sys.modules if "
             "m.startswith('mazesim.cli.'))}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_help_imports_no_heavy_library_and_no_command():
    loaded = _loaded("from mazesim.cli import main\ntry:\n    main(['--help'])\n"
                     "except SystemExit:\n    pass")
    assert loaded == {"heavy": [], "commands": []}


def test_import_mazesim_imports_no_heavy_library():
    assert _loaded("import mazesim, mazesim.cli, mazesim.experiment")["heavy"] == []


def test_validate_needs_no_statistics():
    loaded = _loaded("from mazesim.cli import main\ntry:\n    main(['validate', "
                     f"{str(QUICKSTART)!r}])\nexcept SystemExit:\n    pass")
    assert not {"scipy.stats", "pandas", "statsmodels", "matplotlib"} & set(loaded["heavy"])
    assert loaded["commands"] == ["mazesim.cli.experiment_commands"]


def test_the_listed_summaries_are_the_commands_first_sentences():
    ctx = click.Context(main)
    assert sorted(SUMMARIES) == sorted(COMMANDS)
    for name, summary in SUMMARIES.items():
        assert main.get_command(ctx, name).get_short_help_str(10**6) == summary, name


def test_the_public_names_still_resolve():
    import mazesim

    assert mazesim.generate("digging", (7, 7), seed=1).shape == (7, 7)
    assert set(mazesim.__all__) <= set(dir(mazesim))
    assert all(getattr(mazesim, name) is not None for name in mazesim.__all__)
    with pytest.raises(AttributeError, match="no_such_name"):
        mazesim.no_such_name


def _generated(size: str) -> dict:
    return _loaded("from mazesim.cli import main\ntry:\n    main(['generate', 'wilson', '--size', "
                   f"{size!r}, '--seed', '1', '--braid', '0.5', '--placement', 'farthest'])\n"
                   "except SystemExit:\n    pass")


def test_generate_runs_a_small_maze_without_numba():
    loaded = _generated("15x15")
    assert loaded["heavy"] == [] and "mazesim.cli.maze_commands" not in loaded["commands"]


def test_generate_compiles_a_maze_above_the_python_ceiling():
    from mazesim.jit import PYTHON_MAX_CELLS

    assert 101 * 101 == PYTHON_MAX_CELLS
    assert "numba" in _generated("101x103")["heavy"]


def test_run_and_report_of_a_simulated_run_import_nothing_of_play(tmp_path):
    """`mazesim run` and `mazesim report` of a simulated run load no module of `mazesim.play`
    (its server needs uvicorn, which a machine running experiments may lack)."""
    config = tmp_path / "tiny.yaml"
    config.write_text("name: tiny\nseed: 1\nmazes: [{generator: digging, size: 9, count: 2}]\n"
                      "agents: [{type: dfs, trials: 2}]\nvision: [2]\n", encoding="utf-8")
    out = tmp_path / "out"
    probe = (
        "import sys, glob\nfrom mazesim.cli import main\n"
        "def call(*args):\n    try:\n        main(list(args))\n    except SystemExit as end:\n"
        "        assert not end.code, end.code\n"
        f"call('run', {str(config)!r}, '--output', {str(out)!r})\n"
        "after_run = sorted(m for m in sys.modules if m.startswith('mazesim.play'))\n"
        f"call('report', glob.glob({str(out / 'tiny' / '*')!r})[0])\n"
        "print(after_run, sorted(m for m in sys.modules if m.startswith('mazesim.play')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines()[-1] == "[] []"
