"""What `mazesim predict` writes: the summary as Markdown, `predict.csv` (model x maze),
`predict_models.csv`, `predict.png` (people against each model per maze, with intervals) and
`heatmaps.png` (a few maps: people's and the first model's visits side by side)."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mazesim import csvfile  # noqa: E402
from mazesim.errors import cannot_write  # noqa: E402
from mazesim.humans.predict.run import PredictReport  # noqa: E402
from mazesim.humans.predict.stats import ALPHA, FIRST, MEASURES, ModelCheck  # noqa: E402
from mazesim.markup import markdown_text, table_rule  # noqa: E402
from mazesim.render import HEAT_COLOURS, maze_image  # noqa: E402

__all__ = ["PREDICT_CSV", "MODELS_CSV", "FIGURE", "HEATMAPS", "FILES", "HEATMAP_MAZES",
           "format_predict", "write_predict"]

PREDICT_CSV, MODELS_CSV = "predict.csv", "predict_models.csv"
FIGURE, HEATMAPS = "predict.png", "heatmaps.png"
FILES = (PREDICT_CSV, MODELS_CSV, FIGURE, HEATMAPS)
"""Every file a predictive check writes into its folder."""
HEATMAP_MAZES = 3
"""Maps drawn: the first model's worst, median and best by |log(model / people mean steps)|."""
_DPI = 90
_METADATA = {"Software": None}       # no version string: same run, same bytes
_PANEL = 3.0                         # inches per panel of the figure
_COLUMNS = 4
_SCALE = 24                          # pixels per cell of a heat map
_MAP = 2.6                           # inches per map of the heat maps


def format_predict(report: PredictReport) -> str:
    """Markdown: one row per model (fit order), then what the columns mean."""
    cv = report.cv_mazes
    lines = [f"# Predictive check of {markdown_text(report.fit)} on {markdown_text(report.run)}",
             "", f"{len(report.units)} mazes; {report.walks} walks per person and maze (seed "
             f"{report.seed}){', pooled parameters' if report.pooled else ''}.", "",
             "| model | own params | maze r (95 % CI) | rho | ratio | steps differ | revisits | "
             "exit seen | first choice |" + (" held-out r (95 % CI) | rho | MAE |" if cv else ""),
             table_rule("lrlrrrrrr" + ("lrr" if cv else ""))]
    for m in report.models:
        row = (f"| {markdown_text(m.name)} | {m.own_params} | {_r(m.maze_r, m.maze_r_ci)} | "
               f"{_f(m.maze_rho)} | {_f(m.ratio_median)} | "
               + " | ".join(str(len(m.differ(k))) for k in (*MEASURES, FIRST)) + " |")
        if cv:
            h = m.heldout
            row += f" {_r(h.r, h.r_ci)} | {_f(h.rho)} | {_f(h.mae, 2)} |"
        lines.append(row)
    lines += ["", "maze r: Pearson r over mazes of people's and the model's mean steps "
              "(finished walks; Fisher interval); ratio: median over mazes of model / people "
              f"mean steps; differ: mazes whose distribution differs from people's (KS; first "
              f"choice: exact 2 x k test at the junction people leave first most often), Holm "
              f"over the mazes at {ALPHA}."]
    if cv:
        lines.append(f"held-out: each maze predicted by the model fitted without its fold "
                     f"({cv} folds of mazes); intervals by bootstrap over mazes.")
    first = report.models[0]
    differ = first.differ()
    if differ:
        names = ", ".join(markdown_text(report.units[i].name) for i in differ)
        lines += ["", f"{markdown_text(first.name)}: steps differ on {names}."]
    return "\n".join(lines) + "\n"


def write_predict(report: PredictReport, folder: str | Path) -> list[Path]:
    """Write the tables and figures into `folder`; returns their paths."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / PREDICT_CSV, folder / MODELS_CSV, folder / FIGURE, folder / HEATMAPS]
        _maze_table(report, paths[0])
        _model_table(report, paths[1])
        _figure(report, paths[2])
        _heatmaps(report, paths[3])
    except OSError as err:
        raise cannot_write(folder, err) from None
    return paths


def _maze_table(report: PredictReport, path: Path) -> None:
    measures = [f"{k}_{w}" for k in MEASURES for w in ("people", "people_low", "people_high",
                                                       "model", "model_low", "model_high",
                                                       "p", "p_holm")]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "maze", "trials", "walks", *measures, "unfinished_people",
                         "unfinished_model", "probe_row", "probe_col", "first_people",
                         "first_model", "first_p", "first_p_holm", "heldout_steps"])
        for m in report.models:
            for i, c in enumerate(m.mazes):
                cells = []
                for k in MEASURES:
                    v = getattr(c, k)
                    cells += [v.people_mean, v.people_low, v.people_high, v.model_mean,
                              v.model_low, v.model_high, v.p, m.adjusted[k][i]]
                probe = c.probe or ("", "")
                writer.writerow([m.name, c.maze, c.trials, c.walks, *map(_cell, cells),
                                 c.unfinished_people, c.unfinished_model, *probe,
                                 _choices(c.first_people), _choices(c.first_model),
                                 _cell(c.first_p), _cell(m.adjusted[FIRST][i]),
                                 "" if m.heldout is None else _cell(m.heldout.predicted[i])])


def _model_table(report: PredictReport, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(["model", "agent", "own_params", "mazes", "maze_r", "maze_r_low",
                         "maze_r_high", "maze_rho", "ratio_median", "steps_differ",
                         "revisits_differ", "exit_seen_differ", "first_differ", "heldout_r",
                         "heldout_r_low", "heldout_r_high", "heldout_rho", "heldout_rho_low",
                         "heldout_rho_high", "heldout_mae", "heldout_mae_low",
                         "heldout_mae_high", "heldout_unfinished_r"])
        for m in report.models:
            h = m.heldout
            held = ([""] * 10 if h is None else
                    [_cell(v) for v in (h.r, *h.r_ci, h.rho, *h.rho_ci, h.mae, *h.mae_ci)]
                    + [_cell(h.unfinished_r)])
            writer.writerow([m.name, m.agent, m.own_params, len(m.mazes), _cell(m.maze_r),
                             *map(_cell, m.maze_r_ci), _cell(m.maze_rho),
                             _cell(m.ratio_median), *(len(m.differ(k)) for k in
                                                      (*MEASURES, FIRST)), *held])


def _figure(report: PredictReport, path: Path) -> None:
    """One panel per model: people's mean steps (x) against the model's (y) per maze, both
    with 95 % intervals; the diagonal."""
    n = len(report.models)
    cols = min(n, _COLUMNS)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(_PANEL * cols, _PANEL * rows + 0.3),
                             squeeze=False)
    for ax, m in zip(axes.ravel(), report.models):
        _panel(ax, m)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.suptitle(f"Mean steps per maze: people (x) against each model (y), "
                 f"{report.walks} walks per person", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=_DPI, metadata=_METADATA)
    plt.close(fig)


def _panel(ax, m: ModelCheck) -> None:
    x = np.array([c.steps.people_mean for c in m.mazes])
    y = np.array([c.steps.model_mean for c in m.mazes])
    xe = _errors(x, [(c.steps.people_low, c.steps.people_high) for c in m.mazes])
    ye = _errors(y, [(c.steps.model_low, c.steps.model_high) for c in m.mazes])
    differ = np.zeros(len(x), bool)
    differ[m.differ()] = True
    for mask, colour, label in ((~differ, "tab:blue", "same"), (differ, "tab:red", "differs")):
        if mask.any():
            ax.errorbar(x[mask], y[mask], xerr=xe[:, mask], yerr=ye[:, mask], fmt="o",
                        markersize=3, color=colour, elinewidth=0.6, label=label)
    finite = np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]])
    top = float(finite.max()) * 1.05 if len(finite) else 1.0
    ax.plot([0, top], [0, top], color="tab:gray", linewidth=0.6, linestyle="--")
    ax.set_title(f"{_short(m.name, 40)}: r {_f(m.maze_r)}", fontsize=8)
    ax.set_xlabel("people: mean steps", fontsize=7)
    ax.set_ylabel(f"{_short(m.name, 24)}: mean steps", fontsize=7)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=6, loc="upper left", frameon=False)


def _errors(centre: np.ndarray, intervals: list[tuple[float, float]]) -> np.ndarray:
    low, high = np.array(intervals, float).reshape(-1, 2).T
    out = np.stack([centre - low, high - centre])
    return np.where(np.isfinite(out), out, 0.0)


def _heatmaps(report: PredictReport, path: Path) -> None:
    """People's and the first model's visits on its worst, median and best mazes: one row per
    maze, people left and the model (named) right, and the colour scale of both."""
    from matplotlib.colors import LinearSegmentedColormap

    first = report.models[0]
    people = np.array([c.steps.people_mean for c in first.mazes])
    model = np.array([c.steps.model_mean for c in first.mazes])
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(np.log(model / people))
    order = [i for i in np.argsort(-np.nan_to_num(gap, nan=-1.0), kind="stable")]
    picks = list(dict.fromkeys([order[0], order[len(order) // 2], order[-1]]))[:HEATMAP_MAZES]
    fig, axes = plt.subplots(len(picks), 2, figsize=(2 * _MAP + 1.2, _MAP * len(picks) + 0.8),
                             squeeze=False)
    for row, i in zip(axes, picks):
        unit = report.units[i]
        for ax, visits, who in ((row[0], unit.walked.visits, "people"),
                                (row[1], first.mazes[i].visits, _short(first.name, 24))):
            ax.imshow(maze_image(unit.maze, visits=visits, scale=_SCALE))
            ax.set_title(f"{_short(unit.name, 20)}: {who}", fontsize=8)
            ax.set_axis_off()
    ramp = LinearSegmentedColormap.from_list("visits", np.array(HEAT_COLOURS) / 255.0)
    bar = fig.colorbar(plt.cm.ScalarMappable(cmap=ramp), ax=axes, shrink=0.6, ticks=[0, 1])
    bar.ax.set_yticklabels(["1 visit", "most"], fontsize=7)
    bar.set_label("visits per cell (each map: from 1 to its most visited cell)", fontsize=7)
    fig.suptitle(f"Where people and {_short(first.name, 40)} walk: its worst, median and best "
                 "mazes (mean steps)\nS green, G magenta, walls black, cells never visited "
                 "white", fontsize=8)
    fig.savefig(path, dpi=_DPI, metadata=_METADATA)
    plt.close(fig)


def _short(text: str, most: int) -> str:
    """`text` cut to `most` characters, "..." marking the cut (a title that fits its panel)."""
    return text if len(text) <= most else text[:most - 3] + "..."


def _choices(counts: dict[str, int]) -> str:
    return " ".join(f"{d}:{n}" for d, n in counts.items())


def _cell(value) -> float | str:
    return "" if value is None or not math.isfinite(value) else float(value)


def _f(value: float, digits: int = 3) -> str:
    return "" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _r(value: float, ci: tuple[float, float]) -> str:
    if not math.isfinite(value):
        return ""
    return f"{value:.3f} ({ci[0]:.3f}-{ci[1]:.3f})" if all(map(math.isfinite, ci)) else \
        f"{value:.3f}"
