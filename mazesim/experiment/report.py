"""The report of a run, rebuilt from its database alone: CSV exports, statistics, figures."""

from __future__ import annotations

import csv
import json
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from mazesim.agents import parse_vision
from mazesim.experiment.figures import box_figure, choice_figure, scatter_figure
from mazesim.experiment.figures import heatmap_figure, trajectory_figure
from mazesim.experiment.statistics import (ChoiceTest, Correlation, Summary, choice_test,
                                           correlations, summary)
from mazesim.experiment.storage import RunStore
from mazesim.maze import parse_maze

__all__ = ["Report", "build_report", "REPORT", "FIGURES"]

REPORT = "report.md"
FIGURES = "figures"
_TRAJECTORY_MAZES = 1  # trajectory pictures and heat maps on the first maze only


@dataclass(frozen=True)
class Report:
    """What `build_report` computed and wrote."""

    path: Path
    correlations: tuple[Correlation, ...]
    choices: tuple[ChoiceTest, ...]
    summaries: tuple[Summary, ...]
    figures: tuple[Path, ...]


def build_report(run_dir: str | Path) -> Report:
    """Write the CSV exports, `correlations.csv`, `summary.csv`, `branch_choices.csv`,
    `figures/` and `report.md` of a run from its `results.sqlite`."""
    run_dir = Path(run_dir)
    with RunStore(run_dir) as store:
        config = store.meta("config")
        store.export_csv(run_dir)
        data = _RunData(store, config)
        figures = _figures(run_dir, store, data)
    _write_table(run_dir / "correlations.csv", data.correlations)
    _write_table(run_dir / "summary.csv", data.summaries)
    _write_choices(run_dir / "branch_choices.csv", data.choices)
    path = run_dir / REPORT
    path.write_text(_markdown(run_dir, config, data, figures), encoding="utf-8")
    return Report(path, tuple(data.correlations), tuple(data.choices), tuple(data.summaries),
                  tuple(figures))


class _RunData:
    """The tables the report needs, read once from the database."""

    def __init__(self, store: RunStore, config: dict[str, Any]) -> None:
        self.config = config
        self.agents = [a["label"] for a in config["agents"]]
        self.visions = [str(parse_vision(v)) for v in config["vision"]]
        self.mazes = store.mazes()
        ids = [m.maze_id for m in self.mazes]
        index = {m: i for i, m in enumerate(ids)}
        corr = config["analysis"]["correlations"]
        self.parameters = list(corr["parameters"])
        self.x = {p: np.array([_num(m.parameters.get(p)) for m in self.mazes])
                  for p in self.parameters}
        rows = store.query("SELECT agent, vision, maze_id, moves, reached, capped FROM trials")
        solution = self._solution_lengths()
        self.mean = {}  # (agent, vision) -> mean moves per maze (NaN where none)
        self.moves: dict[tuple[str, str], np.ndarray] = {}
        grouped: dict[tuple[str, str], list] = {}
        for agent, vision, maze_id, moves, reached, capped in rows:
            grouped.setdefault((agent, vision), []).append((maze_id, moves, reached, capped))
        self.correlations: list[Correlation] = []
        self.summaries: list[Summary] = []
        for v in self.visions:
            for a in self.agents:
                arr = np.array(grouped.get((a, v), []), dtype=np.int64).reshape(-1, 4)
                self.moves[(a, v)] = arr[:, 1]
                sums = np.bincount([index[m] for m in arr[:, 0]], arr[:, 1], len(ids))
                counts = np.bincount([index[m] for m in arr[:, 0]], minlength=len(ids))
                with np.errstate(invalid="ignore", divide="ignore"):
                    self.mean[(a, v)] = np.where(counts > 0, sums / counts, np.nan)
                self.correlations += correlations(a, v, self.x, self.mean[(a, v)], corr["methods"])
                lengths = np.array([solution.get(m, np.nan) for m in arr[:, 0]], dtype=float)
                self.summaries.append(summary(a, v, arr[:, 1], arr[:, 2].astype(bool),
                                              arr[:, 3].astype(bool), lengths))
        self.choices = self._choice_tests(store)

    def _solution_lengths(self) -> dict[int, float]:
        from mazesim.analysis import parameters

        out = {}
        for m in self.mazes:
            value = m.parameters.get("solution_length")
            if value is None:
                value = parameters(parse_maze(m.text), ["solution_length"])["solution_length"]
            out[m.maze_id] = _num(value)
        return out

    def _choice_tests(self, store: RunStore) -> list[ChoiceTest]:
        counts: dict[tuple[str, str, str], dict[str, int]] = {}
        for agent, vision, mark, direction, n in store.query(
                "SELECT agent, vision, mark, direction, COUNT(*) FROM choices WHERE first = 1 "
                "GROUP BY agent, vision, mark, direction"):
            counts.setdefault((agent, vision, mark), {})[direction] = n
        tests = []
        for probe in self.config["analysis"]["branch_choices"]:
            for v in self.visions:
                for a in self.agents:
                    tests.append(choice_test(a, v, probe["mark"],
                                             counts.get((a, v, probe["mark"]), {}),
                                             probe.get("human") or {}))
        return tests


def _figures(run_dir: Path, store: RunStore, data: _RunData) -> list[Path]:
    folder = run_dir / FIGURES
    out = []
    if len(data.mazes) >= 2 and data.parameters:
        for v in data.visions:
            pearson = {(c.agent, c.parameter): c for c in data.correlations
                       if c.vision == v and c.method == "pearson"}
            out.append(scatter_figure(folder / f"scatter-vision-{_slug(v)}.png", v, data.agents,
                                      data.parameters, data.x,
                                      {a: data.mean[(a, v)] for a in data.agents}, pearson))
    groups = [(a, v, data.moves[(a, v)]) for v in data.visions for a in data.agents
              if data.moves[(a, v)].size]
    if groups:
        out.append(box_figure(folder / "moves-boxplot.png", groups))
    for probe in data.config["analysis"]["branch_choices"]:
        tests = [t for t in data.choices if t.mark == probe["mark"] and t.n]
        if tests:
            out.append(choice_figure(folder / f"choices-{probe['mark']}.png", tests))
    out += _trajectory_pictures(folder, store, data)
    return out


def _trajectory_pictures(folder: Path, store: RunStore, data: _RunData) -> list[Path]:
    """First sampled trial per agent and vision in the study's style, and a heat map of the
    visits of all sampled trials, on the first maze(s)."""
    out = []
    for rec in data.mazes[:_TRAJECTORY_MAZES]:
        maze = parse_maze(rec.text)
        rows = store.query("SELECT t.trial_id, t.agent, t.vision FROM trials t JOIN samples s "
                           "USING (trial_id) WHERE t.maze_id = ? ORDER BY t.trial_id",
                           (rec.maze_id,))
        walks = store.samples(row[0] for row in rows)
        for v in data.visions:
            for a in data.agents:
                mine = [walks[t] for t, agent, vision in rows if (agent, vision) == (a, v)]
                if not mine:
                    continue
                name = f"maze{rec.maze_id}-{a}-vision-{_slug(v)}.png"
                out.append(trajectory_figure(folder / f"trajectory-{name}", maze, mine[0]))
                out.append(heatmap_figure(folder / f"heatmap-{name}", maze, mine))
    return out


def _markdown(run_dir: Path, config: dict, data: _RunData, figures: list[Path]) -> str:
    env = _read_json(run_dir / "environment.json")
    lines = [f"# {config['name']}: run {run_dir.name}", ""]
    if config.get("description"):
        lines += [config["description"].strip(), ""]
    trials = sum(s.trials for s in data.summaries)
    lines += [f"- mazes: {len(data.mazes)}; agents: {', '.join(data.agents)}; vision: "
              f"{', '.join(data.visions)}; trials: {trials:,}; root seed {config['seed']}",
              f"- mazesim {env.get('mazesim', '?')}, git {env.get('git_commit') or 'n/a'}, "
              f"python {env.get('python', '?')}", "",
              "Moves count every step, backtracking included; capped trials count their "
              "`max_steps`. Efficiency = solution length / moves over reached trials.", "",
              "## Moves per agent and vision", "",
              "| agent | vision | trials | mean | median | IQR | reach rate | efficiency |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {s.agent} | {s.vision} | {s.trials} | {s.mean:.1f} | {s.median:.1f} | "
              f"{s.iqr:.1f} | {s.reach_rate:.3f} | {s.efficiency:.3f} |" for s in data.summaries]
    if len(data.mazes) >= 3:
        lines += ["", "## Correlation of mean moves per maze with the parameters (Table 1)", "",
                  "Cells: r (p), n = number of mazes.", ""]
        for method in config["analysis"]["correlations"]["methods"]:
            lines += _correlation_table(data, method)
    if data.choices:
        lines += ["", "## Choices at the probe marks (Table 2)", "",
                  "First departure from the mark in each trial; 95% intervals by binomtest "
                  "(Wilson); expected = simulated share x human group size.", ""]
        for test in data.choices:
            lines += _choice_table(test)
    lines += ["", "## Figures", ""]
    lines += [f"![{p.stem}]({p.relative_to(run_dir).as_posix()})" for p in figures]
    return "\n".join(lines) + "\n"


def _correlation_table(data: _RunData, method: str) -> list[str]:
    cells = {(c.agent, c.vision, c.parameter): c for c in data.correlations if c.method == method}
    lines = [f"### {method}", "", "| agent | vision | " + " | ".join(data.parameters) + " |",
             "|---|---|" + "---:|" * len(data.parameters)]
    for v in data.visions:
        for a in data.agents:
            row = [_rp(cells.get((a, v, p))) for p in data.parameters]
            lines.append(f"| {a} | {v} | " + " | ".join(row) + " |")
    return lines + [""]


def _choice_table(test: ChoiceTest) -> list[str]:
    lines = [f"**{test.agent}, vision {test.vision}, mark {test.mark}**: {test.n} trials reached "
             f"the mark; Fisher's exact test against the humans: p = {_fmt(test.fisher_p)}", "",
             f"| direction | count | share | 95% CI | expected of {test.human_n} | humans |",
             "|---|---:|---:|---|---:|---:|"]
    for c in test.directions:
        lines.append(f"| {c.direction} | {c.count} | {100 * c.proportion:.1f}% | "
                     f"{100 * c.ci_low:.1f}-{100 * c.ci_high:.1f}% | {c.expected_human:.1f} | "
                     f"{'' if c.human is None else c.human} |")
    return lines + [""]


def _rp(c: Correlation | None) -> str:
    if c is None or not np.isfinite(c.r):
        return "n/a"
    return f"{c.r:.2f} ({_fmt(c.p)}), {c.n}"


def _fmt(p: float) -> str:
    if not np.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _write_table(path: Path, records: list) -> None:
    if not records:
        names = []
    else:
        names = [f.name for f in fields(records[0])]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(names)
        writer.writerows(astuple(r) for r in records)


def _write_choices(path: Path, tests: list[ChoiceTest]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", "vision", "mark", "n", "direction", "count", "proportion",
                         "ci_low", "ci_high", "human_n", "expected_human", "human", "fisher_p"])
        for t in tests:
            for c in t.directions:
                writer.writerow([t.agent, t.vision, t.mark, t.n, c.direction, c.count,
                                 c.proportion, c.ci_low, c.ci_high, t.human_n, c.expected_human,
                                 "" if c.human is None else c.human, t.fisher_p])


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(text))


def _num(value: Any) -> float:
    return float("nan") if value is None else float(value)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}

