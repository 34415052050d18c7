"""Walking rules: the hooks a rule gives the walking loop, and `walk_kernel`, which binds them.

A rule is a few small compiled functions (`@njit(cache=True)`, `inline="always"` for the hot
ones) in the rule's module, gathered in a `Rule` and bound to the loop of
`mazesim.agents._walk_loop` by `walk_kernel(rule, blind)`, so that each rule compiles only its
own loop. This is the one description of the hooks; agent modules link here.

Hook protocol
-------------
The loop calls each hook alike whether it walks or reads a recorded walk, in this order:

``reset(p, rs, marks)``
    Before each trial. Writes the rule's state: `rs` and `marks` live for a whole batch of
    trials (zero at its start), so whatever a rule keeps must be cleared here.
``target(p, ws, i) -> int``
    Planners only, at a step where no plan is being followed: the cell (flat) to walk to next,
    or -1 to let `probabilities` choose. The loop plans a shortest path over `ws.layout` to it
    (`plan_to`) and follows it, one move a step, without asking the rule, until it is done
    (a recorded walk that leaves the plan drops it).
    May read all of `ws` and use its BFS scratch (`stamp`, `dist`, `queue`, `stop`, `gen`) and
    `ws.rs`; writes nothing else.
``observe(p, rs, ws, i, arrival, t, om)``
    Observers only, at each step not on a plan, just before `probabilities`: reads `ws` (the
    trail, the known map, the sight `ws.kind`, `ws.radius`, `ws.occlusion`) into `rs` (e.g.
    features). Reading a walk returns `rs` before each move (`LoopResult.rule_states`).
``probabilities(p, rs, marks, i, came, arrival, t, om, nv, nlast, out)``
    At each step not on a plan (a goal plan or a planner's): writes into `out` the probability
    of each direction from cell i, 0 for closed ones, summing to 1 (the lapse is mixed in
    afterwards by the loop, `(1 - lapse) out + lapse om / degree`). Writes only `out` and
    draws no random number: the loop draws the move (and skips the draw when one direction has
    it all), so a rule walks and reads with the same function.
``update(p, rs, marks, i, j, d, arrival, om, new)``
    After every move is chosen (planned, drawn or read), before the move from i to j in
    direction d: updates `rs` and `marks` (e.g. counts, Tremaux's marks).

Arguments: `p` float64, the agent's parameters in the order of its `slots`
(`KernelAgent.kernel_params`); `rs` float64 (`RULE_STATE`,), the rule's own state; `marks` int16
(cells, 4), marks per cell and direction; `i`, `j` flat cells of the padded grid
(`mazesim._grid`); `came` the direction in which i was first entered (-1 at the start);
`arrival` the direction of the last move (-1 before the first); `t` moves so far; `om`, `nv`,
`nlast` int64 (4,): the four neighbours' open mask (1 passage, 0 wall), visit counts and last
visit times (-1: never; kept only for a rule with `reads_last`); `new` whether j has not been
visited yet; `ws` the `WalkState`. `no_reset`, `no_update`, `no_target`, `no_observe` stand in
for the hooks a rule does not need. `uniform` and `spread` are the helpers most
`probabilities` end with.
"""

import hashlib
import sys
from pathlib import Path
from types import FunctionType

import numpy as np
from numba import njit

from mazesim._grid import bfs
from mazesim.agents import _walk_loop
from mazesim.agents._streams import xoshiro_double
from mazesim.agents._vision_kernels import look

__all__ = ["Rule", "walk_kernel", "uniform", "spread", "softmax_of_features", "no_reset", "no_update", "no_target",
           "no_observe"]

_INVERSE = np.array([0.0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4])
"""1 / n for n candidates: a table, because a division in the step's chain of dependent
operations costs more than all the rest of a random walk's step."""


@njit(cache=True, inline="always")
def uniform(out, mask):
    """Equal probabilities over the directions set in `mask` (0/1 integers)."""
    inverse = _INVERSE[mask[0] + mask[1] + mask[2] + mask[3]]
    for d in range(4):
        out[d] = mask[d] * inverse


@njit(cache=True, inline="always")
def spread(out):
    """Equal probabilities over the directions where `out` holds 1.0 (a mask of candidates)."""
    inverse = _INVERSE[int(out[0] + out[1] + out[2] + out[3])]
    for d in range(4):
        out[d] *= inverse


@njit(cache=True, inline="always")
def softmax_of_features(p, rs, n, om, out):
    """A conditional logit's step probabilities: `out[d]` proportional to exp(sum of the
    weights `p[:n]` times direction d's `n` features `rs[d * n:(d + 1) * n]`) over the open
    directions `om`, 0 elsewhere."""
    best = -np.inf
    for d in range(4):
        u = 0.0
        for f in range(n):
            u += p[f] * rs[d * n + f]
        out[d] = u
        if om[d] != 0 and u > best:
            best = u
    total = 0.0
    for d in range(4):
        out[d] = np.exp(out[d] - best) if om[d] != 0 else 0.0
        total += out[d]
    for d in range(4):
        out[d] /= total


@njit(cache=True, inline="always")
def no_reset(p, rs, marks):
    """`reset` of a rule without state of its own."""


@njit(cache=True, inline="always")
def no_update(p, rs, marks, i, j, d, arrival, om, new):
    """`update` of a rule without state of its own."""


@njit(cache=True)
def no_target(p, ws, i):
    """`target` of a rule that is not a planner."""
    return -1


@njit(cache=True)
def no_observe(p, rs, ws, i, arrival, t, om):
    """`observe` of a rule that is not an observer."""


class Rule:
    """The compiled hooks of a walking rule (the protocol: this module's docstring), bound to
    the loop by `walk_kernel`. A rule with a `target` is a planner (it walks to targets), one
    with `observe` an observer; `reads_last`: it reads the neighbours' last visit times (kept
    only then: every store in the step counts). Planners and observers always keep a known
    map."""

    def __init__(self, name, probabilities, update=None, reset=None, target=None, observe=None,
                 reads_last=False):
        self.name = name
        self.probabilities = probabilities
        self.update = update if update is not None else no_update
        self.reset = reset if reset is not None else no_reset
        self.target = target if target is not None else no_target
        self.observe = observe if observe is not None else no_observe
        self.planner, self.observer = target is not None, observe is not None
        self.reads_last = reads_last

    @property
    def mapped(self) -> bool:
        """Whether the rule needs the known map whatever the agent's goal seeking."""
        return self.planner or self.observer


_KERNELS: dict = {}


def walk_kernel(rule: Rule, blind: bool):
    """The compiled walking loop of `rule`, without the map's work when `blind` (an agent that
    keeps no map): `_walk_loop.walk_loop` with the rule's hooks and flags as compile-time
    constants; `_walk_loop.LoopResult._make` names what it returns.

    Each (rule, blind) pair is its own function (the loop's code with the rule's globals),
    named after the rule, so numba caches it like any kernel; a closure over the rule, or a rule
    passed at run time, would be compiled again in every process. The name carries a digest of
    the sources the loop compiles in (`_sources_digest`): numba checks a cache against
    `_walk_loop.py` only, and an edited rule or helper must not load its old loop.
    """
    key = (rule.name, blind)
    if key not in _KERNELS:
        name = (f"walk_{rule.name.replace('-', '_')}_{'blind' if blind else 'mapped'}_"
                f"{_sources_digest(rule)}")
        loop = _walk_loop.walk_loop
        bound = {**vars(_walk_loop), "rule_probabilities": rule.probabilities,
                 "rule_update": rule.update, "rule_reset": rule.reset, "rule_target": rule.target,
                 "rule_observe": rule.observe, "PLANNER": rule.planner,
                 "OBSERVER": rule.observer, "READS_LAST": rule.reads_last, "MAPPED": not blind}
        function = FunctionType(loop.__code__, bound, name)
        function.__qualname__, function.__doc__ = name, loop.__doc__
        _KERNELS[key] = njit(cache=True)(function)
    return _KERNELS[key]


def _sources_digest(rule: Rule) -> str:
    """A digest of the source files the loop of `rule` compiles in (`_source_modules`)."""
    digest = hashlib.sha1()
    for name in sorted(_source_modules(rule)):
        digest.update(Path(sys.modules[name].__file__).read_bytes())
    return digest.hexdigest()[:12]


def _source_modules(rule: Rule) -> set[str]:
    """The modules whose code the loop of `rule` compiles in: the rule's hooks, this module
    (`uniform`, `spread`, the stand-in hooks), the loop's module and the modules of the kernels
    the loop calls."""
    hooks = (rule.probabilities, rule.update, rule.reset, rule.target, rule.observe)
    return {h.py_func.__module__ for h in hooks} | {
        __name__, _walk_loop.__name__, look.py_func.__module__,
        xoshiro_double.py_func.__module__, bfs.py_func.__module__}
