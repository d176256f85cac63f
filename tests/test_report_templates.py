"""The report's templates (paretostab._templating): every name a user gives — a
study's, a feature's, a parameter's, a text of a page — comes out escaped on the page and
in every notebook representation, spelled as the pages always spelled it (html.escape:
``&quot;``, ``&#x27;``); markup the code built (a pandas table, a rendered template) goes
in as it is; an undefined name in a template is an error."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from jinja2 import UndefinedError
from matplotlib.figure import Figure

import paretostab
from paretostab._choice import Choice
from paretostab._templating import Markup, environment, render_macro
from paretostab.report._html import FigureLink, Section, write_report

NASTY = '<script>alert(1)</script> & "x" \'y\''
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &#x27;y&#x27;"
#: pandas escapes the text of its cells and headings, not their quotes.
PANDAS_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"x\" 'y'"


def unescaped(html: str) -> list[str]:
    """What of NASTY came out as markup: a script element or a bare quote in an attribute."""
    return re.findall(r"<script|=\"[^\"]*'y'", html)


def test_one_environment_escaping_every_value_as_html_escape_does():
    assert environment() is environment()
    assert environment().autoescape is True
    template = environment().from_string("<p title=\"{{ x }}\">{{ x }}</p>{{ m }}")
    assert template.render(x=NASTY, m=Markup("<b>ok</b>")) == (
        f'<p title="{ESCAPED}">{ESCAPED}</p><b>ok</b>')

    class Marked:
        def __html__(self):
            return "<i>its own markup</i>"

    assert environment().from_string("{{ m }} {{ 3 }}").render(m=Marked()) == (
        "<i>its own markup</i> 3")
    with pytest.raises(UndefinedError):
        environment().from_string("{{ missing }}").render()
    assert isinstance(render_macro("notebook.html", "frame",
                                   f={"table": Markup("<table></table>"), "more": 2}), Markup)


def test_the_page_escapes_every_text_it_is_given(tmp_path):
    figure = Figure(figsize=(3, 2))
    ax = figure.add_subplot()
    ax.plot([0, 1], [0, 1], "o")
    table = pd.DataFrame({"trial": [1, 2], NASTY: [NASTY, "plain"]},
                         index=pd.Index([NASTY, "b"], name=NASTY))
    sections = [
        Section(NASTY, text=[NASTY, "second"], fields={NASTY: NASTY, "pair": (0.5, 1)}),
        Section("Figure", figure=figure, caption=NASTY,
                figure_links=[FigureLink(ax, 0, 0, f"#{NASTY}", NASTY)],
                table=table, links=("trial", "#trial-{}" + NASTY), highlight=[1]),
        Section("Table", table=table, caption=NASTY),
    ]
    page = write_report(tmp_path, title=NASTY, sections=sections, summary=NASTY,
                        figure_files=()).read_text(encoding="utf-8")
    assert not unescaped(page)
    for expected in [
            f"<title>{ESCAPED}</title>", f"<h1>{ESCAPED}</h1>",
            f'<p class="summary">{ESCAPED}</p>', f"<h2>{ESCAPED}</h2>", f"<p>{ESCAPED}</p>",
            f'<tr><th scope="row">{ESCAPED}</th><td>{ESCAPED}</td></tr>',
            f'<a href="#script-alert-1-script-x-y">{ESCAPED}</a>',  # the contents
            f'alt="{ESCAPED}" title="{ESCAPED}">', f'href="#{ESCAPED}"',
            f"<figcaption>{ESCAPED}</figcaption>", f"<caption>{ESCAPED}</caption>",
            f"<thead><tr><th>{ESCAPED}</th><th>trial</th><th>{ESCAPED}</th></tr></thead>",
            f'<tr><th>{ESCAPED}</th><td><a href="#trial-1{ESCAPED}">1</a></td>'
            f"<td>{ESCAPED}</td></tr>",
            '<tr class="highlight"><th>b</th><td><a href="#trial-2',
            '<img src="data:image/png;base64,iVBOR']:
        assert expected in page, expected


def test_a_choice_escapes_its_names_parameters_features_and_data():
    choice = Choice(trial=3, gamma=0.25, values={"accuracy": 0.9, "iw": 0.5},
                    params={NASTY: 0.123456, "kind": NASTY, "n": 3},
                    features=("f<1>", NASTY), flagged={1: "chance", 5: "labels"},
                    held_out={"data": NASTY, "n": 40, "value": 0.8, "low": 0.7, "high": 0.9})
    assert choice.to_html() == choice._repr_html_() == (
        "<div><strong>γ = 0.25 chooses trial 3</strong>: accuracy 0.9000, φ_iw 0.5000<br>"
        f"parameters: {ESCAPED} = 0.1235, kind = {ESCAPED}, n = 3<br>"
        f"features (2): f&lt;1&gt;, {ESCAPED}<br>"
        f"held out ({ESCAPED}, 40 examples): 0.8000 [0.7000, 0.9000]<br>"
        "passed over as flagged (not above chance, or a selection that ignores the labels): "
        "trials 1, 5</div>")
    assert type(choice.to_html()) is str  # not Markup, whose methods escape their arguments
    assert choice.__html__() == choice.to_html()
    bare = Choice(trial=0, gamma=1.0, values={}, params={}, features=(), held_out=None,
                  flagged={})
    assert bare.to_html() == ("<div><strong>γ = 1 chooses trial 0</strong>: <br>parameters: "
                              "<br>features (0): </div>")


def test_a_choice_says_its_metric_by_its_real_name():
    choice = Choice(trial=1, gamma=0.5, values={"accuracy": 0.8, "iw": 0.5}, params={},
                    features=(), held_out=None, flagged={}, metric="balanced_accuracy")
    assert [choice.label(k) for k in choice.values] == ["balanced accuracy", "φ_iw"]
    assert "balanced accuracy 0.8000, φ_iw 0.5000" in choice.to_html()


SPEC = {
    "study": {"name": NASTY, "trials": 4, "seed": 0, "sampler": "random"},
    "data": {"source": "memory"},
    "protocol": {"runs": 3, "replicates": 3},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 3},
                 "search": {"n_stable": [0, 2], "reg": {"low": 0.01, "high": 100.0,
                                                         "log": True}}},
    "objective": {"stability": "iw"},
}


@pytest.fixture(scope="module")
def nasty(tmp_path_factory):
    """A tiny study named NASTY on data whose features are named with NASTY, and a second
    study beside it."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = pd.DataFrame(rng.normal(size=(40, 12)) + y[:, None] * np.r_[np.ones(4), np.zeros(8)],
                     columns=[f"{NASTY} {j}" for j in range(12)])
    url = f"sqlite:///{tmp_path_factory.mktemp('templates') / 'nasty.db'}"
    study = paretostab.tune(SPEC, data=(X, y), storage=url, progress=False)
    other = paretostab.tune({**SPEC, "study": {**SPEC["study"], "name": "other", "seed": 1}},
                            data=(X, y), storage=url, progress=False)
    return study, other


@pytest.mark.slow
def test_a_nasty_study_and_feature_names_are_escaped_everywhere(nasty, tmp_path):
    study, other = nasty
    shown = study._repr_html_()
    assert not unescaped(shown) and f"<strong>Study {ESCAPED}</strong>" in shown
    report = study.report(gamma=0.5)
    inline = report._repr_html_()
    assert not unescaped(inline) and f"<strong>Report of {ESCAPED}</strong>" in inline
    assert f"{ESCAPED} 0" in inline or f"{ESCAPED} 1" in inline  # the chosen features
    page = report.to_html()
    assert not unescaped(page) and f"<title>paretostab report: {ESCAPED}</title>" in page
    assert re.search(rf"<td>{re.escape(ESCAPED)} \d+</td>", page)  # the features selected
    choice = study.choose(0.5)
    assert not unescaped(choice._repr_html_()) and f"{ESCAPED} " in choice._repr_html_()
    compared = paretostab.compare([study.name, other.name], [study.storage], replicates=0,
                                  out=tmp_path / "cmp", progress=False)
    table = compared._repr_html_()
    assert not unescaped(table) and PANDAS_ESCAPED in table
    page = compared.to_html()
    assert not unescaped(page) and f"<title>paretostab comparison: {ESCAPED}, other</title>" in page


def test_a_long_table_in_a_notebook_says_how_many_rows_it_leaves_out():
    frame = {"table": Markup("<table></table>"), "more": 5}
    assert render_macro("notebook.html", "comparison", table=frame) == (
        "<div><table></table><p>… 5 more rows</p></div>")
    assert render_macro("notebook.html", "comparison", table={**frame, "more": -3}) == (
        "<div><table></table></div>")
