"""What `mazesim fit` writes: the table as text, `fit.csv`, `fit_participants.csv` and a
figure; and what `mazesim fit --params` reads back (`read_fitted`).

`fit.csv`, one row per model: model, agent, k, decisions, participants, baseline_bits, lapse,
bits, cv_bits, cv_bits_low, cv_bits_high, aic, bic, params (a JSON object, natural scale),
then converged, `prior` for a node fit under the peer protocol (the per-person fits' prior),
and one column `param_NAME` per parameter of any model (empty where a model has none).
`fit_participants.csv`, one row per model and participant: model, participant, decisions,
cv_bits, lapse, bits, params, then fit (`own` with `--by participant`: the person's own fit;
otherwise `pooled`: lapse and params of the fit to everyone and the person's bits under it),
pooled_bits and the `param_NAME` columns.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from mazesim import csvfile
from mazesim.agents.node_models import NodeLogit, node_model
from mazesim.errors import (DataError, MazesimError, cannot_write, file_problem, load_json,
                            nesting, read_text, short)
from mazesim.humans.fitting.junction import MAX_MODELS
from mazesim.humans.fitting.results import Estimate, FitReport, ModelFit
from mazesim.humans.fitting.models import parse_model
from mazesim.humans.fitting.ranking_output import RANKING_CSV, format_ranking, write_ranking
from mazesim.limits import MAX_NESTING

__all__ = ["FIT_CSV", "PARTICIPANTS_CSV", "FIGURE", "FILES", "RANKING_CSV", "PARAM_PREFIX",
           "model_cells", "format_fit", "write_fit", "read_fitted", "fit_rows", "fitted_row",
           "declared_params", "only_models", "MAX_FIT_ROWS"]

FIT_CSV = "fit.csv"
PARTICIPANTS_CSV = "fit_participants.csv"
FIGURE = "fit.png"
FILES = (FIT_CSV, PARTICIPANTS_CSV, FIGURE, RANKING_CSV)
"""Every file a fit writes into its folder (`ranking.csv` when models were compared)."""
PARAM_PREFIX = "param_"
MAX_FIT_ROWS = 1_000_000
"""Most rows of a fit's table that are read (one per model, or per model and person)."""
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,4})?", re.ASCII)
_DPI = 90
_ROW_INCHES = 0.35
_FOLDS_OVER = {"participants": "participant", "maze groups": "group of mazes"}


def model_cells(m: ModelFit) -> str:
    """A model's row of a fit's table up to its interval (model, k, lapse, bits, cv bits,
    95 % CI): the same at every level."""
    ci = "" if m.cv_bits_ci is None else f"{m.cv_bits_ci[0]:.3f}-{m.cv_bits_ci[1]:.3f}"
    cv_bits = "" if m.cv_bits is None else f"{m.cv_bits:.3f}"
    return f"| {m.model} | {m.k} | {m.estimate.lapse:.4f} | {m.bits:.3f} | {cv_bits} | {ci} |"


def format_fit(report: FitReport) -> str:
    """Markdown: one row per model, best first, then each model's parameters with their
    cluster-robust intervals; with `--by participant` each person's own fit."""
    if report.params_from is not None:
        return _format_scored(report)
    cv = f"{report.folds}-fold cross-validation by {_FOLDS_OVER[report.folds_over]}" \
        if report.folds else "no cross-validation"
    lines = [f"# Models fitted to {report.run}", "",
             f"{report.decisions:,} {report.level} decisions of {report.participants} "
             f"participants; {cv} (seed {report.seed}); uniform choice: "
             f"{report.baseline_bits:.3f} bits per "
             "decision. Bits = -mean log2 p(chosen); interval: 95 % bootstrap over "
             "participants; k = fitted parameters, lapse included; BIC with n = "
             f"{report.decisions:,} decisions.", *_warnings(report), "",
             "| model | k | lapse | bits | cv bits | 95 % CI | AIC | BIC |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for m in report.models:
        lines.append(f"{model_cells(m)} {m.aic:.1f} | {m.bic:.1f} |")
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
             f"{report.decisions:,} {report.level} decisions of {report.participants} "
             f"participants; parameters held, the lapse {lapse}; uniform choice: "
             f"{report.baseline_bits:.3f} "
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
        raise cannot_write(folder, err) from None


def _write(report: FitReport, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RANKING_CSV).unlink(missing_ok=True)
    paths = [folder / FIT_CSV, folder / PARTICIPANTS_CSV, folder / FIGURE]
    names = list(dict.fromkeys(k for m in report.models for k in m.estimate.params))
    columns = [PARAM_PREFIX + k for k in names]
    prior = [] if report.prior is None else [report.prior]
    with open(paths[0], "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "agent", "k", "decisions", "participants", "baseline_bits",
                         "lapse", "bits", "cv_bits", "cv_bits_low", "cv_bits_high", "aic", "bic",
                         "params", "converged", *(["prior"] if prior else []), *columns])
        for m in report.models:
            low, high = m.cv_bits_ci or ("", "")
            writer.writerow([m.model, m.agent, m.k, report.decisions, report.participants,
                             report.baseline_bits, m.estimate.lapse, m.bits,
                             "" if m.cv_bits is None else m.cv_bits, low, high, m.aic, m.bic,
                             json.dumps(m.estimate.params), m.converged, *prior,
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


def read_fitted(path: str | Path, level: str = "junction") -> list[tuple[str, Estimate]]:
    """(model label, its pooled estimate) of each model of a fit at `level` (junction or
    node): from a folder `mazesim fit -o` wrote (its `fit.csv`), that `fit.csv`, or the JSON
    `fit --json` printed. DataError naming the file and what is wrong (a per-person table,
    `fit_participants.csv`, is refused: its rows are people, not models)."""
    path = Path(path)
    if path.is_dir():
        path = path / FIT_CSV
    where = f"params {path}"
    if path.suffix.lower() == ".csv":
        rows: list = fit_rows(path, where=where)
        if rows and "participant" in rows[0]:
            raise DataError(f"{where}: a per-person table (one row per model and person); "
                            f"give the fit's folder or its {FIT_CSV}")
    else:
        data = load_json(read_text(path, DataError), where, DataError)
        if nesting(data) > MAX_NESTING:
            raise DataError(f"{where}: nested deeper than {MAX_NESTING} levels")
        if not isinstance(data, dict) or not isinstance(data.get("models"), list):
            raise DataError(f"{where}: not the JSON of mazesim fit (no models list)")
        if (data.get("level", "junction") == "node") != (level == "node"):
            raise DataError(f"{where}: a {data['level']!s:.40}-level fit (scoring at the "
                            f"{level} level)")
        rows = data["models"]
        if len(rows) > MAX_MODELS:
            raise DataError(f"{where}: {len(rows):,} models (allowed: at most {MAX_MODELS})")
    out = []
    for i, row in enumerate(rows, 1):
        name = f" {short(row['model'])}" if isinstance(row, Mapping) and "model" in row else ""
        label, params, lapse = fitted_row(row, f"{where}: model {i}{name}")
        out.append((label, Estimate(params, lapse, float("nan"), 0)))
    if not out:
        raise DataError(f"{where}: no model")
    return out


def fit_rows(path: Path, columns: Sequence[str] = ("model", "lapse", "params"),
             where: str = "") -> list[dict[str, str]]:
    """The rows of a CSV `mazesim fit -o` wrote (`fit.csv`, `fit_participants.csv`), cells as
    written (`csvfile.plain_cell`); DataError, led by `where` (default the path), for a file
    that is missing or cannot be read, a missing column, a cell past the csv module's limit,
    more than `MAX_FIT_ROWS` rows or more than `fit.MAX_MODELS` models (checked as read)."""
    import csv

    where = where or str(path)
    problem = file_problem(path)
    if problem is not None:
        hint = " (not a folder written by `mazesim fit -o`)" if problem == "no such file" else ""
        raise DataError(f"{where}: {problem}{hint}")
    reader = csv.DictReader(read_text(path, DataError).removeprefix("\ufeff").splitlines())
    rows: list[dict[str, str]] = []
    models: set[str] = set()
    try:
        missing = [c for c in columns if c not in (reader.fieldnames or ())]
        if missing:
            raise DataError(f"{where}: no column {missing[0]!r} (not a fit's table?)")
        for row in reader:
            rows.append({k: csvfile.plain_cell(v) if isinstance(v, str) else v
                         for k, v in row.items()})
            models.add(rows[-1].get("model"))
            if len(rows) > MAX_FIT_ROWS or len(models) > MAX_MODELS:
                raise DataError(f"{where}: more than {MAX_FIT_ROWS:,} rows" if len(rows) >
                                MAX_FIT_ROWS else f"{where}: more than {MAX_MODELS} models "
                                f"(allowed: at most {MAX_MODELS}, as many as a fit fits)")
    except csv.Error as err:
        raise DataError(f"{where}: row {len(rows) + 1}: {err}") from None
    return rows


def fitted_row(row: Mapping[str, Any], where: str) -> tuple[str, dict[str, float], float]:
    """(label, params, lapse) of one model's row of a fit: a CSV row (`fit_rows`: params as
    JSON text) or an entry of `fit --json`'s models; every parameter the model declares
    (`declared_params`) and no other, within its bounds; DataError led by `where`."""
    try:
        label, lapse, params = str(row["model"]), _number(row["lapse"]), row["params"]
    except (KeyError, TypeError, ValueError):
        raise DataError(f"{where}: needs model, lapse and params (a JSON object)") from None
    if isinstance(params, str):
        params = load_json(params or "{}", f"{where} params", DataError)
    if not isinstance(params, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in params.values()):
        raise DataError(f"{where}: params must map names to finite numbers")
    if not 0.0 <= lapse <= 1.0:
        raise DataError(f"{where}: lapse {lapse!r} (allowed: 0 to 1)")
    bounds = declared_params(label, where)
    wrong = sorted(set(map(str, params)) ^ set(bounds))
    if wrong:
        fault = "missing parameter" if wrong[0] in bounds else "unknown parameter"
        raise DataError(f"{where}: {fault} {short(wrong[0])} (the model's "
                        f"parameters: {', '.join(bounds) or 'none'})")
    for name, (low, high) in bounds.items():
        if not low <= params[name] <= high:
            raise DataError(f"{where}: {name} {params[name]!r} (allowed: "
                            f"{low:g} to {high:g})")
    return label, {str(k): v for k, v in params.items()}, lapse     # ints stay ints (horizon)


@lru_cache(maxsize=2 * MAX_MODELS)
def _declared(label: str) -> tuple[tuple[str, float, float], ...]:
    try:
        return tuple((p.name, -math.inf, math.inf) for p in parse_model(label).free)
    except MazesimError as err:
        try:
            model = node_model(label)
        except MazesimError:
            raise err from None
    if isinstance(model, NodeLogit):
        return tuple((f, -model.max_weight, model.max_weight) for f in model.features)
    return tuple((p.name, p.low, p.high) for p in model.params)


def declared_params(label: str, where: str) -> dict[str, tuple[float, float]]:
    """The parameters a fit of model `label` holds, with the bounds a reader checks: a
    junction model's fitted parameters (its agent checks the values when it is made), a node
    model's parameters or node-choice's weights; DataError for a model this version lacks."""
    try:
        return {name: (low, high) for name, low, high in _declared(label)}
    except MazesimError as err:
        raise DataError(f"{where}: not a model of this version ({err})") from None


def _number(value: Any) -> float:
    """A finite float from a number or ASCII decimal text ("0_5", "٣" and "nan" are refused);
    ValueError otherwise."""
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value.strip()):
            raise ValueError(value)
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(value)
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(value) from None
    if not math.isfinite(value):
        raise ValueError(value)
    return value


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


def only_models(fitted: list[tuple[str, Estimate]], models: Sequence[str], where: str
                ) -> list[tuple[str, Estimate]]:
    """The models `models` (labels; all when empty) of `fitted`; DataError naming the first
    label the fit `where` lacks and the labels it has."""
    if not models:
        return fitted
    have = [label for label, _ in fitted]
    missing = [m for m in models if m not in have]
    if missing:
        raise DataError(f"model {missing[0]}: not in the fit {where} (its models: "
                        f"{', '.join(have[:12])}{', ...' if len(have) > 12 else ''})")
    return [f for f in fitted if f[0] in models]
