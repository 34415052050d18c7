"""Runs for the report and results tests: the small simulated sweep, and a run of two people
written with the storage functions alone (as `mazesim import` writes one: no config stored)."""

from pathlib import Path

import numpy as np

from mazesim.analysis import parameters
from mazesim.experiment.storage import (HUMAN, MazeRecord, RunStore, TrialRows, transaction,
                                        write_samples, write_trials)
from mazesim.maze import DELTAS, DIRECTIONS, format_maze, parse_maze
from mazesim.walks import choice_records

from experiment_fixtures import SMALL, run_small, write_config

# The tutorial maze (7x13) with mark A on the branch point (5, 3); S (1, 1), G (1, 11).
TUTORIAL = """\
#############
#S....#....G#
#.###.#.###.#
#...#...#...#
###.#####.###
#..A........#
#############
"""
BOTTOM = ["down", "down", "right", "right", "down", "down"] + ["right"] * 6 + \
    ["up", "up", "right", "right", "up", "up"]
DETOUR = BOTTOM[:6] + ["left", "left", "right", "right"] + BOTTOM[6:]
PEOPLE = {"p1": BOTTOM, "p2": DETOUR}


def positions(maze, directions):
    """The cells of a walk given as direction names."""
    cells = [np.array(maze.start)]
    for name in directions:
        cells.append(cells[-1] + DELTAS[DIRECTIONS.index(name)])
    return np.array(cells, dtype=np.int64)


def human_run(run_dir: Path) -> Path:
    """Two people on the tutorial maze at vision 2: p1 goes right at A, p2 left first."""
    maze = parse_maze(TUTORIAL)
    walks = [positions(maze, steps) for steps in PEOPLE.values()]
    records = []
    for i, walk in enumerate(walks):
        rows = choice_records(maze, walk)
        rows["trial"] = i
        records.append(rows)
    run_dir.mkdir(parents=True)
    with RunStore(run_dir, create=True) as store:
        store.set_meta(kind=HUMAN, recorder="import")
        store.add_mazes([MazeRecord(0, "tutorial.txt", None, "7x13", None, format_maze(maze),
                                    {}, parameters(maze))])
        with transaction(store.conn) as db:
            write_trials(db, TrialRows(
                maze_id=0, agent=HUMAN, vision="2", trial_ids=[0, 1], numbers=[1, 2],
                seeds=list(PEOPLE), moves=[len(w) - 1 for w in walks], reached=[True, True],
                capped=[False, False], choices=np.concatenate(records),
                mark_names=tuple(maze.marks)))
            write_samples(db, run_dir, dict(enumerate(walks)))
    return run_dir


def simulated_run(folder: Path) -> Path:
    """The small sweep of `experiment_fixtures.SMALL` (6 mazes, 3 agents, full and 2)."""
    return run_small(write_config(folder / "cfg", SMALL), folder / "out").run_dir
