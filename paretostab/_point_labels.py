"""Labels of points that never overlap: placed each time a figure is drawn, in display
pixels, with thin leader lines where points are dense (the report's front figures,
:mod:`paretostab.plot`).

:func:`place_labels` is the placement (numpy alone, deterministic and greedy);
:class:`PlacedLabels` the matplotlib artist that applies it at every draw;
:func:`label_points` labels points of an axes with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from matplotlib import patheffects
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection

__all__ = ["PlacedLabels", "label_points", "place_labels"]


#: The directions tried around a point, in order of preference (upper right first).
_LABEL_ANGLES = np.deg2rad([45.0, 0.0, 90.0, -45.0, 135.0, 180.0, -90.0, -135.0,
                            22.5, 67.5, -22.5, 112.5, 157.5, -67.5, -112.5, -157.5])
_COVER_COST = 40.0  # pixels a label moves rather than cover one point more


def _label_candidates(point: np.ndarray, size: np.ndarray,
                      gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The boxes ``(x0, y0, x1, y1)`` a label of ``size`` (width, height) may take around
    ``point`` (display pixels), nearest first: for each gap of ``gaps``, one box per
    direction of ``_LABEL_ANGLES``, that far from the point along each axis it is moved
    along; and the gap and preference rank of each."""
    direction = np.column_stack([np.cos(_LABEL_ANGLES), np.sin(_LABEL_ANGLES)])
    # onto the unit square: at 45°, the box's corner is (gap, gap) from the point
    direction /= np.abs(direction).max(axis=1, keepdims=True)
    gap = np.repeat(gaps, len(_LABEL_ANGLES))
    center = point + np.tile(direction, (len(gaps), 1)) * (size / 2 + gap[:, None])
    boxes = np.hstack([center - size / 2, center + size / 2])
    rank = np.tile(np.arange(len(_LABEL_ANGLES), dtype=float), len(gaps))
    return boxes, gap + 1e-3 * rank


def _needs_leader(away: np.ndarray | float, radius: float) -> np.ndarray | bool:
    """Whether a label ``away`` pixels from its point (a marker of ``radius``) needs a
    leader line to it: beyond the nearest candidates (``radius`` + 1 pixel off, along one
    axis or both)."""
    return np.asarray(away) > 1.5 * (radius + 1.0)


def place_labels(points: np.ndarray, sizes: np.ndarray, obstacles: np.ndarray,
                  bounds: np.ndarray, radius: float) -> np.ndarray:
    """Where labels go (display pixels): boxes ``(x0, y0, x1, y1)`` (NaN: left out) that
    lie inside ``bounds`` and overlap no other label (a third of the smallest label's
    height apart), for labels of ``sizes`` of ``points``.

    Deterministic and greedy: labels of points with fewer ``obstacles`` (every point
    drawn, markers of ``radius``) near them first, each at its cheapest free candidate
    (:func:`_label_candidates`, rings ``radius`` + 1 pixel and further away, to half the
    bounds' larger side): its gap plus ``_COVER_COST`` per marker it covers, and once
    more when, without a leader line, a point other than its own is not clearly (by a
    marker's radius) further from it.
    """
    x0, y0, x1, y1 = bounds
    placed = np.full((len(points), 4), np.nan)
    if not len(points):
        return placed
    step = max(float(sizes[:, 1].min()) / 2, 2.0)
    apart = 2 * step / 3
    gaps = radius + 1.0 + step * np.arange(int(max(x1 - x0, y1 - y0) / 2 / step) + 1)
    reach = sizes.max(axis=1)[:, None]
    crowd = (np.hypot(*(points[:, None, :] - obstacles[None, :, :]).transpose(2, 0, 1))
             < 2 * reach).sum(axis=1)
    for i in np.lexsort((np.arange(len(points)), crowd)):
        boxes, cost = _label_candidates(points[i], sizes[i], gaps)
        fits = ((boxes[:, 0] >= x0) & (boxes[:, 1] >= y0) & (boxes[:, 2] <= x1)
                & (boxes[:, 3] <= y1))
        taken = placed[np.isfinite(placed[:, 0])]
        if taken.size:  # a third of a line apart: "54" and "40" not read as "5440"
            fits &= ~((boxes[:, None, 0] < taken[None, :, 2] + apart)
                      & (taken[None, :, 0] < boxes[:, None, 2] + apart)
                      & (boxes[:, None, 1] < taken[None, :, 3] + apart)
                      & (taken[None, :, 1] < boxes[:, None, 3] + apart)).any(axis=1)
        if not fits.any():
            continue
        boxes, cost = boxes[fits], cost[fits]
        # the distance from each marker to each box: 0 inside it
        dx = np.maximum(np.maximum(boxes[:, None, 0] - obstacles[None, :, 0],
                                   obstacles[None, :, 0] - boxes[:, None, 2]), 0.0)
        dy = np.maximum(np.maximum(boxes[:, None, 1] - obstacles[None, :, 1],
                                   obstacles[None, :, 1] - boxes[:, None, 3]), 0.0)
        near = np.hypot(dx, dy)
        own = np.hypot(*(np.clip(points[i], boxes[:, :2], boxes[:, 2:]) - points[i]).T)
        # a label without a leader line must be clearly nearer its own point than others
        other = np.hypot(*(obstacles - points[i]).T) > 0.5
        unclear = ~_needs_leader(own, radius) & ((near < own[:, None] + radius)
                                                  & other).any(axis=1)
        cost = cost + _COVER_COST * ((near < radius).sum(axis=1) + unclear)
        placed[i] = boxes[np.argmin(cost)]
    return placed


class PlacedLabels(Artist):
    """Labels of points, placed each time the axes are drawn — in display pixels, once the
    axes' limits and size are final (a zoom, a layout, a saved size or format changes
    them): each where it overlaps no other label (:func:`place_labels`), with a thin
    leader line to its point when it is not right beside it, hidden when its point is
    out of view or no place is free.

    Drawn first among the axes' artists (zorder -1): it moves its texts (``texts``, in
    ``ax.texts``) and leader lines (``leaders``) before they are drawn. Not in the layout.
    """

    def __init__(self, ax: Axes, anchors: np.ndarray, texts: Sequence[str],
                 obstacles: np.ndarray, *, radius: float, fontsize: object,
                 zorder: float) -> None:
        super().__init__()
        self.set_zorder(-1)
        self.set_in_layout(False)
        self._anchors, self._obstacles, self._radius = anchors, obstacles, radius
        halo = [patheffects.withStroke(linewidth=2.5, foreground="white")]  # over lines
        self.texts = [ax.text(x, y, text, fontsize=fontsize, ha="left", va="bottom",
                              zorder=zorder, path_effects=halo)
                      for (x, y), text in zip(anchors, texts, strict=True)]
        self.leaders = LineCollection([], colors="0.35", linewidths=0.6,
                                      zorder=zorder - 0.1)
        ax.add_collection(self.leaders, autolim=False)
        ax.add_artist(self)

    def draw(self, renderer) -> None:
        ax = cast(Axes, self.axes)  # set by ax.add_artist in __init__
        to_display, to_data = ax.transData, ax.transData.inverted()
        points = to_display.transform(self._anchors)
        obstacles = to_display.transform(self._obstacles)
        bounds = np.asarray(ax.bbox.extents)
        sizes = np.empty((len(self.texts), 2))
        for k, text in enumerate(self.texts):
            text.set_position(self._anchors[k])
            text.set_visible(True)  # a hidden text measures 1 × 1
            extent = text.get_window_extent(renderer)
            sizes[k] = extent.width, extent.height
        inside = ((points >= bounds[:2]) & (points <= bounds[2:])).all(axis=1)
        radius = renderer.points_to_pixels(self._radius)
        boxes = np.full((len(points), 4), np.nan)
        boxes[inside] = place_labels(points[inside], sizes[inside], obstacles, bounds,
                                      radius)
        segments = []
        for text, point, box in zip(self.texts, points, boxes, strict=True):
            text.set_visible(bool(np.isfinite(box[0])))
            if not text.get_visible():
                continue
            x, y = to_data.transform(box[:2])
            text.set_position((x, y))
            nearest = np.clip(point, box[:2], box[2:])
            away = np.hypot(*(nearest - point))
            if _needs_leader(away, radius):
                start = point + (nearest - point) * radius / away
                segments.append(to_data.transform(np.vstack([start, nearest])))
        self.leaders.set_segments(segments)


def label_points(ax: Axes, points: np.ndarray, labels: Sequence[str], *,
                 fontsize: object, zorder: float, radius: float) -> PlacedLabels:
    """Label ``points`` with ``labels`` ("" for none; the labels of points at one place
    joined into one: "4, 7"), placed so that none overlap (:class:`PlacedLabels`), away
    from every finite point's marker (of ``radius`` points)."""
    texts: dict[tuple[float, float], list[str]] = {}  # one label per place
    for (x, y), text in zip(points, labels, strict=True):
        if str(text) and np.isfinite(x) and np.isfinite(y):
            texts.setdefault((float(x), float(y)), []).append(str(text))
    finite = points[np.isfinite(points).all(axis=1)]
    return PlacedLabels(ax, np.array(list(texts), dtype=float).reshape(-1, 2),
                        [", ".join(words) for words in texts.values()], finite,
                        radius=radius, fontsize=fontsize, zorder=zorder)
