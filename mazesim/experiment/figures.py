"""Figures of a run report (matplotlib, Agg): scatter and box plots, choice bars, trajectories."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mazesim.experiment.statistics import ChoiceTest, Correlation  # noqa: E402
from mazesim.maze import Maze  # noqa: E402

__all__ = [
    "scatter_figure", "box_figure", "choice_figure", "trajectory_figure", "heatmap_figure",
]

_PANEL = 2.4  # inches per subplot
_DPI = 90
_POINT = 6
_TICKS = 4  # tick marks per axis of a scatter panel
_CHOICE_COLUMNS = 4  # panels per row of the choice chart
_HUMAN_COLOR, _SIM_COLOR = "tab:orange", "tab:blue"


def scatter_figure(path: Path, vision: str, agents: Sequence[str], parameters: Sequence[str],
                   x: Mapping[str, np.ndarray], y: Mapping[str, np.ndarray],
                   pearson: Mapping[tuple[str, str], Correlation]) -> Path:
    """Mean moves per maze against each parameter; one row per agent, with fitted line and r.

    `x[parameter]` and `y[agent]` hold one value per maze (same order).
    """
    fig, axes = plt.subplots(len(agents), len(parameters), squeeze=False,
                             figsize=(_PANEL * len(parameters), _PANEL * len(agents)))
    for i, agent in enumerate(agents):
        for j, name in enumerate(parameters):
            ax = axes[i, j]
            xs, ys = np.asarray(x[name], float), np.asarray(y[agent], float)
            ok = np.isfinite(xs) & np.isfinite(ys)
            ax.scatter(xs[ok], ys[ok], s=_POINT, alpha=0.6)
            if ok.sum() >= 2 and np.ptp(xs[ok]) > 0:
                slope, intercept = np.polyfit(xs[ok], ys[ok], 1)
                line = np.array([xs[ok].min(), xs[ok].max()])
                ax.plot(line, slope * line + intercept, color="tab:red", linewidth=1)
            rec = pearson.get((agent, name))
            if rec is not None:
                ax.set_title(f"r = {rec.r:.2f} (n = {rec.n})", fontsize=8)
            if i == len(agents) - 1:
                ax.set_xlabel(name, fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{agent}\nmean moves", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.locator_params(nbins=_TICKS)
    fig.suptitle(f"Mean moves per maze against each parameter (vision {vision})")
    # fixed margins: tight_layout measures every tick label of every panel (slow on big grids)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.06, top=0.94, hspace=0.5, wspace=0.35)
    return _save(fig, path, tight=False)


def box_figure(path: Path, groups: Sequence[tuple[str, str, np.ndarray]]) -> Path:
    """Box plots of moves, one box per (agent, vision); log scale when the range is wide."""
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(groups)), 4.5))
    data = [np.asarray(g[2], float) for g in groups]
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(groups) + 1))
    ax.set_xticklabels([f"{a}\n{v}" for a, v, _ in groups], rotation=60, fontsize=7)
    positive = [d[d > 0] for d in data if (d > 0).any()]
    if positive and max(d.max() for d in positive) > 30 * min(d.min() for d in positive):
        ax.set_yscale("log")
    ax.set_ylabel("moves per trial")
    ax.set_title("Moves per agent and vision (boxes: quartiles, whiskers 1.5 IQR)")
    return _save(fig, path)


def choice_figure(path: Path, tests: Sequence[ChoiceTest]) -> Path:
    """First-departure proportions at a probe per condition (95% CI) next to the human share."""
    cols = min(len(tests), _CHOICE_COLUMNS)
    rows = -(-len(tests) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(4.0 * cols, 3.8 * rows))
    for ax in axes.flat[len(tests):]:
        ax.set_visible(False)
    for ax, test in zip(axes.flat, tests):
        names = [c.direction for c in test.directions]
        pos = np.arange(len(names))
        props = np.array([c.proportion for c in test.directions])
        err = np.array([[c.proportion - c.ci_low for c in test.directions],
                        [c.ci_high - c.proportion for c in test.directions]])
        ax.bar(pos - 0.2, props, 0.4, yerr=err, capsize=3, color=_SIM_COLOR,
               label=f"{test.agent} (n = {test.n})")
        if test.human_n:
            human = np.array([(c.human or 0) / test.human_n for c in test.directions])
            ax.bar(pos + 0.2, human, 0.4, color=_HUMAN_COLOR, label=f"humans (n = {test.human_n})")
        ax.set_xticks(pos)
        ax.set_xticklabels(names)
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of first departures")
        ax.set_title(f"mark {test.mark}, vision {test.vision}", fontsize=9)
        ax.legend(fontsize=7)
    return _save(fig, path)


def trajectory_figure(path: Path, maze: Maze, positions: np.ndarray) -> Path:
    """One trial in the study's style (`mazesim.walks.pictures.trajectory_image`)."""
    from mazesim.render import save_image
    from mazesim.walks.pictures import trajectory_image

    path.parent.mkdir(parents=True, exist_ok=True)
    save_image(trajectory_image(maze, positions), path)
    return path


def heatmap_figure(path: Path, maze: Maze, walks: Sequence[np.ndarray]) -> Path:
    """Visits per cell summed over several trials (`mazesim.walks.pictures.heat_map_image`)."""
    from mazesim.render import save_image
    from mazesim.walks.pictures import heat_map_image

    path.parent.mkdir(parents=True, exist_ok=True)
    save_image(heat_map_image(maze, walks), path)
    return path


def _save(fig: plt.Figure, path: Path, tight: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if tight:
        fig.tight_layout()
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
    return path
