"""Similarity between features, for the similarity-adjusted stability measures.

A similarity ``S`` is a symmetric d×d matrix with entries in [0, 1] and ``S[f, f] = 1``
(SPEC §0). The papers use the absolute Pearson or Spearman correlation estimated once on
the whole training set (000 §6.1); normalised mutual information is offered for
non-linear dependence. Only the rows and columns of features selected in at least one run
are ever needed, so the full d×d matrix is never built for large d:

* :func:`pearson_similarity`, :func:`spearman_similarity`, :func:`nmi_similarity` compute
  the block of a data matrix's similarity on a list of features;
* :class:`FeatureSimilarity` is the lazy *similarity spec* the measures accept: it keeps
  the data and computes the blocks the measures ask for;
* :class:`SimilarityMatrix` wraps an explicit, validated d×d matrix.

Both expose ``n_features``, ``submatrix(features)`` and ``offdiagonal_sum(threshold)``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from paretostab.errors import InvalidInputError, UnknownNameError

__all__ = ["METHODS", "FeatureSimilarity", "SimilarityMatrix", "as_similarity",
           "nmi_similarity", "pearson_similarity", "spearman_similarity"]

_BLOCK = 1024


def _as_data(X: object) -> np.ndarray:
    try:
        arr = np.array(X, dtype=float, copy=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"X must be a numeric (n, d) data matrix ({exc}).") from None
    if arr.ndim != 2 or arr.shape[0] < 2:
        raise InvalidInputError(
            f"X must be a 2-D data matrix with at least 2 examples (rows); got shape "
            f"{arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidInputError(
            f"X holds {int((~np.isfinite(arr)).sum())} NaN or infinite values; similarities "
            "need complete data."
        )
    return arr


def _standardise(X: np.ndarray) -> np.ndarray:
    """Centre columns and scale them to unit norm; constant columns become zero."""
    centred = X - X.mean(axis=0)
    norms = np.linalg.norm(centred, axis=0)
    return np.divide(centred, norms, out=np.zeros_like(centred), where=norms > 0)


def _abs_correlation(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """|correlation| between columns of standardised blocks ``A`` and ``B``, clipped to [0, 1]."""
    return np.clip(np.abs(A.T @ B), 0.0, 1.0)


def _features(features: object, d: int) -> np.ndarray:
    if features is None:
        return np.arange(d)
    idx = np.asarray(features)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise InvalidInputError("features must be a 1-D array of integer feature indices.")
    if idx.size and (idx.min() < 0 or idx.max() >= d):
        raise InvalidInputError(f"features must be indices in [0, {d}).")
    return idx


def _broadcast_indices(rows: object, cols: object, d: int):
    """Flat, validated index arrays of ``rows`` and ``cols`` broadcast together, and the shape."""
    r, c = np.asarray(rows), np.asarray(cols)
    shape = np.broadcast_shapes(r.shape, c.shape)
    r = _features(np.broadcast_to(r, shape).ravel(), d)
    c = _features(np.broadcast_to(c, shape).ravel(), d)
    return r, c, shape


def _lookup(pairs: tuple[np.ndarray, np.ndarray], queries: np.ndarray) -> np.ndarray:
    """Values of the sorted ``pairs = (keys, values)`` at ``queries``; 0 where absent."""
    keys, values = pairs
    if keys.size == 0:
        return np.zeros(queries.size)
    position = np.minimum(np.searchsorted(keys, queries), keys.size - 1)
    return np.where(keys[position] == queries, values[position], 0.0)


def _set_diagonal(S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    S[rows[:, None] == cols[None, :]] = 1.0
    return S


def pearson_similarity(X: object, features: object = None) -> np.ndarray:
    """|Pearson correlation| between the columns ``features`` of ``X`` (000 §6.1).

    A constant feature has similarity 0 to every other feature and 1 to itself.
    """
    data = _as_data(X)
    idx = _features(features, data.shape[1])
    Xs = _standardise(data[:, idx])
    return _set_diagonal(_abs_correlation(Xs, Xs), idx, idx)


def spearman_similarity(X: object, features: object = None) -> np.ndarray:
    """|Spearman rank correlation| between the columns ``features`` of ``X`` (000 §6.1)."""
    data = _as_data(X)
    idx = _features(features, data.shape[1])
    Xs = _standardise(stats.rankdata(data[:, idx], axis=0))
    return _set_diagonal(_abs_correlation(Xs, Xs), idx, idx)


def _discretise(X: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-frequency bins per column (codes 0..n_bins−1)."""
    ranks = stats.rankdata(X, axis=0, method="average")
    return np.minimum(((ranks - 0.5) * n_bins / X.shape[0]).astype(np.int64), n_bins - 1)


def _entropy_from_counts(counts: np.ndarray, n: int, axis: int) -> np.ndarray:
    p = counts / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(p > 0, p * np.log(p), 0.0), axis=axis)


def _nmi_block(codes_a: np.ndarray, codes_b: np.ndarray, n_bins: int) -> np.ndarray:
    n = codes_a.shape[0]
    onehot_a = (codes_a[:, :, None] == np.arange(n_bins)).astype(np.float64)  # n×a×b
    onehot_b = (codes_b[:, :, None] == np.arange(n_bins)).astype(np.float64)
    joint = np.einsum("nab,ncd->acbd", onehot_a, onehot_b)  # a×c×bins×bins
    h_a = _entropy_from_counts(onehot_a.sum(axis=0), n, axis=1)
    h_b = _entropy_from_counts(onehot_b.sum(axis=0), n, axis=1)
    h_joint = _entropy_from_counts(joint.reshape(joint.shape[0], joint.shape[1], -1), n, axis=2)
    mutual = h_a[:, None] + h_b[None, :] - h_joint
    mean_h = (h_a[:, None] + h_b[None, :]) / 2
    return np.clip(np.divide(mutual, mean_h, out=np.zeros_like(mutual), where=mean_h > 0), 0, 1)


def nmi_similarity(X: object, features: object = None, *, n_bins: int | None = None) -> np.ndarray:
    """Normalised mutual information between the columns ``features`` of ``X``.

    Each feature is discretised into ``n_bins`` equal-frequency bins (default
    ``max(2, round(n ** (1/3)))``); NMI uses the arithmetic mean of the entropies as
    normaliser, as ``sklearn.metrics.normalized_mutual_info_score`` does by default.
    """
    data = _as_data(X)
    idx = _features(features, data.shape[1])
    bins = _check_bins(n_bins, data.shape[0])
    codes = _discretise(data[:, idx], bins)
    out = np.empty((idx.size, idx.size))
    step = max(1, _BLOCK // (4 * bins))
    for start in range(0, idx.size, step):
        block = slice(start, start + step)
        out[block] = _nmi_block(codes[:, block], codes, bins)
    out = np.maximum(out, out.T)
    return _set_diagonal(out, idx, idx)


def _check_bins(n_bins: int | None, n: int) -> int:
    if n_bins is None:
        return max(2, round(n ** (1 / 3)))
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 2:
        raise InvalidInputError(f"n_bins must be an integer >= 2; got {n_bins!r}.")
    return int(n_bins)


METHODS = {
    "pearson": pearson_similarity,
    "spearman": spearman_similarity,
    "nmi": nmi_similarity,
}


class FeatureSimilarity:
    """Lazy similarity of a data matrix's features — a *similarity spec* for the measures.

    Parameters
    ----------
    X : array of shape (n, d)
        The (training) data on which the similarity is estimated once.
    method : {"spearman", "pearson", "nmi"}
        |Spearman| (the papers' choice, 000 §6.1), |Pearson| or normalised mutual
        information.
    n_bins : int, optional
        Bins per feature for ``method="nmi"``.

    Blocks are computed on demand, restricted to the features the measures ask for;
    :meth:`offdiagonal_sum` (needed by ``sechidis``) streams over all features in blocks.
    """

    def __init__(self, X: object, method: str = "spearman", *, n_bins: int | None = None):
        if method not in METHODS:
            raise UnknownNameError.for_name("similarity method", method, METHODS)
        self.method = method
        self.n_bins = n_bins if method == "nmi" else None
        self._data = _as_data(X)
        if method == "nmi":
            self.n_bins = _check_bins(n_bins, self._data.shape[0])
        self._cache: dict[object, object] = {}

    @property
    def n_features(self) -> int:
        return self._data.shape[1]

    def __repr__(self) -> str:
        n, d = self._data.shape
        return f"FeatureSimilarity(<{n}×{d} data>, method={self.method!r})"

    def submatrix(self, features: object) -> np.ndarray:
        """The |features|×|features| block of the similarity matrix."""
        idx = _features(features, self.n_features)
        return _set_diagonal(self._block(idx, idx), idx, idx)

    def _block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """S[rows][:, cols] from the prepared columns (diagonal entries not forced to 1)."""
        prepared = self._prepared()
        if self.method == "nmi":
            return _nmi_block(prepared[:, rows], prepared[:, cols], self.n_bins)
        return _abs_correlation(prepared[:, rows], prepared[:, cols])

    def offdiagonal_sum(self, threshold: float | None = None) -> float:
        """Sum of ``S[f, g]`` over all ``f ≠ g`` (entries below ``threshold`` count as 0).

        Streams over the whole feature space in blocks; cached per threshold.
        """
        key = ("sum", threshold)
        if key not in self._cache:

            def block_sum(block: np.ndarray, weight: int) -> float:
                if threshold is not None:
                    block = np.where(block >= threshold, block, 0.0)
                return weight * float(block.sum())

            self._cache[key] = self._reduce_offdiagonal(block_sum, sum)
        return self._cache[key]

    def max_offdiagonal(self) -> float:
        """Largest ``S[f, g]`` with ``f ≠ g`` over the whole feature space (cached)."""
        if "max" not in self._cache:
            self._cache["max"] = self._reduce_offdiagonal(
                lambda block, weight: float(block.max(initial=0.0)), max
            )
        return self._cache["max"]

    def _reduce_offdiagonal(self, per_block, combine) -> float:
        """Apply ``per_block(block, weight)`` to every off-diagonal block, ``combine`` results.

        Diagonal blocks have their diagonal zeroed and weight 1 (both triangles inside);
        blocks above the diagonal have weight 2 (they stand for their mirror image too).
        """
        d = self.n_features
        results = []
        for start in range(0, d, _BLOCK):
            rows = np.arange(start, min(start + _BLOCK, d))
            for cstart in range(start, d, _BLOCK):
                cols = np.arange(cstart, min(cstart + _BLOCK, d))
                block = self._block(rows, cols)
                if cstart == start:
                    np.fill_diagonal(block, 0.0)
                    results.append(per_block(block, 1))
                else:
                    results.append(per_block(block, 2))
        return combine(results) if results else 0.0

    def values(self, rows: object, cols: object, *, threshold: float | None = None) -> np.ndarray:
        """Elementwise similarities ``S[rows[t], cols[t]]`` for arrays of feature indices.

        Used for the Monte-Carlo expectations of the adjusted measures, which need the
        similarity of arbitrary (random) pairs of features. With ``threshold`` the entries
        below it are returned as 0 — all the adjusted measures look at — and are found in
        the cached list of similar pairs (:meth:`similar_pairs`) instead of computed.
        """
        r, c, shape = _broadcast_indices(rows, cols, self.n_features)
        if threshold is not None and threshold > 0:
            out = _lookup(self.similar_pairs(threshold), r * self.n_features + c)
        else:
            out = np.empty(r.size)
            step = max(1, 2**22 // self._data.shape[0])
            prepared = self._prepared()
            for start in range(0, r.size, step):
                sl = slice(start, start + step)
                out[sl] = self._pair_values(prepared, r[sl], c[sl])
        out[r == c] = 1.0
        return out.reshape(shape)

    def similar_pairs(self, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Every ordered pair ``f ≠ g`` with ``S[f, g] ≥ threshold``: sorted keys ``f·d + g``
        and their similarities. One streaming pass over the feature space, cached."""
        key = ("pairs", threshold)
        if key not in self._cache:
            d = self.n_features
            keys, sims = [], []
            for start in range(0, d, _BLOCK):
                rows = np.arange(start, min(start + _BLOCK, d))
                for cstart in range(start, d, _BLOCK):
                    cols = np.arange(cstart, min(cstart + _BLOCK, d))
                    block = self._block(rows, cols)
                    a, b = np.nonzero(block >= threshold)
                    f, g = rows[a], cols[b]
                    keep = f != g
                    f, g, v = f[keep], g[keep], block[a[keep], b[keep]]
                    keys += [f * d + g] + ([g * d + f] if cstart != start else [])
                    sims += [v] + ([v] if cstart != start else [])
            all_keys = np.concatenate(keys)
            order = np.argsort(all_keys)
            self._cache[key] = (all_keys[order], np.concatenate(sims)[order])
        return self._cache[key]

    def _prepared(self) -> np.ndarray:
        """Standardised (ranked) columns, or bin codes for NMI — computed once."""
        if "prepared" not in self._cache:
            if self.method == "pearson":
                self._cache["prepared"] = _standardise(self._data)
            elif self.method == "spearman":
                self._cache["prepared"] = _standardise(stats.rankdata(self._data, axis=0))
            else:
                self._cache["prepared"] = _discretise(self._data, self.n_bins)
        return self._cache["prepared"]

    def _pair_values(self, prepared: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        if self.method != "nmi":
            return np.clip(np.abs(np.einsum("nt,nt->t", prepared[:, r], prepared[:, c])), 0, 1)
        bins = self.n_bins
        n = prepared.shape[0]
        codes_r, codes_c = prepared[:, r], prepared[:, c]
        pair = np.arange(r.size)
        joint = np.bincount(
            ((pair * bins + codes_r) * bins + codes_c).ravel(), minlength=r.size * bins * bins
        ).reshape(r.size, bins * bins)
        marg_r = np.bincount((pair * bins + codes_r).ravel(), minlength=r.size * bins)
        marg_c = np.bincount((pair * bins + codes_c).ravel(), minlength=r.size * bins)
        h_r = _entropy_from_counts(marg_r.reshape(r.size, bins), n, axis=1)
        h_c = _entropy_from_counts(marg_c.reshape(r.size, bins), n, axis=1)
        mutual = h_r + h_c - _entropy_from_counts(joint, n, axis=1)
        mean_h = (h_r + h_c) / 2
        return np.clip(np.divide(mutual, mean_h, out=np.zeros_like(mutual), where=mean_h > 0),
                       0, 1)


def _clean_similarity(S: np.ndarray, atol: float, labels: np.ndarray | None = None
                      ) -> np.ndarray:
    """``S`` validated — finite, in [0, 1], symmetric, diagonal 1, within ``atol`` — and
    made exactly so (a new array). ``S`` may be a block ``S[idx][:, idx]`` of a larger
    matrix: ``labels`` (``idx``) then name the features in the messages."""
    def name(position):
        return int(position if labels is None else labels[position])

    if not np.all(np.isfinite(S)):
        raise InvalidInputError("The similarity matrix holds NaN or infinite values.")
    if S.size and (S.min() < -atol or S.max() > 1 + atol):
        raise InvalidInputError(
            f"Similarities must lie in [0, 1]; got values in [{S.min():.6g}, {S.max():.6g}]."
        )
    asymmetry = np.abs(S - S.T)
    if S.size and asymmetry.max() > atol:
        i, j = np.unravel_index(np.argmax(asymmetry), S.shape)
        raise InvalidInputError(
            f"The similarity matrix must be symmetric; S[{name(i)}, {name(j)}] = "
            f"{S[i, j]:.6g} but S[{name(j)}, {name(i)}] = {S[j, i]:.6g}."
        )
    diagonal = np.abs(np.diag(S) - 1.0)
    if diagonal.size and diagonal.max() > atol:
        f = int(np.argmax(diagonal))
        raise InvalidInputError(
            f"A feature is fully similar to itself: the diagonal must be 1; S[{name(f)}, "
            f"{name(f)}] = {S[f, f]:.6g}."
        )
    clean = np.clip((S + S.T) / 2, 0.0, 1.0)
    np.fill_diagonal(clean, 1.0)
    return clean


def _as_square(matrix: object) -> np.ndarray:
    try:
        S = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"The similarity matrix must be numeric ({exc}).") from None
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise InvalidInputError(
            f"The similarity matrix must be square (d, d); got shape {S.shape}."
        )
    return S


class SimilarityMatrix:
    """An explicit d×d similarity matrix, validated once, when built: square, symmetric,
    in [0, 1], diagonal 1 (to ``atol``; then made exactly so)."""

    def __init__(self, matrix: object, *, atol: float = 1e-8):
        self._matrix = _clean_similarity(_as_square(matrix), atol)
        self._sums: dict[object, float] = {}

    @property
    def n_features(self) -> int:
        return self._matrix.shape[0]

    def __repr__(self) -> str:
        return f"SimilarityMatrix(<{self.n_features}×{self.n_features}>)"

    def submatrix(self, features: object) -> np.ndarray:
        idx = _features(features, self.n_features)
        return self._matrix[np.ix_(idx, idx)]

    def offdiagonal_sum(self, threshold: float | None = None) -> float:
        """Sum of ``S[f, g]`` over all ``f ≠ g`` (entries below ``threshold`` count as 0)."""
        if threshold not in self._sums:
            S = self._matrix
            if threshold is not None:
                S = np.where(S >= threshold, S, 0.0)
            self._sums[threshold] = float(S.sum() - np.trace(S))
        return self._sums[threshold]

    def max_offdiagonal(self) -> float:
        """Largest ``S[f, g]`` with ``f ≠ g`` (cached)."""
        if "max" not in self._sums:
            d = self.n_features
            off = np.where(np.eye(d, dtype=bool), -np.inf, self._matrix)
            self._sums["max"] = float(off.max()) if d > 1 else 0.0
        return self._sums["max"]

    def values(self, rows: object, cols: object, *, threshold: float | None = None) -> np.ndarray:
        """Elementwise similarities ``S[rows[t], cols[t]]``; below ``threshold`` as 0."""
        out = self._matrix[np.asarray(rows), np.asarray(cols)]
        return out if threshold is None else np.where(out >= threshold, out, 0.0)


class _ArraySimilarity:
    """A d×d array handed straight to a measure: validated where it is read — the block of
    the features the runs select (what most measures read), or, for a measure that reads
    the whole feature space, all of it once (a :class:`SimilarityMatrix`) — and never
    copied whole otherwise. Validating a 3 000 × 3 000 matrix costs more than φ_msi of 60
    runs; a similarity object is validated once."""

    def __init__(self, matrix: object):
        self._array = _as_square(matrix)
        self._whole: SimilarityMatrix | None = None

    @property
    def n_features(self) -> int:
        return self._array.shape[0]

    def submatrix(self, features: object) -> np.ndarray:
        idx = _features(features, self.n_features)
        return _clean_similarity(self._array[np.ix_(idx, idx)], 1e-8, idx)

    def _validated(self) -> SimilarityMatrix:
        if self._whole is None:
            self._whole = SimilarityMatrix(self._array)
        return self._whole

    def offdiagonal_sum(self, threshold: float | None = None) -> float:
        return self._validated().offdiagonal_sum(threshold)

    def max_offdiagonal(self) -> float:
        return self._validated().max_offdiagonal()

    def values(self, rows: object, cols: object, *, threshold: float | None = None) -> np.ndarray:
        return self._validated().values(rows, cols, threshold=threshold)


def as_similarity(similarity: object, n_features: int):
    """Accept a d×d array (validated where read), a :class:`SimilarityMatrix` or a
    :class:`FeatureSimilarity`."""
    if isinstance(similarity, FeatureSimilarity | SimilarityMatrix):
        sim = similarity
    else:
        sim = _ArraySimilarity(similarity)
    if sim.n_features != n_features:
        raise InvalidInputError(
            f"The similarity covers {sim.n_features} features but the runs have "
            f"d = {n_features} features."
        )
    return sim
