"""Helpers of the experiment tests: small configs written into a temporary directory."""

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BRANCH_MAZE = ROOT / "experiments" / "branch-point-a" / "maze.txt"

SMALL = {
    "name": "small",
    "seed": 7,
    "mazes": [
        {"generator": "digging", "size": 11, "count": 3},
        {"generator": "stick-knocking", "size": "11x11", "count": 2},
        {"file": "maze.txt"},
    ],
    "agents": [
        {"type": "weighted-walker", "trials": 6},
        {"type": "dfs", "trials": 4},
        {"type": "random-walk", "trials": 5},
    ],
    "vision": ["full", 2],
    "analysis": {"branch_choices": {"mark": "A", "human": {"up": 10, "right": 4}}},
}


def write_config(folder: Path, data: dict, name: str = "config.yaml") -> Path:
    """Write `data` as YAML into `folder` beside a copy of the branch-point maze."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "maze.txt").write_text(BRANCH_MAZE.read_text())
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    return write_config(tmp_path / "cfg", SMALL)


def tables(run_dir: Path) -> dict[str, str]:
    """The CSV exports that must not depend on order, workers, executor or resume."""
    from mazesim.experiment.storage import RunStore

    with RunStore(run_dir) as store:
        store.export_csv(run_dir)
    return {name: (run_dir / name).read_text() for name in ("mazes.csv", "trials.csv",
                                                            "choices.csv")}


def run_small(config_path: Path, output: Path, **options):
    from mazesim.experiment.config import load_config
    from mazesim.experiment.runner import run_experiment

    options.setdefault("report", False)
    return run_experiment(load_config(config_path), output=output, **options)
