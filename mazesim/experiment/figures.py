"""Figures of a run report (matplotlib, Agg): scatter and box plots, choice bars, walk pictures.

Each function draws one figure from plain arrays and records and writes it as a PNG; what to
draw and the captions are `mazesim.experiment.report`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402

from mazesim.experiment.choices import ChoiceTest  # noqa: E402
from mazesim.experiment.statistics import ALL, WITHIN, Correlation  # noqa: E402
from mazesim.maze import Maze  # noqa: E402
from mazesim.render import HEAT_COLOURS  # noqa: E402

__all__ = [
    "scatter_figure", "box_figure", "choice_figure", "trajectory_figures", "heatmap_figures",
]

_PANEL = 2.4  # inches per subplot
_DPI = 90
_POINT = 6
_TICKS = 4  # tick marks per axis of a scatter panel
_CHOICE_COLUMNS = 4  # panels per row of the choice chart
_HUMAN_COLOR, _SIM_COLOR = "tab:orange", "tab:blue"
_STRATUM_COLORS = plt.get_cmap("tab10").colors
_WIDE_RANGE = 30  # a box plot gets a log axis when its largest value exceeds 30 x the smallest
_MAZE_INCHES = 4.0
_METADATA = {"Software": None}  # no version string in the PNG: same run, same bytes


def scatter_figure(path: Path, title: str, agents: Sequence[str], parameters: Sequence[str],
                   x: Mapping[str, np.ndarray], y: Mapping[str, np.ndarray],
                   strata: np.ndarray, cells: Mapping[tuple[str, str, str], Correlation],
                   labels: Mapping[str, str] | None = None) -> Path:
    """Mean moves per maze against each parameter, one row per agent, points coloured by
    stratum (generator) with a fit line per stratum; `cells[(agent, parameter, stratum)]` gives
    the Pearson r shown in each panel's title (pooled, and within strata when there are some);
    `labels` names the rows (default: the agents).

    `x[parameter]`, `y[agent]` and `strata` hold one value per maze (same order).
    """
    strata = np.asarray(strata, dtype=object)
    names = list(dict.fromkeys(strata.tolist()))
    fig, axes = plt.subplots(len(agents), len(parameters), squeeze=False,
                             figsize=(_PANEL * len(parameters), _PANEL * len(agents) + 0.6))
    for i, agent in enumerate(agents):
        for j, name in enumerate(parameters):
            ax = axes[i, j]
            xs, ys = np.asarray(x[name], float), np.asarray(y[agent], float)
            for k, stratum in enumerate(names):
                ok = np.isfinite(xs) & np.isfinite(ys) & (strata == stratum)
                color = _STRATUM_COLORS[k % len(_STRATUM_COLORS)]
                ax.scatter(xs[ok], ys[ok], s=_POINT, alpha=0.6, color=color, label=stratum)
                if ok.sum() >= 2 and np.ptp(xs[ok]) > 0:
                    slope, intercept = np.polyfit(xs[ok], ys[ok], 1)
                    line = np.array([xs[ok].min(), xs[ok].max()])
                    ax.plot(line, slope * line + intercept, color=color, linewidth=1)
            ax.set_title(_panel_title(cells, agent, name, len(names)), fontsize=7)
            if i == len(agents) - 1:
                ax.set_xlabel(name, fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{(labels or {}).get(agent, agent)}\nmean moves", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.locator_params(nbins=_TICKS)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(names), fontsize=8, frameon=False)
    fig.suptitle(title)
    # fixed margins: tight_layout measures every tick label of every panel (slow on big grids)
    bottom = 0.6 / (_PANEL * len(agents) + 0.6) + 0.05
    fig.subplots_adjust(left=0.1, right=0.98, bottom=bottom, top=0.92, hspace=0.55, wspace=0.35)
    return _save(fig, path, tight=False)


def _panel_title(cells: Mapping, agent: str, name: str, strata: int) -> str:
    pooled, within = cells.get((agent, name, ALL)), cells.get((agent, name, WITHIN))
    text = [f"r = {pooled.r:.2f} (n = {pooled.n})" if pooled and np.isfinite(pooled.r) else ""]
    if strata >= 2 and within is not None and np.isfinite(within.r):
        text.append(f"within {within.r:.2f}")
    return ", ".join(t for t in text if t)


def box_figure(path: Path, title: str, groups: Sequence[tuple[str, str, np.ndarray]]) -> Path:
    """Box plots of moves, one box per (agent, vision); log scale when the range is wide."""
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(groups)), 4.5))
    data = [np.asarray(g[2], float) for g in groups]
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(groups) + 1))
    ax.set_xticklabels([f"{a}\n{v}" for a, v, _ in groups], rotation=60, fontsize=7)
    positive = [d[d > 0] for d in data if (d > 0).any()]
    if positive and max(d.max() for d in positive) > _WIDE_RANGE * min(d.min() for d in positive):
        ax.set_yscale("log")
    ax.set_ylabel("moves per trial")
    ax.set_title(title, fontsize=9)
    return _save(fig, path)


def choice_figure(path: Path, title: str, tests: Sequence[ChoiceTest]) -> Path:
    """First-departure shares at a probe per condition next to the human shares, with their 95 %
    Wilson intervals."""
    cols = min(len(tests), _CHOICE_COLUMNS)
    rows = -(-len(tests) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(4.0 * cols, 3.8 * rows + 0.4))
    for ax in axes.flat[len(tests):]:
        ax.set_visible(False)
    for ax, test in zip(axes.flat, tests):
        pos = np.arange(len(test.directions))
        _bars(ax, pos - 0.2, [(c.proportion, c.ci_low, c.ci_high) for c in test.directions],
              _SIM_COLOR, f"{test.agent} (n = {test.n})")
        if test.human_n:
            _bars(ax, pos + 0.2, [(c.human_share, c.human_ci_low, c.human_ci_high)
                                  for c in test.directions], _HUMAN_COLOR,
                  f"humans (n = {test.human_n})")
        ax.set_xticks(pos)
        ax.set_xticklabels([c.direction for c in test.directions])
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of first departures")
        ax.set_title(f"mark {test.mark}, vision {test.vision}", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def _bars(ax, pos: np.ndarray, shares: list[tuple[float, float, float]], color: str,
          label: str) -> None:
    share = np.array([s for s, _, _ in shares])
    err = np.array([[s - low for s, low, _ in shares], [high - s for s, _, high in shares]])
    ax.bar(pos, share, 0.4, yerr=err, capsize=3, color=color, label=label)


def trajectory_figures(maze: Maze, trials: Sequence[tuple[Path, str, np.ndarray]]
                       ) -> list[Path]:
    """Each trial (PNG path, title, positions) on `maze` in the study's style
    (`mazesim.walks.pictures.trajectory_image`), titled."""
    from mazesim.walks.pictures import trajectory_image

    with _MazeCanvas(maze) as canvas:
        return [canvas.save(path, title, trajectory_image(maze, positions))
                for path, title, positions in trials]


def heatmap_figures(maze: Maze, conditions: Sequence[tuple[Path, str, Sequence[np.ndarray]]]
                    ) -> list[Path]:
    """Visits per cell summed over each condition's trials (PNG path, title, walks) on `maze`
    (`mazesim.walks.pictures.heat_map_image`), with a colour bar of the number of visits."""
    from mazesim.walks.metrics import visit_counts
    from mazesim.walks.pictures import heat_map_image

    ramp = LinearSegmentedColormap.from_list("visits", [np.array(c) / 255 for c in HEAT_COLOURS])
    visits = plt.cm.ScalarMappable(Normalize(1, 2), ramp)
    out = []
    with _MazeCanvas(maze, colour_bar=True) as canvas:
        bar = canvas.fig.colorbar(visits, ax=canvas.ax, fraction=0.046, pad=0.04)
        for path, title, walks in conditions:
            most = int(sum(visit_counts(maze, w) for w in walks).max()) if walks else 1
            visits.set_norm(Normalize(1, max(most, 2)))
            bar.set_label(f"visits ({len(walks)} trials)", fontsize=8)
            out.append(canvas.save(path, title, heat_map_image(maze, walks)))
    return out


class _MazeCanvas:
    """One figure for the pictures of a maze, redrawn for each (a new figure apiece took half as
    long again). The title is placed at the top of the axes, which are off: placing it the
    automatic way laid out their unseen ticks first."""

    def __init__(self, maze: Maze, colour_bar: bool = False) -> None:
        h, w = maze.shape
        width = _MAZE_INCHES * (1.25 if colour_bar else 1.0)
        self.fig, self.ax = plt.subplots(figsize=(width, _MAZE_INCHES * h / w + 0.5))
        self.fig.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.9)  # tight: slow
        self.ax.set_axis_off()
        self._title = self.ax.set_title("", fontsize=8, y=1.0)
        self._image = None

    def __enter__(self) -> _MazeCanvas:
        return self

    def __exit__(self, *exc) -> None:
        plt.close(self.fig)

    def save(self, path: Path, title: str, picture) -> Path:
        """Draw `picture` (an image) titled `title` and write it to `path`."""
        if self._image is None:
            self._image = self.ax.imshow(np.asarray(picture), interpolation="nearest")
        else:
            self._image.set_data(np.asarray(picture))
        self._title.set_text(title)
        return _write(self.fig, path)


def _save(fig: plt.Figure, path: Path, tight: bool = True) -> Path:
    if tight:
        fig.tight_layout()
    _write(fig, path)
    plt.close(fig)
    return path


def _write(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=_DPI, metadata=_METADATA)
    return path
