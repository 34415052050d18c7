"""Re-simulate one stored trial from its run directory alone (maze text, config and seed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mazesim.errors import ConfigError
from mazesim.experiment.config import vision_label
from mazesim.experiment.seeds import cell_seed
from mazesim.experiment.storage import RunStore
from mazesim.maze import Maze, parse_maze

__all__ = ["Replay", "replay"]


@dataclass(frozen=True, eq=False)
class Replay:
    """A re-simulated trial next to what the run stored for it."""

    trial_id: int
    maze_id: int
    agent: str
    vision: str
    trial: int
    maze: Maze
    trajectory: Any  # mazesim.simulate.Trajectory
    stored_moves: int
    stored_reached: bool

    @property
    def matches(self) -> bool:
        return (self.trajectory.moves == self.stored_moves
                and bool(self.trajectory.reached) == self.stored_reached)


def replay(run_dir: str | Path, trial_id: int) -> Replay:
    """Simulate trial `trial_id` of the run again, exactly as the runner did."""
    from mazesim.agents import make_agent
    from mazesim.agents.vision import parse_vision
    from mazesim.simulate import simulate, trial_seed

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
    visions = [vision_label(v) for v in config["vision"]]
    a, v = labels.index(agent_label), visions.index(vision_text)
    spec = {k: val for k, val in config["agents"][a].items()
            if k not in ("type", "label", "trials")}
    agent = make_agent(config["agents"][a]["type"], **spec)
    vision = parse_vision(config["vision"][v])
    maze = parse_maze(text, f"maze {maze_id}")
    seed = trial_seed(cell_seed(config["seed"], maze_id, a, v), trial)
    trajectory = simulate(maze, agent, vision, seed)
    return Replay(int(trial_id), maze_id, agent_label, vision_text, trial, maze, trajectory,
                  int(moves), bool(reached))
