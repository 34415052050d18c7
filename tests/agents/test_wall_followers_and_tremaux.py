"""Wall followers solve perfect mazes; Tremaux walks each passage at most once each way."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_mazes import mazes, tremaux_directed_counts
from mazesim.agents import make_agent
from mazesim.maze import parse_maze
from mazesim.walks import simulate


@given(maze=mazes(braid=False, max_size=21), hand=st.sampled_from(["right-hand", "left-hand"]),
       vision=st.sampled_from([0, 2]))
def test_wall_followers_solve_every_perfect_maze(maze, hand, vision):
    walk = simulate(maze, make_agent(hand, goal_seeking=False), vision, seed=0)
    passages = int((maze.grid == 0).sum())
    assert walk.reached and walk.moves <= 2 * (passages - 1)


def test_right_and_left_hand_mirror_each_other():
    maze = parse_maze("""
#######
#..S..#
#.###.#
#.#G#.#
#.#.#.#
#.....#
#######
""")
    right = simulate(maze, make_agent("right-hand", goal_seeking=False), 0, seed=0)
    left = simulate(maze, make_agent("left-hand", goal_seeking=False), 0, seed=0)
    # facing up at the start: the right hand goes right first, the left hand left
    assert tuple(right.positions[1]) == (1, 4) and tuple(left.positions[1]) == (1, 2)
    mirrored = right.positions.copy()
    mirrored[:, 1] = 6 - mirrored[:, 1]
    assert np.array_equal(mirrored, left.positions)


@given(maze=mazes(max_size=17), seed=st.integers(0, 1000), vision=st.sampled_from([0, 2]))
def test_tremaux_walks_each_passage_at_most_once_each_way(maze, seed, vision):
    walk = simulate(maze, make_agent("tremaux", goal_seeking=False), vision, seed)
    assert walk.reached
    counts = tremaux_directed_counts(walk.positions)
    assert max(counts.values()) == 1          # so no cell is passed twice in one direction


def test_tremaux_turns_back_at_an_old_place():
    """A loop: arriving at an already visited cell by a new passage, it turns back."""
    maze = parse_maze("""
#######
#S....#
#.###.#
#.....#
###.###
###G###
#######
""")
    for seed in range(20):
        walk = simulate(maze, make_agent("tremaux", goal_seeking=False), 0, seed)
        assert walk.reached
        assert max(tremaux_directed_counts(walk.positions).values()) == 1
