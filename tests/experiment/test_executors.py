"""Serial, local processes and a Dask LocalCluster give identical result tables; workers are
capped, and losing them (or the cluster) is one line saying how to resume."""

import os
import subprocess
import sys
import time

import pytest

from mazesim.errors import ConfigError, RunError
from mazesim.experiment import executors
from mazesim.experiment.executors import WorkersLost, execute

from experiment_fixtures import run_small, tables
from limited import assert_one_error_line, cli


def _square(x):
    return x * x


def test_execute_yields_every_result():
    assert sorted(execute(_square, range(10))) == [x * x for x in range(10)]
    assert sorted(execute(_square, range(30), workers=2)) == [x * x for x in range(30)]


def test_bad_worker_count():
    with pytest.raises(ConfigError, match=r"workers: 0 \(allowed: an integer from 1 to 1,024\)"):
        with executors.open_executor(workers=0):
            pass


def test_whole_chunks_and_single_units_as_tasks_give_identical_tables(small_config, tmp_path,
                                                                      monkeypatch):
    """Six mazes for two workers: each unit is a task (fewer than `SPLIT_BELOW` mazes per
    worker); with the threshold at one maze each maze's units are one task, packed and stored
    a chunk at a time. Same tables, and one trajectory file per task."""
    from mazesim.experiment import runner

    units = run_small(small_config, tmp_path / "units", workers=2).run_dir
    monkeypatch.setattr(runner, "SPLIT_BELOW", 1)
    chunks = run_small(small_config, tmp_path / "chunks", workers=2).run_dir
    assert tables(chunks) == tables(units)
    files = {p: len(list((p / "trajectories").glob("*.npz"))) for p in (units, chunks)}
    assert files[chunks] == 6 < files[units]


@pytest.mark.slow
def test_serial_processes_and_dask_give_identical_tables(small_config, tmp_path):
    serial = tables(run_small(small_config, tmp_path / "serial").run_dir)
    workers = tables(run_small(small_config, tmp_path / "workers", workers=2).run_dir)
    assert workers == serial
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        run = run_small(small_config, tmp_path / "dask", dask=cluster.scheduler_address)
    assert tables(run.run_dir) == serial


def test_unreachable_dask_scheduler(small_config, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "DASK_TIMEOUT", 1.0)
    with pytest.raises(ConfigError, match=r"dask: cannot reach the scheduler"):
        run_small(small_config, tmp_path / "out", dask="tcp://127.0.0.1:9")
    assert not (tmp_path / "out").exists()  # checked before the run directory is made


def _die(x):
    os._exit(1)           # a worker killed (by the OOM killer, say) mid-task


def test_never_more_workers_than_tasks_or_two_per_core(monkeypatch):
    """--workers 1000 forked up to 1000 processes for two chunks."""
    started = []

    class Recording(executors.ProcessPoolExecutor):
        def __init__(self, workers, **options):
            started.append(workers)
            super().__init__(workers, **options)

    monkeypatch.setattr(executors, "ProcessPoolExecutor", Recording)
    assert sorted(execute(_square, range(2), workers=1000)) == [0, 1]
    assert started == [2]
    cores = len(os.sched_getaffinity(0))
    assert executors.worker_count(1000, 10**6) == 2 * cores
    assert executors.worker_count(1000, 1) == 1
    assert executors.worker_count(3, 10) == min(3, 2 * cores)


def test_a_dead_worker_is_one_line_not_a_hang():
    with pytest.raises(WorkersLost, match=r"workers: a worker process died \(killed, or out "
                                          r"of memory\)"):
        list(execute(_die, range(4), workers=2))


def test_a_run_that_loses_its_workers_says_how_to_resume(small_config, tmp_path, monkeypatch):
    from mazesim.experiment import runner

    chunks = []

    def dies_on_the_third(chunk):
        chunks.append(chunk)
        if len(chunks) == 3:
            raise WorkersLost("dask: lost the scheduler at tcp://x:1 (CommClosedError)")
        return real(chunk)

    real = runner.run_chunk
    monkeypatch.setattr(runner, "run_chunk", dies_on_the_third)
    with pytest.raises(RunError) as raised:
        run_small(small_config, tmp_path / "out", flush_seconds=0.0)
    run_dir = next((tmp_path / "out" / "small").iterdir())
    assert str(raised.value) == (
        f"dask: lost the scheduler at tcp://x:1 (CommClosedError); 12 of 36 units are stored "
        f"in {run_dir}; resume with: mazesim run {small_config} --resume --output "
        f"{tmp_path / 'out'}")
    monkeypatch.setattr(runner, "run_chunk", real)
    resumed = run_small(small_config, tmp_path / "out", resume=True)
    assert tables(resumed.run_dir) == tables(run_small(small_config, tmp_path / "fresh").run_dir)


@pytest.mark.slow
def test_a_bad_dask_address_fails_fast_with_one_line(small_config, tmp_path):
    """A bad address failed after 12 to 21 s with a TimeoutError traceback. The command's wall
    time includes importing dask (seconds on a loaded machine): the connection's own time is
    measured in this process, the command's only against a generous bound."""
    pytest.importorskip("distributed")
    for address, reason in (("tcp://127.0.0.1:9", "within 5 s"), ("nonsense:xx", "")):
        done = cli("run", small_config, "--output", tmp_path / "out", "--dask", address,
                   seconds=60)
        assert_one_error_line(done, f"dask: cannot reach the scheduler at {address!r}", reason)
        assert done.seconds < 45, done.seconds
        began = time.monotonic()
        with pytest.raises(ConfigError, match="cannot reach the scheduler"):
            executors._connect(address)
        assert time.monotonic() - began < executors.DASK_TIMEOUT + 3
    assert not (tmp_path / "out").exists()


def test_a_dask_cluster_without_workers_stops_the_run(small_config, tmp_path, monkeypatch):
    """Losing the last worker hung silently."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "DASK_WORKERLESS_SECONDS", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=False,
                                  dashboard_address=None) as cluster:
        began = time.monotonic()
        with pytest.raises(RunError, match=r"dask: no worker on the scheduler at .* for 1 s; "
                                           r"0 of 36 units are stored in .*; resume with: "
                                           r"mazesim run .* --resume"):
            run_small(small_config, tmp_path / "out", dask=cluster.scheduler_address)
        assert time.monotonic() - began < 20


_SCHEDULER = """
import asyncio, sys
from distributed import Scheduler
async def main():
    async with Scheduler(port=0, dashboard_address=None) as scheduler:
        print(scheduler.address, flush=True)
        await scheduler.finished()
asyncio.run(main())
"""
_SLOW_DASK = """
import sys, time
import mazesim.experiment.runner as runner
_run_chunk = runner.run_chunk
def _slow(chunk, **told):
    time.sleep(0.3)
    return _run_chunk(chunk, **told)
runner.run_chunk = _slow
from mazesim.cli import main
main(["run", sys.argv[1], "--output", sys.argv[2], "--dask", sys.argv[3]])
"""


@pytest.mark.slow
def test_losing_the_scheduler_is_one_line_with_how_to_resume(small_config, tmp_path):
    """Losing the scheduler gave a CommClosedError traceback."""
    pytest.importorskip("distributed")
    scheduler = subprocess.Popen([sys.executable, "-c", _SCHEDULER], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
    worker = run = None
    try:
        address = scheduler.stdout.readline().strip()
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                   address, "--nthreads", "1", "--no-dashboard"],
                                  stderr=subprocess.DEVNULL)
        run = subprocess.Popen([sys.executable, "-c", _SLOW_DASK, str(small_config),
                                str(tmp_path / "out"), address], stderr=subprocess.PIPE,
                               text=True)
        deadline = time.monotonic() + 60
        while not list((tmp_path / "out").glob("small/*/trajectories/*.npz")):
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.1)
        scheduler.kill()
        err = run.communicate(timeout=60)[1]
    finally:
        for proc in (scheduler, worker, run):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert run.returncode == 2 and "Traceback" not in err, err
    (line,) = [x for x in err.splitlines() if x.startswith("Error: ")]
    assert line.startswith(f"Error: dask: lost the scheduler at {address}")
    assert f"resume with: mazesim run {small_config} --resume" in line
