"""Serial, local processes and a Dask LocalCluster give identical result tables."""

import pytest

from mazesim.errors import ConfigError
from mazesim.experiment import executors
from mazesim.experiment.executors import execute

from experiment_fixtures import run_small, tables


def _square(x):
    return x * x


def test_execute_yields_every_result():
    assert sorted(execute(_square, range(10))) == [x * x for x in range(10)]
    assert sorted(execute(_square, range(30), workers=2)) == [x * x for x in range(30)]


def test_bad_worker_count():
    with pytest.raises(ConfigError, match=r"--workers: 0 \(allowed: an integer from 1 to 1,024\)"):
        with executors.open_executor(workers=0):
            pass


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
    with pytest.raises(ConfigError, match=r"--dask: cannot reach the scheduler"):
        run_small(small_config, tmp_path / "out", dask="tcp://127.0.0.1:9")
    assert not (tmp_path / "out").exists()  # checked before the run directory is made
