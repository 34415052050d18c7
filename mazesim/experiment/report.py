"""The report of a run, rebuilt from its database alone: CSV exports, statistics, figures and
`report.md` (its text is `mazesim.experiment.report_text`).

Every table is a function of the database and the stored config (the bootstrap is seeded by the
run's root seed), so two reports of one run are byte-identical.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import fields, replace
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from mazesim import csvfile
from mazesim.experiment.background import Call, Jobs, cores, split
from mazesim.experiment.bands import Band, write_bands
from mazesim.experiment.choices import ChoiceTest
from mazesim.experiment.regression import RegressionTerm, Vif
from mazesim.experiment.report_text import Figure, Report, markdown
from mazesim.experiment.results import Results, Settings, read_run
from mazesim.experiment.rundir import ENVIRONMENT_FILE
from mazesim.experiment.statistics import MIN_MAZES, Correlation, Summary, correlations
from mazesim.experiment.storage import RunStore
from mazesim.experiment.tables import (Omitted, Outcome, choice_tests, condition_correlations,
                                       holm_adjusted, omitted_conditions, outcomes,
                                       regression_table, summary_table, vif_rows)
from mazesim.maze import parse_maze

__all__ = ["REPORT", "FIGURES", "CORRELATIONS_CSV", "REGRESSION_CSV", "VIF_CSV", "SUMMARY_CSV",
           "CHOICES_CSV", "WALK_MAZES", "Figure", "Report", "build_report"]

REPORT = "report.md"
FIGURES = "figures"
CORRELATIONS_CSV, REGRESSION_CSV, VIF_CSV = "correlations.csv", "regression.csv", "vif.csv"
SUMMARY_CSV, CHOICES_CSV = "summary.csv", "branch_choices.csv"
WALK_MAZES = 3
"""Mazes in each trajectory and heat-map figure: the first maze of each generator in turn, then
the second of each, and so on."""
Figures = tuple[list[Figure], list[str]]
Entry = tuple[list[Call], Callable[[list[Any]], Figures]]
"""A figure's calls (function, arguments) and what turns their results into `Figures`."""
"""What a piece of the figures gives: the figures drawn with their captions, the lines about
figures not drawn."""
_CHOICE_HEADER = ("agent", "vision", "mark", "n", "direction", "count", "proportion", "ci_low",
                  "ci_high", "human_n", "expected_human", "human", "human_share",
                  "human_ci_low", "human_ci_high", "test", "p", "power", "people_for_80")


def build_report(run_dir: str | Path, stage: Callable[[str], None] | None = None,
                 cpu: list[tuple[str, float]] | None = None) -> Report:
    """Write `mazes.csv`, `trials.csv`, `choices.csv`, `correlations.csv`, `regression.csv`,
    `vif.csv`, `summary.csv`, `branch_choices.csv`, `figures/` and `report.md` of a run;
    `stage(text)` hears of each step as it begins; `cpu` (a list) gets the CPU seconds of each
    piece computed in another process.

    The run's tables are exported (`RunStore.csv_export`, in slices of trials), the
    regressions and summaries computed, Table 1 in one piece per core
    (`tables.condition_correlations`) and the figures drawn in pieces (`_figure_pieces`; a
    scatter figure in bands of rows), shared among forked processes (`background.Jobs`)
    while this one reads the run and joins and writes what they return: the cores share the
    report as they share the sweep."""
    run_dir = Path(run_dir)
    say = stage or (lambda text: None)
    with RunStore(run_dir) as store, store.csv_export(run_dir) as export, Jobs() as jobs:
        exports = jobs.start_all(export.pieces)
        say("report: reading the run's tables (CSV exports meanwhile)")   # checked on opening
        results = read_run(store)
        omitted, choices = tuple(omitted_conditions(results)), tuple(choice_tests(results))
        shown = tuple(outcomes(results))
        parts = [(_statistics, (results,))] + [(condition_correlations, (results, part))
                                                for part in split(shown, cores())]
        entries, walk_notes = _figure_pieces(run_dir / FIGURES, results, omitted, choices,
                                             shown)
        started = jobs.start_all(parts + [call for calls, _ in entries for call in calls])
        (statistics, *table), drawing = started[:len(parts)], iter(started[len(parts):])
        figures = [list(itertools.islice(drawing, len(calls))) for calls, _ in entries]
        say("report: correlations" + (
            " with bootstrap intervals" if "spearman" in results.settings.methods else "")
            + ", regressions (figures drawn meanwhile)")
        regressions, vifs, summaries = jobs.results([statistics])[0]
        report = Report(run_dir / REPORT, (), regressions, vifs, choices, summaries, omitted, ())
        rows = [r for part in jobs.results(table) for r in part]
        report = replace(report, correlations=tuple(holm_adjusted(rows, omitted)))
        export.finish(lambda: jobs.results(exports))   # the run's tables first: a failure there
        _write_tables(report)
        say("report: the figures")
        pieces = [finish(jobs.results(group)) for (_, finish), group in zip(entries, figures)]
        report = replace(report, figures=tuple(f for drawn, _ in pieces for f in drawn),
                         notes=tuple(n for _, notes in pieces for n in notes) + tuple(
                             walk_notes))
    if cpu is not None:
        cpu += jobs.cpu
    environment = _read_json(run_dir / ENVIRONMENT_FILE)
    report.path.write_text(markdown(results, report, environment), encoding="utf-8")
    return report


def _statistics(results: Results) -> tuple[tuple, tuple, tuple]:
    """The regressions, the VIF table and the summaries of `results` (a piece of its own)."""
    return (tuple(regression_table(results)), tuple(vif_rows(results)),
            tuple(summary_table(results)))


def _write_tables(report: Report) -> None:
    """The statistics tables of `report` as CSV files beside it."""
    run_dir = report.path.parent
    _write_records(run_dir / CORRELATIONS_CSV, Correlation, report.correlations)
    _write_records(run_dir / REGRESSION_CSV, RegressionTerm,
                   [t for fit in report.regressions for t in fit.terms])
    _write_records(run_dir / VIF_CSV, Vif, report.vifs)
    _write_records(run_dir / SUMMARY_CSV, Summary, report.summaries)
    _write(run_dir / CHOICES_CSV, _CHOICE_HEADER, _choice_rows(report.choices))


def _figure_pieces(folder: Path, results: Results, omitted: tuple[Omitted, ...],
                   choices: tuple[ChoiceTest, ...], shown: tuple[Outcome, ...]
                   ) -> tuple[list[Entry], list[str]]:
    """Every figure as calls (function, arguments) that draw it and the function that turns
    their results into its caption and the lines about figures not drawn, in the report's
    order: scatter plots by vision (in bands of rows), the box plot, choices by mark, the walks
    of each condition; and the lines about walks not drawn (known before drawing). They read
    the run, the conditions that are no findings, the choice tests and the moves per maze, not
    the other tables (they are drawn while those are computed)."""
    s = results.settings
    no_finding = {(o.agent, o.vision) for o in omitted}
    marks = dict.fromkeys(m for m, _ in s.probes)
    walks, notes = _walk_pieces(folder, results, no_finding)
    whole = [(_box_figure, (folder, results))] + [
        (_choice_figure, (folder, mark, choices)) for mark in marks] + walks
    return ([_scatter_entry(folder, results, no_finding, shown, v) for v in s.visions]
            + [([call], _first) for call in whole]), notes


def _first(results: list[Figures]) -> Figures:
    return results[0]


def _box_figure(folder: Path, results: Results) -> Figures:
    """The box plot of the moves per trial of every condition."""
    from mazesim.experiment import figures as draw    # matplotlib: where the figures are drawn

    s = results.settings
    capped = "included" if s.include_capped else "excluded"
    t, rows = results.trials, results.condition_rows
    moves, counted = t.moves.to_numpy(), (s.include_capped | ~t.capped).to_numpy()
    groups = [(a, v, moves[rows[a, v]][counted[rows[a, v]]])
              for v in s.visions for a in s.agents if (a, v) in rows]
    groups = [g for g in groups if g[2].size]
    if not groups:
        return [], []
    return [Figure(draw.box_figure(folder / "moves-boxplot.png",
                                   f"Moves per trial (capped trials {capped}; boxes: "
                                   "quartiles, whiskers 1.5 IQR)", groups),
                   f"Moves per trial of every condition (capped trials {capped}).")], []


def _choice_figure(folder: Path, mark: str, choices: tuple[ChoiceTest, ...]) -> Figures:
    """The first departures from `mark` of every condition beside the humans'."""
    from mazesim.experiment import figures as draw

    tests = [c for c in choices if c.mark == mark and c.n]
    if not tests:
        return [], []
    path = draw.choice_figure(folder / f"choices-{mark}.png",
                              f"First departures from mark {mark}", tests)
    return [Figure(path, f"Share of first departures from mark {mark} per condition"
                   " (blue) and of the humans (orange), with 95 % Wilson intervals.")], []


def _scatter_entry(folder: Path, results: Results, no_finding: set,
                   shown: tuple[Outcome, ...], v: str) -> Entry:
    """The scatter figure of vision `v` (moves per maze against each parameter) as bands of
    agent rows, one per core, joined here; or the line why there is none."""
    s = results.settings
    mine = [o for o in shown if o.vision == v and np.isfinite(o.values).any()]
    if len(results.mazes) < 2 or not s.parameters or not mine:
        return [], lambda bands: ([], [])
    if all((o.agent, v) in no_finding for o in mine):
        return [], lambda bands: ([], [f"Vision {v}: no scatter plot; every condition is no "
                                       "finding (see Table 1)."])
    most = max(int(np.isfinite(o.values).sum()) for o in mine)
    if most < MIN_MAZES["pearson"]:
        return [], lambda bands: ([], [
            f"Vision {v}: no scatter plot; at most {most} maze{'' if most == 1 else 's'} with "
            f"moves per condition (a correlation needs {MIN_MAZES['pearson']})."])
    x = {p: results.mazes[p].to_numpy(float) for p in s.parameters}
    strata = results.mazes["stratum"].to_numpy()
    capped = "included" if s.include_capped else "excluded"
    labels = {o.agent: o.agent + (" (no finding)" if (o.agent, v) in no_finding else "")
              + (f" ({o.estimate})" if o.estimate != "mean" else "") for o in mine}
    y = {o.agent: o.values for o in mine}
    drawing = (f"Moves per maze against each parameter, vision {v}", list(y), s.parameters, x,
               y, strata, _pearson_cells(s, v, x, y, strata), labels)
    marked = [o.agent for o in mine if (o.agent, v) in no_finding]
    restricted = [o for o in mine if o.estimate != "mean"]
    caption = (f"Vision {v}: moves per maze (mean of the trials, capped trials {capped}) "
               "against each parameter, one row per agent, colours and fit lines by "
               "generator; titles: pooled Pearson r and r within generators."
               + "".join(f" {o.agent}: {o.estimate} to {o.tau:,.0f} moves."
                         for o in restricted)
               + (f" Rows of {', '.join(marked)} are no findings (see Table 1)."
                  if marked else ""))
    path = folder / f"scatter-vision-{_slug(v)}.png"
    return ([(_scatter_band, (*drawing, rows)) for rows in split(range(len(y)), cores())],
            lambda bands: ([Figure(write_bands(path, bands), caption)], []))


def _scatter_band(*drawing: Any) -> Band:
    """`figures.scatter_band` (matplotlib imported where the band is drawn)."""
    from mazesim.experiment import figures as draw

    return draw.scatter_band(*drawing)


def _pearson_cells(settings: Settings, vision: str, x: Mapping[str, np.ndarray],
                   y: Mapping[str, np.ndarray], strata: np.ndarray
                   ) -> dict[tuple[str, str, str], Correlation]:
    """Table 1's Pearson rows of the agents in `y` by (agent, parameter, stratum), for the
    scatter titles (`correlations` again: cheap without a bootstrap); none when the run asks
    for no Pearson."""
    if "pearson" not in settings.methods:
        return {}
    return {(c.agent, c.parameter, c.stratum): c for a in y
            for c in correlations(a, vision, x, y[a], ("pearson",), strata=strata)}


def _walk_pieces(folder: Path, results: Results, no_finding: set
                 ) -> tuple[list[tuple[Callable[..., Figures], tuple]], list[str]]:
    """One call per condition that is a finding with stored trials on the mazes of
    `walk_mazes` (`_walk_figures`), and the line saying which conditions have none."""
    s, t = results.settings, results.trials
    shown = walk_mazes(results.mazes.maze_id.to_numpy(), results.mazes.stratum.to_numpy())
    mine = t[t.trial_id.isin(results.sampled) & t.maze_id.isin(shown)]
    present = set(zip(mine.agent, mine.vision))
    keys = [(a, v) for v in s.visions for a in s.agents if (a, v) in present]
    skipped = [f"{a}, vision {v}" for a, v in keys if (a, v) in no_finding]
    notes = [f"No trajectories or heat maps of the conditions that are no findings (their walks "
             f"are shortest paths, or the same agent's at another vision): "
             f"{'; '.join(skipped)}."] if skipped else []
    return [(_walk_figures, (folder, results, shown, key)) for key in keys
            if key not in no_finding], notes


def _walk_figures(folder: Path, results: Results, shown: list[int], key: tuple[str, str]
                  ) -> Figures:
    """The first stored trial of condition `key` on each of the mazes `shown` in the study's
    style, and a heat map of all its stored trials on them."""
    from mazesim.experiment import figures as draw

    (a, v), t = key, results.trials
    rows = results.mazes.set_index("maze_id").loc[shown]
    mazes = [parse_maze(text) for text in rows.text]
    where = [f"maze {m} ({stratum})" for m, stratum in zip(shown, rows.stratum)]
    mine = t[t.trial_id.isin(results.sampled) & t.maze_id.isin(shown) & (t.agent == a)
             & (t.vision == v)]
    positions = results.trajectories(mine.trial_id)
    walks, firsts = [], []
    for m, label in zip(shown, where):
        here = mine[mine.maze_id == m]
        walks.append((f"{label}\n{len(here)} stored trials",
                      [positions[i] for i in here.trial_id]))
        if here.empty:
            firsts.append((f"{label}\nno stored trial", None))
            continue
        first = here.iloc[0]
        firsts.append((f"{label}\ntrial {first.trial_id}: {first.moves:,} moves"
                       + ("" if first.reached else " (not reached)"),
                       positions[int(first.trial_id)]))
    name = f"{_slug(a)}-vision-{_slug(v)}.png"
    trajectory, heat_map = folder / f"trajectories-{name}", folder / f"heatmaps-{name}"
    draw.trajectory_figures(mazes, [(trajectory, f"{a}, vision {v}: the first stored trial "
                                     "on each maze", firsts)])
    draw.heatmap_figures(mazes, [(heat_map, f"{a}, vision {v}: visits per cell over the "
                                  "stored trials", walks)])
    mazes_text = ", ".join(where)
    return [Figure(trajectory, f"{a}, vision {v}: the first stored trial on {mazes_text}: "
                   "visited cells grey, walls black."),
            Figure(heat_map, f"{a}, vision {v}: visits per cell over the stored trials on "
                   f"{mazes_text}.")], []


def walk_mazes(maze_ids: Sequence[int], strata: Sequence[str]) -> list[int]:
    """Up to `WALK_MAZES` maze ids spread over the strata: the first maze of each stratum in
    order, then the second of each, and so on."""
    by: dict[str, list[int]] = {}
    for m, stratum in zip(maze_ids, strata):
        by.setdefault(stratum, []).append(int(m))
    out: list[int] = []
    depth = 0
    while len(out) < min(WALK_MAZES, len(maze_ids)):
        out += [ids[depth] for ids in by.values() if depth < len(ids)]
        depth += 1
    return out[:WALK_MAZES]


def _choice_rows(tests: Iterable[ChoiceTest]) -> Iterable[list]:
    for t in tests:
        power = t.power
        for c in t.directions:
            yield [t.agent, t.vision, t.mark, t.n, c.direction, c.count, c.proportion, c.ci_low,
                   c.ci_high, t.human_n, c.expected_human, c.human, c.human_share,
                   c.human_ci_low, c.human_ci_high, t.test, t.fisher_p,
                   power.power if power else None, power.people_for_target if power else None]


def _write_records(path: Path, kind: type, records: Iterable[Any]) -> None:
    """Records of the data class `kind` (scalar fields) as a CSV table, a column per field
    (`attrgetter`, not `astuple`, whose deep copy is 50 times slower)."""
    names = [f.name for f in fields(kind)]
    _write(path, names, map(attrgetter(*names), records))


def _write(path: Path, header: Iterable[str], rows: Iterable[Iterable[Any]]) -> None:
    """A CSV table; missing values (None, NaN) are empty cells, flags 0 or 1."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(list(header))
        writer.writerows([_cell(v) for v in row] for row in rows)


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    return value


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(text))


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
