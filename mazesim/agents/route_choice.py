"""Planning in full view: which way people walk to a goal they can see (Ho et al. 2022).

Two rules share one observer (`mazesim.agents.rules`). At the first step of a trial it computes,
over the whole maze, each cell's distance to the goal and, for each cell and heading, the fewest
turns of a shortest path from there (`_tables`); before each move it writes the features of the
four directions into the rule state:

- `shorter`: the move is on a shortest path to the goal (it brings the goal one step closer);
- `turns`: minus the turns of the fewest-turn route that starts with the move and then takes a
  shortest path (a turn now, if the move leaves the current heading, plus the fewest turns of a
  shortest path from the next cell entered that way);
- `straight`: the move keeps the heading of the last one;
- `reverse`: the move undoes the last one;
- `towards`: the cosine of the angle between the move and the straight line to the goal.

`shortest-moves` (the baseline) is uniform over the moves of `shorter`; `route-choice` is a
conditional logit over the features, P(d) proportional to exp(sum of weight x feature). With
`shorter` = 2 beta and `turns` = beta kappa it is a softmax, at inverse temperature beta, over
the costs (moves + kappa turns) of the routes each move begins. Both walk and score with the same
functions; the fit reads the features once (`route-choice` is a logit: `humans.fitting.models`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from mazesim._grid import bfs
from mazesim.agents.base import KernelAgent, Param
from mazesim.agents.rules import Rule, softmax_of_features, spread
from mazesim.agents.vision import FULL, Vision
from mazesim.errors import AgentError

__all__ = ["RouteChoice", "ShortestMoves", "ROUTE_FEATURES", "MAX_FIT_WEIGHT"]

ROUTE_FEATURES = ("shorter", "turns", "straight", "reverse", "towards")
"""The features of a direction in the order of their weights; feature f of direction d is
`rs[d * N_ROUTE + f]` of the rule state."""
N_ROUTE = len(ROUTE_FEATURES)
SHORTER, TURNS, STRAIGHT, REVERSE, TOWARDS = range(N_ROUTE)
_GEN = 4 * N_ROUTE          # rule-state slot: the BFS generation of this trial's distances
_FAR = 30000                # turns of a cell from which the goal cannot be reached (int16)
MAX_WEIGHT = 1e3
MAX_FIT_WEIGHT = 30.0


@njit(cache=True)
def _tables(ws, rs, marks):
    """Distances to the goal (`ws.dist` where `ws.stamp` is the generation kept in `rs`) and
    the fewest turns of a shortest path from each cell entered with each heading (`marks`)."""
    ws.gen[0] += 1
    gen = ws.gen[0]
    rs[_GEN] = gen
    reached, _ = bfs(ws.cells, ws.step, np.full(1, ws.goal, np.int64), ws.stamp, gen, ws.dist,
                     np.zeros(0, np.int8), ws.queue, np.zeros(0, np.uint8))
    for j in range(marks.shape[0]):
        for h in range(4):
            marks[j, h] = _FAR
    for h in range(4):
        marks[ws.goal, h] = 0
    for k in range(1, reached):                     # BFS order: nearer cells first
        q = ws.queue[k]
        for h in range(4):
            best = _FAR
            for e in range(4):
                u = q + ws.step[e]
                if ws.stamp[u] == gen and ws.dist[u] == ws.dist[q] - 1:
                    best = min(best, marks[u, e] + (1 if e != h else 0))
            marks[q, h] = best


@njit(cache=True)
def observe(p, rs, ws, i, arrival, t, om):
    """The features of the four directions at i into `rs` (0 for closed directions)."""
    if t == 0:
        _tables(ws, rs, ws.marks)
    gen = int(rs[_GEN])
    dr = ws.row[ws.goal] - ws.row[i]
    dc = ws.col[ws.goal] - ws.col[i]
    norm = math.sqrt(dr * dr + dc * dc)
    here = ws.dist[i] if ws.stamp[i] == gen else -1
    for d in range(4):
        base = d * N_ROUTE
        for f in range(N_ROUTE):
            rs[base + f] = 0.0
        j = i + ws.step[d]
        if om[d] == 0 or ws.stamp[j] != gen:
            continue
        rs[base + SHORTER] = 1.0 if ws.dist[j] == here - 1 else 0.0
        turn = 1 if arrival >= 0 and d != arrival else 0
        rs[base + TURNS] = -float(turn + ws.marks[j, d])
        rs[base + STRAIGHT] = 1.0 if d == arrival else 0.0
        rs[base + REVERSE] = 1.0 if arrival >= 0 and d == (arrival + 2) % 4 else 0.0
        if norm > 0.0:
            rs[base + TOWARDS] = (ws.row[j] - ws.row[i]) * dr / norm + \
                (ws.col[j] - ws.col[i]) * dc / norm


@njit(cache=True, inline="always")
def logit_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Softmax over the open directions of the weighted sums of their features."""
    softmax_of_features(p, rs, N_ROUTE, om, out)


@njit(cache=True, inline="always")
def shortest_probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out):
    """Uniform over the moves on a shortest path (over the open ones if there is none)."""
    n = 0.0
    for d in range(4):
        out[d] = rs[d * N_ROUTE + SHORTER] * om[d]
        n += out[d]
    if n == 0.0:
        for d in range(4):
            out[d] = om[d]
    spread(out)


LOGIT_RULE = Rule("route-choice", logit_probabilities, observe=observe)
SHORTEST_RULE = Rule("shortest-moves", shortest_probabilities, observe=observe)


class _FullView:
    """What both agents share: they plan over the whole maze, so they walk (and read walks)
    in full view only."""

    name: ClassVar[str]
    full_view_only: ClassVar[bool] = True

    def check_vision(self, vision: Vision) -> Vision:
        if str(vision) != FULL:
            raise AgentError(f"{self.name}: plans over the whole maze, so it walks in full "
                             f"view only (not {vision})")
        return vision

    def _view(self, vision: Vision, maze) -> tuple:
        return super()._view(self.check_vision(vision), maze)


@dataclass(frozen=True, kw_only=True)
class ShortestMoves(_FullView, KernelAgent):
    """The baseline of planning in full view: a move on a shortest path to the goal, uniform
    among the shortest moves (with the lapse: any open move). `goal_seeking` is false: the rule
    itself heads for the goal."""

    name = "shortest-moves"
    rule = SHORTEST_RULE
    goal_seeking: bool = False


@dataclass(frozen=True, kw_only=True)
class RouteChoice(_FullView, KernelAgent):
    """Route choice in full view: a conditional logit over the features of each move (see the
    module: `shorter`, `turns`, `straight`, `reverse`, `towards`; the weights are the config
    keys of the same names, 0 leaves a feature out). People keep to shortest paths, and among
    them take routes with few turns (Ho et al. 2022's grids; the straight-ahead bias of Dalton
    2003, Environment and Behavior 35(1):107-131). Defaults: fitted to experiment 1 of Ho et
    al. 2022 (experiments/value-guided-construal)."""

    name = "route-choice"
    rule = LOGIT_RULE
    slots = ROUTE_FEATURES
    logit: ClassVar[bool] = True
    fitted = tuple(Param(f, -MAX_FIT_WEIGHT, MAX_FIT_WEIGHT) for f in ROUTE_FEATURES)
    goal_seeking: bool = False
    shorter: float = 2.2707        # the defaults: fitted to the 44,023 steps of 161 people of
    turns: float = 0.7040          # experiment 1 of Ho et al. 2022 (lapse 0; 0.368 bits per
    straight: float = 1.2995       # step, cross-validated)
    reverse: float = -1.7384
    towards: float = 0.1253

    def _validate(self) -> None:
        for key in ROUTE_FEATURES:
            self._check_number(key, -MAX_WEIGHT, MAX_WEIGHT)
