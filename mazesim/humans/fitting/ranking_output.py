"""The paired comparison of fitted models over people (`ranking.Ranking`) as `fit` shows it at
either level: a Markdown table, or the line saying why there is none, and `ranking.csv` (one
row per model: bits, bits lost against the best with its interval, people each way, p,
best-for count, expected frequency, exceedance probabilities)."""

from __future__ import annotations

from pathlib import Path

from mazesim import csvfile
from mazesim.errors import cannot_write
from mazesim.humans.fitting.ranking import Ranking

__all__ = ["RANKING_CSV", "format_ranking", "write_ranking"]

RANKING_CSV = "ranking.csv"


def format_ranking(rank: Ranking | None, note: str, held_out: str = "cross-validated"
                   ) -> list[str]:
    """Markdown lines: each model against the best, per person; or `note` (why none)."""
    if rank is None:
        return ["", f"Paired comparison: none ({note})."] if note else []
    counts = dict(zip(rank.models, rank.best_counts))
    lines = ["", f"Against the best ({rank.best}), paired over {rank.people} people "
             f"({held_out} bits per decision lost, 95 % bootstrap interval over people, "
             "Wilcoxon p Holm-adjusted; best for: people whose likelihood is highest under the "
             "model):", "",
             "| model | bits lost | 95 % CI | people worse / better | p (Holm) | best for |",
             "|---|---:|---|---|---:|---:|",
             f"| {rank.best} | | | | | {counts[rank.best]:g} |"]
    for d in rank.paired:
        lines.append(f"| {d.model} | {d.bits:.4f} | {d.ci[0]:.4f} to {d.ci[1]:.4f} | "
                     f"{d.worse} / {d.better} | {d.p_adjusted:.2g} | {counts[d.model]:g} |")
    return lines


def write_ranking(rank: Ranking, folder: str | Path) -> Path:
    """Write `ranking.csv` into `folder`; returns its path."""
    path = Path(folder) / RANKING_CSV
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
                gap = [""] * 7 if d is None else [d.bits, d.ci[0], d.ci[1], d.worse, d.better,
                                                  d.p, d.p_adjusted]
                writer.writerow([m, rank.bits[i], *gap, rank.best_counts[i], f.expected[i],
                                 f.exceedance[i], f.protected[i]])
    except OSError as err:
        raise cannot_write(folder, err) from None
    return path
