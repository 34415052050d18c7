"""Search-task maps and the search over them: every draw and edit is a map of the vocabulary,
the same seed gives the same design, the greedy's first maze is the best alone, and a design
beats random maps of the generator on a toy pair of models."""

import csv
import statistics
import time

import numpy as np
import pytest

from mazesim import _grid
from mazesim.agents.trees import dark_floor
from mazesim.agents.vision import seen_at_start
from mazesim.design.candidates import MapSpec, build, edit, sample_layout
from mazesim.design.information import information, panel
from mazesim.design.report import run_design
from mazesim.design.search import MST_MEDIAN_STEPS, design, score_candidate
from mazesim.errors import DataError, GeneratorError
from mazesim.maze import PASSAGE
from tests.humans.mst_data import mst_folder

TOY = {"steps": [({"tau": 0.2}, 0.0)], "cells": [({"tau": 0.2}, 0.0)]}


def _rng(k):
    return np.random.default_rng(np.random.SeedSequence(7, spawn_key=(k,)))


def _check_map(layout):
    maze = build(layout)
    assert maze is not None
    dist, _ = _grid.distances(maze.grid, *maze.goal)
    floor = maze.grid == PASSAGE
    assert (dist[floor] >= 0).all()                      # every floor cell reaches the exit
    assert dark_floor(maze)[maze.goal]                   # the exit hides in a dark room
    rooms = np.zeros(maze.shape, bool)
    for k in range(len(layout.rooms)):
        for cell in layout.room_cells(k):
            rooms[cell] = True
    assert (dark_floor(maze) == rooms).all()             # the rooms and only they are dark
    seen = seen_at_start(maze)
    seen[maze.start] = True
    assert (seen | rooms | ~floor).all()                 # every corridor cell is in view
    assert not floor[0].any() and not floor[-1].any() and not floor[:, 0].any()


def test_every_draw_and_every_edit_is_a_search_task_map():
    spec = MapSpec(size=(9, 13), rooms=(2, 5), room_cells=(1, 6))
    for k in range(30):
        layout = sample_layout(spec, _rng(k))
        assert layout == sample_layout(spec, _rng(k))    # same stream, same map
        assert spec.rooms[0] <= len(layout.rooms) <= spec.rooms[1]
        _check_map(layout)
        edited = edit(layout, _rng(100 + k))
        _check_map(edited)
    with pytest.raises(GeneratorError, match="size 3x9"):
        MapSpec(size=(3, 9))
    with pytest.raises(GeneratorError, match="room_cells 1-40"):
        MapSpec(size=(9, 9), room_cells=(1, 40))


def test_the_first_maze_chosen_is_the_best_alone_and_the_seed_fixes_the_design():
    pan = panel(TOY, 1, 0)
    spec = MapSpec(size=(9, 9))
    first = design(pan, spec, 2, 30, 3, edits=0, passes=0)
    again = design(pan, spec, 2, 30, 3, edits=0, passes=0)
    assert [c.layout for c in first.chosen] == [c.layout for c in again.chosen]
    pool = [score_candidate(pan, sample_layout(spec, np.random.default_rng(
        np.random.SeedSequence(3, spawn_key=(k,)))), "c") for k in range(30)]
    alone = min(information([c.score]).mean_error for c in pool if c is not None)
    assert information([first.chosen[0].score]).mean_error == pytest.approx(alone)
    assert first.random[0].layout == next(c.layout for c in pool if c is not None)
    with pytest.raises(DataError, match="mazes: 0"):
        design(pan, spec, 0, 30, 3)
    with pytest.raises(DataError, match="0 of 1 candidates|candidates within"):
        design(pan, MapSpec(size=(5, 5), room_cells=(1, 1)), 5, 1, 0)


def test_revisiting_the_chosen_mazes_never_raises_the_joint_error():
    fits = {"du": [({"tau": 0.547, "gamma": 0.5}, 0.0), ({"tau": 1.07, "gamma": 0.9}, 0.0)],
            "eu": [({"tau": 0.547}, 0.0)], "steps-cells": [({"tau": 0.391, "k": 0.5}, 0.0)]}
    pan, spec = panel(fits, 3, 0), MapSpec(size=(9, 9))
    greedy = design(pan, spec, 3, 40, 5, edits=4, passes=0)
    errors = [information([c.score for c in greedy.chosen]).mean_error]
    for passes in (1, 2):
        again = design(pan, spec, 3, 40, 5, edits=4, passes=passes)
        assert again.random[0].layout == greedy.random[0].layout
        errors.append(information([c.score for c in again.chosen]).mean_error)
        assert again.edits >= greedy.edits
    assert errors[2] <= errors[1] <= errors[0]
    assert errors[2] < errors[0]                     # the revisits found something here
    with pytest.raises(DataError, match="passes: 11"):
        design(pan, spec, 3, 40, 5, passes=11)


def test_a_design_beats_random_maps_on_a_toy_pair():
    # Steps (the nearest room) against Cells (the room that shows most), both nearly
    # deterministic: a maze tells them apart where the nearest room is not the largest.
    result = run_design(TOY, mazes=3, seed=0, people=20, sample=1, candidates=40, edits=3,
                        spec=MapSpec(size=(9, 9)))
    designed, random = result.sets["designed"], result.sets["random"]
    assert designed.information.mean_error < random.information.mean_error / 2
    assert designed.recovery.accuracy == 1.0 > random.recovery.accuracy
    assert designed.recovery.people_needed() == 1          # one person tells them apart
    assert random.recovery.groups[1].mean() == pytest.approx(random.recovery.accuracy, abs=0.05)
    assert random.recovery.people_needed() in (2, 5, 10)   # a few people decide
    assert all(c.steps <= 24 for c in result.design.chosen)
    # per person: the recovered share is the accuracy; nobody walks as the other model
    assert random.recovery.own.mean() == pytest.approx(random.recovery.accuracy)
    assert random.identifiable == pytest.approx((1.0, random.recovery.accuracy))


@pytest.mark.slow
def test_scoring_a_candidate_takes_under_a_tenth_of_a_second():
    fits = {"du": [({"tau": 1.07, "gamma": 0.8}, 0.0)], "pw": [({"tau": 1.07, "beta": 0.5}, 0.0)],
            "eu": [({"tau": 1.07}, 0.0)], "steps-cells": [({"tau": 1.07, "k": 0.5}, 0.0)]}
    pan = panel(fits, 32, 0)
    layouts = [sample_layout(MapSpec(), _rng(k)) for k in range(50)]
    score_candidate(pan, layouts[0], "warm")
    start = time.perf_counter()
    for layout in layouts:
        score_candidate(pan, layout, "c")
    assert (time.perf_counter() - start) / len(layouts) < 0.1


def test_the_walk_ceiling_is_twice_the_median_walk_of_experiment_1():
    with open(mst_folder() / "plandata.csv", newline="") as handle:
        moves = [row["path"].count("p(") - 1 for row in csv.DictReader(handle, delimiter="\t")]
    assert len(moves) == 4758
    assert statistics.median(moves) == MST_MEDIAN_STEPS == 12
