"""Drawers of feature stability maps (003 §3): one map (:func:`draw_stability_map`,
:func:`stability_map_figure`), several as small multiples with one legend
(:func:`stability_maps_figure`) and the features × trials overview of selection
frequencies (:func:`draw_selection_overview`, :func:`selection_overview_figure`), for the
report and for the maps a tuning study stores with its trials.

Each draws a :class:`paretostab.maps.StabilityMap` or
:class:`paretostab.maps.SelectionOverview` and computes nothing; imported from
:mod:`paretostab.plot`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory
from mpl_toolkits.axes_grid1 import make_axes_locatable

from paretostab._errors import InvalidInputError
from paretostab._validation import COUNT
from paretostab.maps import TOP, FeaturePalette, SelectionOverview, StabilityMap
from paretostab.plot._contract import new_axes, require

if TYPE_CHECKING:  # annotations only: matplotlib.typing is new in matplotlib 3.8 (we take 3.7)
    from matplotlib.typing import ColorType

__all__ = ["draw_selection_overview", "draw_stability_map", "round_ticks",
           "selection_overview_figure", "stability_map_figure", "stability_maps_figure"]

#: Selection frequencies: blue from the lightest "Blues" for any p_f > 0, white for 0.
_FREQUENCY_COLORS = matplotlib.colormaps["Blues"].with_extremes(under="white")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _plain(text: object) -> str:
    """``text`` drawn as written: its ``$`` escaped, which matplotlib would otherwise read
    as the bounds of math text (a feature named ``cost$_a_b$`` failed every
    map with "Double subscript"). Feature names and trial labels are data, never math."""
    return str(text).replace("$", r"\$")


def _legend_handles(entries: Sequence[tuple[str, ColorType]], omitted: int,
                    omitted_in_grey: int, palette: FeaturePalette) -> list[Patch]:
    """Legend entries (label, colour), then one entry for the features the legend leaves
    out: "+n more features", with the palette's grey and ", in grey" (all of them) or
    "(m in grey)" when it draws some of them grey (beyond the palette's colours). One
    entry, not two: each costs the per-trial map artifact ~4 ms of text layout."""
    handles = [Patch(facecolor=color, label=label) for label, color in entries]
    if omitted:
        label = f"+{_plural(omitted, 'more feature')}"
        if omitted_in_grey == omitted:
            label += ", in grey"
        elif omitted_in_grey:
            label += f" ({omitted_in_grey} in grey)"
        handles.append(Patch(facecolor=palette.other, label=label) if omitted_in_grey
                       else Patch(facecolor="none", edgecolor="none", label=label))
    return handles


def draw_stability_map(stability_map: StabilityMap, *, ax: Axes | None = None,
                       legend: bool = True) -> Axes:
    """Draw a feature stability map (003 §3, Figure 2).

    Runs on the y axis (run 0 at the top), cumulative importance on the x axis; one
    rectangle per (run, selected feature) in the feature's colour (its palette's; grey
    beyond the palette's colours), all of them in one ``PolyCollection`` (a patch per
    rectangle costs seconds for M = 100 runs of k̄ = 20 features; the collection,
    milliseconds). With ``legend``, to the right of the axes, a legend of
    ``stability_map.legend`` (the ``top`` most frequent features) with their names and
    selection frequencies ``p_f``, ending with "+n more features" when it leaves features
    out, with the palette's grey and how many of them are drawn in it.

    Parameters
    ----------
    stability_map : StabilityMap
        From :func:`paretostab.maps.stability_map`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    legend : bool
        Add the legend.

    Returns
    -------
    matplotlib Axes
    """
    require(stability_map, StabilityMap, "draw_stability_map")
    m = stability_map
    if ax is None:
        ax = new_axes((8.0, max(3.0, 0.15 * m.runs + 1.5)))
    _draw_map(ax, m, separated=True)
    if legend and m.features.size:
        entries = [(f"{_plain(name)} (p = {p:.2f})", color) for name, color, p in
                   zip(m.legend_names, m.legend_colors, m.legend_frequency, strict=True)]
        handles = _legend_handles(
            entries, m.legend_omitted,
            int(np.isin(m.other_features, m.legend, invert=True).sum()), m.palette)
        ax.legend(handles=handles, title="features by frequency", loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small",
                  title_fontsize="small")
    return ax


def round_ticks(width: float) -> list[float]:
    """A few round ticks within [0, ``width``] (matplotlib's ``MaxNLocator``: 0, 10, 20,
    30 for k̄ = 30.07, not 0, 15.03, 30.07).

    Parameters
    ----------
    width : float
        The axis' length (k̄, a map's width), ≥ 0.
    """
    ticks = MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(0.0, width)
    return [round(float(t), 12) for t in ticks if -1e-12 <= t <= width * (1 + 1e-12)]


def _draw_map(ax: Axes, m: StabilityMap, *, separated: bool) -> None:
    """The rectangles, limits, ticks and axis labels of a map; ``separated``: white gaps
    between rows and white edges between rectangles (for rows of a few pixels or more:
    thinner rows would be hidden by them, and stripe)."""
    if m.row.size:
        # PolyCollection takes a (K, 4, 2) array of polygons as it is (set_verts has a fast
        # path for a 3-d array, the one a map of thousands of rectangles needs), but its
        # stub asks for a Sequence, which an ndarray is not
        rectangles = _rectangles(m.left, m.row, m.width, 0.85 if separated else 1.0)
        ax.add_collection(PolyCollection(rectangles,  # type: ignore[arg-type]
                                         facecolors=m.rectangle_colors, edgecolors="white",
                                         linewidths=0.3 if separated else 0.0),
                          autolim=False)
    width = m.mean_selected if m.mean_selected > 0 else 1.0
    ax.set_ylim(m.runs - 0.5, -0.5)  # run 0 at the top
    ax.set_xlim(0.0, width)
    # three ticks: the first, middle and last run, 0, k̄/2 and k̄ — a reader locates runs
    # and importances roughly, and every tick is three lines and a text to lay out and
    # render (the per-trial map's largest cost after the legend)
    ax.set_yticks(sorted({0, (m.runs - 1) // 2, m.runs - 1}))
    ax.set_xticks(round_ticks(width))
    ax.set_xlabel("cumulative importance")
    ax.set_ylabel("run")


def stability_map_figure(stability_map: StabilityMap, *, size: tuple[float, float] = (8.0, 5.0),
                         dpi: float = 80.0, title: str | None = None) -> Figure:
    """A stand-alone figure of a stability map (003 §3; no pyplot), laid out in one pass,
    with ``title`` above it (e.g. its trial: a stand-alone figure says what it shows).

    The axes take the figure's width but what the legend (measured once) needs: what
    ``savefig(bbox_inches="tight")`` achieves with a second full drawing, at the cost of
    laying out the legend's text, which the drawing then reuses. The per-trial artifact
    of a tuning study.

    Parameters
    ----------
    stability_map : StabilityMap
    size : (float, float)
        The figure's size in inches.
    dpi : float
    title : str, optional

    Returns
    -------
    matplotlib Figure
        On an Agg canvas.
    """
    figure = Figure(figsize=size, dpi=dpi)  # an Agg canvas, attached below: no pyplot
    top = (0.5 if title else 0.15) / size[1]
    left, bottom, right = 0.6 / size[0], 0.5 / size[1], 1.0 - 0.1 / size[0]
    ax = figure.add_axes((left, bottom, right - left, 1.0 - top - bottom))
    draw_stability_map(stability_map, ax=ax)
    if title:
        figure.suptitle(title, x=left, y=1.0 - 0.1 / size[1], ha="left", va="top",
                        fontsize="medium")
    legend = ax.get_legend()
    if legend is not None:
        renderer = FigureCanvasAgg(figure).get_renderer()
        extent = legend.get_window_extent(renderer).transformed(figure.transFigure.inverted())
        width = (right - extent.width - left) / 1.01  # the legend sits at 1.01 axes widths
        ax.set_position((left, ax.get_position().y0, max(width, 0.2),
                         ax.get_position().height))
    return figure


def _trials_title(title: object) -> str:
    """A panel's title: a string as it is; labels as "trial 12" or "trials 12, 17, 40"."""
    if isinstance(title, str):
        return title
    if isinstance(title, Sequence | np.ndarray) and len(title):
        labels = [str(label) for label in title]
        return ("trial " if len(labels) == 1 else "trials ") + ", ".join(labels)
    raise InvalidInputError(
        f"each title must be a string or a non-empty sequence of trial labels; got {title!r}.")


def stability_maps_figure(maps: Sequence[StabilityMap], /,
                          titles: Sequence[str | Sequence[Hashable]] | None = None, *,
                          columns: int | None = None, top: int | None = None,
                          title: str | None = None,
                          panel_size: tuple[float, float] = (3.2, 2.2), dpi: float = 100.0,
                          figure: Figure | None = None) -> Figure:
    """Several feature stability maps (003 §3) as small multiples: a grid of small maps
    without legends, each titled, and one legend for all of them.

    Meant for the maps of a report's front trials, one per picture
    (:func:`paretostab.maps.group_identical_maps`), coloured by one palette
    (:func:`paretostab.maps.feature_palette`): a colour means one feature in every panel.

    Parameters
    ----------
    maps : sequence of StabilityMap
        Built with one :class:`~paretostab.maps.FeaturePalette`.
    titles : sequence, optional
        One per map: a string, or the labels of the trials it stands for (written "trial
        12" or "trials 12, 17, 40").
    columns : int, optional
        Panels per row; default up to 3.
    top : int, optional
        The legend names the features of the maps that have a colour, in the palette's
        order (its first ``top`` with ``top``), then says how many more there are, with
        the grey of those beyond the palette's colours. Frequencies are left to the
        overview (:func:`selection_overview_figure`).
    title : str, optional
        The figure's title.
    panel_size : (float, float)
        Inches per panel (a new figure's size follows, plus room for the legend).
    dpi : float
        A new figure's resolution.
    figure : matplotlib Figure, optional
        Where to draw (e.g. a subfigure); default a new one (constrained layout, no
        pyplot).

    Returns
    -------
    matplotlib Figure
    """
    maps = list(maps) if isinstance(maps, Sequence) else [maps]
    if not maps or not all(isinstance(m, StabilityMap) for m in maps):
        raise InvalidInputError(
            "stability_maps_figure needs a non-empty sequence of StabilityMaps "
            "(paretostab.maps.stability_map).")
    palette = maps[0].palette
    if any(m.palette != palette for m in maps[1:]):
        raise InvalidInputError(
            "The maps must be coloured by one palette (stability_map(..., palette=...), "
            "one paretostab.maps.feature_palette for all): with their own, one colour "
            "means different features in different panels.")
    panel_titles = None
    if titles is not None:
        if isinstance(titles, str) or len(titles) != len(maps):
            raise InvalidInputError(
                f"titles must hold one title per map ({len(maps)}); got {titles!r:.80}.")
        panel_titles = [_trials_title(t) for t in titles]
    if columns is None:
        columns = min(len(maps), 3)
    COUNT.check("columns", columns)
    TOP.check("top", top)
    columns = min(int(columns), len(maps))
    rows = -(-len(maps) // columns)
    if figure is None:
        figure = Figure(figsize=(columns * panel_size[0] + 2.6, rows * panel_size[1]
                                 + (0.4 if title else 0.0)), dpi=dpi, layout="constrained")
        FigureCanvasAgg(figure)  # an Agg canvas: savefig without pyplot
    grid = figure.subplots(rows, columns, squeeze=False)
    row_pixels = 0.75 * figure.bbox.height / rows  # about: the axes of a panel row
    for k, ax in enumerate(grid.ravel()):
        if k >= len(maps):
            ax.remove()
            continue
        _draw_map(ax, maps[k], separated=row_pixels >= 4 * maps[k].runs)
        ax.tick_params(labelsize="x-small")
        last_in_column = k + columns >= len(maps)
        ax.set_xlabel("cumulative importance" if last_in_column else "", fontsize="x-small")
        ax.set_ylabel("run" if k % columns == 0 else "", fontsize="x-small")
        if panel_titles is not None:
            ax.set_title(textwrap.fill(panel_titles[k], width=max(12, int(8 * panel_size[0]))),
                         fontsize="small", loc="left")
    # the legend: the maps' features with a colour, in the palette's order
    names: dict[int, str] = {}
    for m in maps:
        names.update(zip(m.features.tolist(), m.names, strict=True))
    coloured = [f for f in palette.features if f in names]
    shown = coloured[:top] if top is not None else coloured
    entries = [(_plain(names[f]), palette.color(f)) for f in shown]
    handles = _legend_handles(entries, len(names) - len(shown), len(names) - len(coloured),
                              palette)
    if handles:
        figure.legend(handles=handles, loc="outside right upper", fontsize="small",
                      title="features", title_fontsize="small")
    if title:
        figure.suptitle(title, x=0.01, ha="left", fontsize="medium")
    return figure


def draw_selection_overview(overview: SelectionOverview, *, ax: Axes | None = None,
                            chosen: Hashable | None = None,
                            chosen_label: str = "chosen",
                            palette: FeaturePalette | None = None, colorbar: bool = True,
                            title: str | None = None) -> Axes:
    """Draw which features several trials keep (003 §3): a heatmap of the selection
    frequency ``p_f`` of each feature (rows, most frequent over the trials at the top) in
    each trial (columns), white at 0 to dark blue at 1.

    Parameters
    ----------
    overview : SelectionOverview
        From :func:`paretostab.maps.selection_overview`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    chosen : label, optional
        A trial (one of ``overview.labels``) to outline, e.g. the γ choice; its label on
        the x axis is bold, and the axis says "outlined: ``chosen_label``".
    chosen_label : str
        What the chosen trial is (e.g. "γ = 0.6 choice").
    palette : FeaturePalette, optional
        The maps' palette: a square of each feature's colour left of its name, linking
        the rows to the maps.
    colorbar : bool
        Add a colour bar of ``p_f`` from 0 to 1.
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    require(overview, SelectionOverview, "draw_selection_overview")
    if palette is not None and not isinstance(palette, FeaturePalette):
        raise InvalidInputError(
            f"palette must be a FeaturePalette (feature_palette); got {type(palette).__name__}.")
    labels = [str(label) for label in overview.labels]
    column = None
    if chosen is not None:
        if chosen not in overview.labels:
            raise InvalidInputError(
                f"chosen must be one of the overview's labels {labels}; got {chosen!r}.")
        column = overview.labels.index(chosen)
    n_rows, n_columns = overview.frequency.shape
    if ax is None:
        ax = new_axes((1.5 + 0.45 * n_columns, 1.2 + 0.25 * max(n_rows, 1)))
    # no rows (no feature selected, or top = 0): one blank (NaN) row keeps the axes sane
    cells = overview.frequency if n_rows else np.full((1, n_columns), np.nan)
    # p_f = 0 white (below the scale), any p_f > 0 blue
    image = ax.imshow(cells, cmap=_FREQUENCY_COLORS, vmin=1e-9, vmax=1.0, aspect="auto",
                      interpolation="nearest")
    ax.set_xlim(-0.5, n_columns - 0.5)
    ax.set_ylim(max(n_rows, 1) - 0.5, -0.5)
    ax.set_xticks(range(n_columns), [_plain(label) for label in labels],
                  rotation=90 if max(map(len, labels)) > 4 else 0)
    ax.set_yticks(range(n_rows), [_plain(name) for name in overview.names])
    ax.tick_params(labelsize="small", length=0)
    # white lines between the cells: rows and columns read apart
    ax.set_xticks(np.arange(n_columns + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n_rows + 1) - 0.5, minor=True)
    ax.tick_params(which="minor", length=0)
    ax.grid(which="minor", color="white", linewidth=1.0)
    ax.grid(which="major", visible=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel("trial" if column is None else f"trial (outlined: {chosen_label})")
    ax.set_ylabel(f"the {n_rows} of {overview.all_features.size} features most selected in a "
                  "trial" if overview.omitted else "feature")
    if palette is not None and n_rows:
        # squares just left of the rows, between the cells and the names
        ax.scatter(np.full(n_rows, -0.012), np.arange(n_rows), marker="s", s=28,
                   c=np.array(palette.colors_of(overview.features)), edgecolors="none",
                   transform=blended_transform_factory(ax.transAxes, ax.transData),
                   clip_on=False)
        ax.tick_params(axis="y", pad=12)
    if column is not None:
        ax.add_patch(Rectangle((column - 0.5, -0.5), 1.0, max(n_rows, 1), fill=False,
                               edgecolor="C3", linewidth=2.0, clip_on=False, zorder=3))
        tick = ax.get_xticklabels()[column]
        tick.set_fontweight("bold")
        tick.set_color("C3")
    if colorbar:
        # beside the heatmap, as high as it whatever the layout (a colour bar made with
        # ``ax=`` keeps its aspect, and is shorter than a tall narrow heatmap)
        cax = make_axes_locatable(ax).append_axes("right", size=0.15, pad=0.1)
        bar = ax.figure.colorbar(image, cax=cax)
        bar.set_label("selection frequency $p_f$", fontsize="small")
        bar.set_ticks([1e-9, 0.25, 0.5, 0.75, 1.0], labels=["0", "0.25", "0.5", "0.75", "1"])
        bar.ax.tick_params(labelsize="small")
    if title:
        ax.set_title(title, loc="left", fontsize="medium")
    return ax


def selection_overview_figure(overview: SelectionOverview, *, chosen: Hashable | None = None,
                              chosen_label: str = "chosen",
                              palette: FeaturePalette | None = None,
                              title: str | None = None, dpi: float = 100.0) -> Figure:
    """A stand-alone figure of :func:`draw_selection_overview` (no pyplot; constrained
    layout), sized to its rows, columns and feature names: which features every
    trade-off keeps (003 §3).

    Parameters
    ----------
    overview : SelectionOverview
    chosen, chosen_label, palette, title
        As for :func:`draw_selection_overview`.
    dpi : float

    Returns
    -------
    matplotlib Figure
        On an Agg canvas.
    """
    require(overview, SelectionOverview, "selection_overview_figure")
    n_rows, n_columns = overview.frequency.shape
    longest = max((len(name) for name in overview.names), default=4)
    width = 1.9 + 0.065 * longest + 0.4 * n_columns
    height = 1.3 + 0.24 * max(n_rows, 1) + (0.3 if title else 0.0)
    figure = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    draw_selection_overview(overview, ax=figure.add_subplot(), chosen=chosen,
                            chosen_label=chosen_label, palette=palette, title=title)
    return figure


def _rectangles(left: np.ndarray, center: np.ndarray, width: np.ndarray,
                height: float) -> np.ndarray:
    """(K, 4, 2) vertices of K axis-aligned rectangles (x from ``left``, y centred)."""
    x0, x1 = left, left + width
    y0, y1 = center - height / 2, center + height / 2
    return np.stack([np.column_stack(corner) for corner in
                     ((x0, y0), (x0, y1), (x1, y1), (x1, y0))], axis=1)
