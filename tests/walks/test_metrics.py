"""Trajectory metrics on hand-worked walks."""


import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.errors import AgentError
from mazesim.maze import parse_maze, read_maze
from mazesim.records import Trajectory
from mazesim.walks import choices_of, simulate, simulate_many
from mazesim.walks.metrics import (LogLikelihood, batch_summary, choice_log_likelihood,
                                        excursion_depths, final_route, first_choice_counts,
                                        trajectory_metrics, visit_counts)

from fixture_paths import DATA

TUTORIAL = read_maze(DATA / "tutorial_7x13.txt")


def _tutorial_dfs():
    agent = make_agent("dfs", order="down,right,up,left", goal_seeking=False)
    return simulate(TUTORIAL, agent, 0, seed=0)


def test_metrics_of_the_tutorial_dfs_walk():
    m = trajectory_metrics(TUTORIAL, _tutorial_dfs())
    assert (m.moves, m.reached, m.capped) == (22, True, False)
    assert m.efficiency == pytest.approx(14 / 22)
    assert m.distinct_cells == 21             # 19 route cells + the two-cell dead end
    assert m.revisits == 2                    # (5, 10) and (5, 9) on the way back
    assert m.dead_ends_entered == 1           # (5, 11)
    # the bottom corridor: (5, 6) is 9 moves from the solution path either way round
    assert m.deepest_excursion == 9 == excursion_depths(TUTORIAL)[5, 6]
    assert m.first_choices == {}


def test_excursion_depths_hand_worked():
    maze = parse_maze("""
#######
#S...G#
#.###.#
#.#####
#######
""")
    depths = excursion_depths(maze)
    assert depths[1, 1:6].tolist() == [0, 0, 0, 0, 0]
    assert depths[2, 1] == 1 and depths[3, 1] == 2 and depths[2, 5] == 1
    assert depths[0, 0] == -1


def test_first_choices_and_counts():
    maze = parse_maze("#######\n#S.A..#\n###.#.#\n###.#G#\n#######")
    walk = simulate(maze, make_agent("dfs", order="down,right,up,left"), 0, 0)
    assert trajectory_metrics(maze, walk).first_choices == {"A": "down"}
    batch = simulate_many(maze, make_agent("random-walk", goal_seeking=False), 0, 500, seed=1)
    counts = first_choice_counts(batch)
    assert set(counts) == {"A"} and sum(counts["A"].values()) == 500
    assert counts["A"]["up"] == 0
    for way in ("left", "right", "down"):
        assert abs(counts["A"][way] - 500 / 3) < 4.5 * np.sqrt(500 * 2 / 9)


def test_final_route_erases_loops():
    walk = [(1, 1), (1, 2), (1, 3), (1, 2), (2, 2), (3, 2), (2, 2), (2, 3)]
    assert final_route(walk).tolist() == [[1, 1], [1, 2], [2, 2], [2, 3]]
    assert final_route(np.array([[4, 4]])).tolist() == [[4, 4]]


def test_visit_counts():
    counts = visit_counts(TUTORIAL, _tutorial_dfs().positions)
    assert counts[5, 10] == 2 and counts[5, 11] == 1 and counts[1, 1] == 1
    assert counts.sum() == 23


def test_batch_summary():
    batch = simulate_many(TUTORIAL, make_agent("shortest"), 0, 4, seed=0)
    assert batch_summary(batch) == {"trials": 4, "mean_moves": 14.0, "median_moves": 14.0,
                                    "min_moves": 14, "max_moves": 14, "reach_rate": 1.0,
                                    "capped": 0}


def test_batch_summary_leaves_capped_trials_out_of_the_mean_and_median():
    """The counting rule: a capped trial's moves are not a movement count."""
    batch = simulate_many(TUTORIAL, make_agent("random-walk", max_steps=30), 0, 40, seed=0)
    capped, moves = batch.capped.astype(bool), batch.moves
    assert 0 < capped.sum() < 40
    summary = batch_summary(batch)
    assert summary["capped"] == capped.sum() and summary["max_moves"] == 30
    assert summary["mean_moves"] == pytest.approx(moves[~capped].mean())
    assert summary["median_moves"] == np.median(moves[~capped])
    assert summary["mean_moves"] < moves.mean()
    every = simulate_many(TUTORIAL, make_agent("random-walk", max_steps=5), 0, 3, seed=0)
    assert batch_summary(every)["mean_moves"] is None is batch_summary(every)["median_moves"]


def test_log_likelihood_of_a_deterministic_agent():
    walk = _tutorial_dfs()
    agent = make_agent("dfs", order="down,right,up,left", goal_seeking=False)
    assert choice_log_likelihood(walk, TUTORIAL, agent, 0) == LogLikelihood(0.0, 0.0, 3)
    other = make_agent("dfs", order="right,down,up,left", goal_seeking=False)
    assert choice_log_likelihood(walk, TUTORIAL, other, 0).total == -np.inf


def test_log_likelihood_sums_over_replayed_choices():
    """The random-walk log-likelihood of the tutorial DFS walk: -sum log(degree)."""
    walk = _tutorial_dfs()
    agent = make_agent("random-walk", goal_seeking=False)
    ll = choice_log_likelihood(walk.positions, TUTORIAL, agent, "full")
    degrees = np.array([len(TUTORIAL.open_directions(tuple(p)))
                        for p in walk.positions[:-1].tolist()])
    assert ll.total == pytest.approx(-np.log(degrees).sum())
    assert ll.junctions == pytest.approx(-3 * np.log(3)) and ll.n_junctions == 3


def test_log_likelihood_errors():
    walk = Trajectory(np.array([[1, 1], [1, 3]]), False, False)
    with pytest.raises(AgentError, match="is not next to"):
        choice_log_likelihood(walk, TUTORIAL, make_agent("random-walk"))
    with pytest.raises(AgentError, match="shortest"):
        choice_log_likelihood(_tutorial_dfs(), TUTORIAL, make_agent("shortest"))
    assert choices_of(TUTORIAL, walk.positions[:1]) == ()
