"""The report's figures, composed from its analysis objects (002 §3, 003 §3 and §7.1,
000 §6.2 Fig. 6).

Each function takes a frozen analysis (:class:`~paretostab.report.StudyReport`,
:class:`~paretostab.report.Comparison`) and lays out matplotlib ``Figure`` objects
(no pyplot: no global state) with the drawers of :mod:`paretostab.plot`; what they show
was computed before. Titles and legends say what a figure shows; the pages
(:mod:`paretostab.report._pages`) give them their captions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from paretostab.front import ParetoFront
from paretostab.measures import measure_label
from paretostab.plot import (
    GROUP_MARKERS,
    draw_combined_front,
    draw_front,
    draw_fronts,
    draw_group_fronts,
    draw_optimism,
    draw_stability_path,
    group_style,
    selection_overview_figure,
    stability_maps_figure,
    zoom_to_data,
)
from paretostab.report._analysis import StudyReport
from paretostab.report._compare import Comparison, Group
from paretostab.report._confidence import Ellipse
from paretostab.report._html import FigureLink
from paretostab.stable_set import StableSet

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

__all__ = ["ComparisonFigures", "StudyFigures", "comparison_figures", "front_figure",
           "stability_path_figure",
           "point_styles", "study_figures"]


# --------------------------------------------------------------------------- one study


@dataclass(frozen=True, eq=False)
class StudyFigures:
    """The figures of a study's report page.

    Attributes
    ----------
    front : Figure
        The front of the objective, zoomed to its trials and the γ choice, with an
        overview of every trial.
    front_links : tuple of FigureLink
        Its front points, linked to their maps.
    fronts : Figure
        The fronts under each measure side by side.
    overview : Figure
        Which features the front trials keep (features × trials).
    maps : Figure
        One stability map per distinct picture.
    selectors : ComparisonFigures or None
        A multi-selector study's selectors compared.
    stable_sets : tuple of Figure
        The stability path of each of the chosen trial's stable sets.
    """

    front: Figure
    front_links: tuple[FigureLink, ...]
    fronts: Figure
    overview: Figure
    maps: Figure
    selectors: ComparisonFigures | None = None
    stable_sets: tuple[Figure, ...] = ()

    def __repr__(self) -> str:
        """The figures' names, not matplotlib's description of each."""
        names = ["front", "fronts", "overview", "maps"] + (["selectors"] if self.selectors
                                                           else [])
        return f"StudyFigures({', '.join(names)}; {len(self.front_links)} front links)"


def study_figures(report: StudyReport) -> StudyFigures:
    """The figures of ``report``'s page."""
    front, links = front_figure(report)
    overview, maps = _map_figures(report)
    selectors = (None if report.selectors is None else comparison_figures(
        report.selectors, report.selector_groups, noun="selector", plural="selectors"))
    return StudyFigures(front=front, front_links=tuple(links),
                        fronts=_measure_fronts_figure(report), overview=overview, maps=maps,
                        selectors=selectors,
                        stable_sets=tuple(map(stability_path_figure, report.stable_sets)))


def stability_path_figure(found: StableSet) -> Figure:
    """The stability path of a stable set (:func:`~paretostab.plot.draw_stability_path`)."""
    figure = Figure(figsize=(10.0, 3.6))
    left, right = figure.subplots(1, 2)
    draw_stability_path(found, axes=(left, right))
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.16, top=0.95, wspace=0.28)
    return figure


def front_figure(report: StudyReport) -> tuple[Figure, list[FigureLink]]:
    """The front of the study's objective, zoomed to the front trials, the γ choice and the
    replicate means (not to every trial: one far-off trial would squeeze the front into a
    corner): front trials labelled with their numbers (placed apart, with leader
    lines where dense), their confidence regions under them joined to them with the front
    of their replicate means, the γ choice circled, the flagged trials (not above chance,
    or a selection that ignores the labels) crossed, and what lies outside the frame said
    under its title; beside it, an overview of every trial on the whole unit square (the
    dominated area there, the zoomed frame in red) and the legend under that. Returns the
    figure and its links (front trials and the choice, to their maps)."""
    objective, table, front = report.objective, report.table, report.front
    points = table[["accuracy", objective]].to_numpy(dtype=float)
    numbers = [str(int(n)) for n in table["trial"]]
    rows = [int(i) for i in front.rows]
    on_front = set(rows)
    width, height = 10.5, 5.8  # the plot; beside it the overview, the legend under that
    figure = Figure(figsize=(width, height))
    ax = figure.add_axes((0.07, 0.1, 0.58, 0.76))
    chosen_row = report.chosen  # a row of the table (γ may choose off the front)
    drawn = ParetoFront.of(points, rows=rows, weight=report.weight)
    draw_front(drawn, ax=ax, ellipses=front.regions, chosen=[chosen_row],
               chosen_label=f"γ = {report.gamma:g} choice (trial {numbers[chosen_row]})",
               labels=[n if i in on_front or i == chosen_row else ""
                       for i, n in enumerate(numbers)])
    flagged = ([] if report.flags is None else
               [i for i, n in enumerate(table["trial"]) if report.flags.flagged(n)])
    if flagged:  # no better than chance, or a selection the labels do not change
        ax.scatter(points[flagged, 0], points[flagged, 1], marker="x", s=40, color="C3",
                   linewidths=1.2, zorder=6,
                   label="flagged: not above chance, or label-free")
    means = report.means
    if means is not None:
        draw_optimism(front.points, ParetoFront.of(means), ax=ax)
    (x0, x1), (y0, y1) = zoom_to_data(ax, points[[*rows, chosen_row]],
                                      *([] if means is None else [means]))
    ax.set_xlabel(report.metric_label)
    ax.set_ylabel(measure_label(objective))
    ax.set_title(_outside_note(points, front.regions, (x0, x1, y0, y1)), fontsize="small")
    figure.suptitle(f"Pareto front of {report.study}: accuracy and {measure_label(objective)}",
                    x=0.07, y=0.97, ha="left", fontsize="large")
    side = 0.25  # of the figure's width: a square
    overview = figure.add_axes((0.72, 0.88 - side * width / height, side, side * width / height))
    figure.legend(*ax.get_legend_handles_labels(), loc="upper left",
                  bbox_to_anchor=(0.69, 0.88 - side * width / height - 0.1), fontsize="small",
                  frameon=False, handlelength=1.8, borderaxespad=0.0)
    draw_front(drawn, ax=overview)
    overview.set_xlim(0, 1)
    overview.set_ylim(0, 1)
    overview.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="C3",
                                 linewidth=1.5, zorder=6))
    overview.set_title("the unit square (red: the zoomed frame)", fontsize="small")
    overview.set_xlabel("accuracy", fontsize="small")
    overview.set_ylabel(measure_label(objective), fontsize="small")
    overview.tick_params(labelsize="x-small")
    links = [FigureLink(ax, points[i, 0], points[i, 1], f"#trial-{numbers[i]}",
                        f"trial {numbers[i]}: accuracy {points[i, 0]:.4g}, "
                        f"{measure_label(objective)} {points[i, 1]:.4g} (its map)")
             for i in dict.fromkeys([*rows, chosen_row])]
    return figure, links


def _outside_note(points: np.ndarray, regions: Sequence[Ellipse] | None,
                  frame: tuple[float, float, float, float]) -> str:
    """The zoomed front's title: what it frames and, on a second line, what lies outside
    the ``frame`` (x0, x1, y0, y1): the trials left out (seen in the overview), the
    confidence regions covering all of it (their outlines, wholly outside, are not seen)
    and those reaching past it."""
    x0, x1, y0, y1 = frame
    shown = np.isfinite(points).all(axis=1)
    inside = ((points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0)
              & (points[:, 1] <= y1))
    regions = regions or ()
    corners = [(x, y) for x in (x0, x1) for y in (y0, y1)]
    covering = sum(all(r.contains(c) for c in corners) for r in regions)
    past = sum(not (x0 <= low[0] and y0 <= low[1] and high[0] <= x1 and high[1] <= y1)
               for low, high in ((r.most_dominated, r.most_dominant) for r in regions))
    notes = []
    if (shown & ~inside).any():
        notes.append(f"{int((shown & ~inside).sum())} of {int(shown.sum())} trials outside "
                     "it (see the overview)")
    if covering:
        notes.append(f"{covering} of {len(regions)} confidence regions cover all of it")
    if past > covering:
        notes.append(f"{past - covering} more reach past it" if covering else
                     f"{past} of {len(regions)} confidence regions reach past it")
    return "zoomed to the front and the γ choice" + ("\n" + "; ".join(notes) if notes else "")


def _measure_fronts_figure(report: StudyReport) -> Figure:
    """The trials' fronts under each measure side by side (003 Fig. 11), the γ choice
    circled in each."""
    chosen_row = report.chosen
    panels = []
    for name in report.measures:
        points = report.table[["accuracy", name]].to_numpy(dtype=float)
        rows = report.comparison.front(name, report.study).rows
        panels.append((measure_label(name), ParetoFront.of(points, rows=list(rows)),
                       [chosen_row]))
    figure = Figure(figsize=(4.5 * len(panels), 4.4))
    axes = figure.subplots(1, len(panels), squeeze=False, sharey=True)[0]
    draw_fronts(panels, axes=axes,
                chosen_label=f"trial {report.chosen_trial} (γ = {report.gamma:g} choice)")
    figure.suptitle(f"Fronts of {report.study} under each measure", x=0.02, ha="left")
    return figure


def _map_figures(report: StudyReport) -> tuple[Figure, Figure]:
    """The front's stability maps, compact (Hamer & Dupont, JMLR 2021, §3): the overview of
    selection frequencies (features × front trials) and one map per distinct picture with
    the trials it stands for, all in one palette (a feature has one colour on the whole
    page)."""
    maps = report.stability_maps
    chosen = maps.chosen
    choice = f"γ = {report.gamma:g} choice"
    titles = [f"trial{'s' if len(group) > 1 else ''} {', '.join(map(str, group))}"
              + (f" ({choice}: {chosen})" if len(group) > 1 and chosen in group
                 else f" ({choice})" if chosen in group else "")
              for group in maps.groups]
    overview = selection_overview_figure(
        maps.overview, chosen=chosen, chosen_label=choice, palette=maps.palette,
        title=f"Which features the front trials of {report.study} keep")
    pictures = stability_maps_figure(
        list(maps.maps), titles,
        title=f"Feature stability maps of the front trials of {report.study}, one per "
              "distinct picture")
    return overview, pictures


# --------------------------------------------------------------------------- groups


@dataclass(frozen=True, eq=False)
class ComparisonFigures:
    """The figures of a comparison of groups: each group's fronts under each measure, and
    the front of all groups together."""

    fronts: Figure
    combined: Figure


def comparison_figures(comparison: Comparison, groups: Sequence[Group], *, noun: str,
                       plural: str) -> ComparisonFigures:
    """The figures of a comparison of ``groups`` — studies (``noun="study"``) or the
    selectors of one study."""
    return ComparisonFigures(
        fronts=_group_fronts_figure(comparison, groups,
                                    title=f"Each {noun}'s Pareto front under each measure"),
        combined=_combined_figure(comparison, groups,
                                  title=f"The front of all {plural}' trials together"))


def _panels(n: int, title: str):
    """A figure of ``n`` panels side by side (three to a row), no wider than the page
    (12 inches: shown at its size, its text readable), with room for one legend: under
    the panels, or beside a single one (constrained layout; no pyplot)."""
    columns = min(n, 3)
    rows = -(-n // columns)
    figure = Figure(figsize=(3.7 * columns + (2.6 if n == 1 else 0.6), 3.5 * rows + 1.0),
                    layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    figure.suptitle(title, x=0.02, ha="left")
    return figure, axes[:n]


def _legend(figure: Figure, axes) -> None:
    """The first panel's legend entries, under the panels or beside a single one."""
    handles, labels = axes[0].get_legend_handles_labels()
    beside = len(axes) == 1
    figure.legend(handles, labels, loc="outside right upper" if beside
                  else "outside lower center", ncols=1 if beside else min(len(labels), 6),
                  fontsize="small", frameon=False)


def _group_fronts_figure(comparison: Comparison, groups: Sequence[Group], *,
                         title: str) -> Figure:
    """One panel per measure: each group's trials, front staircase and confidence regions
    in its own colour and marker (000 §6.2 Fig. 6, one front per group; 002 §3), zoomed
    to the trials and the replicate means; one legend of the groups."""
    figure, axes = _panels(len(comparison.measures), title)
    for ax, measure in zip(axes, comparison.measures, strict=True):
        fronts = comparison.fronts[measure]
        points = [g.table[["accuracy", measure]].to_numpy(dtype=float) for g in groups]
        draw_group_fronts([(g.name, ParetoFront.of(p, rows=list(f.rows)), f.regions)
                           for g, p, f in zip(groups, points, fronts, strict=True)], ax=ax)
        means = [np.array([r.center for r in f.regions]) for f in fronts if f.regions]
        zoom_to_data(ax, *points, *means)
        ax.set_ylabel(measure_label(measure))
        ax.set_title(measure_label(measure))
    _legend(figure, axes)
    return figure


def point_styles(groups: Sequence[Group]) -> dict[str, tuple[ColorType, str]]:
    """Each point label's (colour, marker): its group's colour; the group's marker, or
    for the selectors of a multi-selector group, markers no group has (in turn)."""
    spare = GROUP_MARKERS[len(groups):] or GROUP_MARKERS
    styles, j = {}, 0
    for k, group in enumerate(groups):
        color, marker = group_style(k, len(groups))
        labels = list(dict.fromkeys(group.labels()))
        for name in labels:
            if len(labels) > 1:
                marker, j = spare[j % len(spare)], j + 1
            styles[name] = (color, marker)
    return styles


def _combined_figure(comparison: Comparison, groups: Sequence[Group], *, title: str) -> Figure:
    """One panel per measure: the front of all groups' trials together, each point in its
    group's colour and marker ("group: selector" for the selectors of a multi-selector
    study), the front's points numbered with their trials (000 §6.2 Fig. 6)."""
    styles = point_styles(groups)
    categories = [name for g in groups for name in g.labels()]
    numbers = [str(int(t)) for g in groups for t in g.table["trial"]]
    figure, axes = _panels(len(comparison.measures), title)
    for ax, measure in zip(axes, comparison.measures, strict=True):
        points = np.vstack([g.table[["accuracy", measure]].to_numpy(dtype=float)
                            for g in groups])
        rows = set(comparison.combined[measure].rows)
        draw_combined_front(ParetoFront.of(points, rows=sorted(rows)), categories, ax=ax,
                            styles=styles,
                            labels=[n if i in rows else "" for i, n in enumerate(numbers)])
        zoom_to_data(ax, points)
        ax.set_ylabel(measure_label(measure))
        ax.set_title(measure_label(measure))
    _legend(figure, axes)
    return figure
