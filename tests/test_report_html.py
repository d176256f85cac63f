"""The report page's links and names (issue 11): table cells that link to anchors, the
highlighted row, a figure's points linked through an image map that lands on them, ASCII
ids and file names, and SVG text kept as text."""

from __future__ import annotations

import base64
import io
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from paretostab._errors import InvalidInputError
from paretostab.report._html import FigureLink, Section, figure_to_svg, write_report


def red_points_figure(points):
    figure = Figure(figsize=(5, 3))
    ax = figure.add_subplot()
    ax.scatter(*np.transpose(points), s=200, color="red")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    figure.suptitle("a title that widens the tight box to the left and top", x=0.0, ha="left")
    return figure, ax


@pytest.mark.parametrize("dpi", [100, 150])
def test_the_image_map_lands_on_the_linked_points(tmp_path, dpi):
    points = [(0.2, 0.3), (0.7, 0.8), (0.95, 0.05)]
    figure, ax = red_points_figure(points)
    links = [FigureLink(ax, x, y, f"#trial-{k}", f"trial {k}") for k, (x, y) in enumerate(points)]
    outside = FigureLink(ax, 1.5, 0.5, "#nowhere")  # clipped: not in the map
    page = write_report(tmp_path, title="t", dpi=dpi, figure_files=(), sections=[
        Section("Front", figure=figure, figure_links=[*links, outside])]).read_text()
    source = re.search(r'<img src="data:image/png;base64,([^"]+)"[^>]*usemap="#map-front"',
                       page)
    assert source, page[:500]
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(source[1]))).convert("RGB"))
    areas = re.findall(r'<area shape="circle" coords="(\d+),(\d+),(\d+)" href="([^"]+)"', page)
    assert [href for *_, href in areas] == ["#trial-0", "#trial-1", "#trial-2"]
    for x, y, _, _ in areas:  # CSS pixels (96 per inch) → the PNG's pixels
        row, column = round(int(y) * dpi / 96), round(int(x) * dpi / 96)
        r, g, b = image[row, column]
        assert r > 200 and g < 80 and b < 80, (x, y, image[row, column])
    assert '<map name="map-front">' in page and 'title="trial 1"' in page


def test_table_links_and_highlighted_row(tmp_path):
    table = pd.DataFrame({"trial": [3, 7, 12], "accuracy": [0.81234, 0.9, np.nan]})
    page = write_report(tmp_path, title="t", sections=[
        Section("Front", table=table, links=("trial", "#trial-{}"), highlight=[1])]
    ).read_text()
    rows = re.findall(r"<tr[^>]*>.*?</tr>", page)
    assert rows[0] == "<tr><th>trial</th><th>accuracy</th></tr>"
    assert rows[1] == '<tr><td><a href="#trial-3">3</a></td><td>0.8123</td></tr>'
    assert rows[2] == '<tr class="highlight"><td><a href="#trial-7">7</a></td><td>0.9</td></tr>'
    assert rows[3] == '<tr><td><a href="#trial-12">12</a></td><td>–</td></tr>'


def test_anchors_ascii_ids_and_file_names(tmp_path):
    figure, _ = red_points_figure([(0.5, 0.5)])
    page = write_report(tmp_path, title="t", sections=[
        Section("Trial 38, the γ = 0.6 choice under φ_iw", figure=figure,
                anchors=["trial-38"])]).read_text()
    assert '<section id="trial-38-the-gamma-0-6-choice-under-phi-iw">' in page
    assert '<span id="trial-38"></span>' in page
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        "01-trial-38-the-gamma-0-6-choice-under-phi-iw.png",
        "01-trial-38-the-gamma-0-6-choice-under-phi-iw.svg"]
    with pytest.raises(InvalidInputError, match="anchors"):
        Section("t", anchors=["has space"])
    with pytest.raises(InvalidInputError, match="links"):
        Section("t", links="trial")
    with pytest.raises(InvalidInputError, match="figure_links"):
        Section("t", figure_links=[(0.1, 0.2)])


def test_svg_keeps_its_text_as_text_and_rcparams_unchanged():
    figure, ax = red_points_figure([(0.5, 0.5)])
    ax.set_xlabel("accuracy and φ_iw")
    before = dict(matplotlib.rcParams)
    svg = figure_to_svg(figure)
    assert dict(matplotlib.rcParams) == before
    assert re.search(r"<text[^>]*>[^<]*accuracy and φ_iw", svg), "the label is not SVG text"


@pytest.mark.slow
def test_the_page_says_the_interval_is_wide_because_b_is_small(tmp_path):
    """With the README's B = 3 the interval reads [0, 1]; next to it, and in the front's
    caption, the page says why (Hotelling's region reaches 16.3 standard deviations of the
    replicates at B = 3, 0.61 at B = 20); at the quickstart's B = 10 (1.00) it says
    nothing."""
    from paretostab._tuning import run_study
    from paretostab.report._build import analysed_study
    from paretostab.report._pages import study_sections
    from paretostab.spec import parse_spec

    spec = {"study": {"name": "demo", "trials": 5, "seed": 0},
            "data": {"source": "simulated:n_other=30,n_per_class=20"},
            "protocol": {"runs": 4},
            "selector": {"name": "t_test", "search": {"n_features": [3, 12]}},
            "objective": {"stability": "nogueira"}}
    url = f"sqlite:///{tmp_path / 'demo.db'}"
    run_study(parse_spec(spec), storage=url, progress=False)
    for replicates in (3, 10):
        result = analysed_study(url, replicates=replicates, progress=False)
        sections = study_sections(result.analysis, result.figures)
        summary, caption = sections[0].text[0], sections[1].caption
        interval = result.analysis.front.interval
        shown = f"95% interval [{interval.low:.4f}, {interval.high:.4f}]"
        why = ("wide because B = 3 replicates are few: each region reaches 16.3 standard "
               "deviations of its trial's replicates from their mean along each axis, 0.61 "
               "with B = 20")
        if replicates == 3:
            assert f"{shown} ({why}) and simultaneous" in summary
            assert f"the regions are {why}" in caption
        else:
            assert f"{shown} and simultaneous" in summary
            assert "wide because" not in summary + caption
        assert "a region larger than half the frame is a faint outline" in caption
