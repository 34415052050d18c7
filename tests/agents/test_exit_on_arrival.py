"""A vision whose goal shows only on arrival (`exit on arrival`, the Maze Search Task
replication's page): read and written in every form, compiled agents that pass beside the goal
without turning to it, trees and tree walkers that search on past the node that sweeps the exit
and end on its cell, people's walks cut on such trees; the default unchanged."""

import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.agents.trees import decision_tree, people_tree_vision
from mazesim.agents.vision import SWEEP_VISION, Vision, parse_vision
from mazesim.errors import AgentError
from mazesim.maze import parse_maze
from mazesim.walks import simulate_many
from mazesim.walks.nodes import node_choices

ARRIVAL = Vision(sweep=True, known_map=True, exit_on_arrival=True)
FORK = parse_maze("#######\n###S###\n###.###\n#.....#\n#.###.#\n#G###.#\n#######")
"""S above a corridor that forks into two dead ends; G at the end of the left one."""
BESIDE = parse_maze("#####\n#S..#\n##G##\n#####")
"""S in a corridor whose second cell has G below it and a dead end beyond."""


@pytest.mark.parametrize("form", [
    "sweep, map known, exit on arrival", "Sweep, Map Known, Exit On Arrival",
    {"sweep": True, "map": "known", "exit": "arrival"}, "sweep=true,map=known,exit=arrival",
    "{sweep: true, map: known, exit: arrival}", ARRIVAL])
def test_every_form_reads_the_same_vision_and_writes_back(form):
    vision = parse_vision(form)
    assert vision == ARRIVAL
    assert str(vision) == "sweep, map known, exit on arrival"
    assert vision.to_config() == {"sweep": True, "map": "known", "exit": "arrival"}
    assert parse_vision(str(vision)) == parse_vision(vision.to_config()) == vision


def test_a_window_or_an_isovist_takes_it_and_the_default_is_unchanged():
    assert parse_vision("2, exit on arrival").to_config() == {"window": 2, "exit": "arrival"}
    assert str(parse_vision("isovist=10,map=known,exit=arrival")) == (
        "isovist 10, map known, exit on arrival")
    assert parse_vision({"window": 2, "exit": "seen"}) == Vision(2)
    assert parse_vision("sweep, map known") == SWEEP_VISION
    assert not SWEEP_VISION.exit_on_arrival and SWEEP_VISION.to_config() == {
        "sweep": True, "map": "known"}


@pytest.mark.parametrize("form, message", [
    ("full, exit on arrival", "vision: 'full, exit on arrival'"),
    ({"window": 2, "exit": "soon"}, "vision.exit: 'soon' (allowed: seen, arrival)"),
    ("2, exit at once", "unknown setting 'exit at once' (allowed: occlusion, no memory, map "
                        "known, exit on arrival)"),
    (Vision, "full vision takes no occlusion, memory, map or exit setting")])
def test_bad_forms_are_refused(form, message):
    with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        form(exit_on_arrival=True) if form is Vision else parse_vision(form)


def test_an_agent_beside_the_goal_does_not_turn_to_it():
    walk = np.array([(1, 1), (1, 2), (2, 2)])
    agent, model = make_agent("random-walk"), make_agent("choice-model")
    seen, hidden = parse_vision("1"), parse_vision("1, exit on arrival")
    assert agent.step_probabilities(BESIDE, seen, walk)[1].tolist() == [0, 0, 1, 0]  # a plan
    assert agent.step_probabilities(BESIDE, hidden, walk)[1] == pytest.approx([0] + [1 / 3] * 3)
    assert model.step_probabilities(BESIDE, seen, walk)[1, 2] > 0.9999      # its goal feature
    assert model.step_probabilities(BESIDE, hidden, walk)[1, 2] < 0.35      # none: on right
    walks = simulate_many(BESIDE, make_agent("random-walk"), "1, exit on arrival", 200, 0)
    assert walks.reached.all() and (walks.moves > 2).any()
    assert (simulate_many(BESIDE, make_agent("random-walk"), "1", 200, 0).moves == 2).all()


def test_the_tree_searches_on_past_the_sweep_of_the_exit_and_ends_on_its_cell():
    seen, hidden = decision_tree(FORK), decision_tree(FORK, ARRIVAL)
    assert [(n.cell, n.parent, n.cells, n.remaining) for n in hidden.nodes] == [
        ((1, 3), -1, 2, 8), ((3, 3), 0, 4, 4), ((3, 5), 1, 2, 2), ((3, 1), 1, 1, 3),
        ((3, 1), 2, 1, 1), ((5, 1), 3, 1, 2), ((3, 5), 3, 2, 1), ((5, 1), 4, 1, 0),
        ((3, 5), 5, 2, 0), ((5, 1), 6, 1, 0)]
    assert seen.shows_exit() == [False, False, False, True, True, False]
    assert [k for k, s in enumerate(hidden.shows_exit()) if s] == [5, 7, 9]  # on G only
    assert all(hidden.nodes[k].cell == FORK.goal for k in (5, 7, 9))
    walk = [(1, 3), (2, 3), (3, 3), (3, 2), (3, 1), (4, 1), (5, 1)]
    assert [(c.node, c.chosen) for c in node_choices(seen, walk)] == [(0, 1), (1, 3)]
    assert [(c.node, c.children, c.chosen) for c in node_choices(hidden, walk)] == [
        (0, (1,), 1), (1, (2, 3), 3), (3, (5, 6), 5)]
    merged = decision_tree(FORK, ARRIVAL, merged=True)
    assert [n.cell for n in merged.nodes] == [n.cell for n in hidden.nodes]


def test_a_tree_walker_may_pass_the_swept_exit_and_ends_on_it():
    def after_left(vision):
        walks = simulate_many(FORK, make_agent("eu", lapse=1.0), vision, 100, 0,
                              keep_positions=True)
        assert walks.reached.all()
        tails = [[tuple(c) for c in p[p.tolist().index([3, 1]):]] for p in walks.positions
                 if [3, 1] in p.tolist()]
        return sum((3, 5) in tail for tail in tails), len(tails)

    assert after_left("sweep, map known")[0] == 0          # sees G at (3, 1): walks to it
    went_on, left = after_left(ARRIVAL)
    assert 0 < went_on < left                              # a choice there now


def test_people_are_cut_on_the_sweep_with_their_exit_rule():
    mst = parse_vision("isovist 10, map known")
    assert people_tree_vision([mst, mst]) == SWEEP_VISION
    assert people_tree_vision([ARRIVAL, parse_vision("2, exit on arrival")]) == ARRIVAL
    with pytest.raises(AgentError, match="some walks show the exit on arrival"):
        people_tree_vision([mst, ARRIVAL])


def test_the_environment_refuses_it():
    from mazesim.envs.pool import MazePool
    from mazesim.errors import ConfigError

    with pytest.raises(ConfigError, match="exit on arrival is for agents and trees"):
        MazePool.build([BESIDE], "sweep, map known, exit on arrival")
