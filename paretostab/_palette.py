"""The colours of the features in stability maps (003 §3: "each feature is assigned a
color"): :data:`PALETTE`, twenty colours chosen to stay distinguishable, given by a
:class:`FeaturePalette` to the first features of an ordered list, and one grey,
:data:`OTHER_COLOR`, to every later feature; the order of a study's features,
:func:`feature_color_order`, which every process computes alike from the study's data.

Public through :mod:`paretostab.maps`, whose maps and overviews take these palettes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._validation import Interval

__all__ = ["OTHER_COLOR", "PALETTE", "RGB", "FeaturePalette", "anova_f", "feature_color_order",
           "feature_palette", "study_palette"]

#: A count that may be 0 (the features to order).
NON_NEGATIVE_INT = Interval("integer", 0)

RGB = tuple[float, float, float]


def _rgb(code: str) -> RGB:
    red, green, blue = (int(code[i:i + 2], 16) / 255.0 for i in (1, 3, 5))
    return red, green, blue


# Twenty colours, most distinct first, made once by a greedy maximin ("Glasbey") search in
# CIELAB with the CIEDE2000 difference ΔE00: Tableau 10's blue, orange, green and red,
# then, sixteen times, the colour of the sRGB grid of step 1/24 with lightness L* in
# [30, 82] and chroma C* in [20, 75] farthest from white, OTHER_COLOR and every colour
# already taken (tests/test_maps_overview.py repeats the search and checks the result).
# Each of the twenty is at least ΔE00 = 19 from the others, from white and from
# OTHER_COLOR (the hashed colours they replace had pairs 4-5 apart among a legend's
# twelve); a map of few features uses the first colours, the farthest apart.
PALETTE: tuple[RGB, ...] = tuple(_rgb(code) for code in (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#801595", "#604a00", "#f460ca", "#00554a",
    "#dfbf20", "#00aaaa", "#9f9fff", "#ff9f9f", "#6a4040", "#958a60", "#80dfaa", "#4abfff",
    "#756a95", "#ca0b6a", "#2a6000", "#15409f",
))
# the features beyond a palette's colours: a light grey that recedes behind the colours
OTHER_COLOR: RGB = _rgb("#c8c8c8")


@dataclass(frozen=True)
class FeaturePalette:
    """The colours of features in stability maps (003 §3).

    ``features[i]`` has colour ``colors[i]``; every other feature has ``other``. Build one
    with :func:`feature_palette`; pass it to :func:`stability_map` so that several maps
    colour each feature alike.

    Attributes
    ----------
    features : tuple of int
        The features with a colour of their own (column indices, distinct).
    colors : tuple of (r, g, b)
        Their colours, components in [0, 1].
    other : (r, g, b)
        The colour of every other feature.
    """

    features: tuple[int, ...]
    colors: tuple[RGB, ...]
    other: RGB = OTHER_COLOR

    def __post_init__(self) -> None:
        if len(self.features) != len(self.colors):
            raise InvalidInputError(
                f"A FeaturePalette needs one colour per feature; got {len(self.features)} "
                f"features and {len(self.colors)} colours.")
        if len(set(self.features)) != len(self.features):
            raise InvalidInputError("A FeaturePalette's features must be distinct.")

    def color(self, feature: int) -> RGB:
        """The colour of ``feature``, ``other`` when it has none of its own.

        Parameters
        ----------
        feature : int
            A column index."""
        try:
            return self.colors[self.features.index(int(feature))]
        except ValueError:
            return self.other

    def colors_of(self, features: Sequence[int] | np.ndarray) -> tuple[RGB, ...]:
        """The colours of ``features``, one per feature, as :meth:`color` gives them.

        Parameters
        ----------
        features : sequence or array of int
            Column indices (an array is read flattened)."""
        lookup = dict(zip(self.features, self.colors, strict=True))
        return tuple(lookup.get(int(f), self.other) for f in np.asarray(features).ravel())


def _check_color(color: Iterable[float], name: str) -> RGB:
    try:
        rgb = tuple(float(c) for c in color)
    except (TypeError, ValueError):
        rgb = ()
    if len(rgb) != 3 or not all(0.0 <= c <= 1.0 for c in rgb):
        raise InvalidInputError(
            f"{name} must be (r, g, b) with components in [0, 1]; got {color!r}.")
    return rgb


def _feature_indices(features: object, name: str) -> np.ndarray:
    arr = np.asarray(features)
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.ndim != 1 or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer) \
            or np.any(arr < 0):
        raise InvalidInputError(
            f"{name} must be a 1-D sequence of column indices (integers >= 0); got {features!r}.")
    return arr.astype(np.intp)


def feature_palette(features: Sequence[int] | np.ndarray, /, *,
                    colors: Sequence[RGB] = PALETTE, other: RGB = OTHER_COLOR) -> FeaturePalette:
    """Give the first ``len(colors)`` of ``features`` the colours ``colors``, in order
    (003 §3: one colour per feature).

    Parameters
    ----------
    features : sequence of int
        Distinct column indices, the most important first — for the maps of a study (its
        trials' and its report's), :func:`feature_color_order` of its data; for one map
        alone, its map order (what :func:`stability_map` uses without a palette); for
        maps of trials outside a study, the union of their features
        (``selection_overview(...).palette()``).
    colors : sequence of (r, g, b)
        Default :data:`PALETTE`: twenty colours at least ΔE00 = 19 (CIEDE2000) from each
        other, from white and from ``OTHER_COLOR``.
    other : (r, g, b)
        The colour of the features after the first ``len(colors)`` and of every feature not
        in ``features``. Default :data:`OTHER_COLOR`, a light grey.

    Returns
    -------
    FeaturePalette
        Two features never share a colour while ``colors`` lasts.
    """
    chosen = _feature_indices(features, "features")
    if np.unique(chosen).size != chosen.size:
        raise InvalidInputError("features must be distinct column indices.")
    palette = tuple(_check_color(c, "Each colour") for c in colors)
    if not palette:
        raise InvalidInputError("colors must hold at least one colour.")
    chosen = chosen[:len(palette)]
    return FeaturePalette(features=tuple(int(f) for f in chosen),
                          colors=palette[:chosen.size], other=_check_color(other, "other"))


def study_palette(order: Sequence[int] | None, X: np.ndarray, y: np.ndarray, /
                  ) -> FeaturePalette:
    """The colours of a study's features in all its maps — each trial's on the dashboard,
    the report's overview and front maps (003 §3: "each feature is assigned a color"):
    :data:`PALETTE` given to the features of its stored ``order``, every other feature
    :data:`OTHER_COLOR`. A study without a stored order (made by an older version, or
    created without its data) gets the order :func:`feature_color_order` computes from
    ``X`` and ``y`` (the data the study tunes on): what the study would have stored, so
    that every process colours its features alike.

    Parameters
    ----------
    order : sequence of int or None
        The study's stored feature order (its features, the most important first).
    X, y : numpy arrays
        The study's data (n × d) and labels, read only when ``order`` is None."""
    chosen = feature_color_order(X, y) if order is None else order
    return feature_palette(np.asarray(chosen, dtype=np.intp))


# columns per block of anova_f: its copies of the data stay small
_F_BLOCK = 4096


def anova_f(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The one-way ANOVA F statistic of each column of ``X`` between the classes of ``y``
    (scikit-learn's :func:`~sklearn.feature_selection.f_classif`), from the squared
    deviations about the grand and the class means rather than from differences of sums
    of squares: those cancel, when classes lie far apart against their spread, to a
    relative error of 10⁻⁸ (the same values in another order then differ in F beyond any
    rounding), these to about 10⁻¹⁵. Class sums by NumPy's own summation, not BLAS: the
    same arrays give the same bits in every process. In blocks of :data:`_F_BLOCK`
    columns.

    NaN where F is 0/0 (a constant column; one class; as many classes as examples), +inf
    for a column constant within each class but not across them (exactly: a class's
    equal values add nothing to the within-class sum, whatever the centring rounds)."""
    classes, codes = np.unique(y, return_inverse=True)
    k, n = classes.size, y.size
    members = [np.flatnonzero(codes == c) for c in range(k)]
    F = np.empty(X.shape[1])
    for start in range(0, X.shape[1], _F_BLOCK):
        block = np.asarray(X[:, start:start + _F_BLOCK], dtype=float)
        centred = block - block.mean(axis=0)
        grand = centred.mean(axis=0)
        between, within = np.zeros(block.shape[1]), np.zeros(block.shape[1])
        for rows in members:
            part = centred[rows]
            mean = part.mean(axis=0)
            between += rows.size * (mean - grand) ** 2
            # equal centred values (equal values) deviate by exactly 0, though their mean
            # can round (four 0s less a column mean of 1/5: 3e-17 each), and F = 3.5e32
            # instead of +inf would set the scale feature_color_order rounds F by
            spread = part.max(axis=0) > part.min(axis=0)
            part -= mean
            within += np.where(spread, (part * part).sum(axis=0), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            F[start:start + _F_BLOCK] = (between / (k - 1)) / (within / (n - k))
    return F


def feature_color_order(X: np.ndarray, y: np.ndarray, /, n: int = len(PALETTE)) -> np.ndarray:
    """The features that have a colour of their own in every map of a study, in the order
    of :data:`PALETTE` (003 §3: "each feature is assigned a color"): the ``n`` features of
    largest ANOVA F statistic between the classes of ``y``.

    A study's maps are drawn by several processes — each trial its map for the dashboard,
    then the report its overview and front maps — that must colour a feature alike
    without seeing each other's maps: the order depends on the data alone, and is
    computed once, when the study is created, and stored in it
    (:func:`study_palette`). The F statistic ranks first the
    features that tell the classes apart, which selectors tend to select: the features
    of the maps get the colours, the others are grey.

    Parameters
    ----------
    X : array (n_samples, d)
        The data the study tunes on (finite).
    y : array (n_samples,)
        Its class labels.
    n : int
        The number of features to order; default ``len(PALETTE)``, the colours there are.

    Returns
    -------
    int array (min(n, d),)
        Column indices by decreasing F (:func:`anova_f`, scikit-learn's ``f_classif``
        computed about the class means), rounded to 12 decimals of the largest finite F
        so that values equal in exact arithmetic tie whatever the order of the sums;
        ties by smaller index. F is NaN —
        lowest — for a constant feature (and for every feature when ``y`` has one
        class), +inf — highest — for a feature constant within each class but not
        across them. The same arrays give the same order in every process.
    """
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] < 1:
        raise InvalidInputError(
            f"feature_color_order needs X (n_samples, d) and y (n_samples,) with "
            f"n_samples >= 1; got {X.shape} and {y.shape}.")
    NON_NEGATIVE_INT.check("n", n)
    d = X.shape[1]
    F = anova_f(X, y)
    finite = np.isfinite(F)
    scale = float(np.max(F[finite], initial=0.0)) or 1.0
    score = np.where(finite, np.round(F / scale, 12), np.where(np.isnan(F), -np.inf, F))
    return np.lexsort((np.arange(d), -score))[:n].astype(np.intp)
