"""What `mazesim fit --level node` writes: the table as text, and with `-o` the junction fit's
CSVs and figure (`mazesim.humans.fitting.output`) plus `ranking.csv`."""

from __future__ import annotations

from pathlib import Path

from mazesim.humans.fitting.results import MAZE_GROUPS
from mazesim.humans.fitting.output import model_cells, write_fit
from mazesim.humans.fitting.node import NodeFitReport
from mazesim.humans.fitting.ranking_output import format_ranking
from mazesim.markup import markdown_text

__all__ = ["format_node_fit", "write_node_fit"]

_PROTOCOL_TEXT = {
    "ml": "maximum likelihood, {folds}-fold cross-validation by participant",
    "peer": "the authors' protocol: each person separately, {folds} folds over the person's "
            "decisions, grid search, {prior}, floor 1e-5"}
_PRIOR_TEXT = {
    "authors": "1/tau prior",
    "population": "a population prior over the grid from the other groups' people (no "
                  "1/tau)"}


def format_node_fit(result: NodeFitReport) -> str:
    """Markdown: one row per model, best first, then the paired comparison with the best."""
    r = result.report
    cv = _PROTOCOL_TEXT[result.protocol].format(
        folds=r.folds, prior=_PRIOR_TEXT.get(r.prior, "")) if (
        r.folds or result.protocol == "peer") else "maximum likelihood, no cross-validation"
    if r.folds_over == MAZE_GROUPS:
        cv = cv.replace("by participant", "by group of mazes")
    if r.params_from is not None:
        cv = (f"parameters of {r.params_from} held, the lapse "
              f"{'fitted here' if r.refit_lapse else 'held'}")
    lines = [f"# Node models fitted to {markdown_text(r.run)}", "",
             f"{r.decisions:,} node decisions of {r.participants} participants; {cv} (seed "
             f"{r.seed}); uniform choice: {r.baseline_bits:.3f} bits per decision. Bits = "
             "-mean log2 p(chosen child); interval: 95 % bootstrap over participants.", "",
             "| model | k | lapse | bits | cv bits | 95 % CI |", "|---|---:|---:|---:|---:|---|"]
    lines += [model_cells(m) for m in r.models]
    lines += format_ranking(result.ranking, r.ranking_note)
    return "\n".join(lines) + "\n"


def write_node_fit(result: NodeFitReport, folder: str | Path) -> list[Path]:
    """The junction fit's files (`fit.csv`, `fit_participants.csv`, `fit.png`, and
    `ranking.csv` when models were compared: `ranking_output`)."""
    return write_fit(result.report, folder)
