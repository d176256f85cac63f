"""The data of feature stability maps and of their overview (003 §3; SPEC §5).

A map has one row per run; in each row one rectangle per selected feature, of width its
importance in that run's final model (rows normalised to sum to k̄, SPEC §0), laid left
to right with the features in decreasing order of selection frequency ``p_f``. Features
are told apart by colour (003 §3: "each feature is assigned a color"): a
:class:`FeaturePalette` gives the first features of an ordered list the colours of
:data:`PALETTE`, twenty colours chosen to stay distinguishable, and every later feature
one grey. Maps built with one palette colour a feature alike. A study's maps — each
trial's on the dashboard, the report's — all take the palette of
:func:`feature_color_order`, an order of the features that every process computes alike
from the study's data alone (the study stores it when it is created); a map built
without a palette colours its own features, most frequent first.

For a report of many maps: :func:`group_identical_maps` finds the maps a reader would
see as the same picture, and :func:`selection_overview` tabulates each feature's ``p_f``
in each trial (features × trials).

Pure numpy (and scikit-learn's ANOVA F for :func:`feature_color_order`); :mod:`paretostab.plot`
draws the results.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._palette import (
    OTHER_COLOR,
    PALETTE,
    RGB,
    FeaturePalette,
    feature_color_order,
    feature_palette,
    study_palette,
)
from paretostab._validation import Interval
from paretostab.measures import normalise_importances

__all__ = ["OTHER_COLOR", "PALETTE", "FeaturePalette", "SelectionOverview", "StabilityMap",
           "feature_color_order", "feature_palette", "group_identical_maps", "map_difference",
           "selection_overview", "stability_map", "study_palette"]

#: How far apart two maps may be and count as one picture.
TOLERANCE = Interval("number", 0, 1, "left")

#: How many features a map or an overview names (None: every one).
TOP = Interval("integer", 0, none=True)

if TYPE_CHECKING:
    import pandas as pd

    from paretostab._protocol import RunSet

@dataclass(frozen=True, eq=False)
class StabilityMap:
    """A feature stability map's data (003 §3). Arrays are read-only.

    Attributes
    ----------
    runs : int
        M, the number of rows (runs; empty runs give empty rows).
    n_features : int
        d.
    mean_selected : float
        k̄, the mean number of selected features per run: every non-empty row's widths
        sum to it.
    row, left, width, feature : arrays (K,)
        One rectangle per (run, selected feature): its run (row, 0-based), left edge,
        width (normalised importance) and feature (column index). Sorted by row, then
        left to right.
    features : int array (P,)
        The features selected in at least one run, in map order: decreasing selection
        frequency ``p_f``, ties by larger cumulative importance, then smaller index.
    names : tuple of str (P,)
        Their names.
    colors : tuple of (r, g, b) (P,)
        Their colours (from ``palette``), components in [0, 1].
    frequency : float array (P,)
        ``p_f``, the fraction of runs selecting each.
    mean_importance : float array (P,)
        Mean normalised importance over the runs that select it.
    cumulative_importance : float array (P,)
        Normalised importance summed over all runs (its total width in the map).
    legend : int array (L,)
        The features of the legend: the first ``top`` of ``features`` (all without
        ``top``).
    palette : FeaturePalette
        The colours: the one given to :func:`stability_map`, else ``features``' own
        (``feature_palette(features)``).
    """

    runs: int
    n_features: int
    mean_selected: float
    row: np.ndarray
    left: np.ndarray
    width: np.ndarray
    feature: np.ndarray
    features: np.ndarray
    names: tuple[str, ...]
    colors: tuple[tuple[float, float, float], ...]
    frequency: np.ndarray
    mean_importance: np.ndarray
    cumulative_importance: np.ndarray
    legend: np.ndarray
    palette: FeaturePalette

    def _position(self, feature: np.ndarray) -> np.ndarray:
        lookup = np.full(self.n_features, -1, dtype=np.intp)
        lookup[self.features] = np.arange(self.features.size)
        return lookup[feature]

    @property
    def rectangle_colors(self) -> np.ndarray:
        """(K, 3) float array: the RGB colour of each rectangle."""
        palette = np.array(self.colors, dtype=float).reshape(-1, 3)
        return palette[self._position(self.feature)]

    @property
    def legend_names(self) -> tuple[str, ...]:
        return tuple(self.names[i] for i in self._position(self.legend))

    @property
    def legend_colors(self) -> tuple[tuple[float, float, float], ...]:
        return tuple(self.colors[i] for i in self._position(self.legend))

    @property
    def legend_frequency(self) -> np.ndarray:
        return self.frequency[self._position(self.legend)]

    @property
    def legend_omitted(self) -> int:
        """The number of features the legend leaves out (its "+n more features")."""
        return int(self.features.size - self.legend.size)

    @property
    def other_features(self) -> np.ndarray:
        """The features drawn in the palette's ``other`` colour (beyond its colours), in
        map order."""
        return self.features[~np.isin(self.features, self.palette.features)]

    def summary(self) -> pd.DataFrame:
        """The per-feature summary as a pandas DataFrame, in map order (columns
        ``feature``, ``name``, ``frequency``, ``mean_importance``,
        ``cumulative_importance``)."""
        import pandas as pd

        return pd.DataFrame({
            "feature": self.features, "name": list(self.names),
            "frequency": self.frequency, "mean_importance": self.mean_importance,
            "cumulative_importance": self.cumulative_importance,
        })


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


def _selection(runset: RunSet, caller: str) -> np.ndarray:
    try:
        Z = np.asarray(runset.selection_matrix)
    except AttributeError:
        raise InvalidInputError(
            f"{caller} needs a RunSet (selection_matrix and importance_matrix); got "
            f"{type(runset).__name__}.") from None
    if Z.ndim != 2 or Z.shape[0] < 1:
        raise InvalidInputError(
            f"The RunSet's selection matrix must be (M, d) with M >= 1; got {Z.shape}.")
    if Z.dtype != bool:
        if not np.all((Z == 0) | (Z == 1)):
            raise InvalidInputError("The selection matrix must hold only 0/1 values.")
        Z = Z.astype(bool)
    return Z


def _matrices(runset: RunSet) -> tuple[np.ndarray, np.ndarray]:
    Z = _selection(runset, "stability_map")
    try:
        I = np.asarray(runset.importance_matrix, dtype=float)
    except AttributeError:
        raise InvalidInputError(
            "stability_map needs a RunSet (selection_matrix and importance_matrix); got "
            f"{type(runset).__name__}.") from None
    if I.shape != Z.shape:
        raise InvalidInputError(
            "The RunSet's selection and importance matrices must both be (M, d) with M >= 1;"
            f" got {Z.shape} and {I.shape}.")
    bad = ~np.isfinite(I) | (I < 0)
    if np.any(bad & Z):
        i, f = np.argwhere(bad & Z)[0]
        raise InvalidInputError(
            f"Importances of selected features must be finite and >= 0; found {I[i, f]!r} "
            f"at run {i}, feature {f}."
        )
    return Z, I


def _check_names(names: object, d: int) -> None:
    if isinstance(names, str) or not isinstance(names, Sequence | np.ndarray):
        raise InvalidInputError(
            f"feature_names must be a sequence of {d} names; got {type(names).__name__}.")
    if len(names) != d:
        raise InvalidInputError(
            f"feature_names must hold one name per feature ({d}); got {len(names)}.")


def stability_map(runset: RunSet, /, *, feature_names: Sequence[str] | None = None,
                  top: int | None = None,
                  palette: FeaturePalette | None = None) -> StabilityMap:
    """The data of the feature stability map of ``runset`` (003 §3; SPEC §5).

    Parameters
    ----------
    runset : RunSet
        Reads ``selection_matrix`` Z, ``importance_matrix`` I and ``feature_names``.
    feature_names : sequence of str, optional
        One name per feature; default the RunSet's, else ``f0, f1, …``.
    top : int, optional
        Keep only the ``top`` most frequent features (map order) in the legend.
    palette : FeaturePalette, optional
        The features' colours (:func:`feature_palette`): one palette for several maps
        colours each feature alike in all of them (a study's maps take
        ``feature_palette(feature_color_order(X, y))``). Default ``feature_palette(features)``:
        the map's own features get :data:`PALETTE`'s colours in map order, most frequent
        first, and the features after the twentieth are grey.

    Returns
    -------
    StabilityMap

    Notes
    -----
    Widths: the importances of each run's selected features (importances of features a
    run does not select are ignored), each non-empty row rescaled to sum to k̄, the mean
    number of selected features (``normalise_importances``, SPEC §0). A run whose
    selected features all have importance 0 gets equal widths (as a selection without
    importances, 000 §3). A selected feature of importance 0 keeps a zero-width rectangle
    and still counts in ``p_f``; k̄ counts it too, so rows still sum to k̄.
    """
    Z, I = _matrices(runset)
    M, d = Z.shape
    TOP.check("top", top)
    if feature_names is None:
        feature_names = getattr(runset, "feature_names", None)
    if feature_names is not None:
        _check_names(feature_names, d)
    if palette is not None and not isinstance(palette, FeaturePalette):
        raise InvalidInputError(
            f"palette must be a FeaturePalette (feature_palette); got {type(palette).__name__}.")

    selected = np.flatnonzero(Z.any(axis=0))  # every other column is empty in the map
    Z, I = Z[:, selected], I[:, selected]
    W = np.where(Z, np.where(np.isfinite(I), I, 0.0), 0.0)
    no_importance = Z.any(axis=1) & ~(W > 0).any(axis=1)
    W[no_importance] = Z[no_importance]
    widths = normalise_importances(W)
    k_bar = float(Z.sum() / M)
    k_nonzero = np.count_nonzero(W) / M  # the k̄ normalise_importances used
    if k_nonzero > 0 and k_nonzero != k_bar:  # selected features of importance 0
        widths *= k_bar / k_nonzero

    counts = Z.sum(axis=0)
    total = widths.sum(axis=0)
    local = np.arange(selected.size)
    order = np.lexsort((local, -total, -counts))  # positions in map order
    position = np.empty(selected.size, dtype=np.intp)
    position[order] = local
    features, counts, total = selected[order], counts[order], total[order]

    rows, cols = np.nonzero(Z)
    by_position = np.lexsort((position[cols], rows))
    rows, cols = rows[by_position], cols[by_position]
    w = widths[rows, cols]
    cols = selected[cols]
    left = np.zeros_like(w)
    bounds = np.searchsorted(rows, np.arange(M + 1))  # rows[bounds[i]:bounds[i+1]] == i
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        if stop - start > 1:
            left[start + 1:stop] = np.cumsum(w[start:stop - 1])

    if top is None:
        top = features.size
    if palette is None:
        palette = feature_palette(features)
    return StabilityMap(
        runs=M,
        n_features=d,
        mean_selected=k_bar,
        row=_readonly(rows.astype(np.intp)),
        left=_readonly(left),
        width=_readonly(w),
        feature=_readonly(cols.astype(np.intp)),
        features=_readonly(features.astype(np.intp)),
        names=tuple(str(feature_names[f]) if feature_names is not None else f"f{f}"
                    for f in features),
        colors=palette.colors_of(features),
        frequency=_readonly(counts / M),
        mean_importance=_readonly(total / counts),
        cumulative_importance=_readonly(total),
        legend=_readonly(features[:top].astype(np.intp)),
        palette=palette,
    )


# ----------------------------------------------------------------- maps that look alike


def _picture(m: StabilityMap) -> tuple[np.ndarray, np.ndarray]:
    """Each rectangle's start and end on one line that lays the rows, rescaled to width
    1, side by side with gaps (row r covers [2r, 2r + 1])."""
    k = m.mean_selected if m.mean_selected > 0 else 1.0
    base = 2.0 * m.row
    return (base + np.clip(m.left / k, 0.0, 1.0),
            base + np.clip((m.left + m.width) / k, 0.0, 1.0))


def _color_at(points: np.ndarray, start: np.ndarray, end: np.ndarray,
              color: np.ndarray) -> np.ndarray:
    """The colour code drawn at each point (-1: none); rectangles sorted by start."""
    if not start.size:
        return np.full(points.shape, -1, dtype=np.intp)
    index = np.searchsorted(start, points, side="right") - 1
    safe = np.maximum(index, 0)
    return np.where((index >= 0) & (points < end[safe]), color[safe], -1)


def _check_maps(maps: Sequence[object], caller: str) -> None:
    for m in maps:
        if not isinstance(m, StabilityMap):
            raise InvalidInputError(
                f"{caller} takes StabilityMaps (stability_map); got {type(m).__name__}.")


def map_difference(first: StabilityMap, second: StabilityMap, /) -> float:
    """How differently two stability maps (003 §3) look: 0 for the same picture, 1 at most.

    The largest of

    - in any run, the fraction of the row (rows rescaled to the same width) where the two
      maps show different colours;
    - the relative difference of their k̄ (the rows' widths, the x axis);
    - for the features of their legends, the largest difference of ``p_f`` (the legends'
      numbers).

    It is 1 when they have different numbers of runs, or different legend features
    (names or order).

    Parameters
    ----------
    first, second : StabilityMap

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    Equal selection matrices are neither necessary nor sufficient for equal pictures: a
    rare feature of negligible importance selected in one run rather than another changes
    no visible pixel, while equal selections with different importances move every
    boundary, and a tie on ``p_f`` broken the other way swaps two features' places in
    every row. The difference
    is taken on what is drawn (the run with the most visible change) and on the legend's
    numbers (a feature selected or not in a run changes its ``p_f`` even where its
    rectangle is invisible). Colours, not features, are compared in the rows: within a
    palette a colour is one feature, but the features in its grey look alike (rare
    features tied on ``p_f`` and ordered by their importances swap places unseen). The
    features the legend leaves out are compared only as they are drawn.
    """
    _check_maps((first, second), "map_difference")
    if first.runs != second.runs or first.legend_names != second.legend_names \
            or not np.array_equal(first.legend, second.legend):
        return 1.0
    legend = float(np.max(np.abs(first.legend_frequency - second.legend_frequency),
                          initial=0.0))
    widest = max(first.mean_selected, second.mean_selected)
    width = abs(first.mean_selected - second.mean_selected) / widest if widest > 0 else 0.0
    a_start, a_end = _picture(first)
    b_start, b_end = _picture(second)
    _, code = np.unique(np.vstack([first.rectangle_colors, second.rectangle_colors]),
                        axis=0, return_inverse=True)
    code = code.ravel()
    a_code, b_code = code[:a_start.size], code[a_start.size:]
    # pieces of one colour in both maps (beyond a row's last end, to 2r + 1, none in both)
    points = np.unique(np.concatenate([a_start, a_end, b_start, b_end]))
    middle = (points[:-1] + points[1:]) / 2
    length = np.diff(points)
    row = np.floor(middle / 2.0)
    inside = middle - 2.0 * row < 1.0  # not the gaps between rows
    middle, length, row = middle[inside], length[inside], row[inside].astype(np.intp)
    differs = (_color_at(middle, a_start, a_end, a_code)
               != _color_at(middle, b_start, b_end, b_code))
    rows_differ = np.bincount(row, weights=length * differs, minlength=first.runs)
    return float(min(1.0, max(legend, width, float(rows_differ.max(initial=0.0)))))


def group_identical_maps(maps: Sequence[StabilityMap], /,
                         labels: Sequence[Hashable] | None = None, *,
                         tolerance: float = 0.01) -> list[tuple]:
    """Group the stability maps (003 §3) that a reader sees as the same picture, so that a
    report draws each picture once, titled with the trials it stands for.

    Maps are taken in order; each joins the first group whose first map (the one to draw)
    is within ``tolerance`` of it (:func:`map_difference`), else starts a group. Every map
    of a group thus differs from the drawn one by at most ``tolerance``.

    Parameters
    ----------
    maps : sequence of StabilityMap
        Colour them with one :class:`FeaturePalette` (a feature in two colours counts as
        a difference).
    labels : sequence, optional
        One label per map (e.g. trial numbers); default their positions 0, 1, …
    tolerance : float
        In [0, 1). The default 0.01 allows 1 % of a row's width — under 5 pixels of the
        480 pixels a map artifact's rows span — and a legend ``p_f`` off by 0.01 (one
        run in a hundred; the legend prints two decimals).

    Returns
    -------
    list of tuple
        The groups' labels, each group in input order, groups by their first map.
    """
    maps = list(maps)
    _check_maps(maps, "group_identical_maps")
    if labels is None:
        labels = list(range(len(maps)))
    elif len(labels) != len(maps):
        raise InvalidInputError(
            f"labels must hold one label per map ({len(maps)}); got {len(labels)}.")
    TOLERANCE.check("tolerance", tolerance)
    drawn: list[StabilityMap] = []
    groups: list[list] = []
    for m, label in zip(maps, labels, strict=True):
        for shown, group in zip(drawn, groups, strict=True):
            if map_difference(shown, m) <= tolerance:
                group.append(label)
                break
        else:
            drawn.append(m)
            groups.append([label])
    return [tuple(group) for group in groups]


# ----------------------------------------------------------------- features × trials


@dataclass(frozen=True, eq=False)
class SelectionOverview:
    """The selection frequency of each feature in each of several trials (003 §3): which
    features every trade-off keeps. Arrays are read-only.

    Attributes
    ----------
    labels : tuple (T,)
        The trials (columns).
    runs : int array (T,)
        Each trial's number of runs M.
    n_features : int
        d.
    features : int array (F,)
        The rows: the first F of ``color_order`` (each trial's most frequent features),
        in the order of ``all_features``.
    names : tuple of str (F,)
        Their names.
    frequency : float array (F, T)
        ``p_f`` of each row's feature in each trial.
    mean_frequency : float array (F,)
        Its mean over the trials.
    all_features : int array (P,)
        Every feature selected in a run of a trial: by decreasing mean ``p_f`` over the
        trials, ties by larger smallest ``p_f`` (kept by every trial first), then smaller
        index.
    color_order : int array (P,)
        The same features by decreasing largest ``p_f`` over the trials, ties by the
        order of ``all_features``: the order in which :meth:`palette` gives colours.
    """

    labels: tuple
    runs: np.ndarray
    n_features: int
    features: np.ndarray
    names: tuple[str, ...]
    frequency: np.ndarray
    mean_frequency: np.ndarray
    all_features: np.ndarray
    color_order: np.ndarray

    @property
    def omitted(self) -> int:
        """The number of features selected somewhere but not in the rows."""
        return int(self.all_features.size - self.features.size)

    def palette(self, *, colors: Sequence[RGB] = PALETTE,
                other: RGB = OTHER_COLOR) -> FeaturePalette:
        """One palette for the maps of these trials (:func:`feature_palette` of
        ``color_order``): a feature has one colour in all of them.

        The colours go first to the features that some trial selects most often, rather
        than to those of largest mean ``p_f``: a feature selected in every run of one
        trade-off and never elsewhere is the first of that trial's map and gets a colour
        before one that every trial selects a third of the time.

        Parameters
        ----------
        colors, other
            As :func:`feature_palette`'s.
        """
        return feature_palette(self.color_order, colors=colors, other=other)


def selection_overview(runsets: Sequence[RunSet], /,
                       labels: Sequence[Hashable] | None = None, *,
                       feature_names: Sequence[str] | None = None,
                       top: int | None = 25) -> SelectionOverview:
    """Each feature's selection frequency ``p_f`` in each trial (e.g. the Pareto front's),
    features × trials: the overview of their stability maps (003 §3).

    Parameters
    ----------
    runsets : sequence of RunSet
        One per trial, on the same d features; reads ``selection_matrix``.
    labels : sequence, optional
        One label per trial (e.g. trial numbers); default 0, 1, …
    feature_names : sequence of str, optional
        One name per feature; default the first RunSet's, else ``f0, f1, …``.
    top : int or None
        The number of rows (all features with None): the ``top`` features of largest
        ``p_f`` in some trial — the union of the trials' most frequent features, so that
        a feature one trade-off always keeps is a row even if no other trial selects it.
        With the default ``top`` ≥ 20 every feature that :meth:`SelectionOverview.palette`
        colours is a row.

    Returns
    -------
    SelectionOverview
        Rows by decreasing mean ``p_f`` over the trials (each trial weighs the same,
        whatever its M), ties by larger smallest ``p_f`` (what every trial keeps first),
        then smaller index.
    """
    runsets = list(runsets)
    if not runsets:
        raise InvalidInputError("selection_overview needs at least one RunSet.")
    if labels is None:
        labels = list(range(len(runsets)))
    elif isinstance(labels, str) or len(labels) != len(runsets):
        raise InvalidInputError(
            f"labels must hold one label per RunSet ({len(runsets)}); got {labels!r}.")
    TOP.check("top", top)
    matrices = [_selection(r, "selection_overview") for r in runsets]
    d = matrices[0].shape[1]
    if any(Z.shape[1] != d for Z in matrices):
        raise InvalidInputError(
            "The RunSets must have the same number of features; got "
            f"{sorted({Z.shape[1] for Z in matrices})}.")
    if feature_names is None:
        feature_names = getattr(runsets[0], "feature_names", None)
    if feature_names is not None:
        _check_names(feature_names, d)
    runs = np.array([Z.shape[0] for Z in matrices], dtype=np.intp)
    counts = np.stack([Z.sum(axis=0) for Z in matrices], axis=1)  # (d, T)
    selected = np.flatnonzero(counts.max(axis=1) > 0)
    counts = counts[selected]
    p = counts / runs
    mean = p.mean(axis=1)
    # ordered exactly: each p_f as an integer over the common denominator lcm(M), in
    # Python's integers when NumPy's could overflow
    common = math.lcm(*runs.tolist())
    dtype = np.int64 if common * runs.size < 2**63 else object
    exact = counts.astype(dtype) * np.array([common // M for M in runs.tolist()], dtype=dtype)
    order = np.lexsort((selected, -exact.min(axis=1), -exact.sum(axis=1)))
    all_features = selected[order]
    by_largest = order[np.argsort(-p.max(axis=1)[order], kind="stable")]
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    rows = np.sort(rank[by_largest[:top]])  # positions in `order`
    rows = order[rows]
    features = selected[rows]
    return SelectionOverview(
        labels=tuple(labels),
        runs=_readonly(runs),
        n_features=d,
        features=_readonly(features.astype(np.intp)),
        names=tuple(str(feature_names[f]) if feature_names is not None else f"f{f}"
                    for f in features),
        frequency=_readonly(p[rows]),
        mean_frequency=_readonly(mean[rows]),
        all_features=_readonly(all_features.astype(np.intp)),
        color_order=_readonly(selected[by_largest].astype(np.intp)),
    )
