"""The Maze Search Task planners as walking agents (`mazesim.agents.tree_walkers`): a hand-made
maze walked exactly, choice frequencies against the planners' probabilities, walks that cut on
the tree into the children drawn, the exit's cell used only once seen, errors, seeds."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mazesim import _grid
from mazesim.agents import AGENTS, TREE_WALKERS, make_agent, seen_cells
from mazesim.agents._streams import xoshiro_double
from mazesim.agents.node_models import node_model
from mazesim.agents.tree_walkers import tree_of
from mazesim.agents.trees import dark_floor, decision_tree
from mazesim.agents.vision import SWEEP_VISION, Vision, parse_vision
from mazesim.errors import AgentError, MazesimError
from mazesim.generators import generate
from mazesim.maze import Maze, parse_maze
from mazesim.walks import simulate, simulate_many
from mazesim.walks.nodes import NodeCutter
from mazesim.walks.simulate import trial_seed

NAMES = [cls.name for cls in TREE_WALKERS]
PLANNERS = NAMES[:-1]
TREE_VISIONS = [SWEEP_VISION, Vision(1, known_map=True), Vision(2, known_map=True),
                Vision(isovist=3, known_map=True)]

# S above a corridor: the fork at (3, 3) offers (3, 1) two steps left (it sees the exit below)
# and (3, 7) four steps right (a dead end, then back past the fork to (3, 1)); each reveals 2
FORK = parse_maze("#########\n###S#####\n###.#####\n#.......#\n#.#####.#\n#G#####.#\n"
                  "#########")
LEFT = [(1, 3), (2, 3), (3, 3), (3, 2), (3, 1), (4, 1), (5, 1)]
RIGHT = ([(1, 3), (2, 3), (3, 3), (3, 4), (3, 5), (3, 6), (3, 7), (3, 6), (3, 5), (3, 4),
          (3, 3), (3, 2), (3, 1), (4, 1), (5, 1)])
# prim 9x9, seed 19: the first decision (node 2) has three children
THREE_WAY = generate("prim", 9, seed=19)


def test_registered_with_their_node_models_parameters():
    assert NAMES == ["eu", "du", "pw", "pw-du", "steps", "cells", "steps-cells", "node-choice"]
    for name in PLANNERS:
        agent = make_agent(name)
        assert AGENTS[name] is type(agent)
        assert sorted(agent.values()) == sorted(p.name for p in node_model(name).params)
        assert agent.lapse == 0.0 and agent.goal_seeking
    assert make_agent("du").values() == {"tau": 1.74, "gamma": 0.76}   # the pooled fit
    assert make_agent("pw-du", tau=0.5, gamma=0.2, beta=1).values() == {
        "tau": 0.5, "gamma": 0.2, "beta": 1.0}


@pytest.mark.parametrize("tau", [0.5, 1.0, 3.0])
def test_the_hand_made_fork_is_walked_exactly(tau):
    """Steps: P(left) = 1 / (1 + exp(-(4 - 2) / tau)); trial i walks left exactly when the
    first double of its stream is below it."""
    p_left = 1.0 / (1.0 + math.exp(-2.0 / tau))
    agent = make_agent("steps", tau=tau)
    batch = simulate_many(FORK, agent, SWEEP_VISION, 200, seed=5, keep_positions=True)
    for i, walk in enumerate(batch.positions):
        words = trial_seed(5, i).generate_state(4, np.uint64)
        u = xoshiro_double(*words)[-1]
        assert [tuple(c) for c in walk.tolist()] == (LEFT if u < p_left else RIGHT)
    assert batch.reached.all() and set(batch.moves.tolist()) == {6, 14}


def test_full_vision_walks_a_shortest_path_and_cells_is_indifferent_here():
    for name in NAMES:
        assert simulate(FORK, make_agent(name), "full", 0).moves == 6
    # Cells: both children reveal 2 cells, an even draw
    shares = (simulate_many(FORK, make_agent("cells", tau=0.2), SWEEP_VISION, 2000, 1).moves
              == 6).mean()
    assert abs(shares - 0.5) < 4 * math.sqrt(0.25 / 2000)


@pytest.mark.parametrize("name", NAMES)
def test_choice_frequencies_match_the_planners_probabilities(name):
    """3,000 walks (node-choice: 1,000): the share of each child at the first decision within 4
    binomial standard errors of the node model's probability (fixed seed: the check is exact
    to repeat)."""
    agent = make_agent(name)
    tree, decisions = tree_of(THREE_WAY, SWEEP_VISION)
    first = 2
    assert tree.nodes[0].children == (1,) and tree.nodes[1].children == (first,)
    d = decisions.decision("tree", str(first))
    if name == "node-choice":           # its features read the walk so far
        walked = tree.nodes[1].path + tree.nodes[first].path[1:]
        p = node_model(name).probabilities(decisions, np.array([d]), [np.array(walked)],
                                           np.array(agent.weights))
        n = 1000
    else:
        p = node_model(name).probabilities(decisions, **agent.values())[
            decisions.start[d]:decisions.start[d + 1]]
        n = 3000
    batch = simulate_many(THREE_WAY, agent, SWEEP_VISION, n, seed=11, keep_positions=True)
    cutter = NodeCutter(tree)
    counts = dict.fromkeys(tree.nodes[first].children, 0)
    for walk in batch.positions:
        choice = cutter.cut(walk)[2]
        assert choice.node == first
        counts[choice.chosen] += 1
    shares = np.array(list(counts.values())) / n
    assert np.all(np.abs(shares - p) <= 4 * np.sqrt(p * (1 - p) / n)), (shares, p)


def test_the_lapse_mixes_in_a_uniform_choice_among_children():
    tree, decisions = tree_of(THREE_WAY, SWEEP_VISION)
    plain = make_agent("du").child_probabilities(tree, decisions)[2]
    mixed = make_agent("du", lapse=0.3).child_probabilities(tree, decisions)[2]
    assert np.allclose(mixed, 0.7 * plain + 0.1)
    assert np.allclose(make_agent("du", lapse=1).child_probabilities(tree, decisions)[2], 1 / 3)


@st.composite
def small_mazes(draw):
    size = draw(st.sampled_from([5, 7, 9]))
    return generate(draw(st.sampled_from(["digging", "prim", "wilson"])), size,
                    seed=draw(st.integers(0, 999)),
                    placement=draw(st.sampled_from(["corners", "random"])))


def _tree_or_skip(maze, vision):
    """The walker's tree; a tree of more than 2,000 nodes is skipped (kept fast)."""
    try:
        decision_tree(maze, vision, max_nodes=2000)
    except AgentError:
        assume(False)
    return tree_of(maze, vision)[0]


@settings(max_examples=40, deadline=None)
@given(maze=small_mazes(), name=st.sampled_from(NAMES), vision=st.sampled_from(TREE_VISIONS),
       seed=st.integers(0, 2**32))
def test_walks_cut_on_the_tree_into_the_children_drawn(maze, name, vision, seed):
    """Every node-to-node segment is the tree's path to a child of the node, and after the
    node that shows the exit the walk is a shortest path to it."""
    tree = _tree_or_skip(maze, vision)
    walk = simulate(maze, make_agent(name), vision, seed)
    assert walk.reached and not walk.capped
    cells = [tuple(c) for c in walk.positions.tolist()]
    choices = NodeCutter(tree).cut(walk.positions)
    node, at = 0, 0
    for choice in choices:
        assert choice.node == node and choice.arrived == at
        assert choice.chosen in tree.nodes[node].children
        assert tuple(cells[choice.arrived:choice.reached + 1]) == tree.nodes[choice.chosen].path
        node, at = choice.chosen, choice.reached
    assert maze.goal in tree.nodes[node].revealed or (node == 0 and not dark_floor(maze)[
        maze.goal])
    dist, _ = _grid.distances(maze.grid, *cells[at])
    assert len(cells) - 1 - at == dist[maze.goal]


@settings(max_examples=40, deadline=None)
@given(maze=small_mazes(), name=st.sampled_from(NAMES), vision=st.sampled_from(TREE_VISIONS),
       seed=st.integers(0, 2**32), pick=st.integers(0, 10**6))
def test_the_exit_is_used_only_once_seen(maze, name, vision, seed, pick):
    """The probe (the floor plan is known; the exit's cell is not): move the exit to a floor
    cell not seen before it was; the walk up to the sight of the exit is unchanged."""
    _tree_or_skip(maze, vision)
    agent = make_agent(name)
    walk = simulate(maze, agent, vision, seed).positions
    sighted = next(t for t in range(len(walk)) if seen_cells(maze, walk[:t + 1], vision)[
        maze.goal])
    seen = seen_cells(maze, walk[:sighted + 1], vision)
    hidden = np.argwhere((maze.grid == 0) & ~seen)
    assume(len(hidden) > 0)
    goal = tuple(int(v) for v in hidden[pick % len(hidden)])
    try:
        again = simulate(Maze(maze.grid, maze.start, goal), agent, vision, seed).positions
    except MazesimError:
        assume(False)
    assert np.array_equal(again[:sighted + 1], walk[:sighted + 1])


def test_same_seed_same_walks_and_trials_split_freely():
    agent = make_agent("pw-du")
    one = simulate_many(THREE_WAY, agent, SWEEP_VISION, 30, seed=4, keep_positions=True)
    two = simulate_many(THREE_WAY, agent, SWEEP_VISION, 30, seed=4, keep_positions=True)
    assert all(np.array_equal(a, b) for a, b in zip(one.positions, two.positions))
    assert np.array_equal(one.choices, two.choices)
    for i in (0, 7, 29):
        alone = simulate(THREE_WAY, agent, SWEEP_VISION, trial_seed(4, i))
        assert np.array_equal(alone.positions, one.positions[i])


def test_max_steps_caps_the_walk():
    walk = simulate(FORK, make_agent("steps", tau=8.0, max_steps=3), SWEEP_VISION, 0)
    assert walk.moves == 3 and walk.capped and not walk.reached


@pytest.mark.parametrize("params, vision, message", [
    ({}, 2, "du: vision: '2' leaves the map unknown"),
    ({}, Vision(2, memory=False, known_map=True), "du: vision: .* forgets what it saw"),
    ({"goal_seeking": False}, SWEEP_VISION, "du: goal_seeking: False \\(allowed: true"),
    ({"tau": 0.1}, SWEEP_VISION, "du: tau: 0.1 \\(allowed: a number in \\[0.2, 8\\]\\)"),
    ({"gamma": 1.5}, SWEEP_VISION, "du: gamma: 1.5"),
    ({"lapse": -0.1}, SWEEP_VISION, "du: lapse: -0.1"),
    ({"beta": 1.0}, SWEEP_VISION, "du: unknown parameter 'beta'"),
])
def test_errors_name_the_agent_and_the_key(params, vision, message):
    with pytest.raises(AgentError, match=message):
        simulate(FORK, make_agent("du", **params), parse_vision(vision), 0)


def test_node_choice_weights_by_name_or_in_order():
    from mazesim.agents.node_features import NODE_FEATURES

    assert make_agent("node-choice", weights={"revisit": -2}).values() == {
        f: (-2.0 if f == "revisit" else 0.0) for f in NODE_FEATURES}
    assert make_agent("node-choice", weights="1,2,3,4,5,6,7,8,9").weights == tuple(
        float(v) for v in range(1, 10))
    with pytest.raises(AgentError, match=r"node-choice: weights: \[1, 2\] \(allowed: 9 numbers "
                                         r"from -1000 to 1000"):
        make_agent("node-choice", weights=[1, 2])
    with pytest.raises(AgentError, match="'goal' is not one"):
        make_agent("node-choice", weights={"goal": 1})


@pytest.mark.parametrize("weights", ["1e308,0,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,0,-1001",
                                     "nan,0,0,0,0,0,0,0,0", {"revisit": 1e4}])
def test_node_choice_weights_are_bounded(weights):
    """Issue 33, point 4: a weight of 1e308 overflowed every walk at move 0 (with two raw
    RuntimeWarnings), which was reported as the model's prediction."""
    with pytest.raises(AgentError, match=r"node-choice: weights: .*\(allowed: 9 numbers from "
                                         r"-1000 to 1000"):
        make_agent("node-choice", weights=weights)
    assert make_agent("node-choice", weights={"revisit": -1000}).values()["revisit"] == -1000


def test_no_step_probabilities():
    with pytest.raises(AgentError, match="steps: gives no step probabilities .* --level node"):
        make_agent("steps").step_probabilities(FORK, SWEEP_VISION, np.array(LEFT))
