"""`shortest`, `bfs` and `dfs`, including the tutorial's DFS walk (source 000)."""

from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_mazes import mazes
from mazesim.agents import make_agent
from mazesim.analysis import dfs_path, distance_map, parameters, shortest_path
from mazesim.maze import read_maze
from mazesim.walks import simulate
from mazesim.walks.metrics import final_route

TUTORIAL = read_maze(Path(__file__).parent.parent / "data" / "tutorial_7x13.txt")


def test_tutorial_dfs_walk():
    agent = make_agent("dfs", order=["down", "right", "up", "left"], goal_seeking=False)
    walk = simulate(TUTORIAL, agent, 0, seed=0)
    route = final_route(walk.positions)
    assert len(route) - 1 == 18                             # the tutorial's DFS route
    assert np.array_equal(route, dfs_path(TUTORIAL))
    assert walk.moves == 22                                 # + the dead end right of (5, 9)
    detour = [tuple(p) for p in walk.positions[12:17].tolist()]
    assert detour == [(5, 9), (5, 10), (5, 11), (5, 10), (5, 9)]


@given(maze=mazes(), seed=st.integers(0, 100))
def test_shortest_walks_the_solution(maze, seed):
    walk = simulate(maze, make_agent("shortest"), 0, seed)
    assert walk.moves == parameters(maze, ["solution_length"])["solution_length"]
    assert np.array_equal(walk.positions, shortest_path(maze))


def test_shortest_is_capped():
    walk = simulate(TUTORIAL, make_agent("shortest", max_steps=5), "full", 0)
    assert walk.moves == 5 and walk.capped and not walk.reached


@given(maze=mazes(braid=False), seed=st.integers(0, 100),
       name=st.sampled_from(["bfs", "dfs"]))
def test_full_vision_goal_seeking_walks_the_shortest_path(maze, seed, name):
    walk = simulate(maze, make_agent(name), "full", seed)
    assert np.array_equal(walk.positions, shortest_path(maze))


@given(maze=mazes(), seed=st.integers(0, 100), k=st.integers(0, 3))
def test_dfs_without_goal_seeking_enters_each_cell_at_most_once_forward(maze, seed, k):
    """A depth-first walk: each cell is first entered once, and left backwards once."""
    walk = simulate(maze, make_agent("dfs", goal_seeking=False), k, seed)
    assert walk.reached
    cells = [tuple(p) for p in walk.positions.tolist()]
    assert walk.moves == 2 * (len(set(cells)) - 1) - (len(final_route(walk.positions)) - 1)


def test_bfs_searches_around_the_start_first():
    """Blind bfs visits cells in order of their distance from S until it steps on G."""
    walk = simulate(TUTORIAL, make_agent("bfs", goal_seeking=False), 0, seed=0)
    first_visit = {}
    for i, cell in enumerate(map(tuple, walk.positions.tolist())):
        first_visit.setdefault(cell, i)
    dmap = distance_map(TUTORIAL)
    order = sorted(first_visit, key=first_visit.get)
    assert [dmap[c] for c in order] == sorted(dmap[c] for c in order)
    assert order[-1] == TUTORIAL.goal and dmap[TUTORIAL.goal] == 14
    nearer = {tuple(c) for c in np.argwhere((dmap >= 0) & (dmap < 14)).tolist()}
    assert nearer < set(order)


def _forgetful_visions():
    from mazesim.agents import Vision

    for known_map in (False, True):
        for k in (0, 1, 2):
            for occlusion in (False, True):
                yield Vision(k, occlusion=occlusion, memory=False, known_map=known_map)
        for radius in (1, 2):
            yield Vision(isovist=radius, memory=False, known_map=known_map)


def test_bfs_walks_are_those_of_a_search_at_every_step():
    """The shortcut of `bfs_target` (no search while it provably finds nothing) changes no walk:
    digests of 4 trials in each of 64 conditions (braided mazes, forgetful vision), taken with
    the search run at every step before the shortcut existed."""
    import hashlib

    from mazesim.generators import generate
    from mazesim.walks import simulate_many

    mazes = [generate("digging", 31, seed=2, braid=0.5),
             generate("wilson", (21, 31), seed=3, braid=0.2)]
    digest = hashlib.sha1()
    for maze in mazes:
        for goal_seeking in (True, False):
            for vision in _forgetful_visions():
                batch = simulate_many(maze, make_agent("bfs", goal_seeking=goal_seeking), vision,
                                      4, 7, keep_positions=True)
                walks = b"".join(np.ascontiguousarray(p).tobytes() for p in batch.positions)
                digest.update(hashlib.sha1(walks).hexdigest()[:10].encode())
    assert digest.hexdigest() == GOLDEN


GOLDEN = "e12e0d8f7e442f150957f3541620376219518082"
