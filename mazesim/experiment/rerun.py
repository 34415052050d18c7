"""Simulate one stored trial again from its run directory alone (maze text, config and seed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mazesim.agents import make_agent, parse_vision
from mazesim.errors import ConfigError
from mazesim.experiment.seeds import cell_seed
from mazesim.experiment.storage import RunStore
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
    with RunStore(run_dir) as store:
        config = store.meta("config")
        row = store.query("SELECT maze_id, agent, vision, trial, moves, reached FROM trials "
                          "WHERE trial_id = ?", (int(trial_id),))
        if not row:
            last = store.query("SELECT MAX(trial_id) FROM trials")[0][0]
            allowed = "no trials stored yet" if last is None else f"allowed: 0 to {last}"
            raise ConfigError(f"--trial: {trial_id} is not a trial of {run_dir} ({allowed})")
        maze_id, agent_label, vision_text, trial, moves, reached = row[0]
        text = store.query("SELECT text FROM mazes WHERE maze_id = ?", (maze_id,))[0][0]
    labels = [a["label"] for a in config["agents"]]
    visions = [str(parse_vision(v)) for v in config["vision"]]
    a, v = labels.index(agent_label), visions.index(vision_text)
    spec = config["agents"][a]
    agent = make_agent(spec["type"], **{k: x for k, x in spec.items() if k not in _SPEC_KEYS})
    maze = parse_maze(text, f"maze {maze_id}")
    seed = trial_seed(cell_seed(config["seed"], maze_id, a, v), trial)
    trajectory = simulate(maze, agent, parse_vision(config["vision"][v]), seed)
    return Rerun(int(trial_id), maze_id, agent_label, vision_text, trial, maze, trajectory,
                 int(moves), bool(reached))
