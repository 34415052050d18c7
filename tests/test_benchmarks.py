"""Every benchmark script runs in its quick mode, so that none can rot unnoticed (they are
benchmarks, not timed tests: the figures are not checked, only that each section prints)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

SECTIONS = {
    "bench_agents.py": ["1. the walking loop", "2. moves per second", "3. 100 trials",
                        "4. against mazelib", "5. bfs, vision 1, no memory"],
    "bench_analysis.py": ["distance_map", "parameters (31x31)"],
    "bench_envs.py": ["1. the vector environment", "vector, vision full", "vector, vision 2:",
                      "isovist 10, map known", "single, gymnasium.make"],
    "bench_experiment.py": ["end to end", "serial fraction", "agent kernels by condition",
                            "random-walk", "first run of"],
    "bench_fit.py": ["import of", "fit of"],
    "bench_import.py": ["1. import of", "2. load of", "3. fit of random-walk"],
    "bench_generators.py": ["digging", "Peers", "Dead-end share"],
    "bench_node_fit.py": ["1. trees and node decisions", "2. ml: every node model",
                          "3. peer: every node model", "the budget of"],
    "bench_planners.py": ["1. values of every model", "2. the protocol for every model",
                          "3. reproduction over", "people best fitted"],
    "bench_predict.py": ["predictive check of 2 models", "choice-model: maze r"],
    "bench_play.py": ["participants,", "round trip: median", "lost 0, doubled 0"],
    "bench_search.py": ["terrain_route"],
    "bench_startup.py": ["1. mazesim --help", "2. mazesim generate aldous-broder",
                         "3. compiled: generate", "one cached numba kernel"],
    "bench_sokoban.py": ["solved 3/3", "deadline: 150x150 room", "warm_up"],
    "bench_trees.py": ["trees of the 40 maps", "node decisions of 4,758 walks",
                       "refusing a tree past the ceiling",
                       "merged graphs of the replication's 30 maps"],
}


def test_every_benchmark_script_is_covered():
    assert sorted(p.name for p in BENCHMARKS.glob("bench_*.py")) == sorted(SECTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SECTIONS))
def test_benchmark_runs_quick(script):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--quick"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    for heading in SECTIONS[script]:
        assert heading in done.stdout, (heading, done.stdout[-2000:])
    assert "Traceback" not in done.stderr
