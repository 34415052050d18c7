"""The study's direction-weighted walker (appendix A) on hand-made junctions."""

import numpy as np
import pytest

from agent_mazes import T_JUNCTION
from mazesim.agents import make_agent
from mazesim.maze import DELTAS, parse_maze
from mazesim.walks import simulate, simulate_many
from mazesim.walks.metrics import choice_log_likelihood, first_choice_counts

TRIALS = 20_000
TOLERANCE_SD = 4.5


def _within(count, trials, p):
    sd = np.sqrt(trials * p * (1 - p))
    return abs(count - trials * p) <= TOLERANCE_SD * sd


def test_counts_up_5_right_1_choose_up_with_probability_5_6():
    batch = simulate_many(T_JUNCTION, make_agent("weighted-walker"), 2, TRIALS, seed=2017)
    counts = first_choice_counts(batch)["A"]
    assert counts["up"] + counts["right"] == TRIALS
    assert counts["down"] == counts["left"] == 0
    assert _within(counts["up"], TRIALS, 5 / 6)
    assert not _within(counts["up"], TRIALS, 4 / 5)   # the tolerance can tell 5/6 from 4/5


def test_likelihood_of_the_junction_choice():
    agent = make_agent("weighted-walker")
    walks = [simulate(T_JUNCTION, agent, 2, seed=seed) for seed in range(50)]
    right = next(w for w in walks if w.choices[0].direction == "right")
    assert right.moves == 8                                  # 4 up, 2 right, 2 up
    up = next(w for w in walks if w.choices[0].direction == "up")
    assert choice_log_likelihood(up, T_JUNCTION, agent, 2).junctions == pytest.approx(
        np.log(5 / 6))
    ll = choice_log_likelihood(right, T_JUNCTION, agent, 2)
    assert ll.n_junctions == 1
    assert ll.junctions == pytest.approx(np.log(1 / 6))
    assert ll.total == pytest.approx(np.log(1 / 6))          # every other move was certain


# From S the walker goes left into a two-cell dead end or right, then right to A, where up and
# right are unexplored. With `backtrack: marks`, back from the dead end at (3, 2), both (3, 1)
# and S are passed once: the count-weighted draw may re-enter the dead end once (left 3 : right 2
# with count_backtrack, 3 : 1 without). Counts at A (up is always 1): right first 3; left first
# 5 (1 + 2 back + 2 on) or 3 without count_backtrack; with the re-entry 7 or 3. With `retrace`
# (the default) it steps back to where it came from, S, and never re-enters the dead end.
BACKTRACK = parse_maze("""
########
#####G##
#####.##
#..S.A.#
########
""")


@pytest.mark.parametrize("count_backtrack, p_again, p_right", [
    (True, 3 / 5, {2: 3 / 4, 6: 5 / 6, 8: 6 / 7}),
    (False, 3 / 4, {2: 3 / 4, 6: 3 / 4, 8: 3 / 4}),
])
def test_count_backtrack_with_the_marks_rule(count_backtrack, p_again, p_right):
    agent = make_agent("weighted-walker", count_backtrack=count_backtrack, backtrack="marks")
    batch = simulate_many(BACKTRACK, agent, 2, 6000, seed=9)
    at_a = batch.choices[batch.choices["first"] & (batch.choices["mark"] == 0)]
    assert len(at_a) == 6000 and set(at_a["step"].tolist()) == {2, 6, 8}
    for step, p in p_right.items():
        rows = at_a[at_a["step"] == step]
        assert _within(int((rows["chosen"] == 1).sum()), len(rows), p)
    left_first = int((at_a["step"] > 2).sum())
    assert _within(left_first, 6000, 1 / 2)
    assert _within(int((at_a["step"] == 8).sum()), left_first, p_again)


def test_initial_count_flattens_the_weights():
    agent = make_agent("weighted-walker", initial_count=5)      # up 9, right 5 at A
    counts = first_choice_counts(simulate_many(T_JUNCTION, agent, 2, 4000, seed=1))["A"]
    assert _within(counts["up"], 4000, 9 / 14)


def test_retrace_steps_back_the_way_it_came():
    agent = make_agent("weighted-walker")
    batch = simulate_many(BACKTRACK, agent, 2, 6000, seed=9)
    at_a = batch.choices[batch.choices["first"] & (batch.choices["mark"] == 0)]
    assert set(at_a["step"].tolist()) == {2, 6}              # never back into the dead end
    left_first = at_a[at_a["step"] == 6]
    assert _within(len(left_first), 6000, 1 / 2)
    assert _within(int((left_first["chosen"] == 1).sum()), len(left_first), 5 / 6)
    walk = next(w for w in (simulate(BACKTRACK, agent, 2, seed=s) for s in range(40))
                if tuple(w.positions[1]) == (3, 2))
    cells = [tuple(c) for c in walk.positions.tolist()[:7]]
    assert cells == [(3, 3), (3, 2), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5)]


# A dead-end branch off a corridor, then a junction: retracing leaves the branch by the cell it
# was entered from, one step at a time, however the counts stand.
BRANCHES = parse_maze("""
#########
#.#.#.#G#
#.......#
#S###.###
#########
""")


def _uniforms(seed):
    """The doubles a trial draws: xoshiro256** from its seed words, in Python integers."""
    mask = (1 << 64) - 1
    rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & mask  # noqa: E731
    s = [int(w) for w in np.random.SeedSequence(seed).generate_state(4, np.uint64)]
    while True:
        result = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield (result >> 11) * 2.0 ** -53


def _reference_walk(maze, seed, retrace, initial_count=1.0, count_backtrack=True,
                    max_steps=400):
    """DESIGN section 6's walker read literally, in Python, drawing from the trial's stream as
    the kernel does (weights over the candidates, a draw only when there are several)."""
    uniforms = _uniforms(seed)
    counts = [float(initial_count)] * 4
    passed, came = {maze.start: 1}, {}
    cell, path = maze.start, [maze.start]
    while cell != maze.goal and len(path) <= max_steps:
        nxt = {d: (cell[0] + int(DELTAS[d, 0]), cell[1] + int(DELTAS[d, 1])) for d in range(4)}
        open_ = [d for d in range(4) if maze.is_passage(nxt[d])]
        candidates = [d for d in open_ if nxt[d] not in passed]          # unexplored
        if not candidates and retrace and cell in came:
            candidates = [(came[cell] + 2) % 4]                          # back the way it came
        if not candidates:
            candidates = [d for d in open_ if passed[nxt[d]] == 1]       # passed once
        if not candidates:
            low = min(passed[nxt[d]] for d in open_)
            candidates = [d for d in open_ if passed[nxt[d]] == low]    # least passed
        if len(candidates) == 1:
            d = candidates[0]
        else:
            weights = [counts[d] if d in candidates else 0.0 for d in range(4)]
            total = sum(weights)
            probs = [w / total for w in weights]
            x, acc = next(uniforms) * sum(probs), 0.0
            d = next(e for e in range(4) if probs[e] > 0 and x < (acc := acc + probs[e]))
        target = nxt[d]
        if count_backtrack or target not in passed:
            counts[d] += 1
        if target not in passed:
            came[target] = d
        passed[target] = passed.get(target, 0) + 1
        cell = target
        path.append(cell)
    return path


@pytest.mark.parametrize("retrace", [True, False], ids=["retrace", "marks"])
@pytest.mark.parametrize("maze", [BACKTRACK, BRANCHES, T_JUNCTION],
                         ids=["backtrack", "branches", "t-junction"])
def test_the_kernel_walks_like_a_literal_reference(maze, retrace):
    agent = make_agent("weighted-walker", backtrack="retrace" if retrace else "marks",
                       max_steps=400)
    for seed in range(300):
        walk = simulate(maze, agent, 2, seed=seed)
        assert [tuple(c) for c in walk.positions.tolist()] == _reference_walk(maze, seed,
                                                                              retrace), seed


def test_the_reference_agrees_on_generated_mazes():
    from mazesim.generators import generate
    for generator in ("digging", "stick-knocking", "wall-extending"):
        maze = generate(generator, 15, seed=3, braid=0.3)
        agent = make_agent("weighted-walker", max_steps=2000)
        for seed in range(40):
            walk = simulate(maze, agent, 2, seed=seed)
            assert [tuple(c) for c in walk.positions.tolist()] == _reference_walk(
                maze, seed, True, max_steps=2000), (generator, seed)
