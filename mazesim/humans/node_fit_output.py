"""What `mazesim fit --level node` writes: the table as text, and with `-o` the junction fit's
CSVs and figure (`mazesim.humans.fit_output`) plus `ranking.csv`."""

from __future__ import annotations

from pathlib import Path

from mazesim import csvfile
from mazesim.errors import DataError
from mazesim.humans.fit import MAZE_GROUPS
from mazesim.humans.fit_output import RANKING_CSV, write_fit
from mazesim.humans.node_fit import NodeFitReport
from mazesim.markup import markdown_text

__all__ = ["RANKING_CSV", "format_node_fit", "write_node_fit"]

_PROTOCOL_TEXT = {
    "ml": "maximum likelihood, {folds}-fold cross-validation by participant",
    "peer": "the authors' protocol: each person separately, {folds} folds over the person's "
            "decisions, grid search, 1/tau prior, floor 1e-5"}


def format_node_fit(result: NodeFitReport) -> str:
    """Markdown: one row per model, best first, then the paired comparison with the best."""
    r = result.report
    cv = _PROTOCOL_TEXT[result.protocol].format(folds=r.folds) if (
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
    for m in r.models:
        ci = "" if m.cv_bits_ci is None else f"{m.cv_bits_ci[0]:.3f}-{m.cv_bits_ci[1]:.3f}"
        cv_bits = "" if m.cv_bits is None else f"{m.cv_bits:.3f}"
        lines.append(f"| {m.model} | {m.k} | {m.estimate.lapse:.4f} | {m.bits:.3f} | "
                     f"{cv_bits} | {ci} |")
    if result.ranking is not None:
        rank = result.ranking
        counts = dict(zip(rank.models, rank.best_counts))
        lines += ["", f"Against the best ({rank.best}), per person (bits per decision lost, "
                  "95 % bootstrap interval over people, Wilcoxon p Holm-adjusted; best for: "
                  "people whose likelihood is highest under the model):", "",
                  "| model | bits lost | 95 % CI | people worse / better | p (Holm) | best for |",
                  "|---|---:|---|---|---:|---:|",
                  f"| {rank.best} | | | | | {counts[rank.best]:g} |"]
        for d in rank.paired:
            lines.append(f"| {d.model} | {d.bits:.4f} | {d.ci[0]:.4f} to {d.ci[1]:.4f} | "
                         f"{d.worse} / {d.better} | {d.p_adjusted:.2g} | "
                         f"{counts[d.model]:g} |")
    return "\n".join(lines) + "\n"


def write_node_fit(result: NodeFitReport, folder: str | Path) -> list[Path]:
    """The junction fit's files (`fit.csv`, `fit_participants.csv`, `fit.png`) and
    `ranking.csv` (one row per model: bits, bits lost against the best with its interval,
    people each way, p, best-for count, expected frequency, exceedance probabilities)."""
    paths = write_fit(result.report, folder)
    if result.ranking is None:
        return paths
    path = Path(folder) / RANKING_CSV
    rank = result.ranking
    paired = {d.model: d for d in rank.paired}
    f = rank.frequencies
    try:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csvfile.writer(handle)
            writer.writerow(["model", "bits", "bits_lost", "ci_low", "ci_high", "people_worse",
                             "people_better", "p", "p_adjusted", "best_for",
                             "expected_frequency", "exceedance", "protected_exceedance"])
            for i, m in enumerate(rank.models):
                d = paired.get(m)
                gap = ["", "", "", "", "", "", ""] if d is None else [
                    d.bits, d.ci[0], d.ci[1], d.worse, d.better, d.p, d.p_adjusted]
                writer.writerow([m, rank.bits[i], *gap, rank.best_counts[i], f.expected[i],
                                 f.exceedance[i], f.protected[i]])
    except OSError as err:
        raise DataError(f"folder {folder}: cannot write ({err.strerror or err})") from None
    return [*paths, path]
