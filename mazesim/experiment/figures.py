"""Figures of a run report (matplotlib, Agg): scatter and box plots, choice bars, walk pictures.

Each function draws one figure (or one per condition) from plain arrays and records and writes
it as a PNG; what to draw and the captions are `mazesim.experiment.report`'s. Layouts are set in
inches, with room for every label, so no text leaves the canvas (tested), without
`tight_layout`, which measures every tick label of every panel (slow on big grids).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from mazesim.experiment.bands import Band, band, write_bands  # noqa: E402
from mazesim.experiment.choices import ChoiceTest  # noqa: E402
from mazesim.experiment.statistics import ALL, WITHIN, Correlation  # noqa: E402
from mazesim.maze import Maze  # noqa: E402
from mazesim.render import HEAT_COLOURS  # noqa: E402
from mazesim.walks.metrics import visit_counts  # noqa: E402
from mazesim.walks.pictures import heat_map_image, trajectory_image  # noqa: E402

__all__ = [
    "scatter_figure", "scatter_band", "box_figure", "choice_figure", "trajectory_figures",
    "heatmap_figures",
]

_DPI = 90
_POINT = 6
_TICKS = 4  # tick marks per axis of a scatter panel
_CHOICE_COLUMNS = 4  # panels per row of the choice chart
_HUMAN_COLOR, _SIM_COLOR = "tab:orange", "tab:blue"
_STRATUM_COLORS = plt.get_cmap("tab10").colors
_WIDE_RANGE = 30  # a box plot gets a log axis when its largest value exceeds 30 x the smallest
_METADATA = {"Software": None}  # no version string in the PNG: same run, same bytes
_TITLE_SIZE, _LABEL_SIZE, _TICK_SIZE = 10, 8, 7
_LINE = 1.35 / 72  # inches per point of text, line spacing included
_CHAR = 0.6 / 72   # inches per point of a character (DejaVu Sans, about)
_EDGE = 0.12       # inches kept free around a figure
# a scatter panel and the room around it (inches)
_PANEL, _PANEL_GAP, _PANEL_TITLE, _YLABEL, _XLABEL, _LEGEND = 2.4, 0.5, 0.3, 0.6, 0.45, 0.35
# a maze picture, and a heat map's colour bar beside it (inches)
_MAZE, _MAZE_GAP, _BAR, _BAR_GAP, _BAR_ROOM = 2.8, 0.3, 0.12, 0.08, 0.65


def scatter_figure(path: Path, title: str, agents: Sequence[str], parameters: Sequence[str],
                   x: Mapping[str, np.ndarray], y: Mapping[str, np.ndarray],
                   strata: np.ndarray, cells: Mapping[tuple[str, str, str], Correlation],
                   labels: Mapping[str, str] | None = None) -> Path:
    """Moves per maze against each parameter, one row per agent, points coloured by stratum
    (generator) with a fit line per stratum; `cells[(agent, parameter, stratum)]` gives the
    Pearson r shown in each panel's title (pooled, and within strata when there are some);
    `labels` names the rows (default: the agents). The legend names the strata with points.

    `x[parameter]`, `y[agent]` and `strata` hold one value per maze (same order). Drawn here
    in one band; the report draws its rows in bands in several processes (`scatter_band`) and
    joins them (`write_bands`): the same bytes.
    """
    return write_bands(path, [scatter_band(title, agents, parameters, x, y, strata, cells,
                                           labels, range(len(agents)))])


def scatter_band(title: str, agents: Sequence[str], parameters: Sequence[str],
                 x: Mapping[str, np.ndarray], y: Mapping[str, np.ndarray], strata: np.ndarray,
                 cells: Mapping[tuple[str, str, str], Correlation],
                 labels: Mapping[str, str] | None, rows: Sequence[int]) -> Band:
    """The agent rows `rows` of `scatter_figure`'s canvas (with the first row, its heading and
    legend): each panel is drawn alone at its place, so bands joined give the whole figure."""
    strata = np.asarray(strata, dtype=object)
    names = list(dict.fromkeys(strata.tolist()))
    row_labels = {a: _wrap((labels or {}).get(a, a), _PANEL, _LABEL_SIZE) + "\nmoves per maze"
                  for a in agents}
    label_lines = max(_lines(text) for text in row_labels.values())
    left = _YLABEL + label_lines * _LABEL_SIZE * _LINE
    cols = len(parameters)
    width = left + cols * _PANEL + (cols - 1) * _PANEL_GAP + _EDGE
    heading = _wrap(title, width - 2 * _EDGE, _TITLE_SIZE)
    top = _EDGE + _lines(heading) * _TITLE_SIZE * _LINE + _PANEL_TITLE
    height = (top + len(agents) * _PANEL + (len(agents) - 1) * (_PANEL_GAP + _PANEL_TITLE)
              + _XLABEL + _LEGEND)
    fig = plt.figure(figsize=(width, height), dpi=_DPI)
    for i in rows:
        agent = agents[i]
        ys = np.asarray(y[agent], float)
        for j, name in enumerate(parameters):
            bottom = height - top - (i + 1) * _PANEL - i * (_PANEL_GAP + _PANEL_TITLE)
            ax = fig.add_axes(_box(fig, left + j * (_PANEL + _PANEL_GAP), bottom, _PANEL,
                                   _PANEL))
            _stratum_points(ax, np.asarray(x[name], float), ys, strata, names)
            ax.set_title(_panel_title(cells, agent, name, len(names)), fontsize=_TICK_SIZE)
            if i == len(agents) - 1:
                ax.set_xlabel(name, fontsize=_LABEL_SIZE)
            if j == 0:
                ax.set_ylabel(row_labels[agent], fontsize=_LABEL_SIZE)
            ax.tick_params(labelsize=_TICK_SIZE)
            ax.locator_params(nbins=_TICKS)
    if 0 in rows:
        _scatter_frame(fig, heading, _strata_with_points(x, y, parameters, strata, names), names,
                       width, height)
    return _band(fig)


def _stratum_points(ax, xs: np.ndarray, ys: np.ndarray, strata: np.ndarray,
                    names: list[str]) -> None:
    """One panel's points and fit line per stratum."""
    for k, stratum in enumerate(names):
        ok = np.isfinite(xs) & np.isfinite(ys) & (strata == stratum)
        if not ok.any():
            continue
        color = _STRATUM_COLORS[k % len(_STRATUM_COLORS)]
        ax.scatter(xs[ok], ys[ok], s=_POINT, alpha=0.6, color=color)
        if ok.sum() >= 2 and np.ptp(xs[ok]) > 0:
            slope, intercept = np.polyfit(xs[ok], ys[ok], 1)
            line = np.array([xs[ok].min(), xs[ok].max()])
            ax.plot(line, slope * line + intercept, color=color, linewidth=1)


def _strata_with_points(x: Mapping[str, np.ndarray], y: Mapping[str, np.ndarray],
                        parameters: Sequence[str], strata: np.ndarray, names: list[str]
                        ) -> list[str]:
    """The strata with a point in some panel, in order (known to every band alike)."""
    finite = np.zeros(len(strata), bool)
    for ys in y.values():
        for name in parameters:
            finite |= np.isfinite(np.asarray(x[name], float)) & np.isfinite(np.asarray(ys, float))
    return [s for s in names if (finite & (strata == s)).any()]


def _scatter_frame(fig: plt.Figure, heading: str, shown: list[str], names: list[str],
                   width: float, height: float) -> None:
    """The scatter figure's heading and its legend of the strata `shown`."""
    if shown:
        handles = [Line2D([], [], linestyle="none", marker="o", markersize=np.sqrt(_POINT),
                          alpha=0.6, color=_STRATUM_COLORS[names.index(s) % len(
                              _STRATUM_COLORS)]) for s in shown]
        fig.legend(handles, shown, loc="lower center", fontsize=_LABEL_SIZE,
                   ncol=max(1, min(len(shown), int(width // 1.6))), frameon=False,
                   bbox_to_anchor=(0.5, _EDGE / height))
    fig.suptitle(heading, fontsize=_TITLE_SIZE, y=1 - _EDGE / height, va="top")


def _band(fig: plt.Figure) -> Band:
    """The figure's band (`bands.band`), the figure closed."""
    pixels = _pixels(fig)
    plt.close(fig)
    return band(pixels)


def _pixels(fig: plt.Figure) -> np.ndarray:
    """The figure rendered (Agg, white background) as an RGBA array."""
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())


def _panel_title(cells: Mapping, agent: str, name: str, strata: int) -> str:
    pooled, within = cells.get((agent, name, ALL)), cells.get((agent, name, WITHIN))
    text = [f"r = {pooled.r:.2f} (n = {pooled.n})" if pooled and np.isfinite(pooled.r) else ""]
    if strata >= 2 and within is not None and np.isfinite(within.r):
        text.append(f"within {within.r:.2f}")
    return ", ".join(t for t in text if t)


def box_figure(path: Path, title: str, groups: Sequence[tuple[str, str, np.ndarray]]) -> Path:
    """Box plots of moves, one box per (agent, vision); log scale when the range is wide."""
    width = max(6.0, 0.6 * len(groups))
    heading = _wrap(title, width - 2 * _EDGE, _TITLE_SIZE - 1)
    labels = [f"{a}, vision {v}" for a, v, _ in groups]
    below = _EDGE + max(len(text) for text in labels) * _TICK_SIZE * _CHAR + 0.2
    top = _EDGE + _lines(heading) * (_TITLE_SIZE - 1) * _LINE + 0.1
    height = 3.5 + below + top
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes(_box(fig, 0.8, below, width - 0.8 - _EDGE - 0.1, height - below - top))
    data = [np.asarray(g[2], float) for g in groups]
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(groups) + 1))
    ax.set_xticklabels(labels, rotation=90, fontsize=_TICK_SIZE)
    positive = [d[d > 0] for d in data if (d > 0).any()]
    if positive and max(d.max() for d in positive) > _WIDE_RANGE * min(d.min() for d in positive):
        ax.set_yscale("log")
    ax.set_ylabel("moves per trial")
    ax.set_title(heading, fontsize=_TITLE_SIZE - 1)
    return _save(fig, path)


def choice_figure(path: Path, title: str, tests: Sequence[ChoiceTest]) -> Path:
    """First-departure shares at a probe per condition next to the human shares, with their 95 %
    Wilson intervals; each panel's legend below its axes (it covered the bars' error bars)."""
    cols = min(len(tests), _CHOICE_COLUMNS)
    rows = -(-len(tests) // cols)
    panel_width, panel_height, legend, head = 3.4, 2.8, 1.0, 0.4
    width = cols * (panel_width + 0.75) + _EDGE
    heading = _wrap(title, width - 2 * _EDGE, _TITLE_SIZE)
    top = _EDGE + _lines(heading) * _TITLE_SIZE * _LINE
    height = top + rows * (head + panel_height + legend)
    fig = plt.figure(figsize=(width, height))
    for index, test in enumerate(tests):
        i, j = divmod(index, cols)
        bottom = height - top - (i + 1) * (head + panel_height) - i * legend
        ax = fig.add_axes(_box(fig, 0.7 + j * (panel_width + 0.75), bottom, panel_width,
                               panel_height))
        pos = np.arange(len(test.directions))
        _bars(ax, pos - 0.2, [(c.proportion, c.ci_low, c.ci_high) for c in test.directions],
              _SIM_COLOR, _wrap(f"{test.agent} (n = {test.n:,})", panel_width, _TICK_SIZE))
        if test.human_n:
            _bars(ax, pos + 0.2, [(c.human_share, c.human_ci_low, c.human_ci_high)
                                  for c in test.directions], _HUMAN_COLOR,
                  f"humans (n = {test.human_n:,})")
        ax.set_xticks(pos)
        ax.set_xlim(-0.6, len(pos) - 0.4)
        ax.set_xticklabels([c.direction for c in test.directions], fontsize=_LABEL_SIZE)
        ax.set_ylim(0, 1)
        ax.set_ylabel("share of first departures", fontsize=_LABEL_SIZE)
        ax.tick_params(labelsize=_TICK_SIZE)
        ax.set_title(_wrap(f"mark {test.mark}, vision {test.vision}", panel_width, 9),
                     fontsize=9)
        ax.legend(fontsize=_TICK_SIZE, loc="upper center", bbox_to_anchor=(0.5, -0.12),
                  frameon=False)
    fig.suptitle(heading, fontsize=_TITLE_SIZE, y=1 - _EDGE / height, va="top")
    return _save(fig, path)


def _bars(ax, pos: np.ndarray, shares: list[tuple[float, float, float]], color: str,
          label: str) -> None:
    share = np.array([s for s, _, _ in shares])
    err = np.array([[s - low for s, low, _ in shares], [high - s for s, _, high in shares]])
    ax.bar(pos, share, 0.4, yerr=err, capsize=3, color=color, label=label)


WalkPanels = Sequence[tuple[str, "np.ndarray | None"]]
HeatPanels = Sequence[tuple[str, Sequence[np.ndarray]]]


def trajectory_figures(mazes: Sequence[Maze],
                       figures: Sequence[tuple[Path, str, WalkPanels]]) -> list[Path]:
    """Figures of one walk on each maze of `mazes` in the study's style
    (`mazesim.walks.pictures.trajectory_image`): per figure its PNG path, title and, per maze,
    a panel title and the positions (None: the maze without a walk)."""
    with _MazeCanvas(mazes, figures, colour_bars=False) as canvas:
        return [canvas.save(path, title, [
            (text, trajectory_image(maze, maze.start if walk is None else walk))
            for maze, (text, walk) in zip(mazes, panels)]) for path, title, panels in figures]


def heatmap_figures(mazes: Sequence[Maze],
                    figures: Sequence[tuple[Path, str, HeatPanels]]) -> list[Path]:
    """Figures of the visits per cell summed over walks on each maze of `mazes`
    (`mazesim.walks.pictures.heat_map_image`), each panel with a colour bar of the visits:
    per figure its PNG path, title and, per maze, a panel title and the walks."""
    with _MazeCanvas(mazes, figures, colour_bars=True) as canvas:
        out = []
        for path, title, panels in figures:
            pictures = []
            for maze, bar, (text, walks) in zip(mazes, canvas.bars, panels):
                most = int(sum(visit_counts(maze, w) for w in walks).max()) if walks else 1
                bar.mappable.set_norm(Normalize(1, max(most, 2)))
                pictures.append((text, heat_map_image(maze, walks)))
            out.append(canvas.save(path, title, pictures))
        return out


class _MazeCanvas:
    """One figure for the pictures of a row of mazes, redrawn for each of `figures` (a new
    figure apiece took half as long again), with room for the longest of their titles. Panel
    titles are placed at the top of the axes, which are off: placing them the automatic way
    laid out their unseen ticks first."""

    def __init__(self, mazes: Sequence[Maze], figures: Sequence[tuple], colour_bars: bool
                 ) -> None:
        aspect = max(m.shape[0] / m.shape[1] for m in mazes)
        step = _MAZE + _MAZE_GAP + (_BAR_GAP + _BAR + _BAR_ROOM if colour_bars else 0)
        self.width = 2 * _EDGE + len(mazes) * step - _MAZE_GAP
        heading = max((_lines(self._heading(title)) for _, title, _ in figures), default=1)
        panel = max((_lines(_wrap(text, _MAZE, _LABEL_SIZE)) for _, _, panels in figures
                     for text, _ in panels), default=1)
        top = _EDGE + heading * (_LABEL_SIZE + 1) * _LINE + panel * _LABEL_SIZE * _LINE + 0.1
        height = _EDGE + _MAZE * aspect + top
        self.fig = plt.figure(figsize=(self.width, height))
        self.axes, self.bars, self._images = [], [], []
        ramp = LinearSegmentedColormap.from_list("visits",
                                                 [np.array(c) / 255 for c in HEAT_COLOURS])
        for i in range(len(mazes)):
            left = _EDGE + i * step
            ax = self.fig.add_axes(_box(self.fig, left, _EDGE, _MAZE, _MAZE * aspect))
            ax.set_axis_off()
            self.axes.append((ax, ax.set_title("", fontsize=_LABEL_SIZE, y=1.0)))
            if colour_bars:
                cax = self.fig.add_axes(_box(self.fig, left + _MAZE + _BAR_GAP, _EDGE, _BAR,
                                             _MAZE * aspect))
                bar = self.fig.colorbar(plt.cm.ScalarMappable(Normalize(1, 2), ramp), cax=cax)
                bar.set_label("visits", fontsize=_TICK_SIZE)
                bar.ax.tick_params(labelsize=_TICK_SIZE)
                self.bars.append(bar)
        self._title = self.fig.suptitle("", fontsize=_LABEL_SIZE + 1, va="top",
                                        y=1 - _EDGE / height)

    def _heading(self, title: str) -> str:
        return _wrap(title, self.width - 2 * _EDGE, _LABEL_SIZE + 1)

    def __enter__(self) -> _MazeCanvas:
        return self

    def __exit__(self, *exc) -> None:
        plt.close(self.fig)

    def save(self, path: Path, title: str, pictures: Sequence[tuple[str, object]]) -> Path:
        """Draw each (panel title, image) of `pictures` under `title` and write it to `path`."""
        self._title.set_text(self._heading(title))
        for i, ((ax, label), (text, picture)) in enumerate(zip(self.axes, pictures)):
            if i < len(self._images):
                self._images[i].set_data(np.asarray(picture))
            else:
                self._images.append(ax.imshow(np.asarray(picture), interpolation="nearest"))
            label.set_text(_wrap(text, _MAZE, _LABEL_SIZE))
        return _write(self.fig, path)


def _box(fig: plt.Figure, left: float, bottom: float, width: float, height: float) -> list:
    """An axes rectangle in figure fractions from inches."""
    w, h = fig.get_size_inches()
    return [left / w, bottom / h, width / w, height / h]


def _wrap(text: str, inches: float, size: float) -> str:
    """`text` broken into lines that fit `inches` at font `size` (its own line breaks kept)."""
    width = max(8, int(inches / (size * _CHAR)))
    return "\n".join(line for part in text.split("\n")
                     for line in (textwrap.wrap(part, width) or [""]))


def _lines(text: str) -> int:
    return text.count("\n") + 1


def _save(fig: plt.Figure, path: Path) -> Path:
    _write(fig, path)
    plt.close(fig)
    return path


def _write(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=_DPI, metadata=_METADATA)
    return path
