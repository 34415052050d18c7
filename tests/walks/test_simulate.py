"""simulate / simulate_many: legal walks, reached and capped, choice records, seeds."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazesim.agents import AGENTS, TREE_WALKERS, Vision, make_agent
from mazesim.errors import AgentError
from mazesim.generators import generate
from mazesim.maze import Maze, format_maze, parse_maze, read_maze
from mazesim.records import CHOICE_DTYPE, Choice, Trajectory
from mazesim.walks.simulate import check_walk, choices_of, simulate, simulate_many, trial_seed

from fixture_paths import DATA
from limited import run_limited

TUTORIAL = read_maze(DATA / "tutorial_7x13.txt")
# four moves up to A, then up (a dead end) or right (to G): up with probability 5/6
T_MAZE = parse_maze("#####\n#.#G#\n#.#.#\n#A..#\n#.###\n#.###\n#.###\n#S###\n#####")
VISIONS = [Vision(), Vision(0), Vision(2), Vision(1, occlusion=True), Vision(2, memory=False)]
# every agent that walks under every vision (the tree walkers: tests/agents/test_tree_walkers.py;
# the planners in full view: tests/humans/test_vgc.py)
ANY_VISION = [name for name in AGENTS if name not in {c.name for c in TREE_WALKERS}
              and not getattr(AGENTS[name], "full_view_only", False)]


@st.composite
def mazes(draw):
    h, w = draw(st.integers(2, 7)) * 2 + 1, draw(st.integers(2, 7)) * 2 + 1
    return generate(draw(st.sampled_from(["digging", "prim", "wilson", "sidewinder"])), (h, w),
                    seed=draw(st.integers(0, 999)), braid=draw(st.sampled_from([0.0, 0.5])),
                    placement=draw(st.sampled_from(["corners", "random"])))


@settings(max_examples=80)
@given(maze=mazes(), name=st.sampled_from(ANY_VISION), vision=st.sampled_from(VISIONS),
       seed=st.integers(0, 2**32), goal_seeking=st.booleans(),
       cap=st.sampled_from([None, 0, 1, 17]))
def test_walks_are_legal_and_end_right(maze, name, vision, seed, goal_seeking, cap):
    agent = make_agent(name, goal_seeking=goal_seeking, max_steps=cap)
    walk = simulate(maze, agent, vision, seed)
    pos = walk.positions
    assert pos.shape == (walk.moves + 1, 2) and not pos.flags.writeable
    assert np.array_equal(check_walk(maze, pos), pos)      # from S, one step, passages only
    cap = agent.resolved_max_steps(maze)
    assert walk.moves <= cap
    assert walk.reached == (tuple(pos[-1]) == maze.goal)
    assert walk.capped == (not walk.reached)
    if walk.capped:
        assert walk.moves == cap
    goal_visits = [i for i, p in enumerate(pos.tolist()) if tuple(p) == maze.goal]
    assert goal_visits in ([], [walk.moves])               # the walk ends at its first G


def test_capped_at_max_steps_exactly():
    agent = make_agent("random-walk", goal_seeking=False, max_steps=25)
    big = generate("digging", 31, seed=1)
    walks = [simulate(big, agent, 0, seed) for seed in range(10)]
    assert all(w.capped and not w.reached and w.moves == 25 for w in walks)
    batch = simulate_many(big, agent, 0, 10, seed=0)
    assert batch.capped.all() and (batch.moves == 25).all() and not batch.reached.any()


def test_start_on_goal_is_reached_at_once():
    maze = Maze(TUTORIAL.grid, TUTORIAL.start, TUTORIAL.start)
    walk = simulate(maze, make_agent("dfs"), 0, 1)
    assert walk.moves == 0 and walk.reached and not walk.capped and walk.choices == ()


def test_choice_records_of_the_tutorial_dfs():
    agent = make_agent("dfs", order="down,right,up,left", goal_seeking=False)
    walk = simulate(TUTORIAL, agent, 0, seed=0)
    assert walk.choices == (
        Choice(6, (5, 3), None, 2, (0, 1, 3), (1, 3), 1, True),
        Choice(12, (5, 9), None, 1, (0, 1, 3), (0, 1), 1, True),
        Choice(16, (5, 9), None, 3, (0, 1, 3), (0,), 0, False),
    )
    assert walk.choices[2].direction == "up"
    assert choices_of(TUTORIAL, walk.positions) == walk.choices


def test_choice_mark_names():
    maze = parse_maze("#######\n#S.A..#\n###.#.#\n###.#G#\n#######")
    walk = simulate(maze, make_agent("dfs", order="down,right,up,left"), 0, 0)
    assert [(c.mark, c.first, c.direction) for c in walk.choices] == [
        ("A", True, "down"), ("A", False, "right")]


def test_same_seed_same_walk_and_seed_sequences():
    agent = make_agent("weighted-walker")
    maze = generate("stick-knocking", 21, seed=3)
    a, b = simulate(maze, agent, 2, 11), simulate(maze, agent, 2, 11)
    assert np.array_equal(a.positions, b.positions) and a.choices == b.choices
    c = simulate(maze, agent, 2, np.random.SeedSequence(11))
    assert np.array_equal(a.positions, c.positions)
    assert not np.array_equal(a.positions, simulate(maze, agent, 2, 12).positions)


@pytest.mark.parametrize("seed", [7, np.random.SeedSequence(5, spawn_key=(3, 1, 2))])
@pytest.mark.parametrize("name", ["weighted-walker", "dfs", "tremaux", "shortest", "bfs", "right-hand"])
def test_batch_trial_i_is_simulate_with_trial_seed(seed, name):
    """(bfs and right-hand draw nothing: their later trials copy the first.)"""
    maze = generate("wilson", 15, seed=2, braid=0.3)
    agent = make_agent(name)
    batch = simulate_many(maze, agent, 2, 6, seed, keep_positions=True)
    assert batch.choices.dtype == CHOICE_DTYPE
    for i in range(6):
        walk = simulate(maze, agent, 2, trial_seed(seed, i))
        assert np.array_equal(batch.positions[i], walk.positions)
        assert batch.moves[i] == walk.moves and batch.reached[i] == walk.reached
        again = batch.trajectory(i)
        assert again.choices == walk.choices and again.capped == walk.capped


@pytest.mark.parametrize("first, trials", [(0, 6), (4, 2), (7, 0), (11, 1)])
def test_a_batch_from_trial_first_is_that_part_of_the_whole(first, trials):
    maze = parse_maze("#######\n#S.A..#\n#.#.#.#\n#.....#\n###.#G#\n#######")
    agent = make_agent("random-walk")
    whole = simulate_many(maze, agent, 1, 12, 9, choices="marks")
    part = simulate_many(maze, agent, 1, trials, 9, choices="marks", first=first)
    assert np.array_equal(part.moves, whole.moves[first:first + trials])
    inside = (whole.choices["trial"] >= first) & (whole.choices["trial"] < first + trials)
    expected = whole.choices[inside].copy()
    expected["trial"] -= first                          # numbered within the part
    assert np.array_equal(part.choices, expected)


def test_trial_seed_spawn_key():
    parent = np.random.SeedSequence(99, spawn_key=(1, 2))
    child = trial_seed(parent, 5)
    assert child.entropy == 99 and child.spawn_key == (1, 2, 5)
    assert trial_seed(99, 5).spawn_key == (5,)
    assert np.array_equal(child.generate_state(4), parent.spawn(6)[5].generate_state(4))


def test_trials_are_independent():
    """First choices at a 5/6 junction: consecutive trials are uncorrelated."""
    batch = simulate_many(T_MAZE, make_agent("weighted-walker"), 0, 4000, seed=1)
    first = batch.choices[batch.choices["first"] & (batch.choices["mark"] == 0)]
    up = (first["chosen"] == 0).astype(float)
    r = np.corrcoef(up[:-1], up[1:])[0, 1]
    assert abs(r) < 4.5 / np.sqrt(len(up))
    assert abs(up.mean() - 5 / 6) < 4.5 * np.sqrt(5 / 36 / len(up))


def test_batch_without_positions_has_no_trajectories():
    batch = simulate_many(TUTORIAL, make_agent("random-walk"), 0, 3, seed=0)
    assert batch.trials == 3 and batch.positions == ()
    with pytest.raises(AgentError, match="keep_positions"):
        batch.trajectory(0)
    assert simulate_many(TUTORIAL, make_agent("random-walk"), 0, 0, seed=0).choices.size == 0


@pytest.mark.parametrize("name", ["random-walk", "weighted-walker", "shortest"])
def test_choices_at_marks_are_the_marked_rows_of_all_choices(name):
    maze = parse_maze("#######\n#S.A..#\n#.#.#.#\n#.....#\n###.#G#\n#######")
    agent = make_agent(name)
    every = simulate_many(maze, agent, 1, 50, 4, choices="all")
    marked = simulate_many(maze, agent, 1, 50, 4, choices="marks")
    assert np.array_equal(marked.moves, every.moves)
    assert np.array_equal(marked.choices, every.choices[every.choices["mark"] >= 0])
    assert len(every.choices) > len(marked.choices) > 0 or name == "shortest"
    unmarked = Maze(maze.grid, maze.start, maze.goal)
    assert len(simulate_many(unmarked, agent, 1, 50, 4, choices="marks").choices) == 0


@pytest.mark.parametrize("call, where", [
    (lambda: simulate(TUTORIAL, make_agent("dfs"), -1, 0), "vision: -1"),
    (lambda: simulate(TUTORIAL, make_agent("dfs"), 0, -3), "seed: -3"),
    (lambda: simulate(TUTORIAL, "dfs", 0, 0), "agent: 'dfs' is not an agent"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), 0, -1, 0), "trials: -1"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), 0, 2, 0, first=-1), "first: -1"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), 0, 2, 0, first=10**6),
     "first: 1000000 \\(allowed: an integer from 0 to 999,998: for 2 trials\\)"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), 0, 2, 0, first=True), "first: True"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), 0, 2, 0, choices="some"),
     "choices: 'some' \\(allowed: all, marks\\)"),
    (lambda: simulate(parse_maze("#####\n#S#G#\n#####"), make_agent("dfs"), 0, 0),
     "goal \\(1, 3\\) is unreachable"),
])
def test_bad_input(call, where):
    with pytest.raises(AgentError, match=where):
        call()


def test_check_walk_names_the_bad_step():
    with pytest.raises(AgentError,
                       match="positions\\[2\\]: \\(1, 4\\) is not next to \\(1, 2\\)"):
        check_walk(TUTORIAL, [(1, 1), (1, 2), (1, 4)])
    with pytest.raises(AgentError, match="positions\\[0\\]"):
        check_walk(TUTORIAL, [(1, 2), (1, 1)])
    with pytest.raises(AgentError, match="positions\\[1\\]: \\(0, 1\\) is a wall"):
        check_walk(TUTORIAL, [(1, 1), (0, 1)])


def test_trajectory_is_read_only():
    walk = Trajectory(np.array([[1, 1], [1, 2]]), False, False)
    assert walk.moves == 1
    with pytest.raises(ValueError):
        walk.positions[0, 0] = 5


def test_zero_trials_keep_nothing():
    batch = simulate_many(TUTORIAL, make_agent("dfs"), 0, 0, seed=0, keep_positions=True)
    assert batch.trials == 0 and batch.positions == () and batch.choices.size == 0


# --- ceilings: refused before any walking ---------------------------------------------------

# A left-hand walker without goal seeking circles the block around S for ever: every trial runs
# to max_steps (G below the loop is reachable, so the trial is not refused).
LOOP = parse_maze("#######\n#.....#\n#.#S#.#\n#.....#\n###G###")
_LOOP_WALK = f"""
import resource, sys
from mazesim.agents import Vision, make_agent
from mazesim.maze import parse_maze
from mazesim.walks import simulate_many
maze = parse_maze({format_maze(LOOP)!r})
def walk(max_steps):
    agent = make_agent("left-hand", goal_seeking=False, max_steps=max_steps)
    batch = simulate_many(maze, agent, Vision(0), 1, 0, choices="marks")
    return int(batch.moves[0]), bool(batch.capped[0])
walk(1000)                                       # compiled (or loaded) before measuring
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
moves, capped = walk(300_000_000)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(moves, capped, grown * 1024)
"""


@pytest.mark.slow
def test_memory_does_not_scale_with_an_unreached_limit(tmp_path):
    """A left-hand walker on a small loop with max_steps=300,000,000 took 4.7 GB: memory must
    follow what a walk keeps, not its limit (here nothing: no positions, no marks)."""
    done = run_limited(["-c", _LOOP_WALK], seconds=90)
    assert done.code == 0, done.stderr[-2000:]
    moves, capped, grown = done.stdout.split()
    assert (moves, capped) == ("300000000", "True")
    assert int(grown) < 20 << 20, grown             # 4.7 GB before (2.4 GB of int64 positions)
    (tmp_path / "loop.txt").write_text(format_maze(LOOP))        # and so does the CLI
    peaks = []
    for max_steps in (1000, 300_000_000):
        done = run_limited(["-m", "mazesim", "simulate", str(tmp_path / "loop.txt"), "--agent",
                            "left-hand", "--vision", "0", "-p", "goal_seeking=false", "-p",
                            f"max_steps={max_steps}"], seconds=90)
        assert done.code == 0 and "reached: 0.0% (1 capped)" in done.stdout, done.stderr
        peaks.append(done.peak_bytes)
    assert peaks[1] < peaks[0] + (20 << 20), peaks


@pytest.mark.parametrize("call, message", [
    (lambda: simulate_many(TUTORIAL, make_agent("dfs"), Vision(), 10**12, 0),
     r"trials: 1000000000000 \(allowed: an integer from 0 to 1,000,000\)"),
    (lambda: simulate_many(TUTORIAL, make_agent("dfs", max_steps=10**12), Vision(), 1, 0),
     r"dfs: max_steps: 1,000,000,000,000 \(allowed: at most 1,000,000,000\)"),
    (lambda: simulate(TUTORIAL, make_agent("dfs", max_steps=2**70), Vision(), 0),
     r"dfs: max_steps: 1,180,591,620,717,411,303,424 \(allowed: at most 1,000,000,000\)"),
    (lambda: simulate_many(TUTORIAL, make_agent("random-walk", max_steps=10**6), Vision(),
                           100, 0, keep_positions=True),
     r"random-walk: keeping the positions of 100 trial\(s\) of up to 1,000,000 moves may need "
     r"2.4 GB \(allowed: at most 25,000,000 moves in all; lower trials or max_steps\)"),
    (lambda: simulate(TUTORIAL, make_agent("random-walk", max_steps=10**8), Vision(), 0),
     r"keeping the positions of 1 trial\(s\) of up to 100,000,000 moves"),
], ids=["trials", "max_steps", "max_steps 2^70", "kept positions", "one kept trial"])
def test_ceilings_are_refused_before_walking(call, message, monkeypatch):
    from mazesim.agents.base import KernelAgent
    monkeypatch.setattr(KernelAgent, "run_trials", None)          # no walk may start
    with pytest.raises(AgentError, match=message):
        call()
