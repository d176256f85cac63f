"""The report's drawers (fronts with weights, confidence regions, γ choices; fronts under
several measures, 003 Fig. 11) and the self-contained HTML page."""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
from dataclasses import dataclass

import matplotlib
import numpy as np
import pandas as pd
import pytest

from paretostab import InvalidInputError
from paretostab.front import ParetoFront, dominance_area, pareto_front

matplotlib.use("Agg", force=True)
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Ellipse as EllipsePatch  # noqa: E402

from paretostab.plot import draw_front, draw_fronts  # noqa: E402
from paretostab.report._html import (  # noqa: E402
    Section,
    figure_to_png,
    figure_to_svg,
    format_value,
    write_report,
)

# --------------------------------------------------------------------------- stand-ins
# The fields of paretostab.report._confidence.Ellipse / DominanceAreaInterval and of
# paretostab.front.GammaChoice: the drawers and the page only read these.


@dataclass(frozen=True)
class StandInEllipse:
    center: np.ndarray
    semi_axes: np.ndarray
    angle: float
    level: float = 0.95


@dataclass(frozen=True)
class StandInChoice:
    index: int
    gamma_low: float = 0.0
    gamma_high: float = 1.0


@dataclass(frozen=True)
class StandInInterval:
    low: float
    high: float
    estimate: float
    level: float
    simultaneous: bool


POINTS = np.array([[0.62, 0.70], [0.70, 0.64], [0.78, 0.55], [0.86, 0.45], [0.93, 0.30],
                   [0.70, 0.50], [0.80, 0.40], [0.65, 0.35], [np.nan, 0.5]])
FRONT = pareto_front(POINTS)  # rows 0..4


@pytest.fixture
def rc_unchanged():
    before = dict(matplotlib.rcParams)
    yield
    assert dict(matplotlib.rcParams) == before


def circles(ax, size=140):
    """The offsets of the open circles of the γ choices."""
    found = [c for c in ax.collections if isinstance(c, PathCollection)
             and np.allclose(c.get_sizes(), size) and len(c.get_facecolor()) == 0]
    return np.vstack([c.get_offsets() for c in found]) if found else np.empty((0, 2))


def labels_of(ax):
    return ax.get_legend_handles_labels()[1]


def assert_saves(figure):
    png, svg = figure_to_png(figure, dpi=50), figure_to_svg(figure)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert "<svg" in svg and "<dc:date>" not in svg
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg")
    figure.savefig(io.BytesIO(), format="png")


# --------------------------------------------------------------------------- draw_front


def test_front_with_weight_ellipses_and_choices(rc_unchanged):
    fig = Figure(figsize=(5, 4))
    ax = fig.add_subplot()
    ellipses = [StandInEllipse(POINTS[i], np.array([0.01, 0.03]), 0.3) for i in FRONT]
    ellipses.append(StandInEllipse(np.array([np.nan, 0.5]), np.array([0.1, 0.1]), 0.0))
    points = POINTS.copy()
    out = draw_front(ParetoFront.of(points, weight=("accuracy", 3)), ax=ax, ellipses=ellipses,
                     chosen=[1, 3], legend=True)
    assert out is ax
    np.testing.assert_array_equal(points, POINTS)  # not mutated
    # the confidence regions: one outline per finite ellipse, major axis along the angle
    patches = [p for p in ax.patches if isinstance(p, EllipsePatch)]
    assert len(patches) == len(FRONT)
    assert patches[0].width == pytest.approx(0.06) and patches[0].height == pytest.approx(0.02)
    assert patches[0].angle == pytest.approx(np.degrees(0.3))
    np.testing.assert_allclose(patches[0].center, POINTS[FRONT[0]])
    # a dark outline with a light fill, under the trials and the front's points
    assert patches[0].get_fill() and 0 < patches[0].get_facecolor()[3] <= 0.2
    assert patches[0].get_edgecolor()[3] == 1 and patches[0].get_linewidth() >= 1.2
    assert patches[0].get_zorder() < min(ax.lines[0].get_zorder(),
                                         ax.collections[0].get_zorder())
    # the γ choices circled
    np.testing.assert_allclose(circles(ax), POINTS[[1, 3]])
    # the dominated area shaded by the density: darker towards high accuracy
    assert len(ax.images) == 1
    image = ax.images[0]
    assert image.get_clip_path() is not None
    alpha = image.get_array()[..., 3]
    assert np.all(np.diff(alpha, axis=1) > 0) and np.allclose(alpha, alpha[:1])
    value = dominance_area(POINTS, weight=("accuracy", 3))
    labels = labels_of(ax)
    assert f"dominance area = {value:.3f} (accuracy, A = 3)" in labels
    assert "95% confidence regions" in labels and "γ choice" in labels
    assert ax.get_legend() is not None
    assert ax.get_xlim()[1] > 0.93 and ax.get_ylim()[1] > 0.70  # margins kept
    assert_saves(fig)


def test_stability_and_callable_weights_shade_along_their_axis(rc_unchanged):
    ax = draw_front(ParetoFront.of(POINTS, weight=("stability", -2)), ax=Figure().add_subplot())
    alpha = ax.images[0].get_array()[..., 3]
    assert np.all(np.diff(alpha, axis=0) < 0) and np.allclose(alpha, alpha[:, :1])

    def density(a, phi):  # integrates to 1 over [0, 1]², grows with a + φ
        return a + phi

    ax = draw_front(ParetoFront.of(POINTS, weight=density), ax=Figure().add_subplot())
    alpha = ax.images[0].get_array()[..., 3]
    assert alpha[-1, -1] > alpha[0, -1] and alpha[-1, -1] > alpha[-1, 0]
    value = dominance_area(POINTS, weight=density)
    assert f"dominance area = {value:.3f} (density)" in labels_of(ax)


def test_uniform_weight_and_trivial_point(rc_unchanged):
    ax = draw_front(ParetoFront.of(POINTS, weight="uniform", trivial_point=0.5),
                    ax=Figure().add_subplot())
    assert not ax.images and len(ax.patches) == 1  # one flat shading
    with_trivial = np.vstack([POINTS, [[0.5, 1.0]]])
    value = dominance_area(with_trivial, weight="uniform")
    assert f"dominance area = {value:.3f}" in labels_of(ax)
    assert "trivial point" in labels_of(ax)
    # the trivial point starts the staircase
    np.testing.assert_allclose(ax.lines[0].get_xydata()[0], [0.5, 1.0])


def test_front_given_as_indices_and_choices_as_objects(rc_unchanged):
    ax = draw_front(ParetoFront.of(POINTS, rows=[6, 5, 7]), ax=Figure().add_subplot(),
                    area=False, chosen=(StandInChoice(2), StandInChoice(4)))
    np.testing.assert_allclose(ax.lines[0].get_xydata()[[0, -1]], [[0.65, 0.35], [0.80, 0.40]])
    np.testing.assert_allclose(circles(ax), POINTS[[2, 4]])
    ax = draw_front(ParetoFront.of(POINTS), ax=Figure().add_subplot(), chosen=StandInChoice(0))
    np.testing.assert_allclose(circles(ax), POINTS[[0]])


def test_the_points_are_labelled_trials_unless_told(rc_unchanged):
    ax = draw_front(ParetoFront.of(POINTS), ax=Figure().add_subplot(), legend=True)
    assert labels_of(ax)[0] == "trials" and "points" not in labels_of(ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()][0] == "trials"
    ax = draw_front(ParetoFront.of(POINTS), ax=Figure().add_subplot(),
                    points_label="replicate means")
    assert labels_of(ax)[0] == "replicate means"


@pytest.mark.parametrize("of_kwargs, kwargs, match", [
    ({"weight": ("accuracy", "strong")}, {}, "weight"),
    ({"weight": "heavy"}, {}, "weight"),
    ({}, {"chosen": [len(POINTS)]}, "chosen"),
    ({}, {"chosen": [True]}, "chosen"),
    ({"rows": [-1]}, {}, "rows"),
    ({}, {"ellipses": [object()]}, "ellipses"),
    ({"trivial_point": (0.5, 1.0, 2.0)}, {}, "trivial_point"),
])
def test_draw_front_rejects_bad_options(of_kwargs, kwargs, match, rc_unchanged):
    ax = Figure().add_subplot()
    with pytest.raises(InvalidInputError, match=match):
        draw_front(ParetoFront.of(POINTS, **of_kwargs), ax=ax, **kwargs)
    if "ellipses" not in kwargs:  # validated before anything is drawn
        assert not ax.collections and not ax.patches


def test_the_front_drawers_take_a_computed_front(rc_unchanged):
    from paretostab.plot import draw_combined_front, draw_group_fronts, draw_optimism

    ax = Figure().add_subplot()
    needs = r"needs a ParetoFront \(paretostab.front.ParetoFront.of\); got ndarray"
    with pytest.raises(InvalidInputError, match="draw_front " + needs):
        draw_front(POINTS, ax=ax)
    with pytest.raises(InvalidInputError, match="draw_combined_front " + needs):
        draw_combined_front(POINTS, ["A"] * len(POINTS), ax=ax)
    with pytest.raises(InvalidInputError, match="draw_optimism " + needs):
        draw_optimism(POINTS, POINTS, ax=ax)
    with pytest.raises(InvalidInputError, match=r"\(title, ParetoFront\).*panel 0"):
        draw_fronts([("nogueira", POINTS)], axes=[ax])
    with pytest.raises(InvalidInputError, match=r"\(name, ParetoFront\).*group 0"):
        draw_group_fronts([("A", POINTS)], ax=ax)
    assert not ax.collections and not ax.lines and not ax.patches


# --------------------------------------------------------------------------- draw_fronts


def panels(weight=None):
    other = POINTS * [1.0, 0.6]
    return [("nogueira", ParetoFront.of(POINTS, weight=weight), [2]),
            ("iw", ParetoFront.of(other, rows=FRONT, weight=weight), None),
            ("pearson", ParetoFront.of(other, weight=weight))]


def test_draw_fronts_on_given_axes(rc_unchanged):
    fig = Figure(figsize=(12, 4))
    axes = fig.subplots(1, 3, sharey=True)
    out = draw_fronts(panels(), axes=axes)
    assert out == list(axes)
    assert [ax.get_title() for ax in out] == ["nogueira", "iw", "pearson"]
    assert [ax.get_ylabel() for ax in out] == ["stability", "", ""]
    assert [ax.get_xlabel() for ax in out] == ["accuracy"] * 3
    np.testing.assert_allclose(circles(out[0]), POINTS[[2]])
    assert circles(out[1]).size == 0
    # the given front (the first measure's) drawn in the second measure's space
    np.testing.assert_allclose(out[1].lines[0].get_ydata(), 0.6 * POINTS[FRONT, 1])
    assert all(not ax.patches and ax.get_legend() is not None for ax in out)  # no area
    assert_saves(fig)


@pytest.mark.slow
def test_draw_fronts_options_and_new_figure(rc_unchanged):
    import matplotlib.pyplot as plt

    fig = Figure()
    axes = fig.subplots(2, 1)  # any shape, not shared: each labelled
    out = draw_fronts(panels(weight=("accuracy", 1))[:2], axes=axes, area=True, legend=False)
    assert [ax.get_ylabel() for ax in out] == ["stability", "stability"]
    assert all(len(ax.images) == 1 and ax.get_legend() is None for ax in out)
    out = draw_fronts(panels())  # a new row of axes
    assert len(out) == 3 and len({id(ax.figure) for ax in out}) == 1
    plt.close(out[0].figure)
    with pytest.raises(InvalidInputError, match="one matplotlib Axes per panel"):
        draw_fronts(panels(), axes=Figure().subplots(1, 2))
    with pytest.raises(InvalidInputError, match="panel 0"):
        draw_fronts([("only a title",)], axes=[Figure().add_subplot()])
    with pytest.raises(InvalidInputError, match="panels"):
        draw_fronts("nogueira", axes=[Figure().add_subplot()])


# --------------------------------------------------------------------------- html


def front_figure():
    fig = Figure(figsize=(5, 4))
    ellipses = [StandInEllipse(POINTS[i], np.array([0.02, 0.01]), 0.0) for i in FRONT]
    draw_front(ParetoFront.of(POINTS), ax=fig.add_subplot(), ellipses=ellipses, chosen=[2],
               legend=True)
    return fig


def sections():
    table = pd.DataFrame({"trial": [3, 7], "accuracy": [0.81234, 0.9],
                          "params": ["{'reg': 0.5}", "<b>bold</b>"]})
    interval = StandInInterval(0.41, 0.45, 0.43, 0.95, False)
    simultaneous = StandInInterval(0.40, 0.46, 0.43, 0.95, True)
    maps = [Section(f"Trial {k}", figure=front_figure(), caption=f"map {k}") for k in (3, 7)]
    return [
        Section("Summary", text="First paragraph.\n\nSecond & last.",
                fields={"study": "tiny", "trials": 5, "dominance area": 0.43219,
                        "interval": interval, "simultaneous interval": simultaneous,
                        "weight": "accuracy:2", "gamma": None, "pair": (0.1, 0.2)}),
        Section("Pareto front", figure=front_figure(), table=table,
                caption="The front <with> regions."),
        Section("γ table", table=table.set_index("trial"), caption="By γ."),
        Section("Maps", subsections=maps),
    ]


@pytest.mark.slow
def test_write_report_is_a_self_contained_escaped_page(tmp_path, rc_unchanged):
    title = "Report <script>alert('x')</script> & co"
    path = write_report(tmp_path / "out", title=title, sections=sections(),
                        summary="Objective: accuracy <and> iw.")
    assert path == tmp_path / "out" / "index.html"
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # escaped text, no script, no external resource
    assert "<script" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "Objective: accuracy &lt;and&gt; iw." in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>" not in page
    assert "The front &lt;with&gt; regions." in page
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", page)
    assert "<link" not in page and "@import" not in page
    # the tables' values, the fields formatted, the paragraphs
    assert "<td>0.8123</td>" in page and "<td>0.9</td>" in page
    assert "<td>0.43 [0.41, 0.45] (95%)</td>" in page
    assert "<td>0.43 [0.4, 0.46] (95%, simultaneous)</td>" in page
    assert "<td>0.4322</td>" in page and "<td>[0.1, 0.2]</td>" in page
    assert "<p>First paragraph.</p>" in page and "<p>Second &amp; last.</p>" in page
    assert '<th scope="row">gamma</th><td>–</td>' in page
    # the table without a figure carries the caption; an index other than 0..n-1 is shown
    assert "<caption>By γ.</caption>" in page and "<th>trial</th>" in page
    # the figures: embedded PNGs that decode, and files beside the page
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3
    assert all(base64.b64decode(data).startswith(b"\x89PNG") for data in images)
    assert page.count("<figcaption>") == 3
    files = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert files == ["01-pareto-front.png", "01-pareto-front.svg", "02-trial-3.png",
                     "02-trial-3.svg", "03-trial-7.png", "03-trial-7.svg"]
    # the contents, with the subsections, and unique anchors
    assert '<a href="#summary">Summary</a>' in page and '<a href="#trial-7">' in page
    ids = re.findall(r'<section id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 6
    assert "<h3>Trial 3</h3>" in page


def test_write_report_svg_and_no_files(tmp_path, rc_unchanged):
    path = write_report(tmp_path, title="t", figure_format="svg", figure_files=(),
                        sections=[Section("Front", figure=front_figure())])
    page = path.read_text(encoding="utf-8")
    data = re.findall(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(data) == 1 and b"<svg" in base64.b64decode(data[0])
    assert not (tmp_path / "figures").exists()
    assert "<nav" not in page  # fewer than three sections: no contents
    assert "http://" not in page and "https://" not in page


def test_write_report_rejects_bad_input(tmp_path):
    with pytest.raises(InvalidInputError, match="title"):
        Section(3)
    with pytest.raises(InvalidInputError, match="table must be a pandas DataFrame"):
        Section("t", table=[[1, 2]])
    with pytest.raises(InvalidInputError, match="figure must be a matplotlib Figure"):
        Section("t", figure="front.png")
    with pytest.raises(InvalidInputError, match=r"'t': fields must be a mapping \(key → "
                                                 r"value\); got list\."):
        Section("t", fields=[("a", 1)])
    with pytest.raises(InvalidInputError, match=r"'t': caption must be a str; got int\."):
        Section("t", caption=3)
    with pytest.raises(InvalidInputError, match="figure_format"):
        write_report(tmp_path, title="t", sections=[], figure_format="jpg")
    with pytest.raises(InvalidInputError, match="figure_files"):
        write_report(tmp_path, title="t", sections=[], figure_files=("pdf",))
    with pytest.raises(InvalidInputError, match="sections"):
        write_report(tmp_path, title="t", sections=["text"])
    section = Section("t", subsections=[Section("u")])
    assert isinstance(section.subsections, tuple)
    with pytest.raises(AttributeError):
        section.title = "v"  # frozen


def test_format_value():
    assert format_value(None) == "–" and format_value(float("nan")) == "–"
    assert format_value(True) == "yes" and format_value(np.int64(3)) == "3"
    assert format_value(0.123456) == "0.1235" and format_value(float("inf")) == "∞"
    assert format_value({"reg": 0.5, "n": 3}) == "reg = 0.5, n = 3"
    assert format_value(["a", "b", "c"]) == "a, b, c"
    assert format_value(StandInInterval(0.1, 0.2, None, 0.9, True)) == "[0.1, 0.2] (90%, simultaneous)"


@pytest.mark.slow
def test_html_module_does_not_load_matplotlib():
    code = ("import sys; import paretostab.report._html; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_draw_optimism_joins_each_trial_to_its_replicate_mean_and_draws_their_front():
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    from paretostab.plot import draw_optimism

    ax = Figure().add_subplot()
    trials = np.array([[0.9, 0.5], [0.8, 0.7], [0.7, 0.9]])
    means = trials - [[0.02, 0.05], [0.01, 0.0], [0.03, 0.02]]
    draw_optimism(trials, ParetoFront.of(means), ax=ax)
    (segments,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    np.testing.assert_allclose(np.stack(segments.get_segments()),
                               np.stack([trials, means], axis=1))
    (staircase,) = ax.get_lines()
    assert staircase.get_label() == "front of the replicate means"
    assert set(map(tuple, staircase.get_xydata())) <= set(map(tuple, means))
    with pytest.raises(InvalidInputError, match="same shape"):
        draw_optimism(trials, ParetoFront.of(means[:2]), ax=ax)


def test_zoom_to_data_frames_the_points_and_regions_not_the_unit_square():
    from matplotlib.figure import Figure

    from paretostab.plot import draw_front, zoom_to_data
    from paretostab.report._confidence import confidence_regions

    rng = np.random.default_rng(0)
    points = np.column_stack([rng.uniform(0.7, 0.95, 20), rng.uniform(0.5, 0.9, 20)])
    samples = [p + rng.normal(scale=s, size=(3, 2)) for p, s in zip(points[:3], [0.01, 0.01, 2.0], strict=True)]
    ax = Figure().add_subplot()
    draw_front(ParetoFront.of(points), ax=ax, ellipses=confidence_regions(samples))
    (x0, x1), (y0, y1) = zoom_to_data(ax, points)
    assert x0 > 0.5 and y0 > 0.3  # neither the area to (0, 0) nor a wide region sets the view
    assert x1 < 1.1 and y1 < 1.1
    assert x0 <= points[:, 0].min() and x1 >= points[:, 0].max()
    assert y0 <= points[:, 1].min() and y1 >= points[:, 1].max()
    assert ax.get_xlim() == (x0, x1)


# --------------------------------------------------------------------------- reading at a glance


def shown_labels(ax):
    """The window extents (display pixels) of the trial labels shown, after a full draw
    on an Agg canvas."""
    ax.figure.canvas.draw()
    return [t.get_window_extent() for t in ax.texts if t.get_visible()]


def assert_apart(boxes):
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1), (a, b)


def dense_points():
    rng = np.random.default_rng(3)  # 40 trials in a box of 0.01 × 0.01
    return np.column_stack([0.9 + 0.01 * rng.random(40), 0.8 + 0.01 * rng.random(40)])


def labelled_front(points, *, size=(5, 4), limits=((0.85, 0.95), (0.75, 0.85)), **kwargs):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = Figure(figsize=size, dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    draw_front(ParetoFront.of(points, rows=list(range(len(points)))), ax=ax, area=False,
               labels=[str(k) for k in range(len(points))], **kwargs)
    ax.set_xlim(*limits[0])  # placed when drawn: after the zoom
    ax.set_ylim(*limits[1])
    return ax


def test_trial_labels_never_overlap_on_a_dense_front(rc_unchanged):
    from matplotlib.collections import LineCollection

    ax = labelled_front(dense_points())
    boxes = shown_labels(ax)
    assert len(boxes) == 40  # each placed, none left out at this size
    assert_apart(boxes)
    inside = ax.bbox
    assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 and inside.y0 <= b.y0
               and b.y1 <= inside.y1 for b in boxes)
    # the labels moved away from their points are joined to them by thin leader lines
    (leaders,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert 0 < len(leaders.get_segments()) <= 40
    # deterministic: the same places on every drawing
    again = shown_labels(ax)
    assert [tuple(b.extents) for b in again] == [tuple(b.extents) for b in boxes]
    # placed for the size drawn: a smaller figure still has no overlap
    ax.figure.set_size_inches(3.5, 3.0)
    assert_apart(shown_labels(ax))


def test_labels_of_duplicate_points_are_joined_and_apart(rc_unchanged):
    points = np.vstack([dense_points()[:12], dense_points()[:12], [[0.9, 0.8]] * 3])
    ax = labelled_front(points)
    texts = sorted(t.get_text() for t in ax.texts)
    assert "0, 12" in texts and "24, 25, 26" in texts and len(texts) == 13
    assert_apart(shown_labels(ax))
    # a label left out (no free place in a tiny axes) is hidden, never drawn over another
    ax = labelled_front(dense_points(), size=(1.2, 1.0))
    boxes = shown_labels(ax)
    assert len(boxes) < 40
    assert_apart(boxes)
    assert [tuple(b.extents) for b in shown_labels(ax)] == [tuple(b.extents) for b in boxes]


def test_labels_of_points_out_of_view_are_hidden(rc_unchanged):
    ax = labelled_front(np.array([[0.9, 0.8], [0.2, 0.2]]))
    ax.figure.canvas.draw()
    assert [t.get_visible() for t in ax.texts] == [True, False]


def test_front_trials_differ_from_the_others_in_colour_and_marker(rc_unchanged):
    from matplotlib.colors import same_color, to_rgba

    ax = draw_front(ParetoFront.of(POINTS, trivial_point=0.5), ax=Figure().add_subplot(),
                    labels=[str(k) for k in range(len(POINTS))])
    dots = ax.collections[0]  # every trial: small light-grey dots
    assert labels_of(ax)[0] == "trials"
    assert same_color(dots.get_facecolor()[0], "0.62") and dots.get_sizes()[0] < 20
    staircase = ax.lines[0]  # the front: filled circles in C0, edged dark, on its line
    assert staircase.get_label() == "Pareto front" and staircase.get_marker() == "o"
    assert same_color(staircase.get_markerfacecolor(), "C0")
    assert same_color(staircase.get_markeredgecolor(), "0.1")
    assert staircase.get_zorder() > dots.get_zorder()
    # the markers on the front's points, not on the trivial point that starts it
    vertices = staircase.get_xydata()
    np.testing.assert_allclose(vertices[0], [0.5, 1.0])
    np.testing.assert_allclose(vertices[staircase.get_markevery()], POINTS[FRONT])
    assert to_rgba(dots.get_facecolor()[0]) != to_rgba(staircase.get_markerfacecolor())


@pytest.mark.slow
def test_the_overview_colour_bar_is_as_high_as_its_heatmap():
    from paretostab._runset import RunSet
    from paretostab.maps import selection_overview
    from paretostab.plot import selection_overview_figure

    rng = np.random.default_rng(0)
    runsets = [RunSet(selection_matrix=rng.random((10, 30)) < 0.3,
                      importance_matrix=rng.random((10, 30)), rank_matrix=None,
                      scores=np.full(10, 0.8), seeds=np.arange(10, dtype=np.uint32),
                      fit_seconds=np.zeros(10), metric="accuracy", resampling="bootstrap",
                      selector="Test") for _ in range(12)]
    # two trials of 25 features: a narrow, tall heatmap (a colour bar made with ``ax=``
    # keeps its aspect, and was a third of its height); twelve of 5: a wide, low one
    for trials, top in ((2, 25), (12, 5)):
        overview = selection_overview(runsets[:trials], top=top)
        figure = selection_overview_figure(overview, title="Which features")
        figure.canvas.draw()
        heatmap, bar = figure.axes
        low, high = heatmap.get_window_extent(), bar.get_window_extent()
        assert high.y0 == pytest.approx(low.y0, abs=1) and high.y1 == pytest.approx(low.y1, abs=1)
        assert 0 < high.x0 - low.x1 < 20 and 10 < high.width < 20  # beside it, 0.15 inches
        assert_saves(figure)


@pytest.mark.slow
def test_the_report_front_figure_reads_at_a_glance(tmp_path, rc_unchanged):
    """A tuned study's front figure: labels apart; beside the plot, the overview of the
    unit square, large enough to see the frame, and under it the legend, no wider."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import Rectangle

    from paretostab._tuning import run_study
    from paretostab.report._build import analysed_study
    from paretostab.spec import parse_spec

    spec = {"study": {"name": "glance", "trials": 8, "seed": 0, "sampler": "random"},
            "data": {"source": "simulated:n_other=30,n_per_class=20"},
            "protocol": {"runs": 4, "replicates": 3},
            "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                         "search": {"n_stable": [0, 4],
                                    "reg": {"low": 0.01, "high": 100.0, "log": True}}},
            "objective": {"stability": "iw"}}
    url = f"sqlite:///{tmp_path / 'study.db'}"
    run_study(parse_spec(spec), storage=url, progress=False)
    result = analysed_study(url, progress=False)
    report, figure = result.analysis, result.figures.front
    FigureCanvasAgg(figure)
    figure.canvas.draw()
    ax, overview = figure.axes
    front_labels = [t for t in ax.texts if t.get_visible()]
    assert {t.get_text() for t in front_labels} <= {str(n) for n in report.table["trial"]}
    assert_apart([t.get_window_extent() for t in front_labels])
    plot, legend = ax.get_window_extent(), figure.legends[0].get_window_extent()
    square = overview.get_window_extent()
    assert legend.y1 < square.y0 and legend.x0 > plot.x1  # under the overview
    assert legend.width < 0.3 * figure.bbox.width and plot.width > 0.55 * figure.bbox.width
    assert square.width >= 0.25 * figure.bbox.width
    assert square.height == pytest.approx(square.width, rel=0.05)
    (frame,) = [p for p in overview.patches if isinstance(p, Rectangle)]
    assert (frame.get_x(), frame.get_width()) == pytest.approx(
        (ax.get_xlim()[0], np.diff(ax.get_xlim())[0]))
    assert_saves(figure)


# --------------------------------------------------------------------------- few replicates


def synthetic_report(n_trials, replicates, seed=0):
    """What the report's front figure reads of a StudyReport, for ``n_trials`` trials under
    a concave trade-off, two of them far off, and the Hotelling regions of ``replicates``
    re-runs of each front trial (a stand-in: no study is tuned)."""
    from types import SimpleNamespace

    from paretostab.report._confidence import confidence_regions

    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.70, 0.95, n_trials)
    stability = np.clip(1.0 - 10 * (accuracy - 0.70) ** 2 - rng.exponential(0.08, n_trials),
                        0, 1)
    points = np.column_stack([accuracy, stability])
    points[-1] = [0.52, 0.08]  # far off: no better than chance, a selection all its own
    points[0] = [0.55, 0.30]
    rows = sorted(pareto_front(points), key=lambda i: points[i, 0])
    spread = [[0.02 ** 2, -0.00024], [-0.00024, 0.04 ** 2]]
    regions = confidence_regions(
        [points[i] - [0.01, 0.02] + rng.multivariate_normal([0, 0], spread, size=replicates)
         for i in rows])
    front = SimpleNamespace(rows=tuple(int(i) for i in rows), regions=regions,
                            points=points[rows])
    return SimpleNamespace(
        objective="phi", study="synthetic", gamma=0.5, weight=None, flags=None,
        table=pd.DataFrame({"trial": np.arange(n_trials), "accuracy": points[:, 0],
                            "phi": points[:, 1]}),
        front=front, chosen=int(rows[len(rows) // 2]), metric_label="accuracy",
        means=np.array([r.center for r in regions]))


@pytest.mark.slow
@pytest.mark.parametrize("replicates", [3, 100])
@pytest.mark.parametrize("n_trials", [5, 200])
def test_the_front_figure_reads_at_any_replicates_and_trials(n_trials, replicates,
                                                             rc_unchanged):
    """Issue 33: at B = 3 the regions covered the zoomed panel grey, and the zoom to every
    trial squeezed the front into a corner; the zoom frames the front and the choice, the
    regions lie under the points, faint outlines where larger than half the frame."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from paretostab.report._figures import front_figure

    report = synthetic_report(n_trials, replicates)
    figure, _ = front_figure(report)
    FigureCanvasAgg(figure)
    figure.canvas.draw()
    ax = figure.axes[0]
    points = report.table[["accuracy", "phi"]].to_numpy()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()

    def framed(p):
        return (x0 <= p[:, 0]) & (p[:, 0] <= x1) & (y0 <= p[:, 1]) & (p[:, 1] <= y1)

    framed_rows = framed(points)
    assert framed_rows[list(report.front.rows)].all() and framed_rows[report.chosen]
    assert framed(report.means).all()
    assert not framed_rows[[0, -1]].any()  # the far-off trials are in the overview only
    title = ax.get_title()
    assert f"{int((~framed_rows).sum())} of {n_trials} trials outside it" in title
    # the labels of the front trials: apart, and none hidden for want of room
    labels = [t for t in ax.texts if t.get_visible()]
    assert_apart([t.get_window_extent() for t in labels])
    if n_trials == 5:
        assert len(labels) == len(report.front.rows)
    # the regions: under the points, filled only while no larger than half the frame
    regions = [p for p in ax.patches if isinstance(p, EllipsePatch)]
    assert len(regions) == len(report.front.rows)
    window = ax.bbox
    large = 0
    for patch in regions:
        box = patch.get_window_extent()
        if box.width > window.width / 2 or box.height > window.height / 2:
            large += 1
            assert not patch.get_fill() and patch.get_edgecolor()[3] < 0.5
            assert patch.get_linewidth() < 1
        else:
            assert patch.get_fill() and patch.get_facecolor()[3] <= 0.2
        assert patch.get_zorder() < min(c.get_zorder() for c in ax.collections[:1])
    if replicates == 3:
        assert large == len(regions)  # 16 standard deviations of the replicates
        assert "confidence regions" in title
    else:
        assert large == 0
    assert_saves(figure)


def test_regions_fill_again_when_zoomed_out_and_say_when_they_cover_the_frame():
    """A region larger than half the window is an outline, checked at each drawing: seen
    whole, zoomed out, it is filled again; one covering the frame, its outline wholly
    outside, is said in the title."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from paretostab.report._figures import front_figure

    report = synthetic_report(5, 3)
    figure, _ = front_figure(report)
    FigureCanvasAgg(figure)
    figure.canvas.draw()
    ax = figure.axes[0]
    patch = next(p for p in ax.patches if isinstance(p, EllipsePatch))
    assert not patch.get_fill()
    ax.set_xlim(-100, 100)
    ax.set_ylim(-100, 100)
    figure.canvas.draw()
    assert patch.get_fill() and patch.get_linewidth() >= 1.2
    region = report.front.regions[0]
    a, b = region.half_widths
    report.front.regions = (region,)
    report.front.rows, report.front.points = report.front.rows[:1], report.front.points[:1]
    report.means, report.chosen = report.means[:1], report.front.rows[0]
    figure, _ = front_figure(report)
    title = figure.axes[0].get_title()
    (x0, x1), (y0, y1) = figure.axes[0].get_xlim(), figure.axes[0].get_ylim()
    assert max(x1 - x0, y1 - y0) < min(a, b)  # a frame of 0.02 inside a region of ±0.3
    assert "1 of 1 confidence regions cover all of it" in title
