"""The report of a run, rebuilt from its database alone: CSV exports, statistics, figures and
`report.md` (its text is `mazesim.experiment.report_text`).

Every table is a function of the database and the stored config (the bootstrap is seeded by the
run's root seed), so two reports of one run are byte-identical.
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from mazesim import csvfile
from mazesim.experiment.background import Background
from mazesim.experiment.choices import ChoiceTest
from mazesim.experiment.regression import Regression, RegressionTerm
from mazesim.experiment.results import Results, Settings, read_run
from mazesim.experiment.statistics import Correlation, Summary, correlations
from mazesim.experiment.storage import RunStore
from mazesim.experiment.tables import (Omitted, choice_tests, correlation_table,
                                       omitted_conditions, regression_table, summary_table)
from mazesim.maze import parse_maze

__all__ = ["REPORT", "FIGURES", "CORRELATIONS_CSV", "REGRESSION_CSV", "SUMMARY_CSV",
           "CHOICES_CSV", "Figure", "Report", "build_report"]

REPORT = "report.md"
FIGURES = "figures"
CORRELATIONS_CSV, REGRESSION_CSV = "correlations.csv", "regression.csv"
SUMMARY_CSV, CHOICES_CSV = "summary.csv", "branch_choices.csv"
_TRAJECTORY_MAZES = 1  # trajectory pictures and heat maps on the first maze only
_CHOICE_HEADER = ("agent", "vision", "mark", "n", "direction", "count", "proportion", "ci_low",
                  "ci_high", "human_n", "expected_human", "human", "human_share",
                  "human_ci_low", "human_ci_high", "test", "p", "power", "people_for_80")


@dataclass(frozen=True)
class Figure:
    """A figure of the report and its one-line caption."""

    path: Path
    caption: str


@dataclass(frozen=True, eq=False)
class Report:
    """What `build_report` computed and wrote (`path` is `report.md`)."""

    path: Path
    correlations: tuple[Correlation, ...]
    regressions: tuple[Regression, ...]
    choices: tuple[ChoiceTest, ...]
    summaries: tuple[Summary, ...]
    omitted: tuple[Omitted, ...]
    figures: tuple[Figure, ...]


def build_report(run_dir: str | Path) -> Report:
    """Write `mazes.csv`, `trials.csv`, `choices.csv`, `correlations.csv`, `regression.csv`,
    `summary.csv`, `branch_choices.csv`, `figures/` and `report.md` of a run.

    The figures are drawn in a forked process (`background.Background`) while this one
    computes and writes the tables."""
    from mazesim.experiment.report_text import markdown

    run_dir = Path(run_dir)
    with RunStore(run_dir) as store:                     # checks the run before writing to it
        results = read_run(store)
        omitted, choices = tuple(omitted_conditions(results)), tuple(choice_tests(results))
        with Background(_figures, run_dir / FIGURES, results, omitted, choices) as figures:
            report = replace(_tables(store, results, omitted, choices),
                             figures=tuple(figures.result()))
    environment = _read_json(run_dir / "environment.json")
    report.path.write_text(markdown(results, report, environment), encoding="utf-8")
    return report


def _tables(store: RunStore, results: Results, omitted: tuple[Omitted, ...],
            choices: tuple[ChoiceTest, ...]) -> Report:
    """The CSV exports and the tables, written; the report without its figures."""
    run_dir = store.run_dir
    store.export_csv(run_dir)
    report = Report(run_dir / REPORT, tuple(correlation_table(results)),
                    tuple(regression_table(results)), choices, tuple(summary_table(results)),
                    omitted, ())
    _write(run_dir / CORRELATIONS_CSV, [f.name for f in fields(Correlation)],
           map(astuple, report.correlations))
    _write(run_dir / REGRESSION_CSV, [f.name for f in fields(RegressionTerm)],
           (astuple(t) for fit in report.regressions for t in fit.terms))
    _write(run_dir / SUMMARY_CSV, [f.name for f in fields(Summary)],
           map(astuple, report.summaries))
    _write(run_dir / CHOICES_CSV, _CHOICE_HEADER, _choice_rows(report.choices))
    return report


def _figures(folder: Path, results: Results, omitted: tuple[Omitted, ...],
             choices: tuple[ChoiceTest, ...]) -> list[Figure]:
    """Every figure with its caption, from the run, the conditions that are no findings and the
    choice tests (not from the other tables: the figures are drawn while they are computed)."""
    from mazesim.experiment import figures as draw    # matplotlib: where the figures are drawn

    s = results.settings
    out = []
    means = results.maze_means
    x = {p: results.mazes[p].to_numpy(float) for p in s.parameters}
    strata = results.mazes["stratum"].to_numpy()
    no_finding = {(o.agent, o.vision) for o in omitted}
    capped = "included" if s.include_capped else "excluded"
    for v in s.visions:
        agents = [a for a in s.agents if not means[(means.agent == a) & (means.vision == v)]
                  .mean_moves.dropna().empty]
        if len(results.mazes) < 2 or not s.parameters or not agents:
            continue
        y = {a: results.mazes["maze_id"].map(means[(means.agent == a) & (means.vision == v)]
                                             .set_index("maze_id").mean_moves).to_numpy(float)
             for a in agents}
        marked = [a for a in agents if (a, v) in no_finding]
        path = draw.scatter_figure(folder / f"scatter-vision-{_slug(v)}.png",
                                   f"Mean moves per maze against each parameter, vision {v}",
                                   agents, s.parameters, x, y, strata,
                                   _pearson_cells(s, v, x, y, strata),
                                   {a: f"{a} (no finding)" for a in marked})
        out.append(Figure(path, f"Vision {v}: mean moves per maze (capped trials {capped}) "
                          "against each parameter, one row per agent, colours and fit lines by "
                          "generator; titles: pooled Pearson r and r within generators."
                          + (f" Rows of {', '.join(marked)} are no findings (see Table 1)."
                             if marked else "")))
    t, rows = results.trials, results.condition_rows
    moves, counted = t.moves.to_numpy(), (s.include_capped | ~t.capped).to_numpy()
    groups = [(a, v, moves[rows[a, v]][counted[rows[a, v]]])
              for v in s.visions for a in s.agents if (a, v) in rows]
    groups = [g for g in groups if g[2].size]
    if groups:
        out.append(Figure(draw.box_figure(folder / "moves-boxplot.png",
                                          f"Moves per trial (capped trials {capped}; boxes: "
                                          "quartiles, whiskers 1.5 IQR)", groups),
                          f"Moves per trial of every condition (capped trials {capped})."))
    for mark in dict.fromkeys(m for m, _ in s.probes):
        tests = [c for c in choices if c.mark == mark and c.n]
        if tests:
            path = draw.choice_figure(folder / f"choices-{mark}.png",
                                      f"First departures from mark {mark}", tests)
            out.append(Figure(path, f"Share of first departures from mark {mark} per condition"
                              " (blue) and of the humans (orange), with 95 % Wilson intervals."))
    return out + _walk_figures(folder, results)


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


def _walk_figures(folder: Path, results: Results) -> list[Figure]:
    """The first stored trial of every condition in the study's style, and a heat map of all
    its stored trials, on the first maze(s)."""
    from mazesim.experiment import figures as draw

    s, t = results.settings, results.trials
    stored = t[t.trial_id.isin(results.sampled)]
    shown = results.mazes.head(_TRAJECTORY_MAZES)
    positions = results.trajectories(stored.trial_id[stored.maze_id.isin(shown.maze_id)])
    out = []
    for _, maze_row in shown.iterrows():
        maze, m = parse_maze(maze_row.text), int(maze_row.maze_id)
        where = f"maze {m} ({maze_row.stratum})"
        trials, heat_maps = [], []
        for v in s.visions:
            for a in s.agents:
                mine = stored[(stored.maze_id == m) & (stored.agent == a) & (stored.vision == v)]
                if mine.empty:
                    continue
                walks = [positions[i] for i in mine.trial_id]
                first = mine.iloc[0]
                name = f"maze{m}-{_slug(a)}-vision-{_slug(v)}.png"
                trajectory, heat_map = folder / f"trajectory-{name}", folder / f"heatmap-{name}"
                trials.append((trajectory, f"{where}, {a}, vision {v}, trial {first.trial_id}: "
                               f"{first.moves} moves" + ("" if first.reached else " (not reached)"),
                               walks[0]))
                heat_maps.append((heat_map, f"{where}, {a}, vision {v}: visits of {len(walks)} "
                                  "stored trials", walks))
                out += [Figure(trajectory, f"Trial {first.trial_id} ({a}, vision {v}) on {where}: "
                               "visited cells grey, walls black."),
                        Figure(heat_map, f"Visits per cell over the {len(walks)} stored trials of "
                               f"{a}, vision {v}, on {where}.")]
        if trials:
            draw.trajectory_figures(maze, trials)
            draw.heatmap_figures(maze, heat_maps)
    return out


def _choice_rows(tests: Iterable[ChoiceTest]) -> Iterable[list]:
    for t in tests:
        power = t.power
        for c in t.directions:
            yield [t.agent, t.vision, t.mark, t.n, c.direction, c.count, c.proportion, c.ci_low,
                   c.ci_high, t.human_n, c.expected_human, c.human, c.human_share,
                   c.human_ci_low, c.human_ci_high, t.test, t.fisher_p,
                   power.power if power else None, power.people_for_target if power else None]


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
