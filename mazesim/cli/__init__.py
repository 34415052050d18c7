"""The `mazesim` command line: one root group; commands live in the modules of this package.

This package is the only place that imports click, prints or exits. Library errors
(`MazesimError`) become one `Error: ...` line on stderr and exit code 2, its control characters
escaped (`errors.printable`: ids, file names and cell text are quoted as they were given). A
command's module is imported when the command is run or listed, so each command pays for its
own imports only.
"""

import importlib
import sys

import click

from mazesim.errors import MazesimError, printable

__all__ = ["main", "COMMANDS", "say_compiling"]

COMMANDS = {
    "generate": "maze_commands", "analyze": "maze_commands", "solve": "maze_commands",
    "render": "maze_commands", "generators": "maze_commands",
    "simulate": "agent_commands", "agents": "agent_commands",
    "run": "experiment_commands", "validate": "experiment_commands",
    "replay": "experiment_commands", "report": "experiment_commands",
    "knight": "search_commands", "terrain": "search_commands", "chase": "search_commands",
    "sokoban": "sokoban_commands",
    "play": "play_commands",
    "import": "human_commands", "fit": "human_commands", "compare": "human_commands",
    "predict": "human_commands",
    "tree": "tree_commands",
}
"""Each command's module in this package, which registers it on `main` when imported (importing
every module took 0.9 s of scipy and more before any command ran)."""


class _BadInput(click.ClickException):
    exit_code = 2


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS and name not in self.commands:
            importlib.import_module(f"{__name__}.{COMMANDS[name]}")
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MazesimError as err:
            raise _BadInput(printable(err)) from None
        except click.UsageError as err:  # one line, not click's usage block
            where = err.ctx.command_path if err.ctx else ctx.command_path
            raise _BadInput(printable(f"{where}: {err.format_message()}")) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mazesim")
def main() -> None:
    """mazesim: generate mazes, measure them, simulate solvers and run experiments."""


def say_compiling() -> None:
    """Said on a terminal before a cold kernel cache is filled (the first run after installing
    or editing; `experiment.warmup`, `solve_sokoban`)."""
    if sys.stderr.isatty():
        click.echo("compiling kernels, first run only ...", err=True)
