"""The data of a feature stability map (003 §3; SPEC §5).

One row per run; in each row one rectangle per selected feature, of width its importance
in that run's final model (rows normalised to sum to k̄, SPEC §0), laid left to right with
the features in decreasing order of selection frequency ``p_f``. Each feature has one
colour, a function of its index only, so that the same feature has the same colour in
every map — of other runs, other selectors or other hyper-parameters on the same data.

Pure numpy (and the standard library's ``colorsys``); :mod:`paretostab.plot` draws
the result.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paretostab.errors import InvalidInputError
from paretostab.measures._inputs import normalise_importances

__all__ = ["StabilityMap", "feature_color", "stability_map"]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0  # hue step: neighbouring indices far apart
_STEP_L = math.sqrt(2.0) - 1.0          # lightness and saturation steps (irrational,
_STEP_S = math.sqrt(3.0) - 1.0          # independent of the hue step)


def feature_color(feature: int) -> tuple[float, float, float]:
    """The RGB colour (components in [0, 1]) of feature ``feature``, a column index.

    A fixed function of the index alone: hue from the golden-ratio sequence (consecutive
    indices — often correlated neighbours — get hues ~0.38 turn apart), lightness in
    [0.35, 0.65] and saturation in [0.55, 0.95] from two other irrational sequences, so
    that neither white nor black nor two equal colours occur.
    """
    f = int(feature)
    if f < 0:
        raise InvalidInputError(f"feature must be a column index >= 0; got {feature!r}.")
    hue = (0.5 + f * _GOLDEN) % 1.0
    lightness = 0.35 + 0.30 * ((0.5 + f * _STEP_L) % 1.0)
    saturation = 0.55 + 0.40 * ((0.5 + f * _STEP_S) % 1.0)
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return (float(r), float(g), float(b))


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
        Their colours (:func:`feature_color`), components in [0, 1].
    frequency : float array (P,)
        ``p_f``, the fraction of runs selecting each.
    mean_importance : float array (P,)
        Mean normalised importance over the runs that select it.
    cumulative_importance : float array (P,)
        Normalised importance summed over all runs (its total width in the map).
    legend : int array (L,)
        The features of the legend: the first ``top`` of ``features`` (all without
        ``top``).
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

    def summary(self):
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


def _matrices(runset: object) -> tuple[np.ndarray, np.ndarray]:
    try:
        Z = np.asarray(runset.selection_matrix)
        I = np.asarray(runset.importance_matrix, dtype=float)
    except AttributeError:
        raise InvalidInputError(
            "stability_map needs a RunSet (selection_matrix and importance_matrix); got "
            f"{type(runset).__name__}."
        ) from None
    if Z.ndim != 2 or I.shape != Z.shape or Z.shape[0] < 1:
        raise InvalidInputError(
            "The RunSet's selection and importance matrices must both be (M, d) with M >= 1;"
            f" got {Z.shape} and {I.shape}."
        )
    if Z.dtype != bool:
        if not np.all((Z == 0) | (Z == 1)):
            raise InvalidInputError("The selection matrix must hold only 0/1 values.")
        Z = Z.astype(bool)
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


def stability_map(runset: object, /, *, feature_names: Sequence[str] | None = None,
                  top: int | None = None) -> StabilityMap:
    """The data of the feature stability map of ``runset`` (003 §3; SPEC §5).

    Parameters
    ----------
    runset : RunSet
        Reads ``selection_matrix`` Z, ``importance_matrix`` I and ``feature_names``.
    feature_names : sequence of str, optional
        One name per feature; default the RunSet's, else ``f0, f1, …``.
    top : int, optional
        Keep only the ``top`` most frequent features (map order) in the legend.

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
    if top is not None and (isinstance(top, bool) or not isinstance(top, int | np.integer)
                            or top < 0):
        raise InvalidInputError(f"top must be None or an integer >= 0; got {top!r}.")
    if feature_names is None:
        feature_names = getattr(runset, "feature_names", None)
    if feature_names is not None:
        _check_names(feature_names, d)

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
        colors=tuple(feature_color(f) for f in features),
        frequency=_readonly(counts / M),
        mean_importance=_readonly(total / counts),
        cumulative_importance=_readonly(total),
        legend=_readonly(features[:top].astype(np.intp)),
    )
