"""Simulate one stored trial again from its run directory alone (maze text, config and seed).

The run is opened read-only (a finished run may be on read-only storage) and checked first
(`storage.RunStore`). The trial is walked again for at most its stored number of moves: that
is enough to tell identical from different, and bounds the time and the memory of its
positions by what the run really stored.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from mazesim.agents import make_agent, parse_vision
from mazesim.errors import ConfigError, RunError, check_integer
from mazesim.experiment.seeds import cell_seed
from mazesim.experiment.storage import HUMAN, HUMAN_PILOT, RunStore
from mazesim.maze import Maze, parse_maze
from mazesim.records import Trajectory
from mazesim.walks import simulate, trial_seed

__all__ = ["Rerun", "rerun_trial"]

_SPEC_KEYS = ("type", "label", "trials")


@dataclass(frozen=True, eq=False)
class Rerun:
    """A trial simulated again next to what the run stored for it."""

    trial_id: int
    maze_id: int
    agent: str
    vision: str
    trial: int
    maze: Maze
    trajectory: Trajectory
    stored_moves: int
    stored_reached: bool

    @property
    def matches(self) -> bool:
        return (self.trajectory.moves == self.stored_moves
                and bool(self.trajectory.reached) == self.stored_reached)


def rerun_trial(run_dir: str | Path, trial_id: int) -> Rerun:
    """Simulate trial `trial_id` of a simulated run again, exactly as the runner did."""
    check_integer(trial_id, "trial_id", error=ConfigError)
    with RunStore(run_dir) as store:
        config = store.meta("config")
        row = store.trials(trial_id=trial_id)
        if not row:
            last = store.last_trial_id()
            allowed = "no trials stored yet" if last is None else f"allowed: 0 to {last}"
            raise ConfigError(f"trial_id: {trial_id} is not a trial of {run_dir} ({allowed})")
        (stored,) = row
        maze_id, agent_label, vision_text = stored.maze_id, stored.agent, stored.vision
        trial, moves, reached = stored.trial, stored.moves, stored.reached
        if agent_label in (HUMAN, HUMAN_PILOT):
            raise ConfigError(f"trial: {trial_id} of {run_dir} is a person's walk (a run "
                              "of people): there is no agent to simulate again (`mazesim "
                              "report` shows it)")
        text = [m.text for m in store.mazes(maze_id)]
    labels = [a["label"] for a in config["agents"]]
    visions = [str(parse_vision(v)) for v in config["vision"]]
    if not text or agent_label not in labels or vision_text not in visions:
        raise RunError(f"{run_dir}: damaged: trial {trial_id} names maze {maze_id}, agent "
                       f"{agent_label!r} and vision {vision_text!r}, not all in the run")
    a, v = labels.index(agent_label), visions.index(vision_text)
    spec = config["agents"][a]
    agent = make_agent(spec["type"], **{k: x for k, x in spec.items() if k not in _SPEC_KEYS})
    maze = parse_maze(text[0], f"maze {maze_id}")
    if not isinstance(moves, int) or not 0 <= moves <= agent.resolved_max_steps(maze):
        raise RunError(f"{run_dir}: damaged: trial {trial_id} has {moves!r} moves")
    seed = trial_seed(cell_seed(config["seed"], maze_id, a, v), trial)
    trajectory = simulate(maze, dataclasses.replace(agent, max_steps=moves),
                          parse_vision(config["vision"][v]), seed)
    return Rerun(int(trial_id), maze_id, agent_label, vision_text, trial, maze, trajectory,
                 int(moves), bool(reached))
