"""Drawers of Pareto fronts (002 §3 fronts, 003 §7.1 Fig. 11): one front
(:func:`draw_front`, with :func:`draw_optimism` and :func:`zoom_to_data`), fronts under
several measures (:func:`draw_fronts`) and, for comparisons of groups of trials (000 §6.2
Fig. 6), each group's front in its own colour (:func:`draw_group_fronts`,
:func:`group_style`) and the front of all groups together (:func:`draw_combined_front`).

Each draws a :class:`paretostab.front.ParetoFront` and computes nothing; the one
evaluation done here is that of the weight's density on a grid, to shade the dominated
area by it. A front reads at a glance: its trials are filled circles on its staircase, the
other trials light-grey dots, the confidence regions dark outlines under the points, with
a light fill while they are small beside the axes (:class:`_Region`: with few replicates a
region spans the whole zoomed window, and filled regions hid the points), and the labels
of points are placed apart whenever the figure is drawn (at its final size and zoom), with
thin leader lines where points are dense. Imported from :mod:`paretostab.plot`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.image import AxesImage
from matplotlib.patches import Ellipse as EllipsePatch
from matplotlib.patches import Patch

from paretostab._errors import InvalidInputError
from paretostab._point_labels import label_points
from paretostab._validation import is_int
from paretostab.front import ParetoFront, as_points
from paretostab.maps import PALETTE
from paretostab.plot._contract import new_axes, require

if TYPE_CHECKING:  # annotations only: matplotlib.typing is new in matplotlib 3.8 (we take 3.7)
    from matplotlib.typing import ColorType
    from numpy.typing import ArrayLike, NDArray

__all__ = ["GROUP_COLORS", "GROUP_MARKERS", "draw_combined_front", "draw_front", "draw_fronts",
           "draw_group_fronts", "draw_optimism", "group_style", "zoom_to_data"]

_SHADE_ALPHA = 0.18        # uniform shading of the dominated area
_WEIGHT_ALPHA = (0.10, 0.50)  # weighted shading: the patch's alpha, the image's maximum
_GRID = 200                # resolution of the weighted shading
_POINT_SIZE, _POINT_COLOR = 14.0, "0.62"  # the trials off the front: small light-grey dots
_FRONT_SIZE, _EDGE_COLOR = 36.0, "0.1"    # the front's points: filled circles, dark edge
_REGION_COLOR, _REGION_FILL = "0.2", 0.10  # confidence regions: dark outline, light fill
_REGION_ZORDER = 2.8       # under the trials' dots (3) and the front (4), over the shading
_LARGE_REGION = (0.7, 0.35)  # a region larger than half the window: line width, alpha

_T = TypeVar("_T")


class ConfidenceRegion(Protocol):
    """What the drawers read from a confidence region (an ``Ellipse`` of
    :func:`paretostab.report.confidence_regions`): its centre, its semi-axes and the angle
    of its major axis from the accuracy axis, in radians; also its ``level`` (a float),
    for the legend, when it has one."""

    @property
    def center(self) -> ArrayLike: ...

    @property
    def semi_axes(self) -> ArrayLike: ...

    @property
    def angle(self) -> float: ...


class Indexed(Protocol):
    """A chosen point given as an object holding the row ``index`` of its point (e.g.
    :class:`paretostab.front.GammaChoice`)."""

    @property
    def index(self) -> int | np.integer: ...


#: The chosen points of :func:`draw_front`: row indices or Indexed objects, or one of those.
_Chosen: TypeAlias = "Indexed | Iterable[int | np.integer | Indexed]"


# --------------------------------------------------------------------------- weights


def _evaluate_density(density: Callable[[ArrayLike, ArrayLike], np.ndarray],
                      a: NDArray[np.float64], phi: NDArray[np.float64]) -> NDArray[np.float64]:
    """``density`` on the grid ``(a, φ)``, vectorised when it allows, else point by point;
    NaN and negative values read as 0 (they are only shaded)."""
    try:
        values = np.broadcast_to(np.asarray(density(a, phi), dtype=float), a.shape)
    except Exception:  # a density written for scalars
        values = np.vectorize(lambda x, y: float(density(x, y)), otypes=[float])(a, phi)
    return np.where(np.isfinite(values) & (values > 0), values, 0.0)


def _shade_by_density(ax: Axes, polygon: np.ndarray, clip: Patch,
                      density: Callable[[ArrayLike, ArrayLike], np.ndarray],
                      color: ColorType) -> AxesImage:
    """An image of ``density`` over the bounding box of ``polygon``, in ``color`` with
    alpha growing with the density, clipped to the patch ``clip``."""
    (x0, y0), (x1, y1) = polygon.min(axis=0), polygon.max(axis=0)
    xs = np.linspace(x0, x1, _GRID)
    ys = np.linspace(y0, y1, _GRID)
    a, phi = np.meshgrid(xs, ys)
    values = _evaluate_density(density, a, phi)
    top = values.max()
    scaled = values / top if top > 0 else values
    rgba = np.empty(values.shape + (4,))
    rgba[..., :3] = to_rgba(color)[:3]
    rgba[..., 3] = _WEIGHT_ALPHA[1] * scaled  # over the patch's uniform alpha
    image = AxesImage(ax, origin="lower", interpolation="bilinear", zorder=1)
    image.set_data(rgba)
    image.set_extent((x0, x1, y0, y1))
    image.sticky_edges.x.clear()  # keep the axes' margins, as for the uniform shading
    image.sticky_edges.y.clear()
    image.set_clip_path(clip)
    ax.add_image(image)
    return image


# --------------------------------------------------------------------------- fronts


def _indices(values: _Chosen | None, n: int, name: str) -> NDArray[np.intp]:
    """Row indices from ints or objects with an ``index`` (e.g. GammaChoice)."""
    if values is None:
        return np.empty(0, dtype=np.intp)
    items: Iterable[object]
    if hasattr(values, "index") and not isinstance(values, Sequence | np.ndarray):
        items = [values]  # one object with an index (a GammaChoice)
    elif isinstance(values, Iterable):
        items = values
    else:
        raise InvalidInputError(
            f"{name} must hold row indices of points (integers in [0, {n})) or objects "
            f"with an index (GammaChoice); got {values!r}.")
    out = []
    for item in items:
        value = getattr(item, "index", item)
        if not is_int(value) or not 0 <= value < n:
            raise InvalidInputError(
                f"{name} must hold row indices of points (integers in [0, {n})) or objects "
                f"with an index (GammaChoice); got {value!r}.")
        out.append(int(value))
    return np.asarray(out, dtype=np.intp)


class _Region(EllipsePatch):
    """A confidence region as drawn: an ellipse outlined in its colour and filled lightly
    (at alpha ``fill_alpha``) while it is no larger than half the axes' window along either
    side; a larger one is a thin, faint outline alone — checked each time it is drawn, at
    the final zoom. With few replicates (B = 3) regions span the whole zoomed window:
    filled, overlapping ones turned it grey over the points, and dark outlines of dozens
    of them crossed it like a scribble.

    Parameters
    ----------
    fill_alpha : float
        The fill's alpha while the region is small (0: never filled).
    *args, **kwargs
        Those of :class:`matplotlib.patches.Ellipse`.
    """

    def __init__(self, *args, fill_alpha: float, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fill_alpha = fill_alpha
        self.set_facecolor(to_rgba(self.get_edgecolor(), fill_alpha))
        self._line_width = self.get_linewidth()

    def large(self, renderer=None) -> bool:
        """Whether the region's extent exceeds half the axes' window along a side (display
        pixels)."""
        if self.axes is None:
            return False
        box, window = self.get_window_extent(renderer), self.axes.bbox
        return bool(box.width > window.width / 2 or box.height > window.height / 2)

    def draw(self, renderer) -> None:
        large = self.large(renderer)
        self.set_fill(self.fill_alpha > 0 and not large)
        self.set_linewidth(_LARGE_REGION[0] if large else self._line_width)
        self.set_alpha(_LARGE_REGION[1] if large else None)
        super().draw(renderer)


def _draw_ellipses(ax: Axes, ellipses: Iterable[ConfidenceRegion], color: ColorType, *,
                   fill: float = 0.0, linewidth: float = 1.0,
                   zorder: float = 3.5) -> list[_Region]:
    """The confidence regions ``ellipses`` as outlines in ``color`` (``linewidth``), filled
    with ``color`` at alpha ``fill`` while small beside the axes (:class:`_Region`); the
    first carries the legend label."""
    patches: list[_Region] = []
    for k, region in enumerate(ellipses):
        try:
            center = np.asarray(region.center, dtype=float).reshape(2)
            semi = np.asarray(region.semi_axes, dtype=float).reshape(2)
            angle = float(region.angle)
        except (AttributeError, TypeError, ValueError):
            raise InvalidInputError(
                "ellipses must hold Ellipse objects (paretostab.report._confidence) with "
                f"center, semi_axes and angle; item {k} is {type(region).__name__}."
            ) from None
        if not (np.all(np.isfinite(center)) and np.all(np.isfinite(semi))
                and math.isfinite(angle)):
            continue  # an undefined region (too few replicates) is not drawn
        level = getattr(region, "level", None)
        label = "_nolegend_"
        if not patches:
            label = (f"{level:.0%} confidence regions" if isinstance(level, float | int)
                     else "confidence regions")
        # the angle is that of the major axis: the width goes along it
        patch = _Region((float(center[0]), float(center[1])), width=2 * semi.max(),
                        height=2 * semi.min(), angle=math.degrees(angle), fill_alpha=fill,
                        edgecolor=color, linewidth=linewidth, zorder=zorder, label=label)
        ax.add_patch(patch)
        patches.append(patch)
    return patches


def _draw_staircase(ax: Axes, drawn: np.ndarray, color: ColorType, label: str, *,
                    marker: str | None = "o", face: ColorType = "none", size: float = 30.0,
                    linewidth: float = 1.5) -> None:
    """The front ``drawn`` (a ParetoFront's ``front_points``) as a staircase in ``color``,
    its points as ``marker`` (filled with ``face``, edged in black; None: not marked)."""
    if drawn.size:
        ax.step(drawn[:, 0], drawn[:, 1], where="pre", color=color, linewidth=linewidth,
                zorder=2, label=label)
        if marker is not None:
            ax.scatter(drawn[:, 0], drawn[:, 1], s=size, marker=marker, facecolors=face,
                       edgecolors="black", linewidths=0.8, zorder=4)


def _finish_front_axes(ax: Axes, legend: bool) -> Axes:
    """Axis labels a front's axes lack (accuracy, stability) and, if asked, its legend
    (small, in the corner where it hides least)."""
    if not ax.get_xlabel():
        ax.set_xlabel("accuracy")
    if not ax.get_ylabel():
        ax.set_ylabel("stability")
    if legend:
        ax.legend(fontsize="x-small", loc="best", framealpha=0.8)
    return ax


def _draw_front_line(ax: Axes, front: ParetoFront, color: ColorType) -> None:
    """The front's staircase in ``color`` with its points (not the trivial point) marked
    by filled circles edged dark, above the other points: one line, whose legend entry
    shows both."""
    drawn = front.front_points
    if not drawn.size:
        return
    marked = np.ones(len(drawn), dtype=bool)
    if len(drawn) > len(front.rows):  # the trivial point is among the vertices
        marked[np.flatnonzero((drawn == front.trivial_point).all(axis=1))[:1]] = False
    ax.step(drawn[:, 0], drawn[:, 1], where="pre", color=color, linewidth=1.5, zorder=4,
            marker="o", markevery=np.flatnonzero(marked).tolist(),
            markersize=math.sqrt(_FRONT_SIZE), markerfacecolor=color,
            markeredgecolor=_EDGE_COLOR, markeredgewidth=0.8, label="Pareto front")


def draw_front(front: ParetoFront, *, ax: Axes | None = None, area: bool = True,
               labels: Sequence[str] | None = None,
               ellipses: Sequence[ConfidenceRegion] | None = None,
               chosen: _Chosen | None = None, chosen_label: str = "γ choice",
               points_label: str = "trials", legend: bool = False,
               color: ColorType = "C0") -> Axes:
    """Draw (accuracy, stability) points, their Pareto front, dominance area, confidence
    regions and chosen points (002 §3 Fig. 2–3; 003 §7.1 Fig. 11).

    Parameters
    ----------
    front : ParetoFront
        From :meth:`paretostab.front.ParetoFront.of`: the points (rows with a NaN are not
        drawn) as small light-grey dots, the front drawn as a staircase through its points,
        which are filled circles in ``color`` edged dark (none when its ``rows`` are
        empty), the trivial point (a cross) and the dominated region with its area.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    area : bool
        Shade the dominated region ``front.region``, with ``front.dominance_area`` in its
        legend label. A non-uniform ``front.weight`` shades it by the weight's density
        ``w(a, φ)`` (darker = more weight; a callable gets grid arrays of accuracies and
        stabilities) and names the weight in the label.
    labels : sequence of str, optional
        One annotation per point (e.g. trial numbers; "" for none). The labels of points
        at one place are joined into one ("4, 7"); each is placed, whenever the figure is
        drawn, where it overlaps no other label (beside its point when there is room, else
        further away with a thin leader line to it), or left out when no place is free.
    ellipses : sequence of Ellipse, optional
        Confidence regions (:func:`paretostab.report.confidence_regions`), drawn under
        the points as dark outlines, with a light fill while no larger than half the
        window (:class:`_Region`); regions with non-finite parameters are skipped.
    chosen : sequence of int or of GammaChoice, optional
        Rows of the points to circle (e.g. the γ choices), labelled ``chosen_label``.
    chosen_label : str
        The legend label of the circled points (default "γ choice").
    points_label : str
        The legend label of the points (each point is a trial of a tuning study).
    legend : bool
        Call ``ax.legend`` (small font, best location).
    color : matplotlib colour
        Of the front, its points, the trivial point and the shading.

    Returns
    -------
    matplotlib Axes
        The artists carry labels (``points_label``, "Pareto front", "dominance area = …",
        "95% confidence regions", ``chosen_label``): call ``ax.legend()`` (or pass
        ``legend=True``) to show them. Axis labels "accuracy" / "stability" are set only
        where the axes have none.
    """
    require(front, ParetoFront, "draw_front")
    arr = front.points
    n = arr.shape[0]
    if labels is not None and len(labels) != n:
        raise InvalidInputError(
            f"labels must hold one label per point ({n}); got {len(labels)}.")
    chosen_idx = _indices(chosen, n, "chosen")
    weight = front.weight
    if weight is not None and weight.kind == "uniform":
        weight = None  # shaded flat, as without a weight
    polygon = front.region if area and front.region.size else None
    if polygon is not None:
        area_label = f"dominance area = {front.dominance_area:.3f}"
        if weight is not None:
            area_label += f" ({weight.label})"
    if ax is None:
        ax = new_axes((5.0, 4.0))
    ax.scatter(arr[:, 0], arr[:, 1], s=_POINT_SIZE, color=_POINT_COLOR, edgecolors="none",
               zorder=3, label=points_label)
    if front.trivial_point is not None:
        ax.scatter(front.trivial_point[None, 0], front.trivial_point[None, 1], marker="x",
                   s=40, color=color, zorder=3, label="trivial point")
    _draw_front_line(ax, front, color)
    if polygon is not None:
        if weight is None:
            ax.fill(polygon[:, 0], polygon[:, 1], color=color, alpha=_SHADE_ALPHA,
                    linewidth=0, zorder=1, label=area_label)
        else:  # the patch carries the legend entry and clips the density image
            (patch,) = ax.fill(polygon[:, 0], polygon[:, 1], facecolor=color,
                               alpha=_WEIGHT_ALPHA[0], linewidth=0, zorder=1,
                               label=area_label)
            _shade_by_density(ax, polygon, patch, weight.density, color)
    if ellipses is not None:
        _draw_ellipses(ax, ellipses, _REGION_COLOR, fill=_REGION_FILL, linewidth=1.4,
                       zorder=_REGION_ZORDER)
    if chosen_idx.size:
        ax.scatter(arr[chosen_idx, 0], arr[chosen_idx, 1], s=140, facecolors="none",
                   edgecolors="C3", linewidths=1.6, zorder=5, label=chosen_label)
    if labels is not None:
        label_points(ax, arr, labels, fontsize="small", zorder=6,
                     radius=math.sqrt(_FRONT_SIZE) / 2)
    return _finish_front_axes(ax, legend)


def draw_optimism(trial_points: ArrayLike, means: ParetoFront, *, ax: Axes,
                  color: ColorType = "C2") -> Axes:
    """Join each front trial's (accuracy, stability) to the mean of its replicates and draw
    the front of those means (dashed): how much of the trials' front was their own
    resamples' luck (002 §3; the trials were selected for being good on them).

    Parameters
    ----------
    trial_points : array-like (n, 2)
        Row i: front trial i's values.
    means : ParetoFront
        Of the means of the replicates' values (row i: front trial i's), with their front
        (``ParetoFront.of(replicate_means)``).
    ax : matplotlib Axes
        Where to draw.
    color : matplotlib colour
        Of the means, their front and the joining segments.
    """
    require(means, ParetoFront, "draw_optimism")
    trials, centers = as_points(trial_points), means.points
    if trials.shape != centers.shape:
        raise InvalidInputError(
            f"trial_points and the replicate means must have the same shape; got "
            f"{trials.shape} and {centers.shape}.")
    keep = np.isfinite(trials).all(axis=1) & np.isfinite(centers).all(axis=1)
    trials, centers = trials[keep], centers[keep]
    if not len(centers):
        return ax
    segments = list(np.stack([trials, centers], axis=1))  # a list of (2, 2) lines
    ax.add_collection(LineCollection(segments, colors=[color], linewidths=0.8,
                                     linestyles="dotted", zorder=3.4))
    ax.scatter(centers[:, 0], centers[:, 1], s=14, marker="D", color=color, zorder=3.6,
               label="replicate means")
    drawn = means.front_points
    ax.step(drawn[:, 0], drawn[:, 1], where="pre", color=color, linewidth=1.2,
            linestyle="--", zorder=2.5, label="front of the replicate means")
    return ax


def zoom_to_data(ax: Axes, *arrays: ArrayLike,
                 margin: float = 0.08) -> tuple[tuple[float, float], tuple[float, float]]:
    """Limit ``ax`` to the finite points of ``arrays`` (each (n, 2)), with ``margin`` of
    the range on each side (a minimum range of 0.02 keeps a single point readable);
    returns the (x, y) limits. Confidence regions do not widen the view (with few
    replicates one can span several units): what lies outside is clipped.

    Parameters
    ----------
    ax : matplotlib Axes
        The axes whose limits are set.
    *arrays : array-like (n, 2)
        (accuracy, stability) points; empty ones are skipped.
    margin : float
        The fraction of the (at least 0.02 wide) range added on each side (default 0.08).
    """
    points = np.vstack([as_points(a) for a in arrays if np.size(a)])
    points = points[np.isfinite(points).all(axis=1)]
    low, high = points.min(axis=0), points.max(axis=0)
    span = np.maximum(high - low, 0.02)
    low, high = low - margin * span, high + margin * span
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    for artist in (*ax.images, *ax.patches):  # shading now reaches past the axes
        artist.set_in_layout(False)
    return (low[0], high[0]), (low[1], high[1])


def _labelled_front(item: tuple[str, ParetoFront] | tuple[str, ParetoFront, _T],
                    k: int, kind: str, label: str,
                    extra: str) -> tuple[str, ParetoFront, _T | None]:
    """The ``k``-th ``kind`` ("panel", "group") of a drawer of several fronts, a
    (``label``, ParetoFront) or (``label``, ParetoFront, ``extra`` or None) tuple, as
    (str(label), front, extra or None); else one error saying so."""
    if (isinstance(item, str) or not isinstance(item, Sequence) or not 2 <= len(item) <= 3
            or not isinstance(item[1], ParetoFront)):
        raise InvalidInputError(
            f"each {kind} must be a ({label}, ParetoFront) or ({label}, ParetoFront, {extra} "
            f"or None) tuple (paretostab.front.ParetoFront.of); {kind} {k} is {item!r:.80}.")
    name, front, more = (*item, None)[:3]
    return str(name), front, more


def draw_fronts(panels: Sequence[tuple[str, ParetoFront]
                                 | tuple[str, ParetoFront, _Chosen | None]], *,
                axes: Sequence[Axes] | None = None,
                area: bool = False, chosen_label: str = "γ choice", legend: bool = True,
                sharey: bool = True) -> list[Axes]:
    """Draw fronts under several stability measures side by side (003 §7.1, Fig. 11).

    Parameters
    ----------
    panels : sequence of (title, ParetoFront) or (title, ParetoFront, chosen)
        One panel each: its title (the measure), its front
        (:meth:`paretostab.front.ParetoFront.of` of its (accuracy, stability) points;
        with ``rows=`` to draw another measure's front in its space) and the rows to
        circle (None or left out: none).
    axes : sequence of Axes, optional
        One per panel (any shape; flattened); a row of new axes (through pyplot, sharing
        the x axis and, with ``sharey``, the y axis) is created only when None.
    area : bool
        Shade each panel's dominance area (off by default: the axes then zoom on the
        points, as in 003 Fig. 11).
    chosen_label : str
        As for :func:`draw_front`, for every panel.
    legend : bool
        A small legend in each panel.
    sharey : bool
        With new axes, share the stability axis (the measures' ranges compare at a
        glance).

    Returns
    -------
    list of matplotlib Axes
        One per panel, in order. Each has the panel's title; the y label "stability" is
        set only on the first of axes sharing their y axis (and where none is set).
    """
    if isinstance(panels, str) or not isinstance(panels, Sequence | np.ndarray):
        raise InvalidInputError(
            f"panels must be a sequence of (title, ParetoFront, chosen); got "
            f"{type(panels).__name__}.")
    parsed = [_labelled_front(panel, k, "panel", "title", "chosen indices")
              for k, panel in enumerate(panels)]
    if axes is None:
        import matplotlib.pyplot as plt

        width = max(len(parsed), 1)
        _, grid = plt.subplots(1, width, squeeze=False, sharex=True, sharey=sharey,
                               figsize=(4.5 * width, 4.0))
        axes_list = list(grid[0])
    else:
        axes_list = list(np.asarray(axes, dtype=object).ravel())
        if len(axes_list) != len(parsed) or not all(isinstance(ax, Axes) for ax in axes_list):
            raise InvalidInputError(
                f"axes must hold one matplotlib Axes per panel ({len(parsed)}); got "
                f"{len(axes_list)} item(s).")
    for k, (ax, (title, front, chosen)) in enumerate(zip(axes_list, parsed, strict=True)):
        shares = any(ax.get_shared_y_axes().joined(ax, other) for other in axes_list[:k])
        unlabelled = not ax.get_ylabel()
        draw_front(front, ax=ax, area=area, chosen=chosen, chosen_label=chosen_label)
        if shares and unlabelled:  # the first of the shared axes says "stability"
            ax.set_ylabel("")
        ax.set_title(title)
        if legend:
            ax.legend(fontsize="x-small", loc="best")
    return axes_list


# --------------------------------------------------------------------------- groups

#: The colours of compared groups (studies, or the selectors of one study): Okabe & Ito's
#: colour-blind-safe qualitative palette (B. Wong, Nature Methods 8:441, 2011) without its
#: yellow (too light on white) and its black (the combined front's colour).
GROUP_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9")
#: Their markers: groups differ in shape too (in grey print, and beyond six groups: the
#: pairs (colour, marker) of the first 42 groups are all distinct).
GROUP_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def group_style(k: int, n: int = 1) -> tuple[ColorType, str]:
    """The (colour, marker) of the ``k``-th group (0-based) of a comparison of ``n``
    groups: :data:`GROUP_COLORS` for up to six groups; for more (000 §6.2's nine methods)
    the 20 colours of :data:`paretostab.maps.PALETTE`, at least ΔE00 19 apart, so that no
    two of up to 20 groups share a colour.

    Parameters
    ----------
    k : int
        The group's position; colours and markers repeat beyond their numbers.
    n : int
        How many groups the comparison draws (default 1), which picks the colours.
    """
    colors: Sequence[ColorType] = GROUP_COLORS if n <= len(GROUP_COLORS) else PALETTE
    return colors[k % len(colors)], GROUP_MARKERS[k % len(GROUP_MARKERS)]


def _legend_entry(ax: Axes, label: str, color: ColorType, marker: str, *, line: bool = True,
                  **style) -> None:
    """A legend entry (``marker`` in ``color``, on a line of that colour when ``line``) as
    an empty line of ``ax``: ``ax.get_legend_handles_labels()`` finds it, and it draws
    nothing."""
    style = {"markeredgecolor": "black", "markeredgewidth": 0.6, **style}
    ax.plot([], [], color=color, marker=marker, linestyle="-" if line else "none",
            linewidth=1.5, label=label, **style)


def _styles(styles: Iterable[tuple[ColorType, str]] | None, n: int,
            caller: str) -> list[tuple[ColorType, str]]:
    if styles is None:
        return [group_style(k, n) for k in range(n)]
    listed = list(styles)
    if len(listed) != n or not all(isinstance(s, Sequence) and len(s) == 2 for s in listed):
        raise InvalidInputError(
            f"{caller}: styles must hold one (colour, marker) pair per group ({n}); got "
            f"{listed!r:.80}.")
    return listed


def draw_group_fronts(groups: Sequence[tuple[str, ParetoFront]
                                      | tuple[str, ParetoFront,
                                              Sequence[ConfidenceRegion] | None]], *,
                      ax: Axes | None = None,
                      styles: Sequence[tuple[ColorType, str]] | None = None,
                      legend: bool = False) -> Axes:
    """Draw several groups of (accuracy, stability) points — one per selection method or
    study — each with its own Pareto front and confidence regions, in its own colour and
    marker (000 §6.2 Fig. 6 with one front per method; 002 §3 Fig. 3 regions).

    Parameters
    ----------
    groups : sequence of (name, ParetoFront) or (name, ParetoFront, regions)
        One per group: its name (the legend label), its points and the front drawn
        through them (:meth:`paretostab.front.ParetoFront.of`, with ``rows=`` to draw
        another front than the points' own) and the confidence regions of its front points
        (:func:`paretostab.report.confidence_regions`; None or left out: none).
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    styles : sequence of (colour, marker), optional
        One per group; default :func:`group_style` (:data:`GROUP_COLORS`,
        :data:`GROUP_MARKERS`).
    legend : bool
        Call ``ax.legend``.

    Returns
    -------
    matplotlib Axes
        A group's points are hollow markers, its front a staircase through solid ones, its
        regions outlines and their centres (the replicate means) crosses, all in its
        colour. Legend entries (``ax.get_legend_handles_labels()``): one per group (its
        marker on a line of its colour), then, when regions are drawn, "95% confidence
        regions" and "replicate means" (in grey: each group's are in its colour).
    """
    if isinstance(groups, str) or not isinstance(groups, Sequence):
        raise InvalidInputError(
            "groups must be a sequence of (name, ParetoFront, regions); got "
            f"{type(groups).__name__}.")
    parsed = [_labelled_front(group, k, "group", "name", "confidence regions")
              for k, group in enumerate(groups)]
    group_styles = _styles(styles, len(parsed), "draw_group_fronts")
    if ax is None:
        ax = new_axes((5.5, 4.5))
    drawn: list[ConfidenceRegion] = []  # every region drawn
    for (name, front, regions), (color, marker) in zip(parsed, group_styles, strict=True):
        arr = front.points
        ax.scatter(arr[:, 0], arr[:, 1], s=18, marker=marker, facecolors="none",
                   edgecolors=color, linewidths=0.9, zorder=3)
        _draw_staircase(ax, front.front_points, color, "_nolegend_", marker=marker,
                        face=color, size=40)
        _legend_entry(ax, name, color, marker)
        if regions is not None:
            for patch in _draw_ellipses(ax, regions, color, fill=0.08, linewidth=1.2):
                patch.set_label("_nolegend_")
            centers = np.array([r.center for r in regions], dtype=float).reshape(-1, 2)
            ax.scatter(centers[:, 0], centers[:, 1], s=36, marker="+", color=color,
                       linewidths=1.0, zorder=3.6)
            drawn.extend(regions)
    if drawn:
        level = getattr(drawn[0], "level", None)
        _legend_entry(ax, f"{level:.0%} confidence regions" if isinstance(level, float | int)
                      else "confidence regions", "none", "o", line=False, markersize=11,
                      markeredgecolor="0.3", markeredgewidth=1.0)
        _legend_entry(ax, "replicate means", "0.3", "+", line=False, markersize=7,
                      markeredgecolor="0.3", markeredgewidth=1.0)
    return _finish_front_axes(ax, legend)


def draw_combined_front(front: ParetoFront, groups: Sequence[str], *, ax: Axes | None = None,
                        labels: Sequence[str] | None = None,
                        styles: Mapping[str, tuple[ColorType, str]] | None = None,
                        legend: bool = False) -> Axes:
    """Draw the Pareto front of the points of several groups together, each point in its
    group's colour and marker (000 §6.2 Fig. 6: the front across selection methods).

    Parameters
    ----------
    front : ParetoFront
        Every group's (accuracy, stability) points and the combined front
        (:meth:`paretostab.front.ParetoFront.of`: their own Pareto front, or ``rows=``).
    groups : sequence of str
        The group of each point (its legend label, e.g. "study" or "study: selector").
    ax : matplotlib Axes, optional
        Where to draw; a new figure is created only when None.
    labels : sequence of str, optional
        One annotation per point ("" for none; e.g. the trial numbers of the front); the
        labels of points at one place are joined into one ("4, 7").
    styles : dict, optional
        Group → (colour, marker); default :func:`group_style` by order of first
        appearance.
    legend : bool
        Call ``ax.legend``.

    Returns
    -------
    matplotlib Axes
        Every point a hollow marker in its group's style; the combined front a black
        staircase through solid ones. Legend entries: "combined Pareto front", then one per
        group.
    """
    require(front, ParetoFront, "draw_combined_front")
    arr = front.points
    n = arr.shape[0]
    groups = [str(g) for g in groups]
    if len(groups) != n:
        raise InvalidInputError(
            f"groups must name the group of every point ({n}); got {len(groups)}.")
    if labels is not None and len(labels) != n:
        raise InvalidInputError(
            f"labels must hold one label per point ({n}); got {len(labels)}.")
    names = list(dict.fromkeys(groups))
    if styles is None:
        styles = {name: group_style(k, len(names)) for k, name in enumerate(names)}
    missing = [name for name in names if name not in styles]
    if missing:
        raise InvalidInputError(f"styles has no (colour, marker) for the group {missing[0]!r}.")
    on_front = np.zeros(n, dtype=bool)
    on_front[front.rows] = True
    if ax is None:
        ax = new_axes((5.5, 4.5))
    _draw_staircase(ax, front.front_points, "black", "combined Pareto front",
                    marker=None, linewidth=1.2)
    of_group = np.asarray(groups)
    for name in names:
        color, marker = styles[name]
        mine = of_group == name
        # hollow markers above the solid ones: a point off the front just behind one on
        # it (mRMR under the random forest in singh's φ panel) still shows
        ax.scatter(arr[mine & ~on_front, 0], arr[mine & ~on_front, 1], s=18, marker=marker,
                   facecolors="none", edgecolors=color, linewidths=0.9, zorder=5)
        ax.scatter(arr[mine & on_front, 0], arr[mine & on_front, 1], s=48, marker=marker,
                   color=color, edgecolors="black", linewidths=0.7, zorder=4)
        _legend_entry(ax, name, color, marker, line=False)
    if labels is not None:
        label_points(ax, arr, labels, fontsize="x-small", zorder=6,
                     radius=math.sqrt(_FRONT_SIZE) / 2)
    return _finish_front_axes(ax, legend)
