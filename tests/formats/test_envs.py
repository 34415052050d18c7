"""The Gymnasium environments: Gymnasium's checker for every vision, observations equal to
mazesim's own vision along people's walks (the play demo; every trial of the Maze Search Task's
experiment 1, slow), the vector environment against the single one, rewards and stops, and the
Minari export."""

from __future__ import annotations

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from mazesim.agents.vision import UNKNOWN, parse_vision, seen_cells  # noqa: E402
from mazesim.envs import ENV_ID, MazeEnv  # noqa: E402
from mazesim.envs.people import replay, run_env  # noqa: E402
from mazesim.envs.vector import MazeVectorEnv  # noqa: E402
from mazesim.errors import ConfigError  # noqa: E402
from mazesim.humans import load_human_run  # noqa: E402
from mazesim.maze import WALL, parse_maze  # noqa: E402

VISIONS = ["full", "0", "2", "2, occlusion", "2, no memory", "isovist 10", "isovist 10, map known",
           "isovist 3, no memory, map known", "sweep", "sweep, map known", "1, map known"]
CORRIDOR = parse_maze("#######\n#S...G#\n#######\n")


@pytest.mark.parametrize("vision", VISIONS)
def test_the_checker_passes_for_every_vision(vision):
    env = gym.make(ENV_ID, vision=vision, generator="digging", size=11, count=3)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.observation_space["view"].shape == (11, 11)


def reference_views(maze, positions, vision, shape):
    """What mazesim's vision shows at each step of a walk (the union of `seen_cells` so far:
    memory), as the environment draws it, in the grid `shape`."""
    vision = parse_vision(vision)
    seen = np.zeros(maze.shape, bool)
    views = []
    for cell in positions:
        seen |= seen_cells(maze, np.asarray(cell)[None], vision)
        view = np.where(seen, maze.grid, UNKNOWN)
        if vision.known_map:
            view[maze.grid == WALL] = WALL
        views.append(view)
    return np.array(views, np.uint8)


def mismatches(episode, maze, positions, vision) -> int:
    """Steps whose view, position or goal differ from mazesim's own vision."""
    obs = episode["observations"]
    h, w = maze.shape
    views = reference_views(maze, positions, vision, obs["view"].shape[1:])
    bad = (obs["view"][:, :h, :w] != views).any(axis=(1, 2))
    bad |= (obs["position"] != positions).any(axis=1)
    goal_seen = views[:, maze.goal[0], maze.goal[1]] != UNKNOWN
    expected_goal = np.where(goal_seen[:, None], np.array(maze.goal), -1)
    bad |= (obs["goal"] != expected_goal).any(axis=1)
    return int(bad.sum())


@pytest.mark.parametrize("vision", ["full", "2", "2, occlusion", "isovist 10, map known",
                                    "sweep, map known"])
def test_the_play_demo_replays_with_mazesim_s_own_vision(play_run, vision):
    run = load_human_run(play_run)
    env, index = run_env(run, vision)
    for trial in run.trials:
        episode = replay(env, index[trial.maze_id], trial.positions)
        assert mismatches(episode, run.mazes[trial.maze_id], trial.positions, vision) == 0
        assert episode["terminations"][-1] and not any(episode["terminations"][:-1])
        assert episode["rewards"] == [0.0] * (len(trial.positions) - 2) + [1.0]


@pytest.mark.slow
def test_every_trial_of_the_maze_search_task_replays_with_mazesim_s_own_vision(
        experiment_1_run):
    run = load_human_run(experiment_1_run)
    env, index = run_env(run)                                   # the trials' own vision
    assert str(env.pool.vision) == "isovist 10, map known"
    steps = bad = 0
    for trial in run.trials:
        episode = replay(env, index[trial.maze_id], trial.positions)
        bad += mismatches(episode, run.mazes[trial.maze_id], trial.positions, trial.vision)
        steps += len(trial.positions)
    assert (len(run.trials), steps, bad) == (4_758, 63_190, 0)   # every cell of every walk


def test_the_vector_environment_steps_as_single_environments():
    kwargs = dict(vision="2", generator="digging", size=11, count=4, maze_seed=3)
    vec = MazeVectorEnv(6, **kwargs)
    singles = [MazeEnv(**kwargs) for _ in range(6)]
    obs, _ = vec.reset(options={"maze": [0, 1, 2, 3, 0, 1]})
    for k, env in enumerate(singles):
        env.reset(options={"maze": [0, 1, 2, 3, 0, 1][k]})
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = rng.integers(0, 4, 6)
        obs, rewards, terminated, truncated, _ = vec.step(actions)
        for k, env in enumerate(singles):
            one, reward, term, trunc, _ = env.step(int(actions[k]))
            assert np.array_equal(obs["view"][k], one["view"])
            assert np.array_equal(obs["position"][k], one["position"])
            assert np.array_equal(obs["goal"][k], one["goal"])
            assert (rewards[k], terminated[k], truncated[k]) == (reward, term, trunc)


def test_a_walker_that_arrived_starts_a_new_maze_at_its_next_step():
    vec = MazeVectorEnv(2, [CORRIDOR], step_reward=-0.1)
    vec.reset(seed=0)
    for _ in range(3):
        obs, rewards, terminated, _, _ = vec.step(np.array([1, 3]))     # right; left: a bump
    assert terminated.tolist() == [False, False]
    obs, rewards, terminated, _, _ = vec.step(np.array([1, 1]))
    assert terminated.tolist() == [True, False]
    assert rewards[0] == pytest.approx(0.9)
    obs, rewards, terminated, _, _ = vec.step(np.array([1, 1]))         # 0 resets
    assert obs["position"].tolist() == [[1, 1], [1, 3]]
    assert (rewards[0], terminated[0]) == (0.0, False)


def test_rewards_and_stops_are_the_settings():
    env = MazeEnv([CORRIDOR], vision="1", goal_reward=5.0, step_reward=-1.0, bump_reward=-2.0)
    env.reset()
    assert env.step(0)[1:3] == (-3.0, False)                             # up: a wall
    seen = MazeEnv([CORRIDOR], vision="1", stop="goal_seen")
    obs, _ = seen.reset()
    assert obs["goal"].tolist() == [-1, -1]
    for _ in range(2):
        obs, reward, terminated, _, _ = seen.step(1)
        assert (obs["goal"].tolist(), terminated) == ([-1, -1], False)
    obs, reward, terminated, _, _ = seen.step(1)                         # G is a neighbour
    assert (obs["goal"].tolist(), reward, terminated) == ([1, 5], 0.0, True)
    capped = MazeEnv([CORRIDOR], max_steps=2)
    capped.reset()
    assert capped.step(3)[3] is False and capped.step(3)[3] is True     # truncated at 2


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="stop: 'exit'"):
        MazeEnv([CORRIDOR], stop="exit")
    with pytest.raises(ConfigError, match="options.maze: 1"):
        MazeEnv([CORRIDOR]).reset(options={"maze": 1})
    with pytest.raises(ConfigError, match="num_envs: 0"):
        MazeVectorEnv(0, [CORRIDOR])
    with pytest.raises(ConfigError, match="mazes\\[0\\]: int"):
        MazeEnv([3])
    env = MazeEnv([CORRIDOR])
    env.reset()
    with pytest.raises(ConfigError, match="action: 7"):
        env.step(7)
    vec = MazeVectorEnv(2, [CORRIDOR])
    vec.reset()
    with pytest.raises(ConfigError, match="actions: shape"):
        vec.step(np.array([0, 4]))


def test_a_run_of_people_as_a_minari_dataset(play_run, tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    from mazesim.envs.people import minari_dataset

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    minari_dataset(play_run, "mazesim/playdemo/people-v0", vision="2")
    data = minari.load_dataset("mazesim/playdemo/people-v0")
    run = load_human_run(play_run)
    trials = sorted(run.trials, key=lambda t: t.trial_id)
    assert data.total_episodes == len(trials) == 6
    assert data.total_steps == sum(len(t.positions) - 1 for t in trials)
    env, index = run_env(run, "2")
    for episode, trial in zip(data.iterate_episodes(), trials):
        expected = replay(env, index[trial.maze_id], trial.positions)
        assert np.array_equal(episode.observations["view"], expected["observations"]["view"])
        assert np.array_equal(episode.actions, expected["actions"])
    assert str(data.recover_environment().unwrapped.pool.vision) == "2"
