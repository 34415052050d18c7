"""Config schema: the resolved form, and every kind of broken config named by its key path."""

import copy

import pytest

from mazesim.errors import ConfigError
from mazesim.experiment.config import (DEFAULT_SAMPLES, GeneratedMazes, MazeFile, load_config,
                                       resolved_config)

from experiment_fixtures import BRANCH_MAZE, SMALL, write_config


def test_small_config_resolves_defaults(small_config):
    config = load_config(small_config)
    assert config.name == "small" and config.seed == 7
    assert config.maze_count == 6
    first, second, file = config.mazes
    assert isinstance(first, GeneratedMazes) and first.size == (11, 11) and first.count == 3
    assert first.placement == "corners" and first.braid == 0.0
    assert second.size == (11, 11)
    assert isinstance(file, MazeFile) and file.file == (small_config.parent / "maze.txt")
    assert "A" in file.maze.marks
    assert [a.label for a in config.agents] == ["weighted-walker", "dfs", "random-walk"]
    assert config.vision_labels == ("full", "2")
    assert config.methods == ("pearson", "spearman")
    assert config.correlation_parameters[0] == "solution_length"
    assert config.probes[0].mark == "A" and dict(config.probes[0].human) == {"up": 10, "right": 4}
    assert config.trajectories == DEFAULT_SAMPLES and config.output == "results"


def test_resolved_config_is_a_valid_config_again(small_config, tmp_path):
    resolved = resolved_config(load_config(small_config))
    again = load_config(write_config(tmp_path / "again", resolved))
    assert resolved_config(again) == resolved
    assert resolved["mazes"][2]["file"] == str(small_config.parent / "maze.txt")
    assert len(resolved["mazes"][2]["sha256"]) == 64


def test_relative_maze_file_is_relative_to_the_config_file(tmp_path, monkeypatch):
    path = write_config(tmp_path / "deep" / "dir", SMALL)
    monkeypatch.chdir(tmp_path)
    assert load_config(path).mazes[2].file == path.parent / "maze.txt"


def _broken(tmp_path, change):
    data = copy.deepcopy(SMALL)
    change(data)
    return write_config(tmp_path / "bad", data, "bad.yaml")


@pytest.mark.parametrize("change, message", [
    (lambda d: d["agents"][2].update(type="bsf"),
     r"bad.yaml: agents\[2\].type: 'bsf' is not an agent; did you mean 'bfs'\?"),
    (lambda d: d["agents"][0].update(type="zzz"),
     r"agents\[0\].type: 'zzz' is not an agent \(allowed: .*weighted-walker"),
    (lambda d: d["mazes"][0].update(generator="diging"),
     r"mazes\[0\].generator: 'diging' is not a generator; did you mean 'digging'\?"),
    (lambda d: d.update(sed=3), r"bad.yaml: sed: unknown key; did you mean 'seed'\?"),
    (lambda d: d["agents"][1].update(trails=3),
     r"agents\[1\].trails: unknown key; did you mean 'trials'\?"),
    (lambda d: d["agents"][1].update(trials=-1),
     r"agents\[1\].trials: -1 \(allowed: an integer from 1 to 1,000,000\)"),
    (lambda d: d["agents"][1].update(trials="ten"),
     r"agents\[1\].trials: 'ten' \(allowed: an integer from 1 to"),
    (lambda d: d["mazes"][1].update(count=-2),
     r"mazes\[1\].count: -2 \(allowed: an integer from 1 to 100,000\)"),
    (lambda d: d["mazes"][0].update(braid=1.5),
     r"mazes\[0\].braid: 1.5 \(allowed: a number from 0 to 1\)"),
    (lambda d: d["mazes"][0].update(size="big"), r"mazes\[0\].size: 'big' is not a size"),
    (lambda d: d["mazes"][2].update(file="missing.txt"),
     r"mazes\[2\].file: 'missing.txt': no such file"),
    (lambda d: d.update(seed=-5), r"seed: -5 \(allowed: an integer from 0 to 2\^63 - 1\)"),
    (lambda d: d.update(seed=True), r"seed: True \(allowed: an integer from 0 to"),
    (lambda d: d.update(vision=["full", -1]), r"vision\[1\]: .*-1.*allowed: full or an integer"),
    (lambda d: d.update(vision="full"), r"vision: 'full' \(allowed: a non-empty list"),
    (lambda d: d.update(agents=[]), r"agents: \[\] \(allowed: a non-empty list of agents\)"),
    (lambda d: d.update(parameters=["solution_lenght"]),
     r"parameters\[0\]: 'solution_lenght' is not a parameter; did you mean 'solution_length'"),
    (lambda d: d["analysis"]["branch_choices"].update(mark="B"),
     r"analysis.branch_choices\[0\].mark: 'B' is not marked in mazes\[2\] \(maze.txt; marks: A\)"),
    (lambda d: d["analysis"]["branch_choices"]["human"].update(north=3),
     r"analysis.branch_choices\[0\].human.north: unknown key"),
    (lambda d: d["analysis"]["branch_choices"]["human"].update(up=-3),
     r"analysis.branch_choices\[0\].human.up: -3 \(allowed: an integer from 0 to"),
    (lambda d: d.update(analysis={"correlations": {"methods": ["kendall"]}}),
     r"analysis.correlations.methods\[0\]: 'kendall' is not a method"),
    (lambda d: d.update(analysis={"regression": {"errors": "hc1"}}),
     r"analysis.regression.errors: 'hc1' is not a kind of standard errors.*hc3"),
    (lambda d: d.update(analysis={"regression": {"error": "hc3"}}),
     r"analysis.regression.error: unknown key"),
    (lambda d: d.update(name="a b"), r"name: 'a b' \(allowed: letters"),
    (lambda d: d.pop("seed"), r"bad.yaml: seed: missing \(required\)"),
    (lambda d: d["agents"][0].update(initial_count=0), r"agents\[0\]: .*initial_count"),
    (lambda d: d["agents"].append({"type": "dfs", "trials": 1}),
     r"agents\[3\]: agent 'dfs' appears twice; give each a distinct 'label'"),
    (lambda d: d["agents"].append({"type": "du", "trials": 1, "tau": 2}),
     r"agents\[3\]: du: vision: '2' leaves the map unknown.* \(vision\[1\]\)"),
])
def test_broken_configs_name_the_key_path(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_config(_broken(tmp_path, change))


def test_regression_errors_default_to_hc3_and_are_stored(tmp_path):
    assert load_config(write_config(tmp_path / "a", SMALL)).errors == "hc3"
    data = copy.deepcopy(SMALL)
    data["analysis"]["regression"] = {"errors": "nonrobust"}
    config = load_config(write_config(tmp_path / "b", data))
    assert config.errors == "nonrobust"
    assert resolved_config(config)["analysis"]["regression"] == {"errors": "nonrobust"}


def test_probe_needs_a_maze_file(tmp_path):
    data = copy.deepcopy(SMALL)
    data["mazes"] = data["mazes"][:2]
    with pytest.raises(ConfigError, match=r"branch_choices\[0\].mark: 'A': no maze file"):
        load_config(write_config(tmp_path, data))


def test_yaml_syntax_error_names_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nseed: [1,\n")
    with pytest.raises(ConfigError, match=r"broken.yaml:\d+:\d+: "):
        load_config(path)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="nope.yaml: no such file"):
        load_config(tmp_path / "nope.yaml")


def test_changed_maze_file_is_detected_by_its_hash(small_config, tmp_path):
    resolved = resolved_config(load_config(small_config))
    maze = small_config.parent / "maze.txt"
    maze.write_text(BRANCH_MAZE.read_text().replace("A", "."))
    data = dict(resolved, analysis={})
    with pytest.raises(ConfigError, match=r"mazes\[2\].sha256: .* has changed"):
        load_config(write_config(tmp_path / "x", data))


def test_explicit_cells_of_a_block_must_be_rooms(tmp_path):
    """Validation generates a block's first maze only: a cell that is a passage there may be a
    wall in the others, and `run` would fail on them after making the run directory."""
    from mazesim.generators import generate

    seed = next(s for s in range(100) if generate("digging", 11, seed=s).grid[1, 2] == 0)
    data = copy.deepcopy(SMALL)
    data["mazes"][0].update(seed=seed, placement=[[1, 1], [1, 2]])
    with pytest.raises(ConfigError, match=r"bad.yaml: mazes\[0\].placement: goal \(1, 2\) is "
                                          r"not a room \(allowed: odd row and column, a passage "
                                          r"in every maze\)"):
        load_config(write_config(tmp_path / "bad", data, "bad.yaml"))
    data["mazes"][0].update(placement=[[1, 1], [9, 9]])
    assert load_config(write_config(tmp_path / "ok", data)).mazes[0].placement == [[1, 1], [9, 9]]


def test_a_planner_with_the_map_known(tmp_path):
    data = copy.deepcopy(SMALL)
    data["agents"].append({"type": "du", "trials": 2, "tau": 0.5, "gamma": 0.9})
    data["vision"] = ["full", {"sweep": True, "map": "known"}]
    config = load_config(write_config(tmp_path, data))
    assert config.agents[3].agent.values() == {"tau": 0.5, "gamma": 0.9}
