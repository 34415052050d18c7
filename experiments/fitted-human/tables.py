"""The generated blocks of this folder's README (`python experiments/regenerate.py fitted-human`,
or with `--run results/study-fitted-human/<run-id>` for a run made already): the fitted weights
of the config, where a dead end outbids the frontier, the moves by generator, Pearson r [95 % CI]
of the moves per maze with each parameter at vision 2 (the first experiment's tables), the capped
trials, the regression at vision 2, and how long the run took.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

from mazesim.agents.choice_model import CLOSED_DISTANCE, FEATURES
from mazesim.experiment.censoring import RESTRICTED_MEAN
from mazesim.experiment.regression import INTERCEPT
from mazesim.experiment.statistics import holm

CONFIG = "configs/study-fitted-human.yaml"
QUICK = False            # 18 minutes on 2 shared cores: the fitted model walks into traps
VOLATILE = ("timing",)
FITTED = ("fitted-human", "fitted-human-no-closed")
VISION = "2"
SIGNIFICANCE = 0.05

_FIRST = Path(__file__).resolve().parent.parent / "first-experiment" / "tables.py"
_spec = importlib.util.spec_from_file_location("experiments_first_experiment", _FIRST)
first = sys.modules.setdefault(_spec.name, importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(first)     # the same mazes: its tables, cells and paragraphs serve here


def blocks(source) -> dict[str, str]:
    run = source.run
    table = run.correlations.query("vision == @VISION and method == @first.METHOD")
    strata = list(dict.fromkeys(run.mazes.stratum))
    return {"timing": first._fill("On this machine " + (source.timing() or "(times not measured: "
                                                          "an existing run)") + "."),
            "weights": weights(run.settings.specs), "trap": _trap(run.settings.specs),
            "moves": _moves(run, strata),
            "within": first._table(run, table, "within"),
            "by-generator": "\n".join(f"{s}\n\n{first._table(run, table, s)}" for s in strata),
            "pooled": first._table(run, table, "all"), "capped": first._capped(run, table),
            "regression": _regression(run)}


def weights(specs) -> str:
    """The fitted models' weights and lapse as the config gives them, a row per feature."""
    lines = ["| feature | " + " | ".join(FITTED) + " |", "|---|" + "---:|" * len(FITTED)]
    lines += [f"| {key} | " + " | ".join(f"{float(specs[a][key]):g}" for a in FITTED) + " |"
              for key in (*FEATURES, "lapse")]
    return "\n".join(lines) + "\n"


def break_even(spec) -> float:
    """The frontier distance (moves) at which a direction with nothing unseen behind it (a dead
    end: frontier at `CLOSED_DISTANCE`, plus the closed weight) scores as much as unseen floor
    that far away; every frontier farther loses to the dead end."""
    frontier, closed = float(spec["frontier"]), float(spec["closed"])
    return math.exp(math.log1p(CLOSED_DISTANCE) - closed / frontier) - 1


def _trap(specs) -> str:
    a, b = (specs[name] for name in FITTED)
    dead_end = -a["frontier"] * math.log1p(CLOSED_DISTANCE) + a["closed"]
    return first._fill(
        f"With the fitted weights a dead end (nothing unseen that way: frontier at distance "
        f"{CLOSED_DISTANCE:.0f}, plus closed) scores {a['frontier']:g} x -log(1 + "
        f"{CLOSED_DISTANCE:.0f}) + {a['closed']:g} = {dead_end:.2f}, as much as unseen floor "
        f"{break_even(a):.1f} moves away. When the nearest unexplored floor is farther than "
        "that, stepping into a known dead end beats going there; out of the dead end (its "
        "only way is back) the same sums send the walk in again, and it swings back and forth "
        "in the dead-end corridor until lapses (1 step in 400) carry it far enough out for "
        "the way to the frontier to win. Without the "
        f"closed feature the break-even distance is {break_even(b):.0f} moves.")


def _moves(run, strata) -> str:
    """Median moves and the share capped per agent and generator, at vision 2 and full."""
    t = run.trials
    lines = ["| agent | vision | " + " | ".join(strata) + " |", "|---|---|" + "---:|" * len(strata)]
    for (agent, vision), rows in t.groupby(["agent", "vision"], sort=False):
        by = rows.groupby("stratum", sort=False)
        lines.append(f"| {agent} | {vision} | " + " | ".join(
            f"{by.moves.median()[s]:,.0f} ({by.capped.mean()[s]:.0%})" for s in strata) + " |")
    return "\n".join(lines) + "\n"


def _regression(run) -> str:
    """Coefficient [95 % CI] (moves per SD of a parameter, the generator as a factor, HC3) of
    every agent at vision 2; bold where Holm's p over the parameter terms shown is below 0.05."""
    parameters = list(run.settings.parameters)
    reg = run.regression.query("vision == @VISION")
    terms = reg[reg.term.isin(parameters)]
    adjusted = dict(zip(terms.index, holm(terms.p.tolist())))
    lines = ["| agent | R² | " + " | ".join(parameters) + " |",
             "|---|---:|" + "---:|" * len(parameters)]
    for agent, mine in reg[reg.term != INTERCEPT].groupby("agent", sort=False):
        cells = []
        for p in parameters:
            row = mine[mine.term == p].iloc[0]
            coef = f"{row.coef:,.0f}"
            cells.append((f"**{coef}**" if adjusted[row.name] < SIGNIFICANCE else coef)
                         + f" [{row.ci_low:,.0f}, {row.ci_high:,.0f}]")
        label = agent + (f" ({RESTRICTED_MEAN})" if (mine.estimate == RESTRICTED_MEAN).any()
                         else "")
        lines.append(f"| {label} | {mine.r2.iloc[0]:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
