"""What all agents share: the `Agent` protocol, common keys, validation, the kernel bridge."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from mazesim.agents import _kernels
from mazesim.agents.vision import Vision
from mazesim.errors import AgentError
from mazesim.maze import PASSAGE, Maze

__all__ = ["Agent", "AgentBase", "KernelAgent", "MAX_STEPS_PER_PASSAGE", "default_max_steps"]

MAX_STEPS_PER_PASSAGE = 50      # DESIGN section 6: max_steps defaults to 50 x passage cells
_NO_INTS = np.zeros(2, np.int64)
_NO_FLOATS = np.zeros(3, np.float64)
_NO_ORDER = np.full(4, _kernels.RANDOM_ORDER, np.int64)
_STATE_WORDS = 4                # xoshiro256** words per trial stream
_NO_WALK = np.zeros((0, 2), np.int64)   # `replay` argument when walking


class Agent(Protocol):
    """A walking agent: a frozen dataclass of its config keys with one `walk` method.

    Moves, `reached`/`capped` and choice records are derived in `mazesim.simulate`.
    """

    name: ClassVar[str]
    goal_seeking: bool
    max_steps: int | None

    def walk(self, maze: Maze, vision: Vision, rng: np.random.Generator,
             max_steps: int) -> np.ndarray:
        """Positions (T+1, 2) of one trial, ending at the goal or after `max_steps` moves."""
        ...


def default_max_steps(maze: Maze) -> int:
    """DESIGN's cap: 50 moves per passage cell."""
    return MAX_STEPS_PER_PASSAGE * int(np.count_nonzero(maze.grid == PASSAGE))


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

    def resolved_max_steps(self, maze: Maze) -> int:
        return default_max_steps(maze) if self.max_steps is None else int(self.max_steps)

    # validation helpers: messages name the agent, the key and the allowed values
    def _fail(self, key: str, allowed: str) -> AgentError:
        return AgentError(f"{self.name}: {key}: {getattr(self, key)!r} (allowed: {allowed})")

    def _check_bool(self, key: str) -> None:
        value = getattr(self, key)
        if not isinstance(value, (bool, np.bool_)):
            raise self._fail(key, "true, false")
        object.__setattr__(self, key, bool(value))

    def _check_int(self, key: str, low: int) -> None:
        value = getattr(self, key)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise self._fail(key, f"an integer >= {low}")
        object.__setattr__(self, key, int(value))

    def _check_probability(self, key: str) -> None:
        value = getattr(self, key)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not (
            0.0 <= float(value) <= 1.0
        ):
            raise self._fail(key, "a number in [0, 1]")
        object.__setattr__(self, key, float(value))


@dataclass(frozen=True, kw_only=True)
class KernelAgent(AgentBase):
    """An agent whose rule is one kind of `mazesim.agents._rule_kernels`."""

    kind: ClassVar[int] = -1

    def kernel_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Integer parameters, float parameters and neighbour order, as the kernel takes them."""
        return _NO_INTS, _NO_FLOATS, _NO_ORDER

    def walk(self, maze: Maze, vision: Vision, rng: np.random.Generator,
             max_steps: int) -> np.ndarray:
        """Positions (T+1, 2) of one trial, ending at the goal or after `max_steps` moves."""
        state = rng.integers(0, np.iinfo(np.uint64).max, size=(1, _STATE_WORDS),
                             dtype=np.uint64, endpoint=True)
        _, _, _, positions = self.run_trials(maze, vision, state, max_steps, keep=True,
                                             record=np.zeros(maze.shape, np.bool_))
        return positions

    def run_trials(self, maze: Maze, vision: Vision, states: np.ndarray, max_steps: int,
                   keep: bool, record: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            np.ndarray]:
        """One trial per row of `states` (uint64 stream words) in one compiled loop.

        Returns moves (trials,), reached (trials,), choice rows (trial + the columns of
        `_kernels.branch_choices`, at the cells set in the bool grid `record`) and, if `keep`,
        every trial's positions stacked.
        """
        moves, reached, rows, positions, _ = _kernels.run_trials(
            *self._kernel_args(maze, vision), states, max_steps, keep, record, _NO_WALK)
        return moves, reached, rows, positions

    def log_likelihood(self, maze: Maze, vision: Vision,
                       positions: np.ndarray) -> tuple[float, float]:
        """(every move, moves leaving branch points): log-probabilities of a walk's moves.

        `positions` must be a valid walk from the start (checked by the caller).
        """
        pos = np.array(positions, dtype=np.int64)        # writable: one compiled signature
        unused = np.ones((1, _STATE_WORDS), np.uint64)     # no random numbers in a replay
        *_, (ll_all, ll_branch) = _kernels.run_trials(*self._kernel_args(maze, vision), unused,
                                                      len(pos) - 1, False,
                                                      np.zeros(maze.shape, np.bool_), pos)
        return float(ll_all), float(ll_branch)

    def _kernel_args(self, maze: Maze, vision: Vision) -> tuple:
        ints, floats, order = self.kernel_params()
        (sr, sc), (gr, gc) = maze.start, maze.goal
        return (self.kind, maze.grid, sr, sc, gr, gc, ints, floats, order, vision.kernel_k,
                vision.occlusion, vision.memory, self.goal_seeking)
