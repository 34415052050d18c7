"""Agent commands: simulate, agents (DESIGN.md sections 5 to 7)."""

from __future__ import annotations

import json

import click

from mazesim.cli import main, say_compiling
from mazesim.cli._options import SEED, TRIALS, VISION, LibraryDefault, parse_params, wrote

__all__ = ["simulate", "agents"]


@main.command()
@click.argument("maze_file", type=click.Path(dir_okay=False))
@click.option("--agent", "agent_name", required=True, help="Agent name (see `mazesim agents`).")
@click.option("--vision", type=VISION, default=LibraryDefault("mazesim.agents.vision", "FULL"),
              show_default=True,
              help="full, K for a (2K+1)x(2K+1) window (the study: 2), any label such as "
                   "'isovist 10, map known' or '2, occlusion, no memory', or the config's keys "
                   "as window=K|isovist=R|sweep=true[,occlusion=true][,memory=false]"
                   "[,map=known]; sweep for the Maze Search Task authors' quadrant sweep.")
@click.option("--occlusion", is_flag=True, help="Walls block sight inside the window.")
@click.option("--no-memory", "forget", is_flag=True, help="Forget cells out of view.")
@click.option("--map-known", is_flag=True,
              help="The floor plan is known from the start; sight tells where the exit is "
                   "(the Maze Search Task; the planners eu, du, ... need it).")
@click.option("--trials", type=TRIALS, default=1, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Root seed; trial i uses SeedSequence(seed, spawn_key=(i,)).")
@click.option("-p", "--param", "params", multiple=True, metavar="KEY=VALUE",
              help="Agent parameter (repeatable; lists comma-separated).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Picture: the walk (one trial) or a visit heat map (several).")
def simulate(maze_file, agent_name, vision, occlusion, forget, map_known, trials, seed, params,
             as_json, output):
    """Run an agent on MAZE_FILE (a mazesim maze or a Maze Search Task map) and summarise the
    movement counts and choices at marks."""
    from dataclasses import replace

    from mazesim.agents import make_agent
    from mazesim.humans.data.sources import read_any_maze
    from mazesim.jit import compiling
    from mazesim.walks import batch_report, simulate_many

    maze = read_any_maze(maze_file)
    agent = make_agent(agent_name, **parse_params(params))
    view = replace(vision, occlusion=vision.occlusion or occlusion,
                   memory=vision.memory and not forget,
                   known_map=vision.known_map or map_known)
    with compiling(say_compiling):               # a planner's first run compiles for seconds
        batch = simulate_many(maze, agent, view, trials, seed, keep_positions=bool(output),
                              choices="marks")  # the summary reads first choices at marks only
    report = {"vision": str(view), **batch_report(batch)}
    if output:
        _save_picture(maze, batch, output)
    click.echo(json.dumps(report) if as_json else _summary_text(agent_name, view, report))
    if output and not as_json:
        wrote([output])


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def agents(as_json):
    """List the agents and their parameters with defaults."""
    from mazesim.agents import AGENTS, agent_keys

    listing = {name: agent_keys(name) for name in AGENTS}
    if as_json:
        click.echo(json.dumps(listing))
        return
    for name, keys in listing.items():
        summary = (AGENTS[name].__doc__ or "").strip().splitlines()[0]
        entries = getattr(AGENTS[name], "ENTRIES", {})
        click.echo(f"{name:<16} {summary}")
        click.echo(" " * 17 + ", ".join(f"{k}={_yaml(v, entries.get(k))}"
                                        for k, v in keys.items()))


def _yaml(value, names=None) -> str:
    """A default as a config writes it; a list whose entries have names as a mapping."""
    if isinstance(value, bool):
        return str(value).lower()
    if names is not None:
        return "{" + ", ".join(f"{n}: {_yaml(v)}" for n, v in zip(names, value)) + "}"
    return "null" if value is None else str(value)


def _summary_text(agent_name, vision, report) -> str:
    s = report["summary"]
    lines = [
        f"agent {agent_name}, vision {vision}, {s['trials']} trial(s)",
        (f"moves: mean {s['mean_moves']:.1f}, median {s['median_moves']:g}"
         + (f" (of the {s['trials'] - s['capped']} trials not capped)" if s["capped"] else "")
         if s["mean_moves"] is not None else "moves: every trial capped, no mean")
        + f", min {s['min_moves']}, max {s['max_moves']}",
        f"reached: {s['reach_rate']:.1%} ({s['capped']} capped)",
    ]
    for mark, counts in report["first_choices"].items():
        shown = ", ".join(f"{d} {n}" for d, n in counts.items() if n)
        lines.append(f"first choice at {mark}: {shown or 'never reached'}")
    return "\n".join(lines)


def _save_picture(maze, batch, output) -> None:
    from mazesim.render import save_image
    from mazesim.walks.pictures import heat_map_image, trajectory_image

    image = (trajectory_image(maze, batch.positions[0]) if batch.trials == 1
             else heat_map_image(maze, batch.positions))
    save_image(image, output)
