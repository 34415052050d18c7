"""A function run in a forked process: the same value or failure as in this one, and no
process left behind."""

import multiprocessing
import os
import threading
import time

import pytest

from mazesim.errors import RunError
from mazesim.experiment import background
from mazesim.experiment.background import Background

forking = pytest.mark.skipif(not background._worth_forking(), reason="needs fork and 2 cores")


def _pid_and(value):
    return os.getpid(), value


def _fail(message):
    raise RunError(message)


def _die():
    os._exit(3)


def _sleep():
    time.sleep(60)


@forking
def test_the_value_comes_from_another_process():
    with Background(_pid_and, {"a": [1, 2]}) as job:
        pid, value = job.result()
    assert pid != os.getpid() and value == {"a": [1, 2]}


def test_without_fork_the_function_runs_here_when_asked(monkeypatch):
    monkeypatch.setattr(background, "_worth_forking", lambda: False)
    with Background(_pid_and, 5) as job:
        assert job.result() == (os.getpid(), 5)


def test_beside_another_thread_the_function_runs_here():
    """A forked child would get the other thread's locks as they were, maybe held."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with Background(_pid_and, 5) as job:
            assert job.result() == (os.getpid(), 5)
    finally:
        stop.set()
        thread.join()


@forking
def test_a_failure_is_raised_here_with_the_child_s_traceback():
    with pytest.raises(RunError, match="^run.sqlite: damaged$") as caught:
        with Background(_fail, "run.sqlite: damaged") as job:
            job.result()
    assert "in _fail" in str(caught.value.__cause__)


@forking
def test_a_child_that_dies_is_an_error_naming_its_exit_code():
    with pytest.raises(RuntimeError, match="_die ended without a result .exit code 3"):
        with Background(_die) as job:
            job.result()


@forking
def test_leaving_the_block_stops_a_child_whose_result_is_not_collected():
    with pytest.raises(KeyError):
        with Background(_sleep):
            started = set(multiprocessing.active_children())
            raise KeyError("the caller failed")
    assert started and not started & set(multiprocessing.active_children())


def test_split_gives_consecutive_near_equal_slices():
    assert background.split(list(range(7)), 3) == [[0, 1], [2, 3], [4, 5, 6]]
    assert background.split(list(range(2)), 5) == [[0], [1]]
    assert background.split([], 4) == [[]]


@forking
def test_jobs_give_values_in_order_with_their_cpu():
    with background.Jobs() as jobs:
        started = [jobs.start(_pid_and, n) for n in range(3)]
        values = jobs.results(started)
    assert [v for _, v in values] == [0, 1, 2] and all(p != os.getpid() for p, _ in values)
    assert [name for name, _ in jobs.cpu] == ["_pid_and"] * 3
    assert all(seconds >= 0 for _, seconds in jobs.cpu)


@forking
def test_calls_shared_among_the_cores_give_values_and_failures_in_order(monkeypatch):
    """Eight calls on two cores: two processes, one failure raised where its value is asked,
    the calls after it in the same process still answered."""
    monkeypatch.setattr(background, "cores", lambda: 2)
    calls = [(_pid_and, (n,)) if n != 4 else (_fail, ("call 4",)) for n in range(8)]
    with background.Jobs() as jobs:
        pieces = jobs.start_all(calls)
        first = jobs.results(pieces[:4])
        with pytest.raises(RunError, match="^call 4$"):
            pieces[4].result()
        rest = jobs.results(pieces[5:])
    assert [v for _, v in first + rest] == [0, 1, 2, 3, 5, 6, 7]
    assert len({p for p, _ in first + rest}) == 2 and os.getpid() not in {p for p, _ in first}
    assert not multiprocessing.active_children() and jobs.start_all([]) == []
