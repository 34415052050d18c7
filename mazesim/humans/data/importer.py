"""Import recorded trajectories into a run directory of people (DESIGN.md section 11).

Every trial is checked against its maze (starts at S, unit steps, never on a wall or off the
grid, nothing after G; a trial that stops before G is imported as not reached). Without
`skip_invalid` the first bad trial (in input order) stops the import with one line naming the
input line, participant, maze, step and reason, before anything is written; with it, the valid
trials are imported and the bad ones listed.

The run directory has the layout of a play run (`mazesim.experiment.storage`): meta `kind:
human`, `recorder: import`, `format`, `source`, `skipped` (how many) and a report config; the
mazes (text, parameters, and in `meta` their name, vision and `seen_at_start`); one `trials` row
per trial (agent `human`, `participant` = the participant id, `trial` = the trial's index among
those of its maze and vision, `seed` empty), every junction departure in `choices`, every trial's
positions as a sample. Three tables of its own: `import_trials` (trial_id, participant, number: the
source's trial number, line: its input line), `import_times` (trial_id, step, t_ms: the milliseconds
before the move that leaves `positions[step]`, joinable with `choices` on (trial_id, step)) and
`import_bumps` (trial_id, step, direction, t_ms: a key press at `positions[step]` that moved
nothing, before the move that leaves it). Meta `decision_level` is the source's: the decisions
a fit reads by default (`humans.data.run.LEVELS`).
"""

from __future__ import annotations

import os
import shutil
import secrets
from glob import escape as glob_escape
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mazesim.agents.vision import Vision
from mazesim.errors import DataError, cannot_write, printable
from mazesim.experiment.config import human_run_config
from mazesim.experiment.storage import (HUMAN, MazeRecord, RunStore, TrialRows, transaction,
                                        write_samples, write_trials)
from mazesim.humans.data.sources import Problem, Recording, Source, read_csv, read_mst
from mazesim.humans.data.vgc import read_vgc
from mazesim.maze import Maze, format_maze
from mazesim.records import CHOICE_DTYPE

__all__ = ["RECORDER", "WARN_TRIALS", "ImportSummary", "import_mst", "import_csv", "import_vgc",
           "import_source", "check_recording", "map_warnings", "format_summary", "SKIP_HINT"]

SKIP_HINT = " (skip_invalid imports the valid trials and lists the others)"
"""The end of the error of a bad trial: the parameter that imports the rest (the command line
names its own flag instead)."""

RECORDER = "import"
"""The `recorder` (meta) of a run of people imported by `mazesim import`."""
WARN_TRIALS = 3
"""Fewest trials of a maze ending on one cell other than G (or passing G) that the import warns
of, when they are also more than half the maze's trials."""
_TABLES = """
CREATE TABLE import_trials (trial_id INTEGER PRIMARY KEY, participant TEXT NOT NULL,
                            number INTEGER NOT NULL, line INTEGER NOT NULL);
CREATE TABLE import_times (trial_id INTEGER NOT NULL, step INTEGER NOT NULL, t_ms REAL NOT NULL,
                           PRIMARY KEY (trial_id, step));
CREATE TABLE import_bumps (trial_id INTEGER NOT NULL, step INTEGER NOT NULL,
                           direction INTEGER NOT NULL, t_ms REAL NOT NULL);
"""


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote: counts of the imported trials and the skipped ones."""

    run_dir: Path
    trials: int
    participants: int
    mazes: int
    decisions: int
    unfinished: int
    skipped: tuple[Problem, ...]
    warnings: tuple[str, ...] = ()
    moves: int = 0
    bumps: int = 0
    level: str = "junction"

    def to_json(self) -> dict[str, Any]:
        return {"trials": self.trials, "participants": self.participants, "mazes": self.mazes,
                "moves": self.moves, "bumps": self.bumps, "decision_level": self.level,
                "decisions": self.decisions, "unfinished": self.unfinished,
                "skipped": [p.to_json() for p in self.skipped],
                "warnings": list(self.warnings)}


def format_summary(summary: ImportSummary) -> str:
    """What an import wrote, and every skipped trial, one line each (the input's ids and names
    with their control characters escaped, `errors.printable`)."""
    lines = [f"wrote {summary.run_dir}: {summary.trials:,} trials of {summary.participants} "
             f"participants on {summary.mazes} mazes, {summary.decisions:,} {summary.level} "
             f"decisions, {summary.unfinished} unfinished"
             f"{f', {summary.bumps:,} bumps (not moves)' if summary.bumps else ''}; "
             f"{len(summary.skipped)} skipped"]
    lines += [printable(f"skipped line {p.line}: {p.where()}: {p.reason}")
              for p in summary.skipped]
    lines += [printable(f"warning: {w}") for w in summary.warnings]
    return "\n".join(lines) + "\n"


def import_mst(folder: str | Path, run_dir: str | Path, *, skip_invalid: bool = False
               ) -> ImportSummary:
    """Import a Maze Search Task folder (`plandata.csv`, `mazes/`) into `run_dir`."""
    _check_free(run_dir)
    return import_source(read_mst(folder), run_dir, skip_invalid=skip_invalid)


def import_csv(path: str | Path, mazes: str | Path, run_dir: str | Path, *,
               vision: Any = "full", skip_invalid: bool = False) -> ImportSummary:
    """Import a long CSV of visited cells (mazes from the folder `mazes`) into `run_dir`."""
    _check_free(run_dir)
    return import_source(read_csv(path, mazes, vision), run_dir, skip_invalid=skip_invalid)


def import_vgc(folder: str | Path, run_dir: str | Path, *, skip_invalid: bool = False
               ) -> ImportSummary:
    """Import a value-guided construal folder (`humans.data.vgc`: navtrials and config) into
    `run_dir`."""
    _check_free(run_dir)
    return import_source(read_vgc(folder), run_dir, skip_invalid=skip_invalid)


def check_recording(maze: Maze, rec: Recording) -> Problem | None:
    """The first fault of a recorded trial in `maze` (`walks.walk_fault`), or None for a valid
    walk."""
    from mazesim.walks import walk_fault

    if len(rec.positions) == 0:
        return rec.problem(None, "no cells")
    fault = walk_fault(maze, rec.positions)
    return None if fault is None else rec.problem(*fault)


def import_source(source: Source, run_dir: str | Path, *, skip_invalid: bool = False
                  ) -> ImportSummary:
    """Check every trial of `source` and write the valid ones to a new run directory."""
    run_dir = Path(run_dir)
    _check_free(run_dir)
    valid, problems = [], list(source.unreadable)
    for rec in source.recordings:
        if rec.maze in source.missing:
            problems.append(rec.problem(None, source.missing[rec.maze]))
            continue
        problem = check_recording(source.mazes[rec.maze], rec)
        if problem is None:
            valid.append(rec)
        else:
            problems.append(problem)
    problems.sort(key=lambda p: p.line)
    warnings = map_warnings(source)
    if problems and not skip_invalid:
        first = problems[0]
        hint = next((f"; {w}" for w in warnings if w.startswith(f"maze {first.maze}: ")), "")
        raise DataError(first.describe(source.path) + printable(hint) + SKIP_HINT)
    if not valid:
        raise DataError(f"{source.path}: no valid trial to import")
    return _write_aside(source, valid, tuple(problems), warnings, run_dir)


def map_warnings(source: Source) -> tuple[str, ...]:
    """One line per maze whose trials mostly (more than half, at least `WARN_TRIALS`) end on
    one cell that is not its G, or pass G and go on: the map is likely not the one people saw
    (DESIGN.md section 11)."""
    from collections import Counter

    totals, ends, passes = Counter(), {}, Counter()
    for rec in source.recordings:
        maze = source.mazes.get(rec.maze)
        if maze is None or len(rec.positions) == 0:
            continue
        totals[rec.maze] += 1
        at_goal = (rec.positions == maze.goal).all(axis=1)
        if at_goal[:-1].any():
            passes[rec.maze] += 1
        elif not at_goal[-1]:
            ends.setdefault(rec.maze, Counter())[tuple(rec.positions[-1].tolist())] += 1
    out = []
    for name in sorted(totals):
        total, goal = totals[name], source.mazes[name].goal
        if passes[name] >= WARN_TRIALS and 2 * passes[name] > total:
            out.append(f"maze {name}: {passes[name]} of {total} trials pass its exit G {goal} "
                       "and go on: the map is likely not the one people saw")
        if name in ends:
            cell, count = ends[name].most_common(1)[0]
            if count >= WARN_TRIALS and 2 * count > total:
                out.append(f"maze {name}: {count} of {total} trials end on {cell}, not on its "
                           f"exit G {goal}: the map is likely not the one people saw")
    return tuple(out)


def _write_aside(source: Source, valid: list[Recording], skipped: tuple[Problem, ...],
                 warnings: tuple[str, ...], run_dir: Path) -> ImportSummary:
    """Write the run into a new hidden sibling of `run_dir` and rename it to `run_dir` at the
    end: an import killed on the way leaves no run that looks complete, only that sibling (its
    lock released), which the next import into `run_dir` removes."""
    from mazesim.experiment.rundir import lock_run

    try:
        run_dir.parent.mkdir(parents=True, exist_ok=True)
        _clear_leftovers(run_dir)
        part = run_dir.parent / f"{_leftover_prefix(run_dir)}{secrets.token_hex(8)}"
        part.mkdir()                   # as any run directory: the umask's mode, not mkdtemp's 0700
    except OSError as err:
        raise cannot_write(run_dir, err) from None
    lock = None
    try:
        lock = lock_run(part, "mazesim import")
        summary = _write(source, valid, skipped, warnings, part, run_dir, lock)
        os.rename(part, run_dir)
        lock.moved(run_dir)
    except OSError as err:
        shutil.rmtree(part, ignore_errors=True)
        raise cannot_write(run_dir, err) from None
    except BaseException:
        shutil.rmtree(part, ignore_errors=True)
        raise
    finally:
        if lock is not None:
            lock.release()
    return summary


def _leftover_prefix(run_dir: Path) -> str:
    return f".{run_dir.name}.import-"


def _clear_leftovers(run_dir: Path) -> None:
    """Remove the siblings that killed imports into `run_dir` left (their lock is free)."""
    from mazesim.errors import RunError
    from mazesim.experiment.rundir import lock_run

    for part in run_dir.parent.glob(glob_escape(_leftover_prefix(run_dir)) + "*"):
        if not part.is_dir() or part.is_symlink():
            continue
        try:
            lock = lock_run(part, "mazesim import")
        except RunError:
            continue                                    # another import is writing it
        try:
            shutil.rmtree(part, ignore_errors=True)
        finally:
            lock.release()


def _check_free(run_dir: str | Path) -> None:
    run_dir = Path(run_dir)
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise DataError(f"output folder {run_dir}: exists and is not an empty folder (choose "
                        "another output or remove it)")


def _write(source: Source, valid: list[Recording], skipped: tuple[Problem, ...],
           warnings: tuple[str, ...], part: Path, run_dir: Path, lock: Any) -> ImportSummary:
    """Write the run into the folder `part` (to be renamed `run_dir`), whose `lock` the
    caller holds."""
    from mazesim.walks import choice_records

    names = sorted({r.maze for r in valid})
    maze_ids = {name: i for i, name in enumerate(names)}
    people = list(dict.fromkeys(r.participant for r in valid))
    visions = {id(r): str(_vision(r, source)) for r in valid}
    decisions = 0
    with RunStore(part, create=True, lock=lock) as store:
        store.conn.executescript(_TABLES)
        store.write_head((_maze_record(i, name, source, valid) for i, name in enumerate(names)),
                         name=run_dir.name, kind=HUMAN, recorder=RECORDER, format=source.format,
                         source=source.path, skipped=len(skipped), warnings=list(warnings),
                         decision_level=source.level,
                         config=_report_config(run_dir, source, names, valid))
        with transaction(store.conn) as db:
            write_samples(db, part, {t: r.positions for t, r in enumerate(valid)})
            groups: dict[tuple[str, str], list[int]] = {}
            for t, rec in enumerate(valid):
                groups.setdefault((rec.maze, visions[id(rec)]), []).append(t)
            for (name, vision), ids in groups.items():
                maze = source.mazes[name]
                records = [choice_records(maze, valid[t].positions) for t in ids]
                for k, rows in enumerate(records):
                    rows["trial"] = k
                decisions += sum(len(rows) for rows in records) if source.level == "junction" \
                    else sum(len(valid[t].positions) - 1 for t in ids)
                write_trials(db, TrialRows(
                    maze_id=maze_ids[name], agent=HUMAN, vision=vision, trial_ids=ids,
                    numbers=range(len(ids)), seeds=[""] * len(ids),
                    moves=[len(valid[t].positions) - 1 for t in ids],
                    reached=[tuple(valid[t].positions[-1]) == maze.goal for t in ids],
                    capped=[False] * len(ids),
                    choices=np.concatenate(records) if records else np.zeros(0, CHOICE_DTYPE),
                    mark_names=tuple(maze.marks),
                    participants=[valid[t].participant for t in ids]))
            db.executemany("INSERT INTO import_trials VALUES (?, ?, ?, ?)",
                           [(t, r.participant, r.number, r.line) for t, r in enumerate(valid)])
            db.executemany("INSERT INTO import_times VALUES (?, ?, ?)",
                           ((t, k, ms) for t, r in enumerate(valid) if r.times is not None
                            for k, ms in enumerate(r.times.tolist())))
            db.executemany("INSERT INTO import_bumps VALUES (?, ?, ?, ?)",
                           ((t, *bump) for t, r in enumerate(valid) for bump in r.bumps))
    unfinished = sum(tuple(r.positions[-1]) != source.mazes[r.maze].goal for r in valid)
    return ImportSummary(run_dir, len(valid), len(people), len(names), decisions, unfinished,
                         skipped, warnings, sum(len(r.positions) - 1 for r in valid),
                         sum(len(r.bumps) for r in valid), source.level)


def _vision(rec: Recording, source: Source) -> Vision:
    return rec.vision if rec.vision is not None else source.vision


def _maze_record(maze_id: int, name: str, source: Source, valid: list[Recording]
                 ) -> MazeRecord:
    from mazesim.analysis import parameters

    maze = source.mazes[name]
    h, w = maze.shape
    visions = sorted({str(_vision(r, source)) for r in valid if r.maze == name})
    meta = {**dict(maze.meta), "name": name, "vision": visions,
            "start": list(maze.start), "goal": list(maze.goal),
            "marks": {k: list(v) for k, v in maze.marks.items()}}
    return MazeRecord(maze_id, name, None, f"{h}x{w}", None, format_maze(maze), meta,
                      parameters(maze))


def _report_config(run_dir: Path, source: Source, names: list[str], valid: list[Recording]
                   ) -> dict[str, Any]:
    """The run in the experiment's resolved-config shape (agent `human`), so that `mazesim
    report` reads it like a simulated run."""
    visions = list({str(v): v.to_config() for v in (_vision(r, source) for r in valid)}.values())
    marks = sorted({m for name in names for m in source.mazes[name].marks})
    return human_run_config(run_dir.name, f"Human trials imported by `mazesim import "
                            f"{source.format}` from {source.path}.", 0,
                            [{"file": name} for name in names], visions, marks, run_dir)
