"""`mazesim design`'s work and what it writes: the design (`search.design`), its information and
predicted recovery beside the same on random maps of the generator and on a folder of mazes (the
Maze Search Task's, say), and the study folder: `mazes/NAME.json` (mazesim JSON, the corridors
in `meta.seen_at_start`), `session.yaml` (a `mazesim play` session that runs them under the
models' vision, in shuffled order), `report.md` and `report.json`. Nothing in them depends on
the clock or the machine: the same inputs give the same bytes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from mazesim.agents.vision import parse_vision
from mazesim.design.candidates import MapSpec, build
from mazesim.design.information import (MAX_MODELS, MAX_PEOPLE, NEAR_IDENTICAL, Information,
                                        Panel, information, near_identical, panel, score_maze)
from mazesim.design.search import (MST_MEDIAN_STEPS, Candidate, Design, check_design, design,
                                   score_mazes)
from mazesim.design.study import GROUP_SIZES, Recovery, recovery
from mazesim.errors import DataError
from mazesim.maze import Maze, write_maze
from mazesim.markup import table_rule

__all__ = ["StudyResult", "SetResult", "run_design", "write_study", "format_study",
           "RECOVERY_STREAM", "SESSION", "REPORT"]

RECOVERY_STREAM = 1
"""Spawn key of the simulated people's panel (the design's sample uses the seed itself)."""
SESSION, REPORT = "session.yaml", "report"
DESIGNED, RANDOM, BASELINE = "designed", "random", "baseline"


@dataclass(frozen=True, eq=False)
class SetResult:
    """A set of mazes: their names, joint information and predicted recovery (none without
    simulated people), and which simulated people walk them as another model does
    (`information.near_identical`, models x people)."""

    names: tuple[str, ...]
    information: Information
    recovery: Recovery | None
    near: np.ndarray | None

    @property
    def identifiable(self) -> tuple[float, float]:
        """The share of simulated people not near another model, and their recovery."""
        keep = ~self.near
        return float(keep.mean()), self.recovery.accuracy_among(keep)

    def to_json(self) -> dict:
        if self.recovery is None:
            return {"mazes": list(self.names), "information": self.information.to_json(),
                    "recovery": None}
        share, accuracy = self.identifiable
        return {"mazes": list(self.names), "information": self.information.to_json(),
                "recovery": {**self.recovery.to_json(), "identifiable_share": share,
                             "identifiable_accuracy": None if math.isnan(accuracy)
                             else accuracy}}


@dataclass(frozen=True, eq=False)
class StudyResult:
    """The design and its sets (designed, random, and the baseline folder's if given)."""

    design: Design
    sets: Mapping[str, SetResult]
    settings: Mapping[str, object]
    vision: str


def run_design(fits: Mapping[str, Sequence], *, mazes: int, seed: int, people: int,
               sample: int, candidates: int, edits: int, spec: MapSpec, passes: int = 1,
               baseline: Mapping[str, Maze] | None = None,
               judge: Mapping[str, Sequence] | None = None) -> StudyResult:
    """Design `mazes` mazes from `candidates` for the models of `fits` (model -> per-person
    (params, lapse)), `sample` people per model scoring the candidates, `people` other ones
    per model (from `judge`'s population if given, one the design has not seen) simulated for
    the recovery of every set."""
    if not 2 <= len(fits) <= MAX_MODELS:
        raise DataError(f"models: {len(fits)} (allowed: 2 to {MAX_MODELS})")
    if isinstance(people, bool) or not 0 <= people <= MAX_PEOPLE:
        raise DataError(f"people: {people!r} (allowed: 0 to {MAX_PEOPLE:,})")
    check_design(mazes, candidates, edits, passes=passes)
    chooser = panel(fits, sample, seed)
    if judge is not None and list(judge) != list(fits):
        raise DataError(f"judge: models {list(judge)} (expected: {list(fits)}, the design's)")
    simulated = panel(judge or fits, people, seed + RECOVERY_STREAM) if people else None
    found = design(chooser, spec, mazes, candidates, seed, edits=edits, passes=passes)
    named = tuple(_renamed(c, f"design-{i + 1:02d}") for i, c in enumerate(found.chosen))
    found = Design(named, found.random, found.drawn, found.kept, found.edits)
    sets = {DESIGNED: found.chosen, RANDOM: found.random}
    if baseline:
        sets[BASELINE] = tuple(score_mazes(chooser, baseline))
    results = {k: _set(chooser, simulated, v, seed) for k, v in sets.items()}
    settings = {"models": list(fits), "mazes": mazes, "seed": seed, "people": people,
                "sample": sample, "judge": judge is not None, "candidates": candidates,
                "edits": edits, "passes": passes, "size": list(spec.size),
                "rooms": list(spec.rooms), "room_cells": list(spec.room_cells),
                "max_steps": 2 * MST_MEDIAN_STEPS}
    return StudyResult(found, results, settings, chooser.vision)


def _renamed(candidate: Candidate, name: str) -> Candidate:
    maze = build(candidate.layout, name)
    table = replace(candidate.table, name=name, maze=maze)
    return Candidate(candidate.layout, table, candidate.score)


def _set(chooser: Panel, judge: Panel | None, chosen: Sequence[Candidate], seed: int
         ) -> SetResult:
    names = tuple(c.table.name for c in chosen)
    if judge is None:
        return SetResult(names, information([c.score for c in chosen]), None, None)
    rec = recovery(judge, [c.table for c in chosen], seed)
    near = near_identical(judge, [score_maze(judge, c.table) for c in chosen])
    return SetResult(names, information([c.score for c in chosen]), rec, near)


def write_study(result: StudyResult, folder: str | Path) -> list[Path]:
    """The study folder (module docstring); the paths written."""
    folder = Path(folder)
    (folder / "mazes").mkdir(parents=True, exist_ok=True)
    written = []
    for c in result.design.chosen:
        path = folder / "mazes" / f"{c.table.name}.json"
        write_maze(c.maze, path)
        written.append(path)
    vision = parse_vision(result.vision).to_config()
    entries = "".join(f"  - {{name: {c.table.name}, file: mazes/{c.table.name}.json, vision: "
                      f"{json.dumps(vision)}}}\n" for c in result.design.chosen)
    session = (f"# Written by mazesim design: `mazesim play {SESSION}` runs the designed mazes.\n"
               f"name: design\nseed: {result.settings['seed']}\norder: shuffled\n"
               f"mazes:\n{entries}")
    for name, text in ((SESSION, session), (f"{REPORT}.md", format_study(result)),
                       (f"{REPORT}.json", json.dumps(study_json(result), indent=1) + "\n")):
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def study_json(result: StudyResult) -> dict:
    """The report as one JSON object."""
    d = result.design
    return {"settings": dict(result.settings), "vision": result.vision,
            "candidates": {"drawn": d.drawn, "kept": d.kept, "edits": d.edits},
            "mazes": [_maze_json(c) for c in d.chosen],
            "sets": {k: v.to_json() for k, v in result.sets.items()}}


def _maze_json(c: Candidate) -> dict:
    info = information([c.score])
    return {"name": c.table.name, "file": f"mazes/{c.table.name}.json",
            "size": list(c.maze.shape), "decisions": int(c.table.decisions.size),
            "steps": round(c.steps, 6), **info.to_json()}


def format_study(result: StudyResult) -> str:
    """The report as Markdown."""
    s, d = result.settings, result.design
    lines = [f"# A designed study: {', '.join(s['models'])}", "",
             f"{len(d.chosen)} mazes chosen from {d.drawn:,} candidates ({d.kept:,} within the "
             f"constraints: a decision, a walk of at most {s['max_steps']} moves), {d.edits} "
             f"local edits kept ({s['passes']} revisiting pass{'es' * (s['passes'] != 1)}); "
             f"{s['sample']} people per "
             "model scored the candidates, "
             f"{s['people']} others per model were simulated for the recovery "
             f"({'from the --judge population' if s['judge'] else 'from the same fit'}; seed "
             f"{s['seed']}); vision: {result.vision}.", "",
             "## The sets", "",
             "Identifiable: the simulated people whose walks on the set are not within "
             f"{NEAR_IDENTICAL} bits per decision of another model's (share; their recovery).",
             "", "| set | mazes | predicted error | recovery | identifiable | unfit | "
             "people needed | walk (moves) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, v in result.sets.items():
        walk = max(v.information.steps.values())
        r = v.recovery
        rec = "- | - | - | -" if r is None else (
            f"{r.accuracy:.3f} | {v.identifiable[0]:.2f}; {v.identifiable[1]:.3f} | "
            f"{float(r.unfit.mean()):.3f} | {r.people_needed() or f'> {GROUP_SIZES[-1]}'}")
        lines.append(f"| {name} | {len(v.names)} | {v.information.mean_error:.3f} | {rec} | "
                     f"{walk:.1f} |")
    lines += ["", "## Information per pair (bits per person; per decision)", "",
              "| model | rival | " + " | ".join(result.sets) + " |",
              table_rule("ll" + "r" * len(result.sets))]
    for a, b in next(iter(result.sets.values())).information.divergence:
        cells = [f"{v.information.divergence[(a, b)][0]:.3g} ± "
                 f"{v.information.divergence[(a, b)][1]:.2g}; "
                 f"{v.information.per_decision[(a, b)]:.3g}" for v in result.sets.values()]
        lines.append(f"| {a} | {b} | " + " | ".join(cells) + " |")
    for name, v in result.sets.items():
        if v.recovery is not None:
            lines += ["", f"## Recovery on the {name} set (rows: the generating model; "
                      "columns: the best fit)", "", _confusion(v.recovery), "",
                      "A study of n people of one model names it (the share of groups):", "",
                      _groups(v.recovery)]
    pairs = list(next(iter(result.sets.values())).information.divergence)
    lines += ["", "## The designed mazes (bits per person of each pair on the maze alone; "
              "report.json has their errors)", "",
              "| maze | size | tree decisions | walk (moves) | "
              + " | ".join(f"{a} > {b}" for a, b in pairs) + " |",
              table_rule("llrr" + "r" * len(pairs))]
    for c in d.chosen:
        alone = information([c.score]).divergence
        lines.append(f"| {c.table.name} | {c.maze.shape[0]}x{c.maze.shape[1]} | "
                     f"{c.table.decisions.size} | {c.steps:.1f} | "
                     + " | ".join(f"{alone[p][0]:.3g}" for p in pairs) + " |")
    return "\n".join(lines) + "\n"


def _groups(r: Recovery) -> str:
    head = "| people | " + " | ".join(r.models) + " |\n" + table_rule("r" * (len(r.models) + 1))
    rows = [f"| {n} | " + " | ".join(f"{x:.2f}" for x in v) + " |" for n, v in r.groups.items()]
    return "\n".join([head, *rows])


def _confusion(r: Recovery) -> str:
    head = ("| | " + " | ".join(r.models) + " | unfit |\n"
            + table_rule("l" + "r" * (len(r.models) + 1)))
    rows = [f"| {m} | " + " | ".join(f"{v:.2f}" for v in row) + f" | {u:.2f} |"
            for m, row, u in zip(r.models, r.confusion, r.unfit)]
    return "\n".join([head, *rows])

