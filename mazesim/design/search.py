"""The search for the mazes that tell node models apart: candidates drawn from the search-task
generator (`mazesim.design.candidates`), kept within the constraints (a map, a decision tree of
at most `CANDIDATE_NODES` nodes with a decision, an expected walk of at most `max_steps` moves
for every model), then chosen one at a time, each the candidate that lowers the predicted error
of the mazes chosen so far the most (`information.Information.mean_error`: the divergences add
up per person, so a maze that separates the people the chosen ones already separate adds
little), each improved by local edits (`candidates.edit`) while the joint error falls. The
greedy choice of the first mazes knows nothing of the later ones, so then each chosen maze in
turn is judged again beside all the others (`passes` rounds): swapped for the best candidate
left if that is better, and edited again.

Candidate k is drawn from `SeedSequence(seed, spawn_key=(k,))`, the edits of the i-th chosen
maze from `SeedSequence(seed, spawn_key=(EDIT_STREAM, i))` (i counting on through the
rounds of revisits): the same seed gives the same design.
The first valid candidates, as drawn, are the design's baseline: random maps of the same
generator under the same constraints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from mazesim.design.candidates import Layout, MapSpec, build, edit, sample_layout
from mazesim.design.information import (MazeScore, MazeTable, Panel, joint_error, maze_table,
                                        score_maze)
from mazesim.errors import AgentError, DataError, check_integer
from mazesim.maze import Maze

__all__ = ["MST_MEDIAN_STEPS", "CANDIDATE_NODES", "MAX_CANDIDATES", "MAX_MAZES", "MAX_EDITS",
           "MAX_PASSES", "Candidate", "Design", "score_candidate", "score_mazes", "design",
           "check_design"]

MST_MEDIAN_STEPS = 12
"""The median moves of a walk of the Maze Search Task's experiment 1 (4,758 walks)."""
CANDIDATE_NODES = 5_000
"""Most nodes of a candidate's decision tree (scoring stays well under 0.1 s)."""
MAX_CANDIDATES = 100_000
MAX_MAZES = 200
MAX_EDITS = 1_000
MAX_PASSES = 10
EDIT_STREAM = 2**32 - 3


@dataclass(frozen=True, eq=False)
class Candidate:
    """A maze scored: its layout (None for a maze read from a file), table and score."""

    layout: Layout | None
    table: MazeTable
    score: MazeScore

    @property
    def maze(self) -> Maze:
        return self.table.maze

    @property
    def steps(self) -> float:
        """The longest of the models' mean expected walks (moves)."""
        return max(float(np.mean(v)) for v in self.score.steps.values())


@dataclass(frozen=True, eq=False)
class Design:
    """The chosen mazes (in the order chosen), the random baseline, how many candidates were
    drawn and kept, and how many edits were taken."""

    chosen: tuple[Candidate, ...]
    random: tuple[Candidate, ...]
    drawn: int
    kept: int
    edits: int


def score_candidate(panel: Panel, layout: Layout, name: str) -> Candidate | None:
    """The layout's map scored, or None when it is no map or its tree passes
    `CANDIDATE_NODES` nodes or has no decision."""
    maze = build(layout, name)
    if maze is None:
        return None
    try:
        table = maze_table(maze, panel.vision, max_nodes=CANDIDATE_NODES, name=name)
    except AgentError:
        return None
    if not table.decisions.size:
        return None
    return Candidate(layout, table, score_maze(panel, table))


def score_mazes(panel: Panel, mazes: Mapping[str, Maze]) -> list[Candidate]:
    """Mazes of a folder scored (a tree past its ceiling is an AgentError naming the maze)."""
    return [Candidate(None, t, score_maze(panel, t)) for t in
            (maze_table(maze, panel.vision, name=name) for name, maze in mazes.items())]


def design(panel: Panel, spec: MapSpec, mazes: int, candidates: int, seed: int, *,
           edits: int = 100, passes: int = 1, max_steps: float = 2 * MST_MEDIAN_STEPS
           ) -> Design:
    """Choose `mazes` mazes among `candidates` drawn from `spec` (module docstring), each
    improved by up to `edits` local edits, then `passes` times each judged again beside the
    others; DataError for a count past its ceiling or too few candidates within the
    constraints."""
    check_design(mazes, candidates, edits, max_steps, passes)
    pool = []
    for k in range(candidates):
        layout = sample_layout(spec, np.random.default_rng(np.random.SeedSequence(
            seed, spawn_key=(k,))))
        found = score_candidate(panel, layout, f"candidate-{k}")
        if found is not None and found.steps <= max_steps:
            pool.append(found)
    if len(pool) < mazes:
        raise DataError(f"{len(pool)} of {candidates:,} candidates within the constraints "
                        f"(needed: {mazes}, the mazes; draw more candidates or allow longer "
                        "walks)")
    random = tuple(pool[:mazes])
    chosen: list[Candidate] = []
    sums = {pair: 0.0 for pair in panel.pairs}
    taken = 0
    for i in range(mazes):
        best = int(np.argmin([_error(sums, c.score) for c in pool]))
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(EDIT_STREAM, i)))
        pick, took = _improve(panel, pool.pop(best), sums, rng, edits, max_steps)
        taken += took
        chosen.append(pick)
        sums = {pair: sums[pair] + pick.score.kl[pair] for pair in sums}
    for i in range(mazes * passes):
        taken += _revisit(panel, chosen, pool, i, seed, edits, max_steps)
    return Design(tuple(chosen), random, candidates, len(pool) + mazes, taken)


def _revisit(panel: Panel, chosen: list[Candidate], pool: list[Candidate], i: int, seed: int,
             edits: int, max_steps: float) -> int:
    """Chosen maze i % len(chosen) judged again beside all the others: swapped with the pool's
    best if that is better, then edited (stream `(EDIT_STREAM, len(chosen) + i)`); the edits
    kept. The joint error never rises."""
    j = i % len(chosen)
    pairs = chosen[j].score.kl
    others = {p: sum(c.score.kl[p] for k, c in enumerate(chosen) if k != j) for p in pairs}
    best = int(np.argmin([_error(others, c.score) for c in pool]))
    if _error(others, pool[best].score) < _error(others, chosen[j].score):
        chosen[j], pool[best] = pool[best], chosen[j]
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(EDIT_STREAM,
                                                                         len(chosen) + i)))
    chosen[j], took = _improve(panel, chosen[j], others, rng, edits, max_steps)
    return took


def _error(sums: Mapping, score: MazeScore) -> float:
    """The predicted error (`Information.mean_error`) of the mazes whose summed divergences
    are `sums`, with `score`'s maze added."""
    return joint_error({p: (sums[p] + score.kl[p]).min(axis=1) for p in sums}, score.extra)


def _improve(panel: Panel, pick: Candidate, sums: Mapping, rng: np.random.Generator,
             edits: int, max_steps: float) -> tuple[Candidate, int]:
    """Local edits of `pick`, each kept when the joint error falls (and the edited map is a
    candidate within the constraints); the result and the edits kept."""
    error, taken = _error(sums, pick.score), 0
    for _ in range(edits):
        found = score_candidate(panel, edit(pick.layout, rng), pick.table.name)
        if found is None or found.steps > max_steps:
            continue
        new = _error(sums, found.score)
        if new < error:
            pick, error, taken = found, new, taken + 1
    return pick, taken


def check_design(mazes: int, candidates: int, edits: int,
                 max_steps: float = 2 * MST_MEDIAN_STEPS, passes: int = 1) -> None:
    """The counts of a design within their ceilings; DataError naming the first that is not."""
    for name, value, low, high in (("mazes", mazes, 1, MAX_MAZES),
                                   ("candidates", candidates, 1, MAX_CANDIDATES),
                                   ("edits", edits, 0, MAX_EDITS),
                                   ("passes", passes, 0, MAX_PASSES)):
        check_integer(value, name, low, high, DataError)
    if not max_steps > 0:
        raise DataError(f"max_steps: {max_steps!r} (allowed: a positive number)")

