"""The text of `report.md` from what `report.build_report` computed (a `Report`): a summary on
top, then the moves, the mazes, Table 1, the regression, the choices and the figures; every
number with its n, an interval where one applies and the correction where many tests are made;
what cannot be shown is said, not printed as NaN."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mazesim.experiment.censoring import RESTRICTED_MEAN
from mazesim.experiment.choices import ChoiceTest
from mazesim.experiment.regression import Regression, Vif
from mazesim.experiment.results import Results
from mazesim.experiment.statistics import CONFIDENCE, WITHIN, Correlation, Summary
from mazesim.experiment.storage import HUMAN
from mazesim.experiment.tables import CAPPED_WARNING, Omitted
from mazesim.experiment.tables_text import (SIGNIFICANCE, WARN, choices_section, count,
                                            estimate_text, number, p_text, regression_section,
                                            table_1)
from mazesim.markup import markdown_text as _md
from mazesim.markup import table_rule

__all__ = ["COLLINEAR_R", "COLLINEAR_MAZES", "Figure", "Report", "markdown"]

COLLINEAR_R = 0.5
"""Parameter pairs with a larger pooled |r| are listed ..."""
COLLINEAR_MAZES = 10
"""... in a run of at least this many mazes (with fewer, any two parameters go together)."""
_STRONGEST = 3   # correlations named in the summary, per vision


@dataclass(frozen=True)
class Figure:
    """A figure of the report and its one-line caption."""

    path: Path
    caption: str


@dataclass(frozen=True, eq=False)
class Report:
    """What `report.build_report` computed and wrote (`path` is `report.md`); `notes` are the
    lines of the Figures section about figures not drawn."""

    path: Path
    correlations: tuple[Correlation, ...]
    regressions: tuple[Regression, ...]
    vifs: tuple[Vif, ...]
    choices: tuple[ChoiceTest, ...]
    summaries: tuple[Summary, ...]
    omitted: tuple[Omitted, ...]
    figures: tuple[Figure, ...]
    notes: tuple[str, ...] = ()


def markdown(results: Results, report: Report, environment: dict[str, Any]) -> str:
    """The whole `report.md` of a run from its tables (`report`, figures included)."""
    s = results.settings
    means = results.maze_means
    most = int(means.groupby(["agent", "vision"]).mean_moves.count().max()) if len(means) else 0
    lines = (_title(results) + _summary(results, report, environment) + _conventions(results)
             + _moves(results, report) + _strata(results)
             + table_1(s, report.correlations, report.omitted, most)
             + regression_section(s, list(dict.fromkeys(results.mazes.stratum)),
                                  report.regressions, report.vifs, report.omitted)
             + choices_section(report.choices) + _figures(results, report))
    return "\n".join(lines) + "\n"


def _title(results: Results) -> list[str]:
    config = results.meta.get("config") or {}
    name = config.get("name", results.run_dir.parent.name)
    lines = [f"# {_md(name)}: run {_md(results.run_dir.name)}",
             ""]
    if config.get("description"):
        lines += [config["description"].strip(), ""]
    return lines


def _summary(results: Results, report: Report, env: dict[str, Any]) -> list[str]:
    """What was run, the main numbers and what is flagged, in a few bullets."""
    s = results.settings
    counts = results.mazes.stratum.value_counts(sort=False)
    kind = "people" if results.kind == HUMAN else "agents"
    mazes = count(len(results.mazes), "maze") + (
        " (" + ", ".join(f"{k} {n:,}" for k, n in counts.items()) + ")" if len(counts) else "")
    who = ("" if results.kind == HUMAN else
           f"{count(len(s.agents), 'agent')} ({', '.join(map(_md, s.agents))}); ")
    lines = ["## Summary", "",
             f"- **Run**: a run of {kind}; {mazes}; {who}vision {', '.join(map(_md, s.visions))}; "
             f"{count(len(results.trials), 'trial')}; root seed {s.seed}; mazesim "
             f"{env.get('mazesim', '?')}, git {env.get('git_commit') or 'n/a'}, python "
             f"{env.get('python', '?')}."]
    skip = {(o.agent, o.vision) for o in report.omitted}
    for v in s.visions:
        shown = [x for x in report.summaries if x.vision == v and x.counted
                 and (x.agent, x.vision) not in skip]
        if shown:
            low, high = min(shown, key=lambda x: x.mean), max(shown, key=lambda x: x.mean)
            spread = (f"{_mean(low)} ({_md(low.agent)})" if low is high else
                      f"from {_mean(low)} ({_md(low.agent)}) to {_mean(high)} ({_md(high.agent)})")
            lines.append(f"- **Moves, vision {_md(v)}** (mean [95% interval]): {spread}.")
    lines += _summary_table_1(results, report)
    flagged = [x for x in report.summaries if x.capped_share > CAPPED_WARNING]
    lines += [f"- **{WARN} Capped**: {_md(x.agent)}, vision {_md(x.vision)}: "
              f"{x.capped_share:.1%} of "
              f"{count(x.trials, 'trial')} hit `max_steps`"
              + ("" if s.include_capped else
                 f"; Table 1 and the regression use its {RESTRICTED_MEAN} to {x.tau:,.0f} "
                 "moves") + "." for x in flagged]
    if report.omitted:
        lines.append(f"- **No findings**: {count(len(report.omitted), 'condition')} where "
                     "vision cannot matter (listed under Table 1): "
                     + "; ".join(f"{_md(o.agent)}, vision {_md(o.vision)}"
                                 for o in report.omitted) + ".")
    for t in report.choices:
        if t.test and t.power is not None:
            top = next(c for c in t.directions if c.direction == t.power.direction)
            lines.append(f"- **Mark {_md(t.mark)}, {_md(t.agent)}, vision {_md(t.vision)}**: "
                         f"{_md(top.direction)} {top.proportion:.1%} of {t.n:,} trials against "
                         f"{top.human or 0} of {t.human_n} people; {t.test} p = "
                         f"{p_text(t.fisher_p)}; the people's power to tell "
                         f"{t.power.share:.0%} from chance: {t.power.power:.0%}.")
    return lines + [""]


def _summary_table_1(results: Results, report: Report) -> list[str]:
    """How many tests of Table 1's family hold after Holm, and the strongest within
    generators (pooled when there are none) at each vision."""
    family = [c for c in report.correlations if np.isfinite(c.p_adjusted)]
    if not family:
        return []
    held = [c for c in family if c.p_adjusted < SIGNIFICANCE]
    lines = [f"- **Table 1**: {len(held):,} of {count(len(family), 'test')} in Holm's family "
             f"have an adjusted p < {SIGNIFICANCE}."]
    strata = {c.stratum for c in family}
    stratum = WITHIN if WITHIN in strata else "all"
    method = results.settings.methods[0]
    for v in results.settings.visions:
        mine = sorted((c for c in held if c.vision == v and c.stratum == stratum
                       and c.method == method), key=lambda c: -abs(c.r))[:_STRONGEST]
        if mine:
            strongest = "; ".join(
                f"{_md(c.agent)} ~ {_md(c.parameter)} {c.r:.2f} [{c.ci_low:.2f}, "
                f"{c.ci_high:.2f}]" + estimate_text(c.estimate, c.tau, ", ") for c in mine)
            lines.append(f"- **Strongest {method} r {_md(stratum)}, vision {_md(v)}**: "
                         f"{strongest} (n = {mine[0].n} mazes).")
    return lines


def _mean(x: Summary) -> str:
    interval = (f" [{x.ci_low:,.1f}, {x.ci_high:,.1f}]" if np.isfinite(x.ci_low) else "")
    return f"{x.mean:,.1f}{interval}"


def _conventions(results: Results) -> list[str]:
    s = results.settings
    return ["Moves count every step, backtracking included. A trial that hits `max_steps` is "
            "*capped*: its count is the cap, not a movement count. Capped trials are "
            + ("included in" if s.include_capped else "excluded from")
            + f" every mean and median (`analysis: {{capped: {s.capped}}}`); their share is "
            f"given per condition, and a condition with more than {CAPPED_WARNING:.0%} capped "
            f"is marked {WARN}" + ("." if s.include_capped else
                                   f": its moves per maze in Table 1, the regression and the "
                                   f"scatter plots are their {RESTRICTED_MEAN} (below)."), ""]


def _moves(results: Results, report: Report) -> list[str]:
    lines = ["## Moves per agent and vision", "",
             f"Mean with its {CONFIDENCE:.0%} interval: the mean of the per-maze means and "
             "Student's t over them (the mazes are the unit: trials on one maze are not "
             "independent draws of a maze; the trials when there is one maze). Efficiency: "
             "solution length / moves, mean over reached trials.", "",
             "| agent | vision | trials | capped | mazes | mean (95% CI) | median | IQR | "
             "reach rate | efficiency |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    flagged = []
    for x in report.summaries:
        warn = f" {WARN}" if x.capped_share > CAPPED_WARNING else ""
        if warn:
            flagged.append(x)
        mean = "no trial counted" if not x.counted else (
            _mean(x) if np.isfinite(x.ci_low) else f"{x.mean:,.1f} (one trial: no interval)")
        lines.append(f"| {_md(x.agent)} | {_md(x.vision)} | {x.trials:,} | "
                     f"{x.capped_share:.1%}{warn} | "
                     f"{x.mazes:,} | {mean} | {number(x.median, 1)} | {number(x.iqr, 1)} | "
                     f"{x.reach_rate:.3f} | {number(x.efficiency, 3)} |")
    lines.append("")
    for x in flagged:
        lines.append(f"{WARN} {_md(x.agent)}, vision {_md(x.vision)}: {x.capped_share:.1%} of "
                     f"{count(x.trials, 'trial')} capped: " + (
                         "their caps are counted as moves, so its mean is a floor."
                         if results.settings.include_capped else
                         "its mean is that of the trials that reached G in time, an estimate "
                         "biased low. Censoring-aware instead: its restricted mean to "
                         f"tau = {x.tau:,.0f} moves (the smallest cap it hit), E[min(moves, "
                         "tau)] per maze (the Kaplan-Meier estimate: no trial is censored "
                         f"before tau), is {_restricted(x)} over its mazes; Table 1, the "
                         "regression and the scatter plots use it."))
        lines.append("")
    return lines


def _restricted(x: Summary) -> str:
    interval = (f" [{x.restricted_ci_low:,.1f}, {x.restricted_ci_high:,.1f}]"
                if np.isfinite(x.restricted_ci_low) else "")
    return f"{x.restricted_mean:,.1f}{interval}"


def _strata(results: Results) -> list[str]:
    mazes, names = results.mazes, list(results.settings.parameters)
    if mazes.stratum.nunique() < 2 or not names:
        return []
    lines = ["## Mazes by generator", "",
             "Mean (SD) of each parameter (one maze: its value). Where the generators differ "
             "this much, a correlation pooled over them mostly tells which generator made a "
             "maze (Simpson's paradox): read Table 1 by generator and `within`.", "",
             "| generator | mazes | " + " | ".join(names) + " |",
             table_rule("lr" + "r" * len(names))]
    for stratum, group in mazes.groupby("stratum", sort=False):
        lines.append(f"| {_md(stratum)} | {len(group):,} | " + " | ".join(
            _mean_sd(group[p].to_numpy(float)) for p in names) + " |")
    pairs = [(a, b, mazes[a].corr(mazes[b])) for i, a in enumerate(names) for b in names[i + 1:]]
    strong = [f"{_md(a)} ~ {_md(b)} {r:.2f}" for a, b, r in pairs
              if abs(r) >= COLLINEAR_R and len(mazes) >= COLLINEAR_MAZES]
    if strong:
        lines += ["", f"Parameters that go together (pooled Pearson r, n = {len(mazes):,} "
                  f"mazes, |r| >= {COLLINEAR_R}): " + "; ".join(strong) + "."]
    return lines + [""]


def _mean_sd(values: np.ndarray) -> str:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return "n/a"
    if values.size == 1:
        return f"{values[0]:,.1f}"
    return f"{values.mean():,.1f} ({values.std(ddof=1):,.1f})"


def _figures(results: Results, report: Report) -> list[str]:
    lines = ["## Figures", ""] + [f"- {note}" for note in report.notes]
    if report.notes:
        lines.append("")
    for i, f in enumerate(report.figures, 1):
        path = f.path.relative_to(results.run_dir).as_posix()
        lines += [f"![{_md(f.caption)}]({path})", "", f"*Figure {i}. {_md(f.caption)}*", ""]
    return lines
