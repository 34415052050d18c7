"""Storage: sampled trajectories round-trip exactly; a failed batch leaves no partial unit; trial
rows and samples are written inside the caller's transaction."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.experiment.storage import (RunStore, TrialRows, next_trial_id, transaction,
                                        trial_image, write_sample_files, write_samples,
                                        write_trials)
from mazesim.agents import Vision, make_agent
from mazesim.experiment.sample_files import pack_samples
from mazesim.experiment.tasks import ChunkResult, Unit, UnitResult
from mazesim.maze import DELTAS
from mazesim.records import CHOICE_DTYPE


def _unit(unit_id: int, trials: int, first: int) -> Unit:
    return Unit(unit_id, 0, 0, 0, make_agent("dfs"), Vision(), trials, first, 3, "dfs", "full")


def _trial_rows(first: int, walks: list[np.ndarray], choices: int = 0) -> TrialRows:
    """Trials `first`... walking `walks`; the first trial's first `choices` steps departures
    from a junction, the second marked."""
    n, departures = len(walks), np.zeros(choices, CHOICE_DTYPE)
    departures["step"], departures["mark"] = range(choices), [-1, 0][:choices]
    departures["open"] = departures["unexplored"] = 0b0101
    return TrialRows(maze_id=0, agent="dfs", vision="full", trial_ids=range(first, first + n),
                     numbers=range(n), seeds=[f"1:0.0.0.{i}" for i in range(n)],
                     moves=[len(w) - 1 for w in walks], reached=[True] * n, capped=[False] * n,
                     choices=departures, mark_names=("A",))


def _result(unit_id: int, walks: list[np.ndarray], first: int | None = None,
            choices: int = 0) -> ChunkResult:
    """A chunk of one unit whose first three trials are sampled, as a worker sends it (trial
    ids from `first`, by default 10 per unit id)."""
    n, first = len(walks), unit_id * 10 if first is None else first
    rows = _trial_rows(first, walks, choices)
    samples = {first + i: w for i, w in enumerate(walks[:3])}
    return ChunkResult((UnitResult(_unit(unit_id, n, first), min(n, 3), 0.0, 0.0),),
                       trial_image([rows]),
                       pack_samples(samples), tuple(sorted(samples)))


walk_steps = st.lists(st.integers(0, 3), max_size=60)


@settings(max_examples=30)
@given(st.lists(walk_steps, min_size=1, max_size=4), st.integers(0, 50), st.integers(0, 50))
def test_sampled_trajectories_round_trip(tmp_path_factory, steps, r, c):
    run_dir = tmp_path_factory.mktemp("run")
    walks = [np.vstack([[r, c], [r, c] + np.cumsum(DELTAS[s], axis=0).reshape(-1, 2)])
             for s in steps]
    with RunStore(run_dir, create=True) as store:
        store.add_results([_result(0, walks)])
        for i, walk in enumerate(walks[:3]):
            np.testing.assert_array_equal(store.sample(i), walk)
        assert store.sample(3) is None


def test_a_failed_batch_stores_nothing(tmp_path):
    walk = np.array([[1, 1], [1, 2]])
    with RunStore(tmp_path, create=True) as store:
        store.add_results([_result(0, [walk])])
        bad = _result(1, [walk, walk])
        clash = _result(0, [walk])  # unit 0 again: the primary key fails inside the batch
        with pytest.raises(Exception, match="UNIQUE"):
            store.add_results([bad, clash])
        assert store.done_units() == {0}
        assert store.query("SELECT COUNT(*) FROM trials")[0][0] == 1
        assert store.query("SELECT trial_id FROM samples") == [(0,)]


def test_results_are_the_rows_of_the_workers_images(tmp_path):
    """`add_results` copies each chunk's image: the rows (values and types) `write_trials`
    writes itself, choices in their order; a clash in an image stores nothing of the batch, and
    the store writes on afterwards."""
    walks = [np.array([[1, 1], [1, 2]]), np.array([[1, 1], [2, 1], [3, 1]])]
    for name in ("copied", "written"):
        (tmp_path / name).mkdir()
    with RunStore(tmp_path / "copied", create=True) as store:
        store.add_results([_result(0, walks, choices=2), _result(1, walks[:1])])
        copied = [store.query(f"SELECT * FROM {t} ORDER BY rowid") for t in ("trials", "choices")]
        with pytest.raises(Exception, match="UNIQUE constraint failed: trials.trial_id"):
            store.add_results([_result(2, walks), _result(3, walks, first=10)])
        assert store.done_units() == {0, 1} and len(store.query("SELECT * FROM trials")) == 3
        store.add_results([_result(2, walks)])
        assert store.done_units() == {0, 1, 2}
    with RunStore(tmp_path / "written", create=True) as store:
        with transaction(store.conn) as db:
            write_trials(db, _trial_rows(0, walks, 2))
            write_trials(db, _trial_rows(10, walks[:1]))
        assert copied == [store.query(f"SELECT * FROM {t} ORDER BY rowid")
                          for t in ("trials", "choices")]
    assert copied[0][1] == (1, 0, "dfs", "full", 1, "1:0.0.0.1", 2, 1, 0, None)
    assert [row[5:7] for row in copied[1]] == [("", 0), ("A", 1)]


def test_files_of_one_batch_never_share_a_name(tmp_path):
    """Names are free of the files listed before the batch and of those the batch wrote."""
    walk = np.array([[1, 1], [1, 2]])
    with RunStore(tmp_path, create=True) as store:
        with transaction(store.conn) as db:
            write_samples(db, tmp_path, {5: walk})
            names = write_sample_files(db, tmp_path, [(pack_samples({5: walk}), [5]),
                                                      (pack_samples({5: walk, 6: walk}), [5, 6])])
        assert names == ["trajectories/trials-000000005-1.npz",
                         "trajectories/trials-000000005-2.npz"]
        assert store.query("SELECT * FROM samples") == [(5, names[1]), (6, names[1])]


def test_trial_rows_are_written_in_the_callers_transaction(tmp_path):
    walk = np.array([[1, 1], [2, 1], [3, 1], [3, 2]])
    # two departures, the second from an unmarked cell: both are `choices` rows, as given
    choices = np.zeros(2, CHOICE_DTYPE)
    for name, values in {"step": [1, 2], "row": [2, 3], "col": [1, 1], "mark": [0, -1],
                         "arrival": [2, 2], "chosen": [2, 1], "first": [True, True],
                         "open": [0b0111, 0b0101], "unexplored": [0b0100, 0]}.items():
        choices[name] = values
    rows = TrialRows(maze_id=4, agent="human", vision="2", trial_ids=[7], numbers=[1],
                     seeds=["p1"], moves=[3], reached=[True], capped=[False], choices=choices,
                     mark_names=("A",))
    with RunStore(tmp_path, create=True) as store:
        with transaction(store.conn) as db:
            assert next_trial_id(db) == 0
            write_trials(db, rows)
            name = write_samples(db, tmp_path, {7: walk})
        assert name == "trajectories/trials-000000007.npz" and (tmp_path / name).is_file()
        assert store.query("SELECT * FROM trials") == [(7, 4, "human", "2", 1, "p1", 3, 1, 0,
                                                        None)]
        assert store.query("SELECT * FROM choices") == [
            (7, 4, "human", "2", 1, "A", 1, 2, 1, "down", "down", 1, "up+right+down", "down"),
            (7, 4, "human", "2", 1, "", 2, 3, 1, "down", "right", 1, "up+down", "")]
        np.testing.assert_array_equal(store.sample(7), walk)
        assert next_trial_id(store.conn) == 8
        with pytest.raises(RuntimeError, match="abandoned"):
            with transaction(store.conn) as db:
                write_trials(db, replace(rows, trial_ids=[8]))
                write_samples(db, tmp_path, {8: walk})
                raise RuntimeError("abandoned")
        assert store.query("SELECT trial_id FROM trials") == [(7,)]
        assert store.sample(8) is None and next_trial_id(store.conn) == 8


def test_the_parts_every_run_has_come_from_one_writer(tmp_path):
    """`write_head`: environment.json (the first writer's kept), the meta and the mazes; a run,
    an import and a play session all write them through it."""
    import json

    from mazesim.experiment.storage import MazeRecord

    maze = MazeRecord(0, "m.txt", None, "3x5", None, "#####\n#S.G#\n#####\n", {"name": "m"},
                      {"solution_length": 2.0})
    with RunStore(tmp_path, create=True) as store:
        store.write_head([maze], kind="human", config={"name": "x"})
        env = json.loads((tmp_path / "environment.json").read_text(encoding="utf-8"))
        assert {"python", "numpy", "git_commit", "git_dirty"} <= set(env)
        (tmp_path / "environment.json").write_text("{}\n", encoding="utf-8")
        store.write_head([replace(maze, text="other")], status="again")
        assert (tmp_path / "environment.json").read_text(encoding="utf-8") == "{}\n"
        assert store.mazes() == [maze] and store.meta("kind") == "human"
        assert store.meta("status") == "again"
