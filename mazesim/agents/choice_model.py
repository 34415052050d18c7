"""`choice-model`: a conditional logit over named features of each open direction.

The rule is an observer (`mazesim.agents.rules`): before each move its `observe` computes the
features of the four directions from what the agent knows (its trail and known map) into the rule
state, and `probabilities` turns them into a softmax over the open directions. Reading a recorded
walk returns those features before every move (`KernelAgent.rule_states`), so that fitting the
weights (`mazesim.humans`) is a vectorised likelihood over features computed once, in this code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from mazesim._grid import bfs
from mazesim.agents._vision_kernels import UNKNOWN, unseen_in_isovist, unseen_in_view
from mazesim.agents.base import KernelAgent, Param
from mazesim.agents.rules import Rule, softmax_of_features
from mazesim.maze import PASSAGE, WALL

__all__ = ["ChoiceModel", "FEATURES", "N_FEATURES", "CLOSED_DISTANCE", "MAX_WEIGHT",
           "MAX_FIT_WEIGHT"]

FEATURES = ("reverse", "visited", "straight", "view", "frontier", "closed", "goal", "region")
"""The features of a direction, in the order of its weights (see `ChoiceModel`); feature f of
direction d is `rs[d * N_FEATURES + f]` of the rule state (4 x 8 = all of it)."""
N_FEATURES = len(FEATURES)
(REVERSE, VISITED, STRAIGHT, VIEW, FRONTIER, CLOSED, GOAL, REGION) = range(N_FEATURES)
CLOSED_DISTANCE = 100.0
"""The frontier distance of a direction behind which nothing is unseen: the value with which the
five-feature model of the data README's reference computation is reproduced (`closed` frees it)."""
MAX_WEIGHT = 1e3
"""Largest absolute weight (exp of weights times features stays finite)."""
MAX_FIT_WEIGHT = 30.0
"""Bound of a fitted weight: exp(30) is certainty for any practical purpose."""


@njit(cache=True)
def _through(ws, i, j, d):
    """(Distance in moves from the neighbour j to the nearest unseen cell, not back through i,
    or -1 if none; how many unseen cells lie that way). BFS over `ws.layout` from j; with the
    layout unknown, the unseen cells are the unknown cells next to the known passages reached."""
    ws.gen[0] += 1
    gen = ws.gen[0]
    ws.stamp[i] = gen                                   # never back through i
    reached, _ = bfs(ws.layout, ws.step, np.full(1, j, np.int64), ws.stamp, gen, ws.dist,
                     np.zeros(0, np.int8), ws.queue, np.zeros(0, np.uint8))
    nearest, region = -1, 0
    for k in range(reached):
        q = ws.queue[k]
        if ws.known[q] == UNKNOWN:                      # an unseen passage of a known layout
            region += 1
            if nearest < 0:                             # (BFS order: the first is nearest)
                nearest = ws.dist[q]
        for e in range(4):
            u = q + ws.step[e]
            if ws.known[u] == UNKNOWN and ws.layout[u] != PASSAGE and ws.layout[u] != WALL \
                    and ws.stamp[u] != gen:             # an unknown cell beside known passages
                ws.stamp[u] = gen
                region += 1
                if nearest < 0:
                    nearest = ws.dist[q] + 1
    return nearest, region


@njit(cache=True)
def _goal_distances(ws, i):
    """Mark the cells one step closer to the known goal than i (`ws.stamp == gen` and
    `ws.dist`); returns (gen, distance of i), distance -1 when the goal is not known or not
    reachable over the layout."""
    ws.gen[0] += 1
    gen = ws.gen[0]
    if ws.exit_hidden or ws.known[ws.goal] != PASSAGE:
        return gen, -1
    ws.stop[i] = 1
    bfs(ws.layout, ws.step, np.full(1, ws.goal, np.int64), ws.stamp, gen, ws.dist,
        np.zeros(0, np.int8), ws.queue, ws.stop)
    ws.stop[i] = 0
    return gen, ws.dist[i] if ws.stamp[i] == gen else -1


@njit(cache=True)
def observe(p, rs, ws, i, arrival, t, om):
    """The features of the four directions at i into `rs` (0 for closed directions)."""
    kind, radius, occlusion = ws.kind, ws.radius, ws.occlusion
    gen, to_goal = _goal_distances(ws, i)
    closer = np.zeros(4, np.bool_)
    for d in range(4):
        j = i + ws.step[d]
        closer[d] = to_goal > 0 and ws.stamp[j] == gen and ws.dist[j] == to_goal - 1
    for d in range(4):
        base = d * N_FEATURES
        for f in range(N_FEATURES):
            rs[base + f] = 0.0
        if om[d] == 0:
            continue
        j = i + ws.step[d]
        nearest, region = _through(ws, i, j, d)
        rs[base + REVERSE] = 1.0 if arrival >= 0 and d == (arrival + 2) % 4 else 0.0
        rs[base + VISITED] = 1.0 if ws.visits[j] > 0 else 0.0
        rs[base + STRAIGHT] = 1.0 if d == arrival else 0.0
        unseen = (unseen_in_isovist(ws.layout, ws.known, ws.width, j, radius, ws.iso_len,
                                    ws.iso) if ws.iso.shape[0] > 0 else
                  unseen_in_view(ws.layout, ws.known, ws.width, j, kind, radius, occlusion))
        rs[base + VIEW] = np.log1p(unseen)
        rs[base + FRONTIER] = -np.log1p(nearest if nearest >= 0 else CLOSED_DISTANCE)
        rs[base + CLOSED] = 1.0 if nearest < 0 else 0.0
        rs[base + GOAL] = 1.0 if closer[d] else 0.0
        rs[base + REGION] = np.log1p(region)


@njit(cache=True, inline="always")
def probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Softmax over the open directions of the weighted sums of their features."""
    softmax_of_features(p, rs, N_FEATURES, om, out)


RULE = Rule("choice-model", probabilities, observe=observe)


@dataclass(frozen=True, kw_only=True)
class ChoiceModel(KernelAgent):
    """A conditional logit over features of each open direction, computed from what it knows.

    P(d) is proportional to exp(sum of weight x feature) over the open directions d. Features
    (the weights are the config keys of the same names; 0 leaves a feature out):

    - `reverse`: the step reverses the last one; `visited`: it leads to a cell already visited
      (turning back and revisiting, avoided by people and animals alike: inhibition of return,
      Rosenberg et al. 2021, eLife 10:e66175);
    - `straight`: it keeps the direction of the last step (the straight-ahead bias of human
      route choice: Dalton 2003, Environment and Behavior 35(1):107-131, "the secret is to
      follow your nose");
    - `view`: log(1 + unseen cells the step brings into view), by the agent's own sight on what
      it knows of the layout (information gain: isovists, Benedikt 1979, Environment and
      Planning B 6:47-65; the cells revealed of Kryven et al. 2024, PLOS Comp. Biol.
      20(11):e1012582);
    - `frontier`: -log(1 + distance in moves over known passages to the nearest unseen cell
      that way, not back through the current cell; `CLOSED_DISTANCE` when there is none) and
      `closed`: 1 when there is none (frontier-based exploration: Yamauchi 1997, CIRA; the steps
      to the next observation of Kryven et al. 2024);
    - `goal`: the step is on a shortest known path to the goal, once the goal has been seen
      (never under a vision with `exit on arrival`);
    - `region`: log(1 + unseen cells reachable that way) (with a known layout; else the unknown
      cells bordering what is reachable): where the exit, hidden in any unseen cell alike, is
      most likely (the expected utility of Kryven et al. 2024).

    The agent walks (draws) and scores (reads) with the same function. `goal_seeking` defaults
    to false: the `goal` feature expresses the pull of a seen goal, softly. Defaults: the
    weights fitted to experiment 1 of the Maze Search Task (experiments/maze-search-task).
    """

    name = "choice-model"
    rule = RULE
    slots = FEATURES
    logit: ClassVar[bool] = True
    fitted = tuple(Param(f, -MAX_FIT_WEIGHT, MAX_FIT_WEIGHT) for f in FEATURES)
    goal_seeking: bool = False
    reverse: float = 0.11          # the defaults: fitted to experiment 1 of the Maze Search
    visited: float = -1.12         # Task (9,927 decisions of 119 people; lapse 0.0024)
    straight: float = 0.71
    view: float = -0.68
    frontier: float = 3.02
    closed: float = 4.91
    goal: float = 10.47
    region: float = 1.91

    def _validate(self) -> None:
        for key in FEATURES:
            self._check_number(key, -MAX_WEIGHT, MAX_WEIGHT)
