"""The report page: one self-contained HTML5 file of sections (text, key/value fields,
figures, tables), written to a folder (SPEC §5; DESIGN: report/_html.py).

``index.html`` needs nothing else to display — no external CSS, script, font or image:
figures are embedded as base64 ``data:`` images (PNG, or SVG), the style sheet is inline
— so it opens offline and can be mailed or archived as one file. Every figure is also
written beside it (``figures/NN-<section>.png`` and ``.svg``) for reuse in papers. Section
ids and file names are ASCII (``γ`` → ``gamma``, ``φ`` → ``phi``); tables may link their
cells and highlight rows, and a figure's points may link through an image map.

The page is the template ``page.html`` (:mod:`paretostab._templating`), which
escapes all the text it inserts; this module lays the sections out for it — ids, heading
levels, values formatted as text (table cells as :attr:`Section.fields` values), figures
rendered — and renders what it is given; it computes nothing. Figures are matplotlib
``Figure`` objects (build them with ``matplotlib.figure.Figure`` and the drawers of
:mod:`paretostab.plot` to keep pyplot's global state out); rendering them does not
touch ``matplotlib.rcParams``.
"""

from __future__ import annotations

import base64
import io
import math
import re
import struct
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._templating import render

if TYPE_CHECKING:  # drawn and tabled by matplotlib and pandas, loaded when used
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["FigureLink", "Section", "figure_to_png", "figure_to_svg", "references",
           "write_report"]

_FORMATS = ("png", "svg")
_ANCHOR = re.compile(r"[A-Za-z][\w-]*")
_PAD_INCHES = 0.1  # savefig's pad around the tight bounding box

@dataclass(frozen=True, eq=False)
class Section:
    """One section of the report page, rendered in this order: ``text``, ``fields``,
    ``figure`` (with ``caption``), ``table``, then the ``subsections``.

    Attributes
    ----------
    title : str
        The heading (``<h2>``; ``<h3>`` for a subsection, …), listed in the contents.
    text : str or sequence of str, optional
        Paragraphs of plain text (escaped): a sequence gives one paragraph per item; in a
        string, blank lines separate paragraphs.
    fields : mapping, optional
        Key → value pairs shown as a two-column table (e.g. the study summary). Values
        are formatted for reading: floats to 4 significant digits, ``(low, high)`` pairs
        as ``[low, high]``, an interval object (``low``, ``high``, optional ``estimate``,
        ``level``, ``simultaneous``: a ``DominanceAreaInterval``) as
        ``estimate [low, high] (95%, simultaneous)``, None and NaN as "–".
    table : pandas.DataFrame, optional
        Rendered as an HTML table (escaped; cells as ``fields`` values; the index
        only when it is not the default 0, 1, …).
    figure : matplotlib Figure, optional
        Embedded in the page (see :func:`write_report`'s ``figure_format``).
    caption : str, optional
        The figure's caption; without a figure, the table's.
    subsections : sequence of Section
        Nested sections (e.g. one feature stability map per front point).
    anchors : sequence of str
        More ids that lead to this section (``#trial-12``, besides the id made from the
        title): what links in tables and figures point at.
    links : (column, template), optional
        Make the table's ``column`` cells links: ``template.format(value)`` is the target
        (``("trial", "#trial-{}")``).
    highlight : sequence of int
        Positions (0-based) of the table rows to highlight (the chosen trial).
    figure_links : sequence of FigureLink
        Points of the figure that link somewhere: an image map over the embedded PNG.
    """

    title: str
    text: str | Sequence[str] | None = None
    fields: Mapping[str, object] | None = None
    table: pd.DataFrame | None = None
    figure: Figure | None = None
    caption: str | None = None
    subsections: Sequence[Section] = field(default=())
    anchors: Sequence[str] = ()
    links: tuple[str, str] | None = None
    highlight: Sequence[int] = ()
    figure_links: Sequence[FigureLink] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.title, str):
            raise InvalidInputError(
                f"Section title must be a str; got {type(self.title).__name__}.")
        text = self.text
        if not (text is None or isinstance(text, str) or (
                isinstance(text, Sequence) and all(isinstance(t, str) for t in text))):
            raise InvalidInputError(
                f"Section {self.title!r}: text must be a str or a sequence of str; got "
                f"{type(text).__name__}.")
        for name, what, fits in (
                ("fields", "a mapping (key → value)", lambda v: isinstance(v, Mapping)),
                ("table", "a pandas DataFrame", lambda v: hasattr(v, "to_html")),
                ("figure", "a matplotlib Figure", lambda v: hasattr(v, "savefig")),
                ("caption", "a str", lambda v: isinstance(v, str))):
            value = getattr(self, name)
            if value is not None and not fits(value):
                raise InvalidInputError(f"Section {self.title!r}: {name} must be {what}; got "
                                        f"{type(value).__name__}.")
        subsections = tuple(self.subsections)
        if not all(isinstance(s, Section) for s in subsections):
            raise InvalidInputError(
                f"Section {self.title!r}: subsections must all be Section objects.")
        object.__setattr__(self, "subsections", subsections)
        bad = [a for a in self.anchors if not (isinstance(a, str) and _ANCHOR.fullmatch(a))]
        if isinstance(self.anchors, str) or bad:
            raise InvalidInputError(
                f"Section {self.title!r}: anchors must be ids of letters, digits, '-' and "
                f"'_'; got {self.anchors if isinstance(self.anchors, str) else bad[0]!r}.")
        object.__setattr__(self, "anchors", tuple(self.anchors))
        if self.links is not None and not (
                isinstance(self.links, tuple) and len(self.links) == 2
                and all(isinstance(x, str) for x in self.links)):
            raise InvalidInputError(
                f"Section {self.title!r}: links must be a (column, template) pair of str; "
                f"got {self.links!r}.")
        object.__setattr__(self, "highlight", tuple(int(i) for i in self.highlight))
        links = tuple(self.figure_links)
        if not all(isinstance(link, FigureLink) for link in links):
            raise InvalidInputError(
                f"Section {self.title!r}: figure_links must all be FigureLink objects.")
        object.__setattr__(self, "figure_links", links)


@dataclass(frozen=True)
class FigureLink:
    """A point of a figure that links to ``href`` (e.g. a front trial to its map).

    ``x``, ``y`` are data coordinates of ``ax``; the link is a circle of ``radius`` CSS
    pixels around the point in the page's image map, with ``title`` as its tooltip.
    """

    ax: Axes
    x: float
    y: float
    href: str
    title: str = ""
    radius: float = 8.0


# --------------------------------------------------------------------------- figures


def figure_to_png(figure: Figure, *, dpi: float = 150) -> bytes:
    """The PNG bytes of a matplotlib figure (tight bounding box, so that legends outside
    the axes are kept); the figure and ``rcParams`` are left as they were.

    Parameters
    ----------
    figure : matplotlib Figure
        The figure drawn.
    dpi : float
        Its resolution in dots per inch (default 150).
    """
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def figure_to_svg(figure: Figure) -> str:
    """The SVG text of a matplotlib figure (tight bounding box, text kept as text — so it
    can be searched, selected and edited — and no date in its metadata so that the same
    figure gives the same file); ``rcParams`` are left as they were."""
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue().decode("utf-8")


def _link_areas(figure: Figure, links: Sequence[FigureLink]) -> list[tuple]:
    """Where each link's point lands in the figure saved with ``bbox_inches="tight"``, in
    CSS pixels of the page's image (96 per inch, from its top left corner): ``(x, y,
    radius, href, title)``, for the points inside their axes. Called once the figure is
    saved: its layout is the saved one, and nothing is drawn again."""
    if not links:
        return []
    tight = figure.get_tightbbox()  # inches
    left, top = tight.x0 - _PAD_INCHES, tight.y1 + _PAD_INCHES
    areas = []
    for link in links:
        if not (math.isfinite(link.x) and math.isfinite(link.y)):
            continue
        px, py = link.ax.transData.transform((link.x, link.y))
        if not link.ax.bbox.contains(px, py):
            continue  # outside the axes: clipped, not drawn
        x, y = px / figure.dpi, py / figure.dpi
        areas.append((round((x - left) * 96), round((top - y) * 96), round(link.radius),
                      link.href, link.title))
    return areas


def _png_css_size(png: bytes, dpi: float) -> tuple[int, int] | None:
    """Display size in CSS pixels (96 per inch) of a PNG rendered at ``dpi``."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return round(width * 96 / dpi), round(height * 96 / dpi)


def _svg_css_size(svg: str) -> tuple[int, int] | None:
    match = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"[^>]*?\sheight="([\d.]+)pt"', svg)
    if match is None:
        return None
    return round(float(match[1]) * 96 / 72), round(float(match[2]) * 96 / 72)


# --------------------------------------------------------------------------- formatting


def _format_number(value: float) -> str:
    if not math.isfinite(value):
        return "–" if math.isnan(value) else ("∞" if value > 0 else "−∞")
    return f"{value:.4g}"


def format_value(value: object) -> str:
    """A value of :attr:`Section.fields` as (unescaped) text."""
    if value is None:
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return _format_number(float(value))
    if hasattr(value, "low") and hasattr(value, "high"):  # DominanceAreaInterval
        text = f"[{format_value(value.low)}, {format_value(value.high)}]"
        estimate = getattr(value, "estimate", None)
        if estimate is not None:
            text = f"{format_value(estimate)} {text}"
        notes = []
        level = getattr(value, "level", None)
        if isinstance(level, float | int) and 0 < level < 1:
            notes.append(f"{level:.0%}")
        if getattr(value, "simultaneous", False):
            notes.append("simultaneous")
        return f"{text} ({', '.join(notes)})" if notes else text
    if isinstance(value, Mapping):
        return ", ".join(f"{k} = {format_value(v)}" for k, v in value.items())
    if isinstance(value, tuple | list | np.ndarray):
        items = [format_value(v) for v in value]
        if len(items) == 2 and all(isinstance(v, float | int | np.number) and
                                   not isinstance(v, bool) for v in value):
            return f"[{items[0]}, {items[1]}]"
        return ", ".join(items)
    return str(value)


def _paragraphs(text: str | Sequence[str] | None) -> list[str]:
    if text is None:
        return []
    items = re.split(r"\n\s*\n", text) if isinstance(text, str) else list(text)
    return [" ".join(item.split()) for item in items if item.strip()]


def _table(table: pd.DataFrame, caption: str | None, links: tuple[str, str] | None = None,
           highlight: Sequence[int] = ()) -> dict:
    """A table as ``table.html`` lays it out: its cells as text (:func:`format_value`), a
    link target beside the cells of the ``links`` column that hold a value."""
    import pandas as pd

    index = table.index
    default_index = (isinstance(index, pd.RangeIndex) and index.name is None
                     and index.start == 0 and index.step == 1)
    columns = [str(c) for c in table.columns]
    link_column = columns.index(links[0]) if links and links[0] in columns else None
    marked = set(highlight)
    rows = []
    for position, (label, values) in enumerate(zip(index, table.itertuples(index=False),
                                                   strict=True)):
        cells = []
        for k, value in enumerate(values):
            text = format_value(value)
            target = (links[1].format(value) if links is not None and k == link_column
                      and text != "–" else None)
            cells.append((text, target))
        rows.append({"highlight": position in marked,
                     "label": None if default_index else format_value(label),
                     "cells": cells})
    head = ([] if default_index else [str(index.name or "")]) + columns
    return {"caption": caption, "head": head, "rows": rows}


# --------------------------------------------------------------------------- the page


def _ascii(text: str) -> str:
    """``text`` in ASCII for ids and file names: accents dropped, Greek letters by name
    (``γ`` → ``gamma``, ``φ`` → ``phi``), any other character dropped."""
    out = []
    for char in text:
        if char.isascii():
            out.append(char)
            continue
        plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
        name = unicodedata.name(char, "")
        if not plain and name.startswith("GREEK") and "LETTER" in name:
            plain = f" {name.split()[-1].lower()} "
        out.append(plain)
    return "".join(out)


def _slug(title: str, taken: set[str]) -> str:
    base = re.sub(r"[\W_]+", "-", _ascii(title).lower()).strip("-") or "section"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


class _Layout:
    """The page's sections laid out for ``section.html``, in page order: ids made unique,
    headings' levels, text formatted, figures rendered (and written beside the page)."""

    def __init__(self, folder: Path, figure_format: str, figure_files: tuple[str, ...],
                 dpi: float) -> None:
        self.folder = folder
        self.figure_format = figure_format
        self.figure_files = figure_files
        self.dpi = dpi
        self.slugs: set[str] = set()
        self.count = 0

    def figure(self, figure: Figure, slug: str, alt: str, caption: str | None,
               links: Sequence[FigureLink] = ()) -> dict:
        rendered: dict[str, bytes] = {}
        for fmt in {self.figure_format, *self.figure_files}:
            rendered[fmt] = (figure_to_png(figure, dpi=self.dpi) if fmt == "png"
                             else figure_to_svg(figure).encode("utf-8"))
        if self.figure_files:
            self.count += 1
            name = f"{self.count:02d}-{slug}"
            (self.folder / "figures").mkdir(exist_ok=True)
            for fmt in self.figure_files:
                (self.folder / "figures" / f"{name}.{fmt}").write_bytes(rendered[fmt])
        data = rendered[self.figure_format]
        if self.figure_format == "png":
            size, mime = _png_css_size(data, self.dpi), "image/png"
        else:
            size, mime = _svg_css_size(data.decode("utf-8")), "image/svg+xml"
        areas = _link_areas(figure, links)
        return {"src": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}",
                "alt": alt, "size": size, "map": f"map-{slug}" if areas else None,
                "areas": [{"coords": f"{x},{y},{r}", "href": href, "title": title}
                          for x, y, r, href, title in areas],
                "caption": caption}

    def section(self, section: Section, depth: int) -> dict:
        slug = _slug(section.title, self.slugs)
        self.slugs.update(section.anchors)
        laid_out = {"slug": slug, "anchors": section.anchors, "level": min(depth + 2, 6),
                    "title": section.title, "paragraphs": _paragraphs(section.text),
                    "fields": [(str(key), format_value(value))
                               for key, value in (section.fields or {}).items()],
                    "figure": None, "table": None}
        if section.figure is not None:
            laid_out["figure"] = self.figure(section.figure, slug,
                                             section.caption or section.title,
                                             section.caption, section.figure_links)
        if section.table is not None:
            laid_out["table"] = _table(section.table,
                                       section.caption if section.figure is None else None,
                                       section.links, section.highlight)
        laid_out["subsections"] = [self.section(sub, depth + 1)
                                   for sub in section.subsections]
        return laid_out


def references(sections: Sequence[Section]) -> Section:
    """The "References" section of a page of ``sections``: the full reference of every
    paper their texts and captions name (:func:`paretostab._papers.cited`)."""
    from paretostab._papers import cited

    def texts(section: Section):
        body = section.text
        yield from ([body] if isinstance(body, str) else body or [])
        yield section.caption or ""
        for subsection in section.subsections:
            yield from texts(subsection)

    return Section("References", text=cited(t for s in sections for t in texts(s)))


def write_report(folder: str | Path, *, title: str, sections: Sequence[Section],
                 summary: str | Sequence[str] | None = None, figure_format: str = "png",
                 figure_files: Sequence[str] = ("png", "svg"), dpi: float = 150) -> Path:
    """Write ``folder/index.html``: a self-contained HTML5 report page.

    Parameters
    ----------
    folder : str or Path
        Created if needed; ``index.html`` in it is overwritten.
    title : str
        The page title and ``<h1>``.
    sections : sequence of Section
        The page's sections, in order (with a table of contents when there are three or
        more).
    summary : str or sequence of str, optional
        The paragraph(s) under the title.
    figure_format : "png" or "svg"
        How figures are embedded in the page (base64 ``data:`` images either way).
    figure_files : sequence of "png" / "svg"
        Also write each figure beside the page, as ``figures/NN-<section-id>.<format>``
        with ``NN`` its number in page order (``()``: none).
    dpi : float
        Resolution of the PNG renderings (shown at their size in inches).

    Returns
    -------
    Path
        The path of ``index.html``.
    """
    if not isinstance(title, str):
        raise InvalidInputError(f"title must be a str; got {type(title).__name__}.")
    if figure_format not in _FORMATS:
        raise InvalidInputError(
            f"figure_format must be one of {', '.join(map(repr, _FORMATS))}; got "
            f"{figure_format!r}.")
    if isinstance(figure_files, str):
        figure_files = (figure_files,)
    figure_files = tuple(dict.fromkeys(figure_files))
    bad = [f for f in figure_files if f not in _FORMATS]
    if bad:
        raise InvalidInputError(
            f"figure_files must hold formats among {', '.join(map(repr, _FORMATS))}; got "
            f"{bad[0]!r}.")
    if isinstance(sections, Section):
        sections = [sections]
    sections = list(sections)
    if not all(isinstance(s, Section) for s in sections):
        raise InvalidInputError("sections must all be Section objects "
                                "(paretostab.report._html.Section).")
    if not (isinstance(dpi, int | float) and dpi > 0):
        raise InvalidInputError(f"dpi must be a positive number; got {dpi!r}.")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)

    layout = _Layout(folder, figure_format, figure_files, dpi)
    laid_out = [layout.section(section, 0) for section in sections]
    from paretostab._version import __version__

    page = render("page.html", title=title, summary=_paragraphs(summary), sections=laid_out,
                  version=__version__)
    path = folder / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
