"""The root group: every command is listed and found, running one imports its module only; the
first-run notice."""

import importlib
import subprocess
import sys

from click.testing import CliRunner

from mazesim.cli import COMMANDS, main, say_compiling


def test_each_command_lives_in_the_module_the_table_names():
    for module in set(COMMANDS.values()):
        importlib.import_module(f"mazesim.cli.{module}")
    assert {name: command.callback.__module__ for name, command in main.commands.items()} == {
        name: f"mazesim.cli.{module}" for name, module in COMMANDS.items()}


def test_help_lists_every_command():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    lines = result.output.split("Commands:\n")[1].splitlines()
    assert [line.split()[0] for line in lines] == sorted(COMMANDS)


def test_a_command_imports_its_own_module_only():
    probe = ("import sys; from mazesim.cli import main; main(['sokoban', '--help'], "
             "standalone_mode=False); print(sorted(m for m in sys.modules if "
             "m.startswith('mazesim.cli.')), 'scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines()[-1] == "['mazesim.cli.sokoban_commands'] False"


def test_the_first_run_notice_is_said_once_on_a_terminal_only(monkeypatch, capsys):
    import mazesim.cli

    monkeypatch.setattr(mazesim.cli, "_SAID", False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    say_compiling()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    say_compiling()
    say_compiling()                          # (a command that compiles twice says it once)
    assert capsys.readouterr().err == "\r\x1b[Kcompiling kernels, first run only ...\n"


def test_a_mistyped_command_is_one_line_with_the_closest_name():
    result = CliRunner().invoke(main, ["simulat", "maze.txt"])
    assert result.exit_code == 2
    assert result.stderr == "Error: main: no such command 'simulat'; did you mean 'simulate'?\n"
    assert CliRunner().invoke(main, ["zzz"]).stderr == "Error: main: no such command 'zzz'\n"


def test_help_uses_nothing_click_deprecates():
    """`click.utils.make_default_short_help` goes in Click 9 (a DeprecationWarning said so)."""
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-m", "mazesim",
                           "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    listed = dict(line.split(None, 1) for line in done.stdout.split("Commands:\n")[1].splitlines())
    assert listed["generate"] == "Generate a maze with ALGORITHM (see `mazesim generators`)."
    assert listed["fit"] == "Fit models to the people of RUN_DIR by maximum likelihood..."
