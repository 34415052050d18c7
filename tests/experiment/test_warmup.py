"""`experiment.warmup`: the tasks that compile a cold run's kernels in a pool."""

from pathlib import Path

import pytest

from mazesim.experiment import warmup
from mazesim.experiment.config import GeneratedMazes, load_config

QUICKSTART = Path(__file__).resolve().parents[2] / "configs" / "quickstart.yaml"


def test_one_walk_per_kernel_each_generator_once_and_the_parameters(monkeypatch):
    def generated(self, seed):
        raise AssertionError("a maze generated before the pool starts")

    monkeypatch.setattr(GeneratedMazes, "maze", generated)
    config = load_config(QUICKSTART)
    tasks = warmup._tasks(config)
    kinds = [task[0] for task in tasks]
    walks = [task for task in tasks if task[0] == "walk"]
    assert kinds[0] == "walk" and kinds.count("measure") == 1
    assert kinds[-1] == "statistics" and kinds.count("statistics") == 1  # fills the tail
    assert kinds.index("measure") < kinds.index("walk", 1)  # beside the first walk
    assert len(walks) == len({spec.agent.kernel() for spec in config.agents}) == 4
    assert sorted(task[1].generator for task in tasks if task[0] == "maze") == [
        "digging", "stick-knocking", "wall-extending"]


def test_every_task_runs():
    for task in warmup._tasks(load_config(QUICKSTART)):
        warmup._exercise(task)


def test_one_core_compiles_here_telling_each_kernel_group(monkeypatch):
    monkeypatch.setattr(warmup.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(warmup.os, "cpu_count", lambda: 1)
    monkeypatch.setattr(warmup, "cold_kernels", lambda config: True)
    ran, said = [], []
    monkeypatch.setattr(warmup, "_exercise", lambda task: ran.append(warmup.task_label(task)))
    assert warmup.warm_up(load_config(QUICKSTART), lambda *told: said.append(told)) is True
    labels = ["walks of bfs", "generator stick-knocking", "generator digging",
              "generator wall-extending", "maze parameters", "walks of dfs",
              "walks of weighted-walker", "walks of random-walk", "bootstrap"]
    assert ran == labels                                # each told before it compiles
    assert said == [(i, 9, label) for i, label in enumerate(labels)] + [(9, 9, "")]


def test_a_pool_tells_each_kernel_group_done(monkeypatch):
    monkeypatch.setattr(warmup.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(warmup, "cold_kernels", lambda config: True)
    monkeypatch.setattr(warmup, "_exercise", repr)     # picklable, compiles nothing
    said = []
    assert warmup.warm_up(load_config(QUICKSTART), lambda *told: said.append(told)) is True
    assert said[0] == (0, 9, "walks of bfs, generator stick-knocking")   # two at a time
    assert [d for d, _, _ in said] == list(range(10)) and said[-1] == (9, 9, "")


def test_a_warm_cache_compiles_nothing_and_says_nothing(monkeypatch):
    monkeypatch.setattr(warmup, "cold_kernels", lambda config: False)
    assert warmup.warm_up(load_config(QUICKSTART), lambda *told: pytest.fail("said")) is False


@pytest.mark.parametrize("methods, cold", [("[pearson, spearman]", True), ("[pearson]", False)])
def test_the_bootstrap_counts_as_cold_only_in_a_run_that_bootstraps(tmp_path, monkeypatch,
                                                                     methods, cold):
    config = tmp_path / "run.yaml"
    config.write_text(QUICKSTART.read_text(encoding="utf-8").replace(
        "methods: [pearson, spearman]", f"methods: {methods}"), encoding="utf-8")
    monkeypatch.setattr(warmup, "cached", lambda kernel: kernel is not warmup.resampled_ranks)
    assert warmup.cold_kernels(load_config(config)) is cold


def test_the_tree_walkers_kernel_counts_as_cold_and_is_warmed_once(tmp_path, monkeypatch):
    """A run of two tree walkers: their one compiled walk makes the run cold, one warm-up walk."""
    from mazesim.agents._tree_walk_kernel import tree_walks

    config = tmp_path / "run.yaml"
    config.write_text(QUICKSTART.read_text(encoding="utf-8").replace(
        "  - {type: bfs, trials: 20}\n  - {type: dfs, trials: 20}\n"
        "  - {type: weighted-walker, trials: 20}\n  - {type: random-walk, trials: 20}\n"
        "vision: [full, 2]",
        "  - {type: du, trials: 2}\n  - {type: node-choice, trials: 2}\n"
        "vision: [{window: 2, map: known}]"), encoding="utf-8")
    loaded = load_config(config)
    monkeypatch.setattr(warmup, "cached", lambda kernel: kernel is not tree_walks)
    assert warmup.cold_kernels(loaded)
    assert [task[1].name for task in warmup._tasks(loaded) if task[0] == "walk"] == ["du"]
