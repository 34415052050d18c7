"""The play store: rows round-trip through `load`, one lock per directory, fail-stop writes, the
WAL checkpointed."""

from __future__ import annotations

from functools import partial

import pytest

from mazesim.errors import RunError
from mazesim.play.refusals import Unavailable
from mazesim.play.store import (BumpRow, MoveRow, ParticipantRow, PlayStore, ProgressRow,
                                Stored)


@pytest.fixture
def store(tmp_path):
    opened = PlayStore(tmp_path)
    yield opened
    opened.close()


def test_rows_round_trip(store):
    person = ParticipantRow("p1", 0, True, ("a", "b"), {"STUDY_ID": "s"}, 10, 1, None)
    store.write([partial(PlayStore.insert_participant, row=person),
                 partial(PlayStore.set_tab, participant="p1", tab=3),
                 partial(PlayStore.set_consent, participant="p1", agree=True, when=11),
                 partial(PlayStore.insert_answers, participant="p1", answers={"age": 30,
                                                                              "x": None},
                         when=12),
                 partial(PlayStore.start_maze, row=ProgressRow("p1", "a", 0, 13, 1.5, None)),
                 partial(PlayStore.insert_move, participant="p1", maze_id="a",
                         row=MoveRow(1, (1, 1), (1, 2), "right", 14, 2.25)),
                 partial(PlayStore.insert_bump, participant="p1", maze_id="a",
                         row=BumpRow(1, 2, (1, 2), "up", 15, None)),
                 partial(PlayStore.finish_maze, participant="p1", maze_id="a", when=16)])
    assert store.load() == Stored(
        [ParticipantRow("p1", 0, True, ("a", "b"), {"STUDY_ID": "s"}, 10, 3, True)],
        [ProgressRow("p1", "a", 0, 13, 1.5, 16)],
        {("p1", "a"): [MoveRow(1, (1, 1), (1, 2), "right", 14, 2.25)]},
        {("p1", "a"): [BumpRow(1, 2, (1, 2), "up", 15, None)]},
        {"p1": {"age": 30, "x": None}})
    assert store.participants() == ["p1"] and store.moves("p1", "b") == []


def test_one_store_per_directory(store, tmp_path):
    with pytest.raises(RunError, match=r"pid \d+ \(mazesim play\) is writing this run"):
        PlayStore(tmp_path)
    store.close()
    PlayStore(tmp_path).close()                    # released on close
    store.close()                                  # closing twice is harmless


def test_a_failed_write_stops_every_later_one(store):
    def broken(db):
        db.execute("INSERT INTO play_moves (participant) VALUES ('x')")   # NOT NULL fails

    row = MoveRow(1, (1, 1), (1, 2), "right", 14, None)
    good = partial(PlayStore.insert_move, participant="p", maze_id="a", row=row)
    with pytest.raises(Unavailable, match=r"the results database failed \(IntegrityError: NOT "
                                          r"NULL constraint failed"):
        store.write([good, broken])
    assert store.moves("p", "a") == []             # the whole transaction rolled back
    with pytest.raises(Unavailable, match="nothing more is recorded until the server is "
                                          "restarted"):
        store.write([good])
    assert store.failure.startswith("the results database failed")


def test_closing_checkpoints_the_wal(tmp_path):
    store = PlayStore(tmp_path)
    store.write([partial(PlayStore.insert_move, participant="p", maze_id="a",
                         row=MoveRow(i, (1, 1), (1, 2), "right", 14, None))
                 for i in range(1, 200)])
    wal = tmp_path / "results.sqlite-wal"
    assert wal.stat().st_size > 0
    store.close()
    assert not wal.exists() or wal.stat().st_size == 0
