"""The report of a play run: the experiment report plus one row per participant and maze.

`build_play_report` writes everything `mazesim.experiment.report.build_report` writes (the human
trials are stored in the same tables, agent `human`: moves, efficiency, Table 1 with humans as the
movement source, choices at the marks, figures) and adds `participants.csv` and a "Participants"
section to `report.md`: moves, efficiency, time and the first choice at each mark, per
participant and maze, practice mazes included (flagged).
"""

from __future__ import annotations

import csv
import json
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from mazesim.errors import ConfigError
from mazesim.experiment.report import REPORT, Report, build_report
from mazesim.experiment.storage import DATABASE, RunStore
from mazesim.maze import parse_maze
from mazesim.play.run import RECORDER

__all__ = ["PARTICIPANTS_CSV", "ParticipantMaze", "participant_rows", "is_play_run",
           "build_play_report", "build_run_report"]

PARTICIPANTS_CSV = "participants.csv"
MS_PER_SECOND = 1000.0


@dataclass(frozen=True)
class ParticipantMaze:
    """One participant on one maze; times in seconds from the maze being shown."""

    participant: str
    maze: str
    practice: bool
    vision: str
    moves: int
    reached: bool
    solution_length: int | None
    efficiency: float | None
    seconds: float | None
    first_move_seconds: float | None
    choices: str            # first departure at each mark, e.g. "A:up"


def build_run_report(run_dir: str | Path) -> Report:
    """The report of any run directory: participants added for a play run (`build_play_report`),
    `mazesim.experiment.report.build_report` otherwise."""
    return (build_play_report if is_play_run(run_dir) else build_report)(run_dir)


def is_play_run(run_dir: str | Path) -> bool:
    """True when `run_dir` holds a database written by `mazesim play`."""
    path = Path(run_dir) / DATABASE
    if not path.is_file():
        return False
    with RunStore(run_dir) as store:
        return store.meta("recorder") == RECORDER


def participant_rows(run_dir: str | Path) -> list[ParticipantMaze]:
    """Every maze shown to every participant, in join order then maze order."""
    from mazesim.analysis import parameters
    from mazesim.walks import choices_of

    with RunStore(run_dir) as store:
        if store.meta("recorder") != RECORDER:
            raise ConfigError(f"{run_dir}: not a play run (no human trials recorded)")
        session = store.meta("session")
        shown = store.query(
            "SELECT p.participant, g.maze_id, g.started_ms, g.finished_ms FROM play_progress g "
            "JOIN play_participants p USING (participant) ORDER BY p.number, g.position")
        moves = {}
        for participant, maze_id, seq, r, c, server_ms in store.query(
                "SELECT participant, maze_id, seq, to_row, to_col, server_ms FROM play_moves "
                "ORDER BY participant, maze_id, seq"):
            moves.setdefault((participant, maze_id), []).append(((r, c), server_ms))
    entries = {e["name"]: (e, False) for e in session["mazes"]}
    entries.update({e["name"]: (e, True) for e in session.get("practice", [])})
    texts = _maze_texts(run_dir, session)
    rows = []
    for participant, maze_id, started, finished in shown:
        entry, practice = entries[maze_id]
        maze = parse_maze(texts[maze_id])
        walk = moves.get((participant, maze_id), [])
        positions = [maze.start] + [cell for cell, _ in walk]
        solution = parameters(maze, ["solution_length"])["solution_length"]
        reached = finished is not None
        firsts = {}
        for choice in choices_of(maze, positions):
            if choice.mark and choice.first:
                firsts.setdefault(choice.mark, choice.direction)
        rows.append(ParticipantMaze(
            participant, maze_id, practice, str(entry["vision"]), len(walk), reached, solution,
            solution / len(walk) if reached and walk and solution else None,
            (finished - started) / MS_PER_SECOND if reached else None,
            (walk[0][1] - started) / MS_PER_SECOND if walk else None,
            " ".join(f"{m}:{d}" for m, d in sorted(firsts.items()))))
    return rows


def build_play_report(run_dir: str | Path) -> Report:
    """`build_report`, then `participants.csv` and the participants section of `report.md`."""
    run_dir = Path(run_dir)
    report = build_report(run_dir)
    rows = participant_rows(run_dir)
    with open(run_dir / PARTICIPANTS_CSV, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([f.name for f in fields(ParticipantMaze)])
        writer.writerows(["" if v is None else v for v in astuple(r)] for r in rows)
    with open(run_dir / REPORT, "a", encoding="utf-8") as handle:
        handle.write("\n".join(_markdown(rows)) + "\n")
    return report


def _maze_texts(run_dir: str | Path, session: dict) -> dict[str, str]:
    """Maze text by session name: main mazes from the database, practice mazes re-read."""
    with RunStore(run_dir) as store:
        texts = {m.meta["name"]: m.text for m in store.mazes()}
    for entry in session.get("practice", []):
        texts.setdefault(entry["name"], _practice_text(run_dir, entry["name"]))
    return texts


def _practice_text(run_dir: str | Path, name: str) -> str:
    with RunStore(run_dir) as store:
        rows = store.query("SELECT value FROM meta WHERE key = ?", (f"practice:{name}",))
    if not rows:
        raise ConfigError(f"{run_dir}: practice maze {name} is not stored")
    return json.loads(rows[0][0])


def _markdown(rows: list[ParticipantMaze]) -> list[str]:
    lines = ["", "## Participants", "",
             f"One row per participant and maze (also in `{PARTICIPANTS_CSV}`); seconds from the "
             "maze being shown; choices: the first departure from each mark.", "",
             "| participant | maze | vision | moves | reached | efficiency | seconds | "
             "first move s | choices |",
             "|---|---|---|---:|---|---:|---:|---:|---|"]
    for r in rows:
        maze = f"{r.maze} (practice)" if r.practice else r.maze
        lines.append(f"| {r.participant} | {maze} | {r.vision} | {r.moves} | "
                     f"{'yes' if r.reached else 'no'} | {_num(r.efficiency, 3)} | "
                     f"{_num(r.seconds, 1)} | {_num(r.first_move_seconds, 2)} | {r.choices} |")
    return lines


def _num(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"
