"""The report's figures: every kind drawn with long labels keeps its text on the canvas, and a
legend names only what is drawn."""

import numpy as np
import pytest

from mazesim.experiment import figures
from mazesim.experiment.choices import choice_test
from mazesim.experiment.statistics import correlations
from mazesim.generators import generate
from mazesim.maze import parse_maze

from report_fixtures import TUTORIAL

LONG = "weighted-walker-with-a-very-long-label-10000"
TOLERANCE = 0.5 / 72    # half a point, in inches


@pytest.fixture
def drawn(monkeypatch):
    """Each figure written, as (name, the bounding box of all its artists in inches, its size,
    its legends' texts), measured just before it is saved."""
    out = []
    write = figures._write

    def measure(fig, path):
        renderer = fig.canvas.get_renderer()
        legends = [[t.get_text() for t in legend.get_texts()]
                   for legend in fig.legends + [ax.get_legend() for ax in fig.axes
                                                if ax.get_legend() is not None]]
        out.append((path and path.name, fig.get_tightbbox(renderer), tuple(fig.get_size_inches()),
                    legends))
        return path and write(fig, path)

    def rendered(fig):
        measure(fig, None)
        return pixels(fig)

    pixels = figures._pixels
    monkeypatch.setattr(figures, "_write", measure)
    monkeypatch.setattr(figures, "_pixels", rendered)
    return out


def _inside(box, size):
    width, height = size
    return (box.x0 >= -TOLERANCE and box.y0 >= -TOLERANCE and box.x1 <= width + TOLERANCE
            and box.y1 <= height + TOLERANCE)


def test_scatter_keeps_its_text_and_names_only_the_strata_drawn(tmp_path, drawn):
    rng = np.random.default_rng(1)
    strata = np.array(["stick-knocking"] * 6 + ["digging"] * 6 + ["wall-extending"])
    x = {p: rng.normal(100, 30, 13) for p in ("solution_length", "branch_points_on_path")}
    ys = {LONG: rng.normal(20000, 5000, 13), "dfs": rng.normal(400, 50, 13)}
    ys["dfs"][-1] = np.nan            # the only wall-extending maze has no mean for dfs
    ys[LONG][-1] = np.nan
    cells = {(c.agent, c.parameter, c.stratum): c for a in ys
             for c in correlations(a, "2", x, ys[a], ("pearson",), strata=strata)}
    figures.scatter_figure(tmp_path / "s.png", "Moves per maze against each parameter, vision "
                           "{isovist: 10, map: known} " * 2, list(ys), list(x), x, ys, strata,
                           cells, {LONG: f"{LONG} (no finding) (restricted mean)"})
    ((name, box, size, legends),) = drawn
    assert _inside(box, size), (box, size)
    assert legends == [["stick-knocking", "digging"]]
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("parts", [2, 3])
def test_scatter_drawn_in_bands_of_rows_is_the_figure_drawn_whole(tmp_path, parts):
    """The report draws a scatter figure's agent rows in several processes and joins the
    bands: the same bytes as the figure drawn in one piece."""
    from mazesim.experiment.background import split
    from mazesim.experiment.bands import write_bands

    rng = np.random.default_rng(2)
    strata = np.array(["digging"] * 5 + ["wall-extending"] * 5)
    x = {p: rng.normal(100, 30, 10) for p in ("solution_length", "max_depth")}
    ys = {a: rng.normal(400, 80, 10) for a in ("bfs", "dfs", "tremaux")}
    drawing = ("Moves per maze against each parameter, vision 2", list(ys), list(x), x, ys,
               strata, {}, None)
    whole = figures.scatter_figure(tmp_path / "whole.png", *drawing).read_bytes()
    bands = [figures.scatter_band(*drawing, rows) for rows in split(range(3), parts)]
    assert len(bands) == parts and all(len(b[2]) for b in bands)
    assert write_bands(tmp_path / "bands.png", bands).read_bytes() == whole


def test_one_maze_per_stratum_gives_a_legend_of_the_strata_with_a_point(tmp_path, drawn):
    """The play report's case: one maze each, people on two of them."""
    strata = np.array(["stick-knocking", "file", "digging"])
    x = {"solution_length": np.array([60.0, 38.0, 40.0])}
    y = {"human": np.array([300.0, np.nan, 120.0])}
    figures.scatter_figure(tmp_path / "one.png", "t", ["human"], list(x), x, y, strata, {})
    assert drawn[0][3] == [["stick-knocking", "digging"]]


def test_box_plot_keeps_its_text(tmp_path, drawn):
    groups = [(f"{LONG}-{i}", "isovist 10, map known", np.arange(1, 50.0) * 10 ** i)
              for i in range(4)]
    figures.box_figure(tmp_path / "b.png", "Moves per trial (capped trials excluded; boxes: "
                       "quartiles, whiskers 1.5 IQR)", groups)
    assert _inside(drawn[0][1], drawn[0][2])


@pytest.mark.parametrize("conditions", [1, 5])
def test_choice_chart_keeps_its_text_and_its_legend_below_the_bars(tmp_path, drawn, conditions):
    tests = [choice_test(f"{LONG}-{i}", "2", "A", {"up": 6703, "right": 3297},
                         {"up": 10, "right": 4}) for i in range(conditions)]
    figures.choice_figure(tmp_path / "c.png", "First departures from mark A", tests)
    ((_, box, size, legends),) = drawn
    assert _inside(box, size)
    assert all(texts[1] == "humans (n = 14)" for texts in legends) and len(legends) == conditions


def test_a_legend_names_the_humans_only_when_there_are_some(tmp_path, drawn):
    test = choice_test("dfs", "2", "A", {"up": 3, "right": 1}, {})
    figures.choice_figure(tmp_path / "c.png", "First departures from mark A", [test])
    assert drawn[0][3] == [["dfs (n = 4)"]]


def test_walk_pictures_keep_their_titles_and_colour_bars(tmp_path, drawn):
    mazes = [generate("digging", (31, 31), seed=1), parse_maze(TUTORIAL),
             generate("wall-extending", (15, 41), seed=2)]
    walks = [np.array([m.start, m.start]) for m in mazes]
    title = f"{LONG}, vision {{isovist: 10, map: known}}: the first stored trial on each maze"
    panels = [(f"maze {i} (wall-extending)\ntrial 123456: 22,450 moves (not reached)", w)
              for i, w in enumerate(walks)]
    figures.trajectory_figures(mazes, [(tmp_path / "t.png", title, panels),
                                       (tmp_path / "t2.png", "short", panels[:2] + [("x", None)])])
    figures.heatmap_figures(mazes, [(tmp_path / "h.png", title,
                                     [(text, [w] * 40) for text, w in panels])])
    assert [name for name, *_ in drawn] == ["t.png", "t2.png", "h.png"]
    for name, box, size, _ in drawn:
        assert _inside(box, size), (name, box, size)
