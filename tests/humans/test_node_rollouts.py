"""Cell-level agents on the node yardstick (`mazesim.humans.fitting.node_rollouts`) and the rollouts
of the walking loop they stand on (`KernelAgent.walk_on`): a gambler's ruin walked exactly, a
deterministic agent's rollout equal to its own walk, seeds, errors."""

import math

import numpy as np
import pytest

from mazesim.agents import make_agent
from mazesim.agents.base import trial_streams
from mazesim.agents.decision_nodes import decision_nodes
from mazesim.agents.trees import decision_tree
from mazesim.agents.vision import MST_VISION, Vision
from mazesim.errors import AgentError
from mazesim.humans.fitting.node_choices import NodeChoices
from mazesim.humans.fitting.node_rollouts import node_rollouts
from mazesim.maze import parse_maze
from mazesim.walks import simulate

# A corridor: from S up to (2, 3), its node; the children are (2, 1), two steps left (it sees the
# exit's nook), and (2, 8), five steps right. A random walk on the corridor (the step down to S
# and back changes nothing) reaches the left one first with probability 5 / 7.
CORRIDOR = parse_maze("##########\n#G######.#\n#........#\n###S######\n##########")
TREE = decision_tree(CORRIDOR)
LEFT, RIGHT = 0, 1


def _choices(chosen=(LEFT,), walks=None):
    """The decision at node 1 of the corridor, once per entry of `chosen` (the child taken)."""
    decisions = decision_nodes({"corridor": TREE})
    d = decisions.decision("corridor", "1")
    walks = walks or [np.array([(3, 3), (2, 3)])] * len(chosen)
    return NodeChoices(decisions, np.full(len(chosen), d), decisions.start[d] + np.array(chosen),
                       np.zeros(len(chosen), np.int64), ("p",), tuple(walks), "test")


def test_a_random_walk_reaches_the_nearer_child_as_the_gamblers_ruin_says():
    choices = _choices((LEFT, RIGHT))
    agent = make_agent("random-walk", goal_seeking=False)
    rolled = node_rollouts(agent, choices, vision=MST_VISION, rollouts=4000, seed=0)
    assert TREE.nodes[1].children == (2, 3) and rolled.unresolved.tolist() == [0, 0]
    p = rolled.probabilities()[:2]
    assert abs(p[0] - 5 / 7) < 4 * math.sqrt(5 / 7 * 2 / 7 / 4000) and p.sum() == pytest.approx(1)
    assert np.array_equal(rolled.chosen(), rolled.probabilities()[[0, 3]])
    q = rolled.probabilities()[2:]          # the second decision's own rollouts
    assert abs(q[0] - 5 / 7) < 4 * math.sqrt(5 / 7 * 2 / 7 / 4000)
    assert rolled.bits() == pytest.approx(-(np.log2(p[0]) + np.log2(q[1])) / 2)
    first, second = rolled.halves()
    assert abs(first - second) < 0.05 and abs((first + second) / 2 - rolled.bits()) < 0.02
    # the step to S and back is walked too: 2 x 5 expected moves, plus the excursions
    assert rolled.mean_steps > 10


def test_the_estimate_adds_half_a_count_to_every_child():
    """right-hand from (2, 3), come up from S: the wall on its right sends it right, always."""
    rolled = node_rollouts(make_agent("right-hand", goal_seeking=False), _choices(),
                           rollouts=10, seed=0)
    assert rolled.counts.tolist() == [0, 10]
    assert rolled.probabilities().tolist() == [0.5 / 11, 10.5 / 11]


def test_same_seed_same_counts_and_decisions_draw_their_own_streams():
    agent = make_agent("random-walk", goal_seeking=False, lapse=0.1)
    one = node_rollouts(agent, _choices((LEFT, LEFT)), rollouts=300, seed=3)
    two = node_rollouts(agent, _choices((LEFT, LEFT)), rollouts=300, seed=3)
    assert np.array_equal(one.counts, two.counts)
    assert not np.array_equal(one.counts[:2], one.counts[2:])   # decision i: spawn key (i,)


def test_a_deterministic_agent_rolled_on_from_its_own_walk_walks_it_again():
    agent = make_agent("dfs", order="down,right,up,left", goal_seeking=False)
    walk = simulate(CORRIDOR, agent, 0, 0).positions
    cells = [tuple(c) for c in walk.tolist()]
    k = 4
    j = next(t for t in range(k + 1, len(cells)) if cells[t] not in cells[:t])
    stop = np.zeros(CORRIDOR.shape, bool)
    stop[cells[j]] = True
    [(ends, moves)] = agent.walk_on(CORRIDOR, Vision(0), [(walk[:k + 1], stop,
                                                            trial_streams(np.random.SeedSequence(1),
                                                                          3))], 100)
    assert ends.tolist() == [list(cells[j])] * 3 and moves.tolist() == [j] * 3


def test_the_work_ceiling_is_checked_before_walking(monkeypatch):
    """The worst case: every rollout reads the history (2 cells) and walks its whole cap (50
    moves a floor cell: 550 here)."""
    import mazesim.humans.fitting.node_rollouts as rollouts

    monkeypatch.setattr(rollouts, "MAX_ROLLOUT_STEPS", 552 * 10 - 1)
    with pytest.raises(AgentError, match="random-walk: 1 decisions x 10 rollouts may walk 5,520 "
                                         "steps \\(allowed: at most 5,519; lower the rollouts\\)"):
        node_rollouts(make_agent("random-walk"), _choices(), rollouts=10)
    monkeypatch.setattr(rollouts, "MAX_ROLLOUT_STEPS", 552 * 10)
    assert node_rollouts(make_agent("random-walk"), _choices(), rollouts=10).rollouts == 10


def test_errors():
    with pytest.raises(AgentError, match="'du': gives no step probabilities"):
        node_rollouts(make_agent("du"), _choices())
    with pytest.raises(AgentError, match="rollouts: 1 \\(allowed: an integer from 2"):
        node_rollouts(make_agent("random-walk"), _choices(), rollouts=1)
    with pytest.raises(AgentError, match="seed: -1"):
        node_rollouts(make_agent("random-walk"), _choices(), seed=-1)

