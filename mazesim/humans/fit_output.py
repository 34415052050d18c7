"""What `mazesim fit` writes: the table as text, `fit.csv`, `fit_participants.csv` and a figure."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mazesim import csvfile  # noqa: E402
from mazesim.errors import DataError  # noqa: E402
from mazesim.humans.fit import FitReport  # noqa: E402

__all__ = ["FIT_CSV", "PARTICIPANTS_CSV", "FIGURE", "format_fit", "write_fit"]

FIT_CSV = "fit.csv"
PARTICIPANTS_CSV = "fit_participants.csv"
FIGURE = "fit.png"
_DPI = 90
_ROW_INCHES = 0.35


def format_fit(report: FitReport) -> str:
    """Markdown: one row per model, best first, then each model's parameters."""
    cv = f"{report.folds}-fold cross-validation by participant" if report.folds else \
        "no cross-validation"
    lines = [f"# Models fitted to {report.run}", "",
             f"{report.decisions:,} junction decisions of {report.participants} participants; "
             f"{cv} (seed {report.seed}); uniform choice: {report.baseline_bits:.3f} bits per "
             "decision. Bits = -mean log2 p(chosen); interval: 95 % bootstrap over "
             "participants; k = fitted parameters, lapse included.", "",
             "| model | k | lapse | bits | cv bits | 95 % CI | AIC | BIC |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for m in report.models:
        ci = "" if m.cv_bits_ci is None else f"{m.cv_bits_ci[0]:.3f}-{m.cv_bits_ci[1]:.3f}"
        cv_bits = "" if m.cv_bits is None else f"{m.cv_bits:.3f}"
        lines.append(f"| {m.model} | {m.k} | {m.estimate.lapse:.4f} | {m.bits:.3f} | "
                     f"{cv_bits} | {ci} | {m.aic:.1f} | {m.bic:.1f} |")
    lines += ["", "Fitted parameters (all decisions):", ""]
    for m in report.models:
        params = ", ".join(f"{k} {v:.3g}" for k, v in m.estimate.params.items()) or "none"
        lines.append(f"- {m.model}: {params}; lapse {m.estimate.lapse:.4f}")
    return "\n".join(lines) + "\n"


def write_fit(report: FitReport, folder: str | Path) -> list[Path]:
    """Write `fit.csv`, `fit_participants.csv` and the figure of cross-validated bits per model
    (in-sample bits without cross-validation) into `folder`; returns their paths."""
    folder = Path(folder)
    try:
        return _write(report, folder)
    except OSError as err:
        raise DataError(f"-o {folder}: cannot write ({err.strerror or err})") from None


def _write(report: FitReport, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / FIT_CSV, folder / PARTICIPANTS_CSV, folder / FIGURE]
    with open(paths[0], "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "agent", "k", "decisions", "participants", "baseline_bits",
                         "lapse", "bits", "cv_bits", "cv_bits_low", "cv_bits_high", "aic", "bic",
                         "params"])
        for m in report.models:
            low, high = m.cv_bits_ci or ("", "")
            writer.writerow([m.model, m.agent, m.k, report.decisions, report.participants,
                             report.baseline_bits, m.estimate.lapse, m.bits,
                             "" if m.cv_bits is None else m.cv_bits, low, high, m.aic, m.bic,
                             json.dumps(m.estimate.params)])
    with open(paths[1], "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "participant", "decisions", "cv_bits", "lapse", "bits",
                         "params"])
        for m in report.models:
            for p in m.participants:
                own = p.own
                writer.writerow([m.model, p.participant, p.decisions,
                                 "" if p.cv_bits is None else p.cv_bits,
                                 "" if own is None else own.lapse,
                                 "" if own is None else own.bits,
                                 "" if own is None else json.dumps(own.params)])
    _figure(report, paths[2])
    return paths


def _figure(report: FitReport, path: Path) -> None:
    """Bits per decision of each model (best at the top) with intervals; the uniform line."""
    models = list(reversed(report.models))
    cv = report.folds > 0
    values = [m.cv_bits if cv else m.bits for m in models]
    fig, ax = plt.subplots(figsize=(7.0, 1.6 + _ROW_INCHES * len(models)))
    y = range(len(models))
    if cv:
        low = [v - m.cv_bits_ci[0] for v, m in zip(values, models)]
        high = [m.cv_bits_ci[1] - v for v, m in zip(values, models)]
        ax.errorbar(values, y, xerr=[low, high], fmt="o", color="tab:blue", capsize=3)
    else:
        ax.plot(values, y, "o", color="tab:blue")
    ax.axvline(report.baseline_bits, color="tab:gray", linestyle="--", label="uniform choice")
    ax.set_yticks(list(y))
    ax.set_yticklabels([m.model for m in models], fontsize=8)
    ax.set_xlabel(("cross-validated " if cv else "in-sample ") + "bits per decision"
                  + (" (95 % CI)" if cv else ""), fontsize=9)
    ax.set_title(f"{report.decisions:,} decisions, {report.participants} participants",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3 / len(models) - 0.25),
              frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
