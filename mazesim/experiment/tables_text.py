"""The text of the report's tables: Table 1, the regression and the choices at the marks (Table 2),
each a list of Markdown lines from its records; what cannot be shown is said, not printed as NaN.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from mazesim.experiment.censoring import RESTRICTED_MEAN
from mazesim.experiment.choices import ALPHA, TARGET_POWER, ChoiceTest
from mazesim.experiment.regression import INTERCEPT, Regression, RegressionTerm, Vif
from mazesim.experiment.statistics import (ALL, BOOTSTRAP_RESAMPLES, FISHER_MIN_MAZES,
                                           MIN_MAZES, WITHIN, Correlation, holm)
from mazesim.experiment.storage import HUMAN
from mazesim.experiment.tables import CAPPED_WARNING, Omitted
from mazesim.markup import markdown_text as _md
from mazesim.markup import table_rule

__all__ = ["SIGNIFICANCE", "WARN", "table_1", "regression_section", "choices_section",
           "estimate_text", "count", "number", "share_cell", "p_text"]

SIGNIFICANCE = 0.05
"""Adjusted p below this is shown in bold."""
WARN = "⚠"
_ERRORS = {"hc3": "heteroscedasticity-robust (HC3) standard errors",
           "nonrobust": "classical OLS standard errors (`analysis.regression.errors: "
                        "nonrobust`)"}
_VIF_HIGH = 5   # above this a term is largely told by the others


def table_1(settings: Any, correlations: Sequence[Correlation], omitted: Sequence[Omitted],
            most_mazes: int) -> list[str]:
    """The Table 1 section: an intro, the conditions that are no findings, a table per method
    and vision, and the cells too small for an interval (`most_mazes`: the most mazes with a
    mean of any condition)."""
    s = settings
    lines = ["## Correlation of moves per maze with the parameters (Table 1)", ""]
    if not s.parameters:
        return lines + ["No parameters to correlate (`analysis.correlations.parameters`).", ""]
    need = (f"Fisher's z needs at least {FISHER_MIN_MAZES} mazes with a mean, Spearman's "
            f"bootstrap {MIN_MAZES['spearman']}")
    if not any(np.isfinite(c.ci_low) for c in correlations):
        return lines + [f"Too few mazes: no correlation of this run has an interval ({need}; "
                        f"this run has at most {count(most_mazes, 'maze')} per condition; r "
                        f"and p from {MIN_MAZES['pearson']} mazes on are in "
                        "`correlations.csv`).", ""]
    tests = int(np.isfinite([c.p_adjusted for c in correlations]).sum())
    left = int(sum(np.isfinite(c.p) and not np.isfinite(c.p_adjusted) for c in correlations))
    family = (f"over the {tests:,} tests of the conditions that are findings (both methods, "
              "every stratum"
              + (f"; the {left:,} tests of the conditions below that are no findings are not "
                 "in the family and have no p_adjusted" if left else "") + ")")
    lines += ["Correlation over mazes between each parameter and the condition's moves per "
              "maze (the mean of its counted trials; for a condition with more than "
              f"{CAPPED_WARNING:.0%} of its trials capped, their restricted mean: see "
              "Moves), in strata: each generator, `all` (pooled) and `within` (partial "
              "correlation, generator means removed). Cells: r [95% CI]; Pearson's interval "
              f"by Fisher's z, Spearman's by a bootstrap of {BOOTSTRAP_RESAMPLES:,} resamples "
              "of the mazes within generators (seeded by the root seed). **Bold**: "
              f"Holm-adjusted p < {SIGNIFICANCE}, Holm's step-down correction {family}; p and "
              "p_adjusted are in `correlations.csv`, with the estimate each row used. n: "
              "mazes.", ""]
    lines += _omitted(omitted)
    skip = {(o.agent, o.vision) for o in omitted}
    short: dict[tuple[str, str, int], set] = {}
    for c in correlations:
        if not np.isfinite(c.ci_low) and (c.n < MIN_MAZES[c.method] or np.isfinite(c.r)) \
                and (c.agent, c.vision) not in skip:
            short.setdefault((c.method, c.stratum, c.n), set()).add((c.agent, c.vision))
    for method in s.methods:
        for v in s.visions:
            rows = _table_1_rows(s, correlations, method, v, skip)
            if rows:
                lines += [f"### {method}, vision {_md(v)}", "",
                          "| agent | stratum | n | capped | " + " | ".join(s.parameters) + " |",
                          table_rule("llrr" + "r" * len(s.parameters))] + rows + [""]
    if short:
        lines += [f"Too few mazes for an interval ({need}), not shown: " + "; ".join(
            f"{m} in {_md(st)} (n = {n}, {count(len(conditions), 'condition')})"
            for (m, st, n), conditions in short.items()) + ".", ""]
    return lines


def _omitted(omitted: Sequence[Omitted]) -> list[str]:
    if not omitted:
        return []
    return (["Conditions where vision cannot matter are no findings and are not shown:", ""]
            + [f"- {_md(o.agent)}, vision {_md(o.vision)}: {o.reason}." for o in omitted] + [""])


def _table_1_rows(settings: Any, records: Iterable[Correlation], method: str, vision: str,
                  omitted: set) -> list[str]:
    cells = {(c.agent, c.stratum, c.parameter): c for c in records
             if c.method == method and c.vision == vision}
    strata = list(dict.fromkeys(st for _, st, _ in cells))
    rows = []
    for a in settings.agents:
        if (a, vision) in omitted:
            continue
        for st in strata:
            found = [cells.get((a, st, p)) for p in settings.parameters]
            present = [c for c in found if c is not None]
            if not any(np.isfinite(c.ci_low) for c in present):
                continue
            n = max(c.n for c in present)
            first = present[0]
            capped = share_cell(first.capped_share) + estimate_text(first.estimate, first.tau,
                                                                    ", ")
            label = f"*{st}*" if st in (ALL, WITHIN) else _md(st)
            rows.append(f"| {_md(a)} | {label} | {n} | {capped} | "
                        + " | ".join(_r_cell(c, n) for c in found) + " |")
    return rows


def _r_cell(c: Correlation | None, n: int) -> str:
    if c is None or not np.isfinite(c.ci_low):
        return "n/a"
    text = f"**{c.r:.2f}**" if c.p_adjusted < SIGNIFICANCE else f"{c.r:.2f}"
    return text + f" [{c.ci_low:.2f}, {c.ci_high:.2f}]" + (f" (n = {c.n})" if c.n != n else "")


def regression_section(settings: Any, strata: Sequence[str], fits: Sequence[Regression],
                       vifs: Sequence[Vif], omitted: Sequence[Omitted]) -> list[str]:
    """The regression section: an intro, the variance inflation factors (with the generator
    dummies and within each generator), a table per vision, the notes of conditions not fit."""
    skip = {(o.agent, o.vision) for o in omitted}
    shown = [f for f in fits if (f.agent, f.vision) not in skip]
    if not shown:
        return []
    terms = [t for f in shown for t in f.terms if t.term != INTERCEPT]
    adjusted = dict(zip(map(id, terms), holm([t.p for t in terms])))
    lines = ["## Regression of moves per maze (OLS)", "",
             "Per condition: its moves per maze (as in Table 1) on the parameters, each "
             "z-scored over the mazes (coefficient = moves per standard deviation)"
             + (f", with generator as a factor (one dummy per generator but {_md(strata[0])})"
                if len(strata) >= 2 else "")
             + f"; {_ERRORS[settings.errors]}. Cells: coefficient [95% CI]; **bold**: "
             f"Holm-adjusted p < {SIGNIFICANCE} over the {len(terms)} terms shown (intercepts "
             "aside). Every term with its p, standard error and variance inflation factor is "
             "in `regression.csv`.", ""]
    fitted = [f for f in shown if f.terms]
    if not fitted:
        return lines[:2] + ["No condition could be fit: " + "; ".join(
            dict.fromkeys(f.note for f in shown)) + ".", ""]
    lines += _vif_lines(vifs)
    for v in settings.visions:
        mine = [f for f in fitted if f.vision == v]
        if not mine:
            continue
        names = [t.term for t in mine[0].terms if t.term != INTERCEPT]
        lines += [f"### vision {_md(v)}", "", "| agent | n | R² | " + " | ".join(names) + " |",
                  table_rule("lrr" + "r" * len(names))]
        for f in mine:
            by = {t.term: t for t in f.terms}
            first = f.terms[0]
            lines.append(f"| {_md(f.agent)}{estimate_text(first.estimate, first.tau, ', ')} | "
                         f"{f.n} | {f.r2:.2f} | " + " | ".join(
                             _coef(by[n], adjusted[id(by[n])]) if n in by else ""
                             for n in names) + " |")
        lines.append("")
    notes = [f for f in shown if f.note]
    lines += [f"- {_md(f.agent)}, vision {_md(f.vision)}: {f.note}." for f in notes]
    return lines + ([""] if notes else [])


def _vif_lines(vifs: Sequence[Vif]) -> list[str]:
    """The variance inflation factors as a table: one row per term, a column per stratum."""
    if not vifs:
        return []
    strata = list(dict.fromkeys(v.stratum for v in vifs))
    sizes = {v.stratum: v.n for v in vifs}
    cells = {(v.term, v.stratum): v.vif for v in vifs}
    terms = list(dict.fromkeys(v.term for v in vifs))
    names = {ALL: "with the generator dummies" if len(strata) > 1 else "all mazes",
             WITHIN: "within generators"}
    heads = [_md(names.get(st, st)) + f" (n = {sizes[st]})" for st in strata]
    lines = [f"Variance inflation factors of the parameters (above {_VIF_HIGH} a term is "
             "largely told by the others, and its coefficient is unstable)"
             + (": in the regression, where the parameters that tell the generators apart "
                "are inflated by the generator dummies; of the parameters with each "
                "generator's mean removed (within); and among the mazes of each generator"
                if len(strata) > 1 else "") + ".", "",
             "| parameter | " + " | ".join(heads) + " |", table_rule("l" + "r" * len(strata))]
    lines += [f"| {t} | " + " | ".join(number(cells.get((t, st), np.nan), 1) for st in strata)
              + " |" for t in terms]
    return lines + [""]


def _coef(t: RegressionTerm, p_adjusted: float) -> str:
    text = f"{t.coef:.1f}"
    return (f"**{text}**" if p_adjusted < SIGNIFICANCE else text) + \
        f" [{t.ci_low:.1f}, {t.ci_high:.1f}]"


def choices_section(tests: Sequence[ChoiceTest]) -> list[str]:
    """The choices at the probe marks (Table 2): a block per condition that left a mark."""
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
            f"mark {_md(t.mark)}, {_md(t.agent)}, vision {_md(t.vision)}"
            for t in missing) + ".", ""]
    return lines


def _choice_block(t: ChoiceTest) -> list[str]:
    people = t.agent == HUMAN
    who = "people" if people else "trials"
    if t.test:
        verdict = (f"{t.test} test against the {t.human_n} people: p = {p_text(t.fisher_p)}")
    elif people and not t.human_n:
        verdict = ("no test: these are the run's people, compared here with nobody (`mazesim "
                   "compare` tests them against agents)")
    else:
        verdict = f"no test: {t.note}"
    lines = [f"**{_md(t.agent)}, vision {_md(t.vision)}, mark {_md(t.mark)}**: "
             f"{t.n:,} {who} left the mark; "
             f"{verdict}.", ""]
    if t.human_n:
        lines += [f"| direction | count | share (95% CI) | expected of {t.human_n} | people | "
                  "people's share (95% CI) |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {_md(c.direction)} | {c.count:,} | "
                  f"{_interval(c.proportion, c.ci_low, c.ci_high)} | {c.expected_human:.1f} | "
                  f"{'' if c.human is None else c.human} | "
                  f"{_interval(c.human_share, c.human_ci_low, c.human_ci_high)} |"
                  for c in t.directions]
    else:
        lines += ["| direction | count | share (95% CI) |", "|---|---:|---:|"]
        lines += [f"| {_md(c.direction)} | {c.count:,} | "
                  f"{_interval(c.proportion, c.ci_low, c.ci_high)} |" for c in t.directions]
    if t.power is not None:
        w = t.power
        needed = (f"{TARGET_POWER:.0%} power needs {w.people_for_target:,} people"
                  if w.people_for_target else f"{TARGET_POWER:.0%} power needs more people "
                  "than were searched")
        lines += ["", f"Power: had the {w.people} people chosen {_md(w.direction)} as often as "
                  "this "
                  f"agent ({w.share:.1%}), a two-sided exact binomial test at the {ALPHA:.0%} "
                  f"level would tell them from chance ({w.chance:.0%}) with probability "
                  f"{w.power:.1%}; {needed}. With so few people a test that finds no "
                  "difference says little about agreement."]
    return lines + [""]


def estimate_text(estimate: str, tau: float, prefix: str = "") -> str:
    """"" for a mean, else `prefix` and "restricted mean to N moves"."""
    if estimate != RESTRICTED_MEAN:
        return ""
    return f"{prefix}{RESTRICTED_MEAN} to {tau:,.0f} moves"


def count(n: int, noun: str) -> str:
    """"1 maze", "2 mazes", "30,000 trials"."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def number(value: float, digits: int) -> str:
    """`value` with `digits` decimals and thousands separators; "n/a" when not finite."""
    return "n/a" if not np.isfinite(value) else f"{value:,.{digits}f}"


def share_cell(value: float) -> str:
    """A share as a percentage, flagged above `CAPPED_WARNING`; empty when unknown."""
    return "" if not np.isfinite(value) else f"{value:.0%}" + (
        f" {WARN}" if value > CAPPED_WARNING else "")


def p_text(p: float) -> str:
    """A p-value with three decimals ("< 0.001" below); "n/a" when not finite."""
    if not np.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _interval(share: float, low: float, high: float) -> str:
    return "n/a" if not np.isfinite(share) else f"{share:.1%} [{low:.1%}, {high:.1%}]"
