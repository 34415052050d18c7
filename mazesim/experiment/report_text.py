"""The text of `report.md`: every number with its n, an interval where one applies and the
correction where many tests are made; what cannot be shown is said, not printed as NaN."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from mazesim.experiment.choices import ALPHA, TARGET_POWER, ChoiceTest
from mazesim.experiment.regression import INTERCEPT, Regression, RegressionTerm
from mazesim.experiment.results import Results
from mazesim.experiment.statistics import (ALL, BOOTSTRAP_RESAMPLES, CONFIDENCE,
                                           FISHER_MIN_MAZES, MIN_MAZES, WITHIN, Correlation,
                                           holm)
from mazesim.experiment.storage import HUMAN
from mazesim.experiment.tables import CAPPED_WARNING
from mazesim.markup import markdown_text as _md

if TYPE_CHECKING:
    from mazesim.experiment.report import Report

__all__ = ["markdown"]

SIGNIFICANCE = 0.05
"""Adjusted p below this is shown in bold."""
COLLINEAR_R = 0.5
"""Parameter pairs with a larger pooled |r| are listed."""
_WARN = "⚠"


def markdown(results: Results, report: Report, environment: dict[str, Any]) -> str:
    """The whole `report.md` of a run from its tables (`report`, figures included); names from
    the run (its name, strata, agents, visions, marks, directions) escaped (`markup`)."""
    lines = _header(results, environment) + _moves(results, report)
    lines += _strata(results) + _table_1(results, report) + _regression(results, report)
    lines += _choices(report) + _figures(results, report)
    return "\n".join(lines) + "\n"


def _header(results: Results, env: dict[str, Any]) -> list[str]:
    s, config = results.settings, results.meta.get("config") or {}
    lines = [f"# {_md(config.get('name', results.run_dir.parent.name))}: run "
             f"{_md(results.run_dir.name)}",
             ""]
    if config.get("description"):
        lines += [config["description"].strip(), ""]
    counts = results.mazes.stratum.value_counts(sort=False)
    kind = "people" if results.kind == HUMAN else "agents"
    lines += [f"- a run of {kind}; mazes: {len(results.mazes)} ("
              + ", ".join(f"{_md(k)} {n}" for k, n in counts.items()) + f"); agents: "
              f"{', '.join(map(_md, s.agents))}; vision: {', '.join(map(_md, s.visions))}; trials: "
              f"{len(results.trials):,}; root seed {s.seed}",
              f"- mazesim {env.get('mazesim', '?')}, git {env.get('git_commit') or 'n/a'}, "
              f"python {env.get('python', '?')}", "",
              "Moves count every step, backtracking included. A trial that hits `max_steps` is "
              "*capped*: its count is the cap, not a movement count. Capped trials are "
              + ("included in" if s.include_capped else "excluded from")
              + f" every mean, median and correlation (`analysis: {{capped: {s.capped}}}`); "
              f"their share is given per condition, and a condition with more than "
              f"{CAPPED_WARNING:.0%} capped is marked {_WARN}.", ""]
    return lines


def _moves(results: Results, report: Report) -> list[str]:
    lines = ["## Moves per agent and vision", "",
             f"Mean with its {CONFIDENCE:.0%} interval (Student's t, the mazes as the unit: "
             "trials on one maze are not independent draws of a maze; the trials when there is "
             "one maze). Efficiency: solution length / moves, mean over reached trials.", "",
             "| agent | vision | trials | capped | mazes | mean (95% CI) | median | IQR | "
             "reach rate | efficiency |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    flagged = []
    for x in report.summaries:
        warn = f" {_WARN}" if x.capped_share > CAPPED_WARNING else ""
        if warn:
            flagged.append(x)
        mean = "no trial counted" if not x.counted else (
            f"{x.mean:.1f}" + (f" [{x.ci_low:.1f}, {x.ci_high:.1f}]" if np.isfinite(x.ci_low)
                               else " (one trial: no interval)"))
        lines.append(f"| {x.agent} | {x.vision} | {x.trials} | {x.capped_share:.1%}{warn} | "
                     f"{x.mazes} | {mean} | {_num(x.median, 1)} | {_num(x.iqr, 1)} | "
                     f"{x.reach_rate:.3f} | {_num(x.efficiency, 3)} |")
    lines += [""] + [f"{_WARN} {x.agent}, vision {x.vision}: {x.capped_share:.1%} of "
                     f"{x.trials:,} trials capped: " + (
                         "their caps are counted as moves, so its mean is a floor."
                         if results.settings.include_capped else
                         "its mean is that of the trials that reached G in time, an estimate "
                         "biased low.") for x in flagged]
    return lines + ([""] if flagged else [])


def _strata(results: Results) -> list[str]:
    mazes, names = results.mazes, list(results.settings.parameters)
    if mazes.stratum.nunique() < 2 or not names:
        return []
    lines = ["## Mazes by generator", "",
             "Mean (SD) of each parameter. Where the generators differ this much, a correlation "
             "pooled over them mostly tells which generator made a maze (Simpson's paradox): "
             "read Table 1 by generator and `within`.", "",
             "| generator | mazes | " + " | ".join(names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for stratum, group in mazes.groupby("stratum", sort=False):
        lines.append(f"| {stratum} | {len(group)} | " + " | ".join(
            f"{group[p].mean():.1f} ({group[p].std():.1f})" for p in names) + " |")
    pairs = [(a, b, mazes[a].corr(mazes[b])) for i, a in enumerate(names) for b in names[i + 1:]]
    strong = [f"{a} ~ {b} {r:.2f}" for a, b, r in pairs if abs(r) >= COLLINEAR_R]
    if strong:
        lines += ["", f"Parameters that go together (pooled Pearson r, n = {len(mazes)} mazes, "
                  f"|r| >= {COLLINEAR_R}): " + "; ".join(strong) + "."]
    return lines + [""]


def _table_1(results: Results, report: Report) -> list[str]:
    s = results.settings
    lines = ["## Correlation of mean moves per maze with the parameters (Table 1)", ""]
    if not s.parameters:
        return lines + ["No parameters to correlate (`analysis.correlations.parameters`).", ""]
    need = (f"Fisher's z needs at least {FISHER_MIN_MAZES} mazes with a mean, Spearman's "
            f"bootstrap {MIN_MAZES['spearman']}")
    if not any(np.isfinite(c.ci_low) for c in report.correlations):
        most = int(results.maze_means.groupby(["agent", "vision"]).mean_moves.count().max()) \
            if len(results.maze_means) else 0
        return lines + [f"Too few mazes: no correlation of this run has an interval ({need}; "
                        f"this run has at most {most} per condition; r and p from "
                        f"{MIN_MAZES['pearson']} mazes on are in `correlations.csv`).", ""]
    tests = int(np.isfinite([c.p for c in report.correlations]).sum())
    lines += [f"Correlation over mazes between each parameter and the condition's mean moves "
              "per maze, in strata: each generator, `all` (pooled) and `within` (partial "
              "correlation, generator means removed). Cells: r [95% CI]; Pearson's interval by "
              f"Fisher's z, Spearman's by a bootstrap of {BOOTSTRAP_RESAMPLES:,} resamples of "
              f"the mazes within generators (seeded by the root seed). **Bold**: Holm-adjusted "
              f"p < {SIGNIFICANCE}, Holm's step-down correction over all {tests:,} tests of "
              "`correlations.csv` (both methods, every stratum and condition); p and p_adjusted "
              "are there. n: mazes.", ""]
    lines += _omitted(report)
    omitted = {(o.agent, o.vision) for o in report.omitted}
    short: dict[tuple[str, str, int], set] = {}
    for c in report.correlations:
        if not np.isfinite(c.ci_low) and (c.n < MIN_MAZES[c.method] or np.isfinite(c.r)) \
                and (c.agent, c.vision) not in omitted:
            short.setdefault((c.method, c.stratum, c.n), set()).add((c.agent, c.vision))
    for method in s.methods:
        for v in s.visions:
            rows = _table_1_rows(results, report.correlations, method, v, omitted)
            if rows:
                lines += [f"### {method}, vision {_md(v)}", "",
                          "| agent | stratum | n | capped | " + " | ".join(s.parameters) + " |",
                          "|---|---|---:|---:|" + "---:|" * len(s.parameters)] + rows + [""]
    if short:
        lines += [f"Too few mazes for an interval ({need}), not shown: " + "; ".join(
            f"{m} in {_md(st)} (n = {n}, {len(conditions)} conditions)"
            for (m, st, n), conditions in short.items()) + ".", ""]
    return lines


def _omitted(report: Report) -> list[str]:
    if not report.omitted:
        return []
    return (["Conditions where vision cannot matter are no findings and are not shown:", ""]
            + [f"- {_md(o.agent)}, vision {_md(o.vision)}: {o.reason}." for o in report.omitted]
            + [""])


def _table_1_rows(results: Results, records: Iterable[Correlation], method: str, vision: str,
                  omitted: set) -> list[str]:
    s = results.settings
    cells = {(c.agent, c.stratum, c.parameter): c for c in records
             if c.method == method and c.vision == vision}
    strata = list(dict.fromkeys(st for _, st, _ in cells))
    rows = []
    for a in s.agents:
        if (a, vision) in omitted:
            continue
        for st in strata:
            found = [cells.get((a, st, p)) for p in s.parameters]
            if not any(c is not None and np.isfinite(c.ci_low) for c in found):
                continue
            n = max(c.n for c in found if c is not None)
            share = next(c.capped_share for c in found if c is not None)
            label = f"*{st}*" if st in (ALL, WITHIN) else _md(st)
            rows.append(f"| {_md(a)} | {label} | {n} | {_share(share)} | "
                        + " | ".join(_r_cell(c, n) for c in found) + " |")
    return rows


def _r_cell(c: Correlation | None, n: int) -> str:
    if c is None or not np.isfinite(c.ci_low):
        return "n/a"
    text = f"**{c.r:.2f}**" if c.p_adjusted < SIGNIFICANCE else f"{c.r:.2f}"
    return text + f" [{c.ci_low:.2f}, {c.ci_high:.2f}]" + (f" (n = {c.n})" if c.n != n else "")


def _regression(results: Results, report: Report) -> list[str]:
    fits: list[Regression] = list(report.regressions)
    omitted = {(o.agent, o.vision) for o in report.omitted}
    shown = [f for f in fits if (f.agent, f.vision) not in omitted]
    if not shown:
        return []
    terms = [t for f in shown for t in f.terms if t.term != INTERCEPT]
    adjusted = dict(zip(map(id, terms), holm([t.p for t in terms])))
    strata = list(dict.fromkeys(results.mazes.stratum))
    lines = ["## Regression of mean moves per maze (OLS)", "",
             "Per condition: mean moves per maze on the parameters, each z-scored over the "
             "mazes (coefficient = moves per standard deviation)"
             + (f", with generator as a factor (one dummy per generator but {_md(strata[0])})"
                if len(strata) >= 2 else "")
             + f". Cells: coefficient [95% CI]; **bold**: Holm-adjusted p < {SIGNIFICANCE} over "
             f"the {len(terms)} terms shown (intercepts aside). Every term with its p and "
             "variance inflation factor is in `regression.csv`.", ""]
    fitted = [f for f in shown if f.terms]
    if not fitted:
        return lines[:2] + ["No condition could be fit: " + "; ".join(
            dict.fromkeys(f.note for f in shown)) + ".", ""]
    vif = [t for t in fitted[0].terms if t.term != INTERCEPT]
    lines += [f"Variance inflation factors (n = {fitted[0].n} mazes; above 5 a term is largely "
              "told by the others, and its coefficient is unstable): "
              + ", ".join(f"{t.term} {t.vif:.1f}" for t in vif) + ".", ""]
    for v in results.settings.visions:
        mine = [f for f in fitted if f.vision == v]
        if not mine:
            continue
        names = [t.term for t in mine[0].terms if t.term != INTERCEPT]
        lines += [f"### vision {_md(v)}", "", "| agent | n | R² | " + " | ".join(names) + " |",
                  "|---|---:|---:|" + "---:|" * len(names)]
        for f in mine:
            by = {t.term: t for t in f.terms}
            lines.append(f"| {_md(f.agent)} | {f.n} | {f.r2:.2f} | " + " | ".join(
                _coef(by[n], adjusted[id(by[n])]) if n in by else "" for n in names) + " |")
        lines.append("")
    notes = [f for f in shown if f.note]
    lines += [f"- {_md(f.agent)}, vision {_md(f.vision)}: {f.note}." for f in notes]
    return lines + ([""] if notes else [])


def _coef(t: RegressionTerm, p_adjusted: float) -> str:
    text = f"{t.coef:.1f}"
    return (f"**{text}**" if p_adjusted < SIGNIFICANCE else text) + \
        f" [{t.ci_low:.1f}, {t.ci_high:.1f}]"


def _choices(report: Report) -> list[str]:
    tests: list[ChoiceTest] = list(report.choices)
    if not tests:
        return []
    lines = ["## Choices at the probe marks (Table 2)", "",
             "First departure from the mark in each trial; 95% intervals by binomtest (Wilson)."]
    if any(t.human_n for t in tests):
        lines[-1] += (" Expected = the agent's share x the number of people. Test: "
                      "Fisher-Freeman-Halton exact test of the 2 x k table (agent, people), every "
                      "table with the same margins enumerated (Pearson's chi-square when there "
                      "are too many), so the same counts always give the same p.")
    lines.append("")
    for t in tests:
        if t.n:
            lines += _choice_block(t)
    missing = [t for t in tests if not t.n]
    if missing:
        lines += ["No trial left the mark: " + "; ".join(
            f"mark {_md(t.mark)}, {_md(t.agent)}, vision {_md(t.vision)}" for t in missing)
            + ".", ""]
    return lines


def _choice_block(t: ChoiceTest) -> list[str]:
    people = t.agent == HUMAN
    who = "people" if people else "trials"
    if t.test:
        verdict = (f"{t.test} test against the {t.human_n} people: p = {_p(t.fisher_p)}")
    elif people and not t.human_n:
        verdict = ("no test: these are the run's people, compared here with nobody (`mazesim "
                   "compare` tests them against agents)")
    else:
        verdict = f"no test: {t.note}"
    lines = [f"**{_md(t.agent)}, vision {_md(t.vision)}, mark {_md(t.mark)}**: {t.n} {who} left "
             f"the mark; {verdict}.", ""]
    if t.human_n:
        lines += [f"| direction | count | share (95% CI) | expected of {t.human_n} | people | "
                  "people's share (95% CI) |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {_md(c.direction)} | {c.count} | "
                  f"{_interval(c.proportion, c.ci_low, c.ci_high)} | {c.expected_human:.1f} | "
                  f"{'' if c.human is None else c.human} | "
                  f"{_interval(c.human_share, c.human_ci_low, c.human_ci_high)} |"
                  for c in t.directions]
    else:
        lines += ["| direction | count | share (95% CI) |", "|---|---:|---:|"]
        lines += [f"| {_md(c.direction)} | {c.count} | "
                  f"{_interval(c.proportion, c.ci_low, c.ci_high)} |" for c in t.directions]
    if t.power is not None:
        w = t.power
        needed = (f"{TARGET_POWER:.0%} power needs {w.people_for_target} people"
                  if w.people_for_target else f"{TARGET_POWER:.0%} power needs more people "
                  "than were searched")
        lines += ["", f"Power: had the {w.people} people chosen {_md(w.direction)} as often as "
                  f"this agent ({w.share:.1%}), a two-sided exact binomial test at the {ALPHA:.0%} "
                  f"level would tell them from chance ({w.chance:.0%}) with probability "
                  f"{w.power:.1%}; {needed}. With so few people a test that finds no "
                  "difference says little about agreement."]
    return lines + [""]


def _figures(results: Results, report: Report) -> list[str]:
    lines = ["## Figures", ""]
    for i, f in enumerate(report.figures, 1):
        path = f.path.relative_to(results.run_dir).as_posix()
        lines += [f"![{_md(f.caption)}]({path})", "", f"*Figure {i}. {_md(f.caption)}*", ""]
    return lines


def _interval(share: float, low: float, high: float) -> str:
    return "n/a" if not np.isfinite(share) else f"{share:.1%} [{low:.1%}, {high:.1%}]"


def _share(value: float) -> str:
    return "" if not np.isfinite(value) else f"{value:.0%}" + (
        f" {_WARN}" if value > CAPPED_WARNING else "")


def _num(value: float, digits: int) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.{digits}f}"


def _p(p: float) -> str:
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"

