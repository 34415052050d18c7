"""The agent protocol and what all agents share: common keys, validation, the compiled rules.

An agent is a frozen dataclass whose fields are its config keys. The protocol (`Agent`) is two
methods: `run_trials` walks a batch of trials, one per random stream, and returns `Walks`;
`step_probabilities` reads a recorded walk and returns the probability the agent gave each
direction before each move. `KernelAgent` implements both with the agent's compiled rule (one
module per rule: its parameter slots and its `Rule` of compiled hooks, bound to the walking loop
by `walk_kernel`; the hooks' protocol: `mazesim.agents.rules`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, NamedTuple, Protocol

import numpy as np

from mazesim._grid import pad
from mazesim.agents._streams import STATE_WORDS, seed_words, trial_states
from mazesim.agents._walk_loop import LoopResult, record_choices
from mazesim.agents.rules import walk_kernel
from mazesim.agents.vision import Vision, seen_at_start
from mazesim.errors import AgentError
from mazesim.maze import PASSAGE, Maze

__all__ = ["Agent", "AgentBase", "KernelAgent", "Walks", "Param", "MAX_STEPS_PER_PASSAGE",
           "STATE_WORDS", "LINEAR", "LOG", "INTEGER", "default_max_steps", "padded_maze",
           "flat_cells", "trial_streams", "choice_rows"]

MAX_STEPS_PER_PASSAGE = 50      # DESIGN section 6: max_steps defaults to 50 x passage cells
LINEAR, LOG, INTEGER = "linear", "log", "integer"


@dataclass(frozen=True)
class Param:
    """A parameter a fit may estimate: a config key of the agent, its bounds (natural scale)
    and how it is searched (`log`: on log10, `integer`: every integer in the bounds).
    Declared beside each rule (`KernelAgent.fitted`), so a renamed key cannot leave it behind
    (the registry checks every name against the agent's keys at import)."""

    name: str
    low: float
    high: float
    scale: str = LINEAR

    def bounds(self) -> tuple[float, float]:
        """The bounds on the search scale."""
        if self.scale == LOG:
            return math.log10(self.low), math.log10(self.high)
        return self.low, self.high

    def value(self, x: float) -> float | int:
        """The natural value of search coordinate x (an int for an integer parameter)."""
        x = float(x)
        return 10.0 ** x if self.scale == LOG else round(x) if self.scale == INTEGER else x


class Walks(NamedTuple):
    """A batch of walked trials: moves and reached per trial, junction-choice rows
    (m, `records.N_COLUMNS`) with the trial of each row, and every trial's positions stacked
    (sum of moves + 1, 2) when they were kept (else empty)."""

    moves: np.ndarray
    reached: np.ndarray
    rows: np.ndarray
    row_trials: np.ndarray
    positions: np.ndarray


class Agent(Protocol):
    """A walking agent: a frozen dataclass of its config keys with these methods."""

    name: ClassVar[str]
    goal_seeking: bool
    max_steps: int | None

    def run_trials(self, maze: Maze, vision: Vision, streams: np.ndarray, max_steps: int, *,
                   keep: bool, record: np.ndarray) -> Walks:
        """One trial per row of `streams` (uint64 words, `STATE_WORDS` each), each ending at the
        goal or after `max_steps` moves; choices recorded at the cells set in the bool grid
        `record`; positions kept when `keep`."""
        ...

    def step_probabilities(self, maze: Maze, vision: Vision, positions: np.ndarray
                           ) -> np.ndarray:
        """Float (T, 4): the probability of each direction before each move of a valid walk."""
        ...


def default_max_steps(maze: Maze) -> int:
    """DESIGN's cap: 50 moves per passage cell."""
    return MAX_STEPS_PER_PASSAGE * int(np.count_nonzero(maze.grid == PASSAGE))


def padded_maze(maze: Maze) -> tuple[np.ndarray, int, int, int]:
    """(cells, width, start, goal): the maze as the kernels take it (`mazesim._grid`)."""
    width = maze.shape[1] + 2
    return (pad(maze.grid).ravel(), width, flat_cells(maze.start, width),
            flat_cells(maze.goal, width))


def flat_cells(cells: Any, width: int) -> Any:
    """(row, col) cells (a pair or an (n, 2) array) as flat indices into the padded grid."""
    cells = np.asarray(cells, dtype=np.int64)
    flat = (cells[..., 0] + 1) * width + cells[..., 1] + 1
    return int(flat) if flat.ndim == 0 else flat


def trial_streams(parent: np.random.SeedSequence, trials: int, first: int = 0) -> np.ndarray:
    """Uint64 (trials, STATE_WORDS): row i is the random stream of trial first + i,
    `SeedSequence(parent.entropy, spawn_key=parent.spawn_key + (first + i,)).generate_state(
    STATE_WORDS, np.uint64)` (same pool size), derived in one compiled call: numpy's SeedSequence
    takes about 10 us a trial, more than a short walk."""
    return trial_states(seed_words(parent.entropy), seed_words(parent.spawn_key), first, trials,
                        parent.pool_size)


def choice_rows(maze: Maze, positions: Any, record: np.ndarray | None = None) -> np.ndarray:
    """Junction-choice rows (m, `records.N_COLUMNS`) of a valid walk ((row, col) positions):
    one per departure from a junction at a cell set in the bool grid `record` (None: every
    cell), exactly the rows the walking loop writes, for any walk (people's too)."""
    cells, width, _, _ = padded_maze(maze)
    flags = (np.ones(len(cells), np.uint8) if record is None
             else pad(np.asarray(record).astype(np.uint8)).ravel())
    walk = flat_cells(np.asarray(positions, np.int64).reshape(-1, 2), width)
    return record_choices(cells, width, walk, flags)


@dataclass(frozen=True, kw_only=True)
class AgentBase:
    """Common keys: `goal_seeking` (walk a known path to a known goal) and `max_steps` (None:
    50 x passage cells)."""

    name: ClassVar[str] = ""
    goal_seeking: bool = True
    max_steps: int | None = None

    def __post_init__(self) -> None:
        self._check_bool("goal_seeking")
        if self.max_steps is not None:
            self._check_int("max_steps", low=0)
        self._validate()

    def _validate(self) -> None:
        """Agent-specific checks and conversions (override)."""

    def params(self) -> dict[str, Any]:
        """The config keys and their values."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def check_vision(self, vision: Vision) -> Vision:
        """The vision if the agent can walk with it (every vision, unless it says otherwise);
        AgentError naming the agent."""
        return vision

    def resolved_max_steps(self, maze: Maze) -> int:
        return default_max_steps(maze) if self.max_steps is None else int(self.max_steps)

    def walk(self, maze: Maze, vision: Vision, rng: np.random.Generator,
             max_steps: int) -> np.ndarray:
        """Positions (T+1, 2) of one trial, its stream drawn from `rng`."""
        streams = rng.integers(0, np.iinfo(np.uint64).max, size=(1, STATE_WORDS),
                               dtype=np.uint64, endpoint=True)
        return self.run_trials(maze, vision, streams, max_steps, keep=True,
                               record=np.zeros(maze.shape, np.bool_)).positions

    # validation helpers: messages name the agent, the key and the allowed values
    def _fail(self, key: str, allowed: str) -> AgentError:
        return AgentError(f"{self.name}: {key}: {getattr(self, key)!r} (allowed: {allowed})")

    def _check_bool(self, key: str) -> None:
        value = getattr(self, key)
        if not isinstance(value, (bool, np.bool_)):
            raise self._fail(key, "true, false")
        object.__setattr__(self, key, bool(value))

    def _check_int(self, key: str, low: int, high: int | None = None) -> None:
        value = getattr(self, key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low \
                or (high is not None and value > high):
            raise self._fail(key, f"an integer >= {low}" if high is None
                             else f"an integer from {low} to {high:,}")
        object.__setattr__(self, key, int(value))

    def _check_number(self, key: str, low: float, high: float) -> None:
        value = getattr(self, key)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not (
            low <= float(value) <= high
        ):
            raise self._fail(key, f"a number in [{low:g}, {high:g}]")
        object.__setattr__(self, key, float(value))

    def _check_probability(self, key: str) -> None:
        self._check_number(key, 0.0, 1.0)


@dataclass(frozen=True, kw_only=True)
class KernelAgent(AgentBase):
    """An agent whose rule is compiled: `rule` is its `mazesim.agents.rules.Rule`, `slots` names
    the attributes packed, in order, into the rule's parameter array `p`, `fitted` the
    parameters a fit to people estimates.

    `lapse` mixes a uniform choice among the open directions into every step (0: none), so that
    a model fitted to people gives no observed step probability 0.
    """

    rule: ClassVar[Any] = None
    slots: ClassVar[tuple[str, ...]] = ()
    fitted: ClassVar[tuple[Param, ...]] = ()
    """The parameters a fit estimates (besides the lapse, always fitted); none: only the lapse."""
    lapse: float = 0.0

    def __post_init__(self) -> None:
        self._check_probability("lapse")
        super().__post_init__()

    def kernel_params(self) -> np.ndarray:
        """The array `p` the rule reads: its parameters in slot order."""
        return np.array([float(getattr(self, name)) for name in self.slots], np.float64)

    def kernel(self) -> Callable[..., Any]:
        """The compiled walking loop of the rule (`walk_kernel`); an agent that keeps no map
        (no goal seeking, a rule that needs none) has its own, without the map's work: it is
        blind to vision."""
        return walk_kernel(self.rule, self._blind())

    def _blind(self) -> bool:
        return not (self.goal_seeking or self.rule.mapped)

    def _view(self, vision: Vision, maze: Maze) -> tuple:
        """What the kernel is told of vision: `Vision.kernel_args()`, the flat mask of the
        cells the maze shows at the start (`vision.seen_at_start`; empty: none, or blind) and
        whether the goal shows only on arrival."""
        seen = None if self._blind() else seen_at_start(maze)
        mask = (pad(seen.astype(np.uint8)).ravel() if seen is not None and seen.any()
                else np.zeros(0, np.uint8))
        return vision.kernel_args() + (mask, vision.exit_on_arrival)

    def run_trials(self, maze: Maze, vision: Vision, streams: np.ndarray, max_steps: int, *,
                   keep: bool, record: np.ndarray) -> Walks:
        cells, width, start, goal = padded_maze(maze)
        flat_record = (pad(record.astype(np.uint8)).ravel() if record.any()
                       else np.zeros(0, np.uint8))
        walked = LoopResult._make(self.kernel()(
            self.kernel_params(), cells, width, start, goal, self._view(vision, maze),
            self.goal_seeking, self.lapse, np.ascontiguousarray(streams, dtype=np.uint64),
            max_steps, keep, flat_record, np.zeros(0, np.int64), np.zeros(0, np.uint8)))
        return Walks(walked.moves, walked.reached, walked.rows, walked.row_trials,
                     walked.positions)

    def step_probabilities(self, maze: Maze, vision: Vision, positions: np.ndarray
                           ) -> np.ndarray:
        return self.read_walks(maze, vision, [positions])[0][0]

    def rule_states(self, maze: Maze, vision: Vision, positions: np.ndarray) -> np.ndarray:
        """Float (T, RULE_STATE): an observer's state before each move of a valid walk (what
        its `observe` computed there, e.g. features); empty for other rules."""
        return self.read_walks(maze, vision, [positions])[0][1]

    def read_walks(self, maze: Maze, vision: Vision, walks: Iterable[np.ndarray]
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
        """(`step_probabilities`, `rule_states`) of each of several valid walks of one maze,
        one kernel call per walk, the maze and the parameters prepared once (for fitting)."""
        cells, width, start, goal = padded_maze(maze)
        params, view, kernel = self.kernel_params(), self._view(vision, maze), self.kernel()
        no_streams, no_record = np.zeros((1, STATE_WORDS), np.uint64), np.zeros(0, np.uint8)
        out = []
        for positions in walks:
            walk = flat_cells(np.asarray(positions, np.int64).reshape(-1, 2), width)
            read = LoopResult._make(kernel(params, cells, width, start, goal, view,
                                           self.goal_seeking, self.lapse, no_streams,
                                           len(walk) - 1, False, no_record, walk,
                                           np.zeros(0, np.uint8)))
            out.append((read.probabilities, read.rule_states))
        return out

    def walk_on(self, maze: Maze, vision: Vision,
                histories: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]],
                max_steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Rollouts from recorded histories: for each (positions, stop, streams), a valid walk,
        a bool grid and random streams (`trial_streams`), every trial (a row of `streams`)
        reads the walk, then walks on from its end until a move enters a cell set in `stop`,
        the goal, or `max_steps` moves in all. Per history: the cell (row, col) where each
        trial ended (trials, 2) and its moves in all, the maze and the parameters prepared
        once."""
        cells, width, start, goal = padded_maze(maze)
        params, view, kernel = self.kernel_params(), self._view(vision, maze), self.kernel()
        no_record = np.zeros(0, np.uint8)
        out = []
        for positions, stop, streams in histories:
            walk = flat_cells(np.asarray(positions, np.int64).reshape(-1, 2), width)
            walked = LoopResult._make(kernel(params, cells, width, start, goal, view,
                                             self.goal_seeking, self.lapse,
                                             np.ascontiguousarray(streams, dtype=np.uint64),
                                             max_steps, True, no_record, walk,
                                             pad(np.asarray(stop).astype(np.uint8)).ravel()))
            ends = np.cumsum(walked.moves + 1) - 1
            out.append((walked.positions[ends], walked.moves))
        return out
