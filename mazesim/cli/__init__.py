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

from mazesim.errors import MazesimError, did_you_mean, printable

__all__ = ["main", "COMMANDS", "SUMMARIES", "say_compiling"]

COMMANDS = {
    "generate": "generator_commands", "generators": "generator_commands",
    "analyze": "maze_commands", "solve": "maze_commands", "render": "maze_commands",
    "simulate": "agent_commands", "agents": "agent_commands",
    "run": "experiment_commands", "validate": "experiment_commands",
    "replay": "experiment_commands", "report": "experiment_commands",
    "knight": "search_commands", "terrain": "search_commands", "chase": "search_commands",
    "sokoban": "sokoban_commands",
    "play": "play_commands",
    "import": "human_commands", "fit": "human_commands", "compare": "human_commands",
    "predict": "human_commands", "transfer": "human_commands",
    "tree": "tree_commands",
    "export": "export_commands",
    "design": "design_commands",
}
"""Each command's module in this package, which registers it on `main` when imported (importing
every module took 0.9 s of scipy and more before any command ran)."""

SUMMARIES = {
    "agents": "List the agents and their parameters with defaults.",
    "analyze": "Print the study's parameters of a maze file (null/- when the goal is "
               "unreachable).",
    "chase": "Chasers that each step one cell down a distance map from the player at S, until "
             "they catch the player or STEPS run out.",
    "compare": "People of HUMAN_RUN beside the agents of SIM_RUN on their shared mazes "
               "(Markdown).",
    "export": "Write the people of RUN_DIR (played or imported) as a Psych-DS or BIDS dataset.",
    "design": "Choose the mazes that tell node models apart and write the study that runs "
              "them.",
    "fit": "Fit models to the people of RUN_DIR by maximum likelihood (bits per junction "
           "or step decision, or per node decision with --level node); with --params, score "
           "another fit's models.",
    "generate": "Generate a maze with ALGORITHM (see `mazesim generators`).",
    "generators": "List the maze generators with one-line descriptions.",
    "import": "Import recorded human trajectories into a run directory of people.",
    "knight": "Fewest knight moves between two squares (any N; the path up to N = 100).",
    "predict": "Posterior predictive check: the fitted models walk every maze of RUN_DIR under "
               "its vision; steps, revisits, exit in sight and first choices against its "
               "people, per maze.",
    "play": "Serve the human-trial page of session CONFIG; every key press goes to its run "
            "database.",
    "render": "Draw a maze file as a PNG (walls black, passages white, S green, G magenta).",
    "replay": "Re-simulate one trial of RUN_DIR and compare it with the stored result (exit "
              "code 1 when they differ).",
    "report": "Rebuild report.md, the CSV tables and figures/ of RUN_DIR from its database (a "
              "play run's report adds its participants).",
    "run": "Run the experiment CONFIG into OUTPUT/<name>/<run-id>/.",
    "simulate": "Run an agent on MAZE_FILE (a mazesim maze or a Maze Search Task map) and "
                "summarise the movement counts and choices at marks.",
    "sokoban": "Solve a Sokoban level: moves, pushes, the LURD solution, states explored and "
               "time.",
    "solve": "Solve a maze file: print it with the route as `*` and the number of moves.",
    "terrain": "Least-cost route over a terrain-cost grid (CSV or whitespace text; inf or # "
               "impassable).",
    "tree": "The decision tree of MAZE_FILE (or with --merged its graph): a mazesim maze (text "
            "or .json) or a Maze Search Task map (width, height, rows of codes), told apart by "
            "its first line.",
    "validate": "Check CONFIG without running anything: an experiment (`mazesim run`) or a "
                "session of human trials (`mazesim play`).",
    "transfer": "How a fit made elsewhere carries over to RUN_DIR: each model with its "
                "parameters held beside the same model refitted here (cross-validated), the "
                "gap in bits per decision with a paired interval over people, and with --walks "
                "the per-maze correlation of steps.",
}
"""Each command's first sentence, which `mazesim --help` lists without importing the command's
module (importing them all cost 1.2 s of CPU; a test checks these against the commands)."""


class _BadInput(click.ClickException):
    exit_code = 2


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands' list as click writes it, from `SUMMARIES` (no module imported)."""
        width = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, _shortened(SUMMARIES[name], width)) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """A name that is no command is refused with the closest one (`mazesim simulat`)."""
        if args and args[0] not in COMMANDS and not args[0].startswith("-"):
            ctx.fail(f"no such command {args[0]!r}{did_you_mean(args[0], COMMANDS)}")
        return super().resolve_command(ctx, args)

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


def _shortened(text: str, width: int) -> str:
    """`text` cut after a whole word to fit `width`, "..." marking the cut (the listing's form;
    click's own helper for it goes in Click 9)."""
    if len(text) <= width:
        return text
    return text[:width - 2].rsplit(" ", 1)[0].rstrip(" ,;:(") + "..."


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mazesim")
def main() -> None:
    """mazesim: generate mazes, measure them, simulate solvers and run experiments."""


def say_compiling() -> None:
    """Said once, on a terminal, before a cold kernel cache is filled (the first run after
    installing or editing; `jit.compiling` calls it: `sokoban`, `simulate`, `fit`, ...)."""
    global _SAID
    if sys.stderr.isatty() and not _SAID:
        _SAID = True
        click.echo("\r\x1b[Kcompiling kernels, first run only ...", err=True)


_SAID = False
