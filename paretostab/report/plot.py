"""Matplotlib drawers for the report (003 §3 maps, 002 §3 fronts).

Each drawer takes an ``ax=`` to draw on and returns it; it creates a figure (through
``matplotlib.pyplot``) only when ``ax`` is None. Drawers never set a style or touch
``matplotlib.rcParams``; they only draw what the pure functions of
:mod:`paretostab.report` computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from paretostab.errors import InvalidInputError
from paretostab.report.front import _as_points, dominance_area, pareto_front, staircase
from paretostab.report.maps import StabilityMap

__all__ = ["draw_front", "draw_stability_map"]


def _new_axes(figsize: tuple[float, float]) -> Axes:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


def draw_stability_map(stability_map: StabilityMap, *, ax: Axes | None = None,
                       legend: bool = True) -> Axes:
    """Draw a feature stability map (003 §3, Figure 1).

    Runs on the y axis (run 0 at the top), cumulative importance on the x axis; one
    rectangle per (run, selected feature) in the feature's colour. With ``legend``, a
    legend of ``stability_map.legend`` (the ``top`` most frequent features) with their
    names and selection frequencies ``p_f``, to the right of the axes.

    Parameters
    ----------
    stability_map : StabilityMap
        From :func:`paretostab.report.stability_map`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    legend : bool
        Add the legend.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(stability_map, StabilityMap):
        raise InvalidInputError(
            "draw_stability_map needs a StabilityMap (paretostab.report.stability_map); got "
            f"{type(stability_map).__name__}.")
    m = stability_map
    if ax is None:
        ax = _new_axes((8.0, max(3.0, 0.15 * m.runs + 1.5)))
    if m.row.size:
        ax.barh(m.row, m.width, left=m.left, height=0.85, align="center",
                color=m.rectangle_colors, edgecolor="white", linewidth=0.3)
    ax.set_ylim(m.runs - 0.5, -0.5)  # run 0 at the top
    ax.set_xlim(0.0, m.mean_selected if m.mean_selected > 0 else 1.0)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cumulative importance")
    ax.set_ylabel("run")
    if legend and m.legend.size:
        handles = [Patch(facecolor=color, label=f"{name} (p = {p:.2f})")
                   for name, color, p in zip(m.legend_names, m.legend_colors,
                                             m.legend_frequency, strict=True)]
        ax.legend(handles=handles, title="features by frequency", loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small",
                  title_fontsize="small")
    return ax


def draw_front(points: object, *, ax: Axes | None = None, front: bool = True,
               area: bool = True, labels: Sequence[str] | None = None,
               reference: object = (0.0, 0.0)) -> Axes:
    """Draw (accuracy, stability) points, their Pareto front and dominance area (002 §3).

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs, both maximised; rows with a NaN are not drawn.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    front : bool
        Draw the front (:func:`paretostab.report.pareto_front`) as a staircase through
        its points, which are outlined.
    area : bool
        Shade the dominated region inside ``[reference, ∞)²`` whose area is
        :func:`paretostab.report.dominance_area` (the value is in its legend label).
    labels : sequence of str, optional
        One annotation per point (e.g. trial numbers).
    reference : (float, float)
        The reference point of the area.

    Returns
    -------
    matplotlib Axes
        The artists carry labels ("points", "Pareto front", "dominance area = …"): call
        ``ax.legend()`` to show them. Axis labels "accuracy" / "stability" are set only
        where the axes have none.
    """
    arr = _as_points(points)
    if labels is not None and len(labels) != arr.shape[0]:
        raise InvalidInputError(
            f"labels must hold one label per point ({arr.shape[0]}); got {len(labels)}.")
    if ax is None:
        ax = _new_axes((5.0, 4.0))
    dots = ax.scatter(arr[:, 0], arr[:, 1], s=18, zorder=3, label="points")
    color = dots.get_facecolor()[0] if len(dots.get_facecolor()) else "C0"
    if front:
        idx = pareto_front(arr)
        if idx.size:
            ax.step(arr[idx, 0], arr[idx, 1], where="pre", color=color, linewidth=1.5,
                    zorder=2, label="Pareto front")
            ax.scatter(arr[idx, 0], arr[idx, 1], s=30, facecolors="none",
                       edgecolors="black", linewidths=0.8, zorder=4)
    if area:
        corners = staircase(arr, reference=reference)
        if corners.size:
            ref = np.asarray(reference, dtype=float)
            polygon = np.vstack([corners, ref[None, :]])
            value = dominance_area(arr, reference=reference)
            ax.fill(polygon[:, 0], polygon[:, 1], color=color, alpha=0.18, linewidth=0,
                    zorder=1, label=f"dominance area = {value:.3f}")
    if labels is not None:
        for (x, y), text in zip(arr, labels, strict=True):
            if np.isfinite(x) and np.isfinite(y):
                ax.annotate(str(text), (x, y), xytext=(3, 3), textcoords="offset points",
                            fontsize="small")
    if not ax.get_xlabel():
        ax.set_xlabel("accuracy")
    if not ax.get_ylabel():
        ax.set_ylabel("stability")
    return ax
