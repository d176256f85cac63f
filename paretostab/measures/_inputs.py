"""Validation and conversion of the arrays that stability measures consume.

Measures see only validated arrays: a boolean selection matrix ``Z`` (M×d), a float
importance matrix ``I`` (M×d, each non-empty row rescaled to sum to k̄, SPEC §0) or an
integer rank matrix ``R`` (M×d, 1 = best). Inputs are never modified: every conversion
copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._validation import COUNT, Interval


class UndefinedMeasure(Exception):
    """Raised inside a measure when its value is undefined; the message names the cause.

    :func:`paretostab.measures.stability` turns it into NaN (or ``impute_nan``) and a
    :class:`~paretostab.StabilityWarning`.
    """


@dataclass(frozen=True)
class PairScores:
    """Scores of the M(M−1)/2 pairs of runs ``i < j`` (row-major order of ``np.triu_indices``).

    ``values`` holds NaN for the pairs where the score is undefined; ``cause`` says why,
    for the warning. :func:`paretostab.measures.stability` averages them, imputing
    undefined pairs with ``impute_nan`` when given (stabm's ``impute.na`` semantics).
    """

    values: np.ndarray
    cause: str = "the score of some pairs of runs is undefined"


def _is_index_collections(data: object,
                          n_features: int | None) -> TypeGuard[list | tuple]:
    """Lists/tuples of index collections are read as such when ``n_features`` is given."""
    return n_features is not None and isinstance(data, list | tuple)


def _from_index_collections(data: Sequence, n_features: int | None) -> np.ndarray:
    if n_features is None:
        raise InvalidInputError(
            "A list of selected-feature index collections needs n_features= (the total "
            "number of features d); got n_features=None."
        )
    n_features = COUNT.integer("n_features", n_features)
    Z = np.zeros((len(data), int(n_features)), dtype=bool)
    for i, item in enumerate(data):
        idx = np.asarray(list(item) if isinstance(item, set | frozenset) else item)
        if idx.size == 0:
            continue
        if not np.issubdtype(idx.dtype, np.integer):
            if np.issubdtype(idx.dtype, np.floating) and np.all(np.isfinite(idx)) and np.all(
                idx == np.round(idx)
            ):
                idx = idx.astype(np.int64)
            else:
                raise InvalidInputError(
                    f"Run {i} must list integer feature indices in [0, {n_features}); "
                    f"got values of type {idx.dtype}."
                )
        if idx.min() < 0 or idx.max() >= n_features:
            raise InvalidInputError(
                f"Run {i} lists feature index {int(idx.min() if idx.min() < 0 else idx.max())}"
                f", outside [0, {n_features}) for n_features={n_features}."
            )
        if np.unique(idx).size != idx.size:
            raise InvalidInputError(f"Run {i} lists the same feature index more than once.")
        Z[i, idx] = True
    return Z


def _as_2d_float(data: object, name: str) -> np.ndarray:
    """``data`` as a float array, not copied when it already is one: every converter
    below returns a new array (``astype``, rescaling), so inputs are never modified."""
    try:
        arr = np.asarray(data, dtype=float)
    except (TypeError, ValueError) as exc:
        hint = (
            " Lists of selected feature indices need n_features=."
            if isinstance(data, list | tuple)
            else ""
        )
        raise InvalidInputError(
            f"{name} must be a numeric (M, d) array with one row per run; could not convert "
            f"it to numbers ({exc}).{hint}"
        ) from None
    if arr.ndim != 2:
        raise InvalidInputError(
            f"{name} must be a 2-D array of shape (M runs, d features); got {arr.ndim} "
            f"dimension(s) with shape {arr.shape}."
        )
    return arr


def _check_runs(arr: np.ndarray, name: str) -> None:
    if arr.shape[0] < 2:
        raise InvalidInputError(
            f"Stability needs at least 2 runs (rows of {name}); got {arr.shape[0]}."
        )
    if arr.shape[1] < 1:
        raise InvalidInputError(f"{name} must have at least one feature (column); got 0.")


def _check_n_features(arr: np.ndarray, n_features: int | None, name: str) -> None:
    if n_features is not None and arr.shape[1] != n_features:
        raise InvalidInputError(
            f"{name} has {arr.shape[1]} feature columns but n_features={n_features}."
        )


def as_selection_matrix(data: object, *, n_features: int | None = None) -> np.ndarray:
    """Return a validated boolean selection matrix ``Z`` (M×d) as a new array.

    ``data`` is an (M, d) array of 0/1 (or bool) values, or a list of M collections of
    selected feature indices together with ``n_features``.
    """
    if _is_index_collections(data, n_features):
        Z = _from_index_collections(data, n_features)
        _check_runs(Z, "Z")
        return Z
    if isinstance(data, np.ndarray) and data.dtype == np.bool_ and data.ndim == 2:
        # already 0/1 (a RunSet's): no float copy to check (8 bytes per entry)
        _check_runs(data, "Z")
        _check_n_features(data, n_features, "Z")
        return data.copy()
    arr = _as_2d_float(data, "Z")
    _check_runs(arr, "Z")
    _check_n_features(arr, n_features, "Z")
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        i, f = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"Z must hold only 0/1 (selected or not) values; found {arr[i, f]:g} at run {i}, "
            f"feature {f} ({int(bad.sum())} such entries). Pass importances to an "
            "importance measure, or lists of selected indices together with n_features=."
        )
    return arr.astype(bool)


def as_importance_matrix(data: object, *, n_features: int | None = None) -> np.ndarray:
    """Return a validated, normalised importance matrix ``I`` (M×d) as a new float array.

    Each non-empty row is rescaled to sum to k̄, the mean number of selected (non-zero)
    features per run (000 §3, 003 §5); empty rows stay zero. A boolean ``Z`` or a list of
    index collections gives equal importances.
    """
    if _is_index_collections(data, n_features):
        arr = _from_index_collections(data, n_features).astype(float)
    else:
        arr = _as_2d_float(data, "I")
        _check_n_features(arr, n_features, "I")
    _check_runs(arr, "I")
    if not np.all(np.isfinite(arr)):
        n_bad = int((~np.isfinite(arr)).sum())
        i, f = np.argwhere(~np.isfinite(arr))[0]
        raise InvalidInputError(
            f"Importances must be finite; found {n_bad} NaN/infinite entries, the first at "
            f"run {i}, feature {f}."
        )
    if (arr < 0).any():
        i, f = np.argwhere(arr < 0)[0]
        raise InvalidInputError(
            f"Importances must be >= 0 (0 = not selected); found {arr[i, f]:g} at run {i}, "
            f"feature {f}."
        )
    return normalise_importances(arr)


def normalise_importances(arr: np.ndarray) -> np.ndarray:
    """Rescale each non-empty row of ``arr`` to sum to k̄ (SPEC §0); returns a new array.

    Parameters
    ----------
    arr : float array (M, d)
        Importances I, non-negative; k̄ counts the non-zero entries per row.
    """
    used = arr[:, arr.any(axis=0)]  # k_i counted on the features selected at least once
    k_bar = np.count_nonzero(used) / arr.shape[0]
    sums = used.sum(axis=1)
    scale = np.divide(k_bar, sums, out=np.zeros_like(sums), where=sums > 0)
    return arr * scale[:, None]


def as_rank_matrix(data: object, *, k: int | None = None) -> np.ndarray:
    """Return a validated integer rank matrix ``R`` (M×d, 1 = best) as a new array.

    With ``k=None`` every row must be a permutation of 1..d (a full ranking). With ``k``
    only the top ``k`` positions matter: every row holds each rank 1..k exactly once and
    values above ``k`` (possibly tied) elsewhere.
    """
    arr = _as_2d_float(data, "R")
    _check_runs(arr, "R")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 1):
        raise InvalidInputError("R must hold integer ranks >= 1 (1 = best feature).")
    R = arr.astype(np.int64)
    d = R.shape[1]
    if k is None:
        bad = ~np.all(np.sort(R, axis=1) == np.arange(1, d + 1), axis=1)
        if bad.any():
            raise InvalidInputError(
                f"Run {int(np.argmax(bad))} of R is not a full ranking: each row must be a "
                f"permutation of 1..{d}. Pass k= for partial (top-k) rankings."
            )
        return R
    k = check_top_k(k, d)
    top = np.where(R <= k, R, 0)
    counts = np.zeros((R.shape[0], k + 1), dtype=np.int64)
    np.add.at(counts, (np.arange(R.shape[0])[:, None], top), 1)
    bad = ~np.all(counts[:, 1:] == 1, axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidInputError(
            f"Run {i} of R must hold each rank 1..{k} exactly once (the top-k list for "
            f"k={k}); it holds {int(counts[i, 1:].sum())} ranks <= {k}."
        )
    return R


def check_top_k(k: object, d: int) -> int:
    """Validate a top-k size against the number of features ``d``."""
    return Interval("integer", 1, d, why=f" (d = {d})").integer("k", k)


def pair_index(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)`` of the M(M−1)/2 pairs of runs with ``i < j``."""
    return np.triu_indices(n_runs, 1)


def pair_counts(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sizes ``k_i``, ``k_j`` and intersection sizes ``|F_i ∩ F_j|`` for every pair ``i < j``."""
    Zf = Z[:, Z.any(axis=0)].astype(np.float64)  # features never selected add nothing
    inter = Zf @ Zf.T
    k = Z.sum(axis=1)
    i, j = pair_index(Z.shape[0])
    return k[i].astype(float), k[j].astype(float), inter[i, j]
