"""Work units: sampled trajectories are the trials' own walks, and their memory is bounded by
what they really take (not by max_steps); a unit walked in parts (progress) is the same unit."""

import io
import sqlite3
from pathlib import Path

import numpy as np

from mazesim.agents import Vision, make_agent
from mazesim.experiment import tasks
from mazesim.experiment.sample_files import unpacked
from mazesim.experiment.seeds import cell_seed
from mazesim.experiment.tasks import Chunk, Unit, run_chunk
from mazesim.generators import generate
from mazesim.maze import read_maze
from mazesim.walks import simulate_many

MAZE = generate("digging", 15, seed=3)
BRANCH_MAZE = Path(__file__).resolve().parents[2] / "experiments" / "branch-point-a" / "maze.txt"


def _unit(agent, trials=6, samples=3):
    return Unit(0, 0, 0, 0, agent, Vision(), trials, 0, samples, "a", "full")


def _rows(chunk_result, table):
    """The rows of `table` in the chunk's database image, in their order."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(chunk_result.rows)
    return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


def _samples(chunk_result):
    """The chunk's sampled trajectories read back from the `.npz` bytes it sends."""
    with np.load(io.BytesIO(chunk_result.samples)) as data:
        assert sorted(data.files) == sorted(
            f"t{i}{end}" for i in chunk_result.sample_ids for end in ("", "_start"))
        return {i: unpacked(data[f"t{i}_start"], data[f"t{i}"])
                for i in chunk_result.sample_ids}


def test_samples_are_the_first_trials_walked_again():
    agent = make_agent("random-walk")
    done = run_chunk(Chunk(5, MAZE, (_unit(agent),
                                     Unit(1, 0, 1, 0, agent, Vision(2), 4, 6, 2, "b", "2"))))
    assert [r.sampled for r in done.units] == [3, 2]
    full = simulate_many(MAZE, agent, Vision(), 6, cell_seed(5, 0, 0, 0), keep_positions=True)
    samples = _samples(done)
    assert sorted(samples) == [0, 1, 2, 6, 7]          # trial ids: the second unit's from 6
    for i in range(3):
        np.testing.assert_array_equal(samples[i], full.positions[i])


def test_sampled_positions_fit_the_kept_moves_ceiling(monkeypatch):
    agent = make_agent("random-walk")
    moves = simulate_many(MAZE, agent, Vision(), 6, cell_seed(5, 0, 0, 0)).moves
    longest2 = int(moves[:2].max())
    monkeypatch.setattr(tasks, "MAX_KEPT_MOVES", 2 * longest2)     # room for two, not three
    done = run_chunk(Chunk(5, MAZE, (_unit(agent),)))
    assert sorted(_samples(done)) == [0, 1] and done.units[0].sampled == 2
    sampled, again = tasks._resampled(_unit(agent), moves)
    assert again.max_steps == int(moves[:sampled].max())          # stops at the longest


def test_walked_in_parts_the_unit_gives_the_same_results():
    maze = read_maze(BRANCH_MAZE)
    chunk = Chunk(5, maze, (Unit(0, 0, 0, 0, make_agent("weighted-walker"), Vision(2), 23, 0, 2,
                                 "w", "2"),
                            Unit(1, 0, 1, 0, make_agent("dfs"), Vision(), 9, 23, 0, "d", "full")))
    whole = run_chunk(chunk)
    told = []
    parts = run_chunk(chunk, walked=told.append, slice_seconds=0.0)   # one trial a part
    assert told == [1] * 32
    choices = _rows(whole, "choices")                  # the mark's choices, trial by trial
    assert {row[5] for row in choices} == {"A"} and len({row[0] for row in choices}) > 1
    for table in ("trials", "choices"):
        assert _rows(whole, table) == _rows(parts, table)
    assert [a.sampled for a in whole.units] == [b.sampled for b in parts.units] == [2, 0]
    assert whole.samples == parts.samples and whole.sample_ids == (0, 1)


def test_the_rows_are_the_units_trials_as_stored():
    """The image holds each unit's trials with ids from its first, seeds by coordinates and the
    labels it was given: what the main process copies into the run's database."""
    agent = make_agent("random-walk")
    done = run_chunk(Chunk(5, MAZE, (_unit(agent, trials=3),
                                     Unit(1, 0, 1, 2, agent, Vision(2), 2, 6, 0, "b", "2"))))
    walks = simulate_many(MAZE, agent, Vision(), 3, cell_seed(5, 0, 0, 0))
    rows = _rows(done, "trials")
    assert [row[:6] for row in rows] == [
        (0, 0, "a", "full", 0, "5:0.0.0.0"), (1, 0, "a", "full", 1, "5:0.0.0.1"),
        (2, 0, "a", "full", 2, "5:0.0.0.2"), (6, 0, "b", "2", 0, "5:0.1.2.0"),
        (7, 0, "b", "2", 1, "5:0.1.2.1")]
    assert [row[6:] for row in rows[:3]] == [
        (int(m), int(r), int(c), None) for m, r, c in zip(walks.moves, walks.reached,
                                                          walks.capped)]
    assert _rows(done, "choices") == []               # no marked cell in this maze


def test_parts_grow_to_the_time_asked_for_at_most_fourfold():
    told = []
    run_chunk(Chunk(5, MAZE, (_unit(make_agent("dfs"), trials=200, samples=0),)),
              walked=told.append, slice_seconds=1e9)
    assert told == [1, 4, 16, 64, 115]
