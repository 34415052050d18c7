"""The generated blocks of this folder's README (`python experiments/regenerate.py
first-experiment`, or with `--run results/study-first-experiment/<run-id>` for a run made
already): the mazes by generator, Pearson r [95 % CI] of the moves per maze with each parameter
at vision 2 within generators, by generator and pooled (bold where Holm's adjusted p is below
0.05), the capped trials, the variance inflation factors, and how long the run took.
"""

from __future__ import annotations

import textwrap

import numpy as np

from mazesim.experiment.censoring import RESTRICTED_MEAN
from mazesim.experiment.tables import CAPPED_WARNING, vif_rows

CONFIG = "configs/study-first-experiment.yaml"
QUICK = False            # a few minutes on 2 cores
VOLATILE = ("timing",)
VISION, METHOD = "2", "pearson"
SIGNIFICANCE = 0.05


def blocks(source) -> dict[str, str]:
    run = source.run
    table = run.correlations.query("vision == @VISION and method == @METHOD")
    strata = [s for s in dict.fromkeys(run.mazes.stratum)]
    out = {"timing": _fill("On this machine " + (source.timing() or "(times not measured: "
                                                "an existing run)") + "."),
           "generators": _generators(run), "collinear": _collinear(run),
           "within": _table(run, table, "within"),
           "by-generator": "\n".join(f"{s}\n\n{_table(run, table, s)}" for s in strata),
           "pooled": _table(run, table, "all"), "capped": _capped(run, table),
           "vif": _vif(run)}
    return out


def _cell(row) -> str:
    r = f"**{row.r:.2f}**" if row.p_adjusted < SIGNIFICANCE else f"{row.r:.2f}"
    return f"{r} [{row.ci_low:.2f}, {row.ci_high:.2f}]"


def _table(run, table, stratum: str) -> str:
    parameters = list(run.settings.parameters)
    rows = table[(table.stratum == stratum) & table.p_adjusted.notna()]
    lines = ["| agent | " + " | ".join(parameters) + " |", "|---|" + "---:|" * len(parameters)]
    for agent, mine in rows.groupby("agent", sort=False):
        by = mine.set_index("parameter")
        label = agent + (f" ({RESTRICTED_MEAN})" if (mine.estimate == RESTRICTED_MEAN).any()
                         else "")
        lines.append(f"| {label} | " + " | ".join(_cell(by.loc[p]) for p in parameters) + " |")
    return "\n".join(lines) + "\n"


def _generators(run) -> str:
    parameters = list(run.settings.parameters)
    lines = ["| generator | " + " | ".join(parameters) + " |",
             "|---|" + "---:|" * len(parameters)]
    for stratum, group in run.mazes.groupby("stratum", sort=False):
        lines.append(f"| {stratum} | " + " | ".join(
            f"{group[p].mean():.1f} ({group[p].std():.1f})" for p in parameters) + " |")
    return "\n".join(lines) + "\n"


def _collinear(run) -> str:
    m = run.mazes
    pairs = [("solution_length", "branch_points"), ("max_depth", "branch_points")]
    return _fill("so pooled over generators the parameters go together (" + ", ".join(
        f"{a.replace('_', ' ')} and {b.replace('_', ' ')} r = {m[a].corr(m[b]):.2f}"
        for a, b in pairs) + f"; n = {len(m)}), and a pooled correlation mostly tells which "
        "generator made the maze (Simpson's paradox).")


def _capped(run, table) -> str:
    t = run.trials
    parts = []
    for (agent, vision), rows in t[t.vision == VISION].groupby(["agent", "vision"], sort=False):
        share = rows.capped.mean()
        if share <= CAPPED_WARNING:
            continue
        by = rows.groupby("stratum", sort=False).capped.mean()
        tau = float(rows.moves[rows.capped].min())
        within = table[(table.agent == agent) & (table.stratum == "within")].set_index(
            "parameter")
        parts.append(
            f"{agent.capitalize()}: {share:.1%} of its vision-{vision} trials hit `max_steps` ("
            + ", ".join(f"{v:.0%}" for v in by) + " by generator). The mean of the trials that "
            "reached the goal in time is biased low, the more so the more a maze caps, so its "
            f"rows above use the {RESTRICTED_MEAN} of each maze's trials to tau = {tau:,.0f} "
            "moves (the cap: E[min(moves, tau)], the Kaplan-Meier estimate, every trial "
            "counted); within generators its r with the maximum depth is then "
            f"{within.loc['max_depth'].r:.2f} and with the solution length "
            f"{within.loc['solution_length'].r:.2f}.")
    return _fill(" ".join(parts)) if parts else "No condition has more than 20 % capped.\n"


def _vif(run) -> str:
    vifs = vif_rows(run)
    strata = list(dict.fromkeys(v.stratum for v in vifs))
    cells = {(v.term, v.stratum): v.vif for v in vifs}
    names = {"all": "with the generator dummies", "within": "within generators"}
    heads = [names.get(s, s) for s in strata]
    lines = ["| parameter | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(strata)]
    for term in dict.fromkeys(v.term for v in vifs):
        lines.append(f"| {term} | " + " | ".join(
            f"{cells.get((term, s), np.nan):.1f}" for s in strata) + " |")
    return "\n".join(lines) + "\n"


def _fill(paragraph: str) -> str:
    """The paragraph in lines of at most 100 characters, a number kept with its " %"."""
    glued = paragraph.replace(" %", "\u00a0%")
    return textwrap.fill(glued, 100, break_on_hyphens=False).replace("\u00a0%", " %") + "\n"
