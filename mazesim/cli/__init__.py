"""The `mazesim` command line: one root group; commands live in the modules of this package.

This package is the only place that imports click, prints or exits. Library errors
(`MazesimError`) become one `Error: ...` line on stderr and exit code 2, its control characters
escaped (`errors.printable`: ids, file names and cell text are quoted as they were given).
"""

import click

from mazesim.errors import MazesimError, printable

__all__ = ["main"]


class _BadInput(click.ClickException):
    exit_code = 2


class _Group(click.Group):
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


# Command modules register themselves on `main` when imported.
from mazesim.cli import maze_commands, agent_commands, experiment_commands  # noqa: E402,F401
from mazesim.cli import search_commands, sokoban_commands, play_commands  # noqa: E402,F401
from mazesim.cli import human_commands, tree_commands  # noqa: E402,F401
