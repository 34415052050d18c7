"""What `mazesim fit` writes: the table as text, `fit.csv`, `fit_participants.csv` and a
figure; and what `mazesim fit --params` reads back (`read_fitted`).

`fit.csv`, one row per model: model, agent, k, decisions, participants, baseline_bits, lapse,
bits, cv_bits, cv_bits_low, cv_bits_high, aic, bic, params (a JSON object, natural scale),
then converged and one column `param_NAME` per parameter of any model (empty where a model has
none). `fit_participants.csv`, one row per model and participant: model, participant,
decisions, cv_bits, lapse, bits, params, then fit (`own` with `--by participant`: the person's
own fit; otherwise `pooled`: lapse and params of the fit to everyone and the person's bits
under it), pooled_bits and the `param_NAME` columns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from mazesim import csvfile
from mazesim.errors import DataError, read_text
from mazesim.humans.fit import Estimate, FitReport
from mazesim.humans.ranking_output import RANKING_CSV, format_ranking, write_ranking

__all__ = ["FIT_CSV", "PARTICIPANTS_CSV", "FIGURE", "FILES", "PARAM_PREFIX", "format_fit",
           "write_fit", "read_fitted", "fit_rows", "fitted_row", "MAX_FIT_ROWS"]

FIT_CSV = "fit.csv"
PARTICIPANTS_CSV = "fit_participants.csv"
FIGURE = "fit.png"
FILES = (FIT_CSV, PARTICIPANTS_CSV, FIGURE, RANKING_CSV)
"""Every file a fit writes into its folder (`ranking.csv` when models were compared)."""
PARAM_PREFIX = "param_"
MAX_FIT_ROWS = 1_000_000
"""Most rows of a fit's table that are read (one per model, or per model and person)."""
_DPI = 90
_ROW_INCHES = 0.35


def format_fit(report: FitReport) -> str:
    """Markdown: one row per model, best first, then each model's parameters with their
    cluster-robust intervals; with `--by participant` each person's own fit."""
    if report.params_from is not None:
        return _format_scored(report)
    cv = f"{report.folds}-fold cross-validation by participant" if report.folds else \
        "no cross-validation"
    lines = [f"# Models fitted to {report.run}", "",
             f"{report.decisions:,} junction decisions of {report.participants} participants; "
             f"{cv} (seed {report.seed}); uniform choice: {report.baseline_bits:.3f} bits per "
             "decision. Bits = -mean log2 p(chosen); interval: 95 % bootstrap over "
             "participants; k = fitted parameters, lapse included; BIC with n = "
             f"{report.decisions:,} decisions.", *_warnings(report), "",
             "| model | k | lapse | bits | cv bits | 95 % CI | AIC | BIC |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for m in report.models:
        ci = "" if m.cv_bits_ci is None else f"{m.cv_bits_ci[0]:.3f}-{m.cv_bits_ci[1]:.3f}"
        cv_bits = "" if m.cv_bits is None else f"{m.cv_bits:.3f}"
        lines.append(f"| {m.model} | {m.k} | {m.estimate.lapse:.4f} | {m.bits:.3f} | "
                     f"{cv_bits} | {ci} | {m.aic:.1f} | {m.bic:.1f} |")
    lines += format_ranking(report.ranking, report.ranking_note)
    lines += ["", "Fitted parameters (all decisions; 95 % Wald intervals from the larger of "
              "the cluster-robust (by participant) and the observed-information errors):", ""]
    for m in report.models:
        params = ", ".join(f"{k} {v:.3g}{_interval(m.interval(k))}"
                           for k, v in m.estimate.params.items()) or "none"
        lines.append(f"- {m.model}: {params}; lapse {m.estimate.lapse:.4f}"
                     f"{_interval(m.interval('lapse'), '.4f')}")
    if report.by == "participant":
        lines += ["", "Each participant's own fit (bits in-sample; cv bits: scored by the fit "
                  "without their fold):"]
        for m in report.models:
            lines += ["", f"{m.model}:", "", "| participant | decisions | cv bits | lapse | "
                      "bits | parameters |", "|---|---:|---:|---:|---:|---|"]
            for p in m.participants:
                own = p.own
                cv_bits = "" if p.cv_bits is None else f"{p.cv_bits:.3f}"
                mark = "" if own is None or own.converged else " (not converged)"
                lines.append(f"| {p.participant} | {p.decisions} | {cv_bits} | " + (
                    "| | |" if own is None else
                    f"{own.lapse:.4f} | {own.bits:.3f} | "
                    + (", ".join(f"{k} {v:.3g}" for k, v in own.params.items()) or "none")
                    + mark + " |"))
    return "\n".join(lines) + "\n"


def _format_scored(report: FitReport) -> str:
    lapse = "refitted" if report.refit_lapse else "held"
    lines = [f"# Models of {report.params_from} scored on {report.run}", "",
             f"{report.decisions:,} junction decisions of {report.participants} participants; "
             f"parameters held, the lapse {lapse}; uniform choice: {report.baseline_bits:.3f} "
             "bits per decision. Bits = -mean log2 p(chosen).", *_warnings(report), "",
             "| model | lapse | bits |", "|---|---:|---:|"]
    lines += [f"| {m.model} | {m.estimate.lapse:.4f} | {m.bits:.3f} |" for m in report.models]
    lines += format_ranking(report.ranking, report.ranking_note, "held-out")
    return "\n".join(lines) + "\n"


def _warnings(report: FitReport) -> list[str]:
    return ["", *(f"**Warning**: {w}." for w in report.warnings)] if report.warnings else []


def _interval(interval: tuple[float, float], spec: str = ".3g") -> str:
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f" ({low:{spec}} to {high:{spec}})"


def write_fit(report: FitReport, folder: str | Path) -> list[Path]:
    """Write `fit.csv`, `fit_participants.csv`, the figure of cross-validated bits per model
    (in-sample bits without cross-validation) and, when models were compared over people,
    `ranking.csv` into `folder`; returns their paths."""
    folder = Path(folder)
    try:
        return _write(report, folder)
    except OSError as err:
        raise DataError(f"-o {folder}: cannot write ({err.strerror or err})") from None


def _write(report: FitReport, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / FIT_CSV, folder / PARTICIPANTS_CSV, folder / FIGURE]
    names = list(dict.fromkeys(k for m in report.models for k in m.estimate.params))
    columns = [PARAM_PREFIX + k for k in names]
    with open(paths[0], "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "agent", "k", "decisions", "participants", "baseline_bits",
                         "lapse", "bits", "cv_bits", "cv_bits_low", "cv_bits_high", "aic", "bic",
                         "params", "converged", *columns])
        for m in report.models:
            low, high = m.cv_bits_ci or ("", "")
            writer.writerow([m.model, m.agent, m.k, report.decisions, report.participants,
                             report.baseline_bits, m.estimate.lapse, m.bits,
                             "" if m.cv_bits is None else m.cv_bits, low, high, m.aic, m.bic,
                             json.dumps(m.estimate.params), m.converged,
                             *_values(m.estimate.params, names)])
    with open(paths[1], "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "participant", "decisions", "cv_bits", "lapse", "bits",
                         "params", "fit", "pooled_bits", *columns])
        for m in report.models:
            for p in m.participants:
                fit = p.own or m.estimate
                own_bits = p.pooled_bits if p.own is None else p.own.bits
                writer.writerow([m.model, p.participant, p.decisions,
                                 "" if p.cv_bits is None else p.cv_bits, fit.lapse,
                                 "" if own_bits is None else own_bits,
                                 json.dumps(fit.params), "pooled" if p.own is None else "own",
                                 "" if p.pooled_bits is None else p.pooled_bits,
                                 *_values(fit.params, names)])
    _figure(report, paths[2])
    if report.ranking is not None:
        paths.append(write_ranking(report.ranking, folder))
    return paths


def _values(params: dict[str, float], names: list[str]) -> list:
    return [params.get(k, "") for k in names]


def read_fitted(path: str | Path) -> list[tuple[str, Estimate]]:
    """(model label, its pooled estimate) of each model of a junction fit: from a folder
    `mazesim fit -o` wrote (its `fit.csv`), that `fit.csv`, or the JSON `fit --json`
    printed. DataError naming the file and what is wrong."""
    path = Path(path)
    if path.is_dir():
        path = path / FIT_CSV
    if path.suffix.lower() == ".csv":
        rows: list = fit_rows(path, where=f"--params {path}")
    else:
        text = read_text(path, DataError)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise DataError(f"--params {path}: not JSON ({err.msg}, line {err.lineno})") \
                from None
        if not isinstance(data, dict) or not isinstance(data.get("models"), list):
            raise DataError(f"--params {path}: not the JSON of mazesim fit (no models list)")
        if data.get("level", "junction") != "junction":
            raise DataError(f"--params {path}: a {data['level']}-level fit (only junction "
                            "fits can be scored)")
        rows = data["models"]
    out = []
    for i, row in enumerate(rows, 1):
        label, params, lapse = fitted_row(row, f"--params {path}: model {i}")
        out.append((label, Estimate(params, lapse, float("nan"), 0)))
    if not out:
        raise DataError(f"--params {path}: no model")
    return out


def fit_rows(path: Path, columns: Sequence[str] = ("model", "lapse", "params"),
             where: str = "") -> list[dict[str, str]]:
    """The rows of a CSV `mazesim fit -o` wrote (`fit.csv`, `fit_participants.csv`), cells as
    written (`csvfile.plain_cell`); DataError, led by `where` (default the path), for a missing
    file or column or more than `MAX_FIT_ROWS` rows."""
    import csv

    where = where or str(path)
    if not path.is_file():
        raise DataError(f"{where}: no such file (not a folder written by `mazesim fit -o`)")
    reader = csv.DictReader(read_text(path, DataError).splitlines())
    missing = [c for c in columns if c not in (reader.fieldnames or ())]
    if missing:
        raise DataError(f"{where}: no column {missing[0]!r} (not a fit's table?)")
    rows = []
    for row in reader:
        rows.append({k: csvfile.plain_cell(v) if isinstance(v, str) else v
                     for k, v in row.items()})
        if len(rows) > MAX_FIT_ROWS:
            raise DataError(f"{where}: more than {MAX_FIT_ROWS:,} rows")
    return rows


def fitted_row(row: Mapping[str, Any], where: str) -> tuple[str, dict[str, float], float]:
    """(label, params, lapse) of one model's row of a fit: a CSV row (`fit_rows`: params as
    JSON text) or an entry of `fit --json`'s models; DataError led by `where`."""
    try:
        label, lapse, params = str(row["model"]), float(row["lapse"]), row["params"]
        if isinstance(params, str):
            params = json.loads(params or "{}")
    except (KeyError, TypeError, ValueError):           # (JSONDecodeError is a ValueError)
        raise DataError(f"{where}: needs model, lapse and params (a JSON object)") from None
    if not isinstance(params, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in params.values()):
        raise DataError(f"{where} ({label}): params must map names to finite numbers")
    if not 0.0 <= lapse <= 1.0:
        raise DataError(f"{where} ({label}): lapse {lapse!r} (allowed: 0 to 1)")
    return label, {str(k): v for k, v in params.items()}, lapse     # ints stay ints (horizon)


def _figure(report: FitReport, path: Path) -> None:
    """Bits per decision of each model (best at the top) with intervals; the uniform line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
                  + (" (95 % CI)" if cv else "") + ": lower is better", fontsize=9)
    ax.set_title(f"How well each model predicts people's choices: {report.decisions:,} "
                 f"decisions of {report.participants} participants", fontsize=9)
    ax.legend(fontsize=8, loc="best", framealpha=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
