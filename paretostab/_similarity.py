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

Both expose ``n_features``, ``submatrix(features)``, ``block(rows, cols)`` (a batch of
blocks, for random features) and ``similar_features(threshold)``. No measure makes a pass
over all d² pairs of features when d is large: :func:`offdiagonal_sum`, the one
whole-space quantity a measure needs by default (``sechidis``'s normaliser), is exact up
to a size and a Monte-Carlo estimate with its standard error above it. Only the adjusted
measures ask which features have a similar feature (:func:`offdiagonal_peaks`): read from
a matrix when it is built, computed once from data — for ``expectation="exact"``, and for
the Monte-Carlo expectation where that costs no more than its draws
(:func:`affordable_similar_features`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
from scipy import stats

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._validation import Interval

__all__ = ["METHODS", "SUM_BLOCK", "Blocks", "FeatureSimilarity", "OffdiagonalSum",
           "SimilarityMatrix", "SimilaritySource", "affordable_similar_features",
           "as_similarity", "nmi_similarity", "offdiagonal_peaks", "offdiagonal_sum",
           "pearson_similarity", "spearman_similarity"]

#: The bins of a feature's values for normalised mutual information.
N_BINS = Interval("integer", 2)
#: The random blocks of feature pairs a Monte-Carlo sum draws.
N_SAMPLES = Interval("integer", 1, why=" (random blocks of feature pairs)")

_BLOCK = 1024
#: Side of the random blocks of feature pairs :func:`offdiagonal_sum` samples.
SUM_BLOCK = 32
#: Prepared data (or similarity) entries one step of :meth:`FeatureSimilarity.block` holds.
_STEP = 2**22


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


def _ranks(X: np.ndarray) -> np.ndarray:
    """Average ranks (1 = smallest) within each column, ties sharing the mean of their
    positions: ``scipy.stats.rankdata(X, axis=0)`` from one sort per feature, with scipy
    only for the features that have ties (about 3× faster at n = 100, d = 200 000)."""
    rows = np.ascontiguousarray(X.T)
    ranks = np.empty(rows.shape)
    np.put_along_axis(ranks, np.argsort(rows, axis=1), np.arange(1.0, rows.shape[1] + 1),
                      axis=1)
    ordered = np.sort(rows, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if tied.any():
        ranks[tied] = stats.rankdata(rows[tied], axis=1)
    return ranks.T


def _abs_correlation(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """|correlation| between the rows of standardised ``A`` (…, a, n) and ``B`` (…, b, n),
    clipped to [0, 1]."""
    return np.clip(np.abs(A @ np.swapaxes(B, -1, -2)), 0.0, 1.0)


def _features(features: object, d: int) -> np.ndarray:
    if features is None:
        return np.arange(d)
    idx = np.asarray(features)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise InvalidInputError("features must be a 1-D array of integer feature indices.")
    return _in_range(idx, d)


def _in_range(idx: np.ndarray, d: int) -> np.ndarray:
    """``idx``, when every index in it is in [0, d)."""
    if idx.size and (idx.min() < 0 or idx.max() >= d):
        raise InvalidInputError(f"features must be indices in [0, {d}).")
    return idx


def _batch_indices(rows: object, cols: object, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` (B, a) and ``cols`` (B, b): validated integer feature indices in [0, d)."""
    r, c = np.asarray(rows), np.asarray(cols)
    for idx in (r, c):
        if idx.ndim != 2 or not np.issubdtype(idx.dtype, np.integer):
            raise InvalidInputError("rows and cols must be 2-D arrays of integer feature "
                                    "indices, one row per block.")
        _in_range(idx, d)
    if r.shape[0] != c.shape[0]:
        raise InvalidInputError(f"rows and cols must hold as many blocks; got {r.shape[0]} "
                                f"and {c.shape[0]}.")
    return r, c


def _set_diagonal(S: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    S[rows[:, None] == cols[None, :]] = 1.0
    return S


def pearson_similarity(X: object, features: object = None) -> np.ndarray:
    """|Pearson correlation| between the columns ``features`` of ``X`` (000 §6.1).

    A constant feature has similarity 0 to every other feature and 1 to itself.
    """
    data = _as_data(X)
    idx = _features(features, data.shape[1])
    Xs = _standardise(data[:, idx]).T
    return _set_diagonal(_abs_correlation(Xs, Xs), idx, idx)


def spearman_similarity(X: object, features: object = None) -> np.ndarray:
    """|Spearman rank correlation| between the columns ``features`` of ``X`` (000 §6.1)."""
    data = _as_data(X)
    idx = _features(features, data.shape[1])
    Xs = _standardise(_ranks(data[:, idx])).T
    return _set_diagonal(_abs_correlation(Xs, Xs), idx, idx)


def _discretise(X: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-frequency bins per column (codes 0..n_bins−1)."""
    ranks = _ranks(X)
    return np.minimum(((ranks - 0.5) * n_bins / X.shape[0]).astype(np.int64), n_bins - 1)


def _entropy_from_counts(counts: np.ndarray, n: int, axis: int) -> np.ndarray:
    p = counts / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(p > 0, p * np.log(p), 0.0), axis=axis)


def _joint_counts(onehot_a: np.ndarray, onehot_b: np.ndarray) -> np.ndarray:
    """The joint bin counts (a × c × bins², integers) of the columns of two one-hot code
    arrays (n × a × bins, n × c × bins): one BLAS product, exact (integers below 2⁵³)."""
    (n, a, bins), c = onehot_a.shape, onehot_b.shape[1]
    joint = (onehot_a.reshape(n, -1).T @ onehot_b.reshape(n, -1)).reshape(a, bins, c, bins)
    counts = np.empty((a, c, bins, bins), dtype=np.intp)  # the transpose and the cast at once
    counts[...] = joint.transpose(0, 2, 1, 3)
    return counts.reshape(a, c, -1)


def _joint_entropy(counts: np.ndarray, n: int) -> np.ndarray:
    """:func:`_entropy_from_counts` of integer counts along the last axis, bit for bit,
    with ``p log p`` read from a table of the n + 1 possible counts (no logarithm per
    count)."""
    table = np.zeros(n + 1)
    table[1:] = (np.arange(1, n + 1) / n) * np.log(np.arange(1, n + 1) / n)
    return -np.sum(table[counts], axis=-1)


def _nmi_block(codes_a: np.ndarray, codes_b: np.ndarray, n_bins: int) -> np.ndarray:
    """NMI of the columns of ``codes_a`` (n × a) against those of ``codes_b`` (n × c),
    from their joint bin counts (:func:`_joint_counts`, :func:`_joint_entropy`; an einsum
    without BLAS and a logarithm per count took most of a pass over all pairs before)."""
    n = codes_a.shape[0]
    onehot_a = (codes_a[:, :, None] == np.arange(n_bins)).astype(np.float64)  # n×a×bins
    onehot_b = (codes_b[:, :, None] == np.arange(n_bins)).astype(np.float64)
    h_a = _entropy_from_counts(onehot_a.sum(axis=0), n, axis=1)
    h_b = _entropy_from_counts(onehot_b.sum(axis=0), n, axis=1)
    h_joint = _joint_entropy(_joint_counts(onehot_a, onehot_b), n)
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
    return N_BINS.integer("n_bins", n_bins)


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
        ``|Spearman|`` (the papers' choice, 000 §6.1), ``|Pearson|`` or normalised mutual
        information.
    n_bins : int, optional
        Bins per feature for ``method="nmi"``.

    Blocks are computed on demand, restricted to the features the measures ask for: the
    features the runs select (:meth:`submatrix`) or random features (:meth:`block`, for
    the Monte-Carlo expectations and :func:`offdiagonal_sum`). Memory: the data and its
    prepared (ranked, standardised, or binned) copy, O(n·d); nothing of size d².
    """

    def __init__(self, X: object, method: str = "spearman", *, n_bins: int | None = None):
        if method not in METHODS:
            raise UnknownNameError.for_name("similarity method", method, METHODS)
        self.method = method
        self._data = _as_data(X)
        self.n_bins = _check_bins(n_bins, self._data.shape[0]) if method == "nmi" else None
        self._rows: np.ndarray | None = None
        self._peaks: np.ndarray | None = None

    @property
    def n_features(self) -> int:
        return self._data.shape[1]

    def __repr__(self) -> str:
        n, d = self._data.shape
        return f"FeatureSimilarity(<{n}×{d} data>, method={self.method!r})"

    def submatrix(self, features: object) -> np.ndarray:
        """The ``|features| × |features|`` block of the similarity matrix.

        Parameters
        ----------
        features : sequence of int or boolean mask of length d
            The features, in the order of the block's rows and columns.
        """
        idx = _features(features, self.n_features)
        return self.block(idx[None], idx[None])[0]

    def block(self, rows: object, cols: object) -> np.ndarray:
        """A batch of blocks: ``out[t, x, y] = S[rows[t, x], cols[t, y]]``.

        ``rows`` (B, a) and ``cols`` (B, b) are integer feature indices; a feature is fully
        similar to itself. Computed from the prepared data in steps of about 2²² held
        entries besides the output: ``|Pearson|`` and ``|Spearman|`` as batched products of
        standardised columns, O(B·a·b·n); NMI from the joint bin counts of every pair.

        Parameters
        ----------
        rows, cols : int array (B, a) and (B, b)
            Feature indices in ``0..d−1``: block t pairs ``rows[t]`` with ``cols[t]``.
        """
        r, c = _batch_indices(rows, cols, self.n_features)
        prepared = self._prepared()
        out = np.empty((r.shape[0], r.shape[1], c.shape[1]))
        if self.method == "nmi":  # joint counts of a few rows against all columns at once
            n_bins = cast(int, self.n_bins)  # an int for "nmi" (__init__)
            step = max(1, _STEP // max(1, c.shape[1] * n_bins**2))
            for t, (row, col) in enumerate(zip(r, c, strict=True)):
                codes = prepared[col].T
                for start in range(0, row.size, step):
                    out[t, start : start + step] = _nmi_block(
                        prepared[row[start : start + step]].T, codes, n_bins)
        else:
            step = max(1, _STEP // max(1, (r.shape[1] + c.shape[1]) * prepared.shape[1]))
            for start in range(0, r.shape[0], step):
                batch = slice(start, start + step)
                out[batch] = _abs_correlation(prepared[r[batch]], prepared[c[batch]])
        out[r[:, :, None] == c[:, None, :]] = 1.0
        return out

    def similar_features(self, threshold: float) -> np.ndarray:
        """The features (increasing) with a similarity ≥ ``threshold`` to another feature.

        The first call reads all d(d − 1)/2 pairs (:func:`offdiagonal_peaks`, O(d² n)),
        which later calls reuse — d = 20 000, n = 100, one BLAS thread: 1.5 s for
        ``|Pearson|`` and ``|Spearman|`` (1.1–1.2 times one product of the data with itself),
        117 s for NMI (its exact joint counts are bins² = 25 such products; at
        d = 5 000, 8.5 s against 90.7 s before they became one product). The adjusted
        measures ask with ``expectation="exact"``, and with the Monte-Carlo expectation
        when d(d − 1)/2 is at most the pairs its draws read
        (:func:`affordable_similar_features`).

        Parameters
        ----------
        threshold : float
            Features with a similarity ≥ ``threshold`` (inclusive) are similar.
        """
        if self._peaks is None:
            self._peaks = offdiagonal_peaks(self)
        return np.flatnonzero(self._peaks >= threshold)

    def _prepared(self) -> np.ndarray:
        """One row per feature (d × n, computed once): the standardised (ranked) column,
        or its bin codes for NMI."""
        if self._rows is None:
            if self.method == "pearson":
                prepared = _standardise(self._data)
            elif self.method == "spearman":
                prepared = _standardise(_ranks(self._data))
            else:
                prepared = _discretise(self._data, cast(int, self.n_bins))  # "nmi": an int
            self._rows = np.ascontiguousarray(prepared.T)
        return self._rows


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
        np.fill_diagonal(self._matrix, -np.inf)  # each feature's largest other similarity
        self._peaks = self._matrix.max(axis=1)
        np.fill_diagonal(self._matrix, 1.0)

    @property
    def n_features(self) -> int:
        return self._matrix.shape[0]

    def __repr__(self) -> str:
        return f"SimilarityMatrix(<{self.n_features}×{self.n_features}>)"

    def submatrix(self, features: object) -> np.ndarray:
        idx = _features(features, self.n_features)
        return self._matrix[np.ix_(idx, idx)]

    def block(self, rows: object, cols: object) -> np.ndarray:
        """A batch of blocks: ``out[t, x, y] = S[rows[t, x], cols[t, y]]``."""
        r, c = _batch_indices(rows, cols, self.n_features)
        return np.take(self._matrix, r[:, :, None] * self.n_features + c[:, None, :])

    def similar_features(self, threshold: float) -> np.ndarray:
        """The features (increasing) with a similarity ≥ ``threshold`` to another feature
        (from each feature's largest other similarity, found when the matrix was built).

        Parameters
        ----------
        threshold : float
            Features with a similarity ≥ ``threshold`` (inclusive) are similar.
        """
        return np.flatnonzero(self._peaks >= threshold)


class Blocks(Protocol):
    """What :func:`offdiagonal_sum` and the measures read of a similarity of d features:
    ``block(rows, cols)``, ``out[t, x, y] = S[rows[t, x], cols[t, y]]``."""

    @property
    def n_features(self) -> int: ...

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray: ...


class SimilaritySource(Blocks, Protocol):
    """A similarity as :func:`as_similarity` gives it: :class:`Blocks`, the
    |features|×|features| ``submatrix(features)``, and ``similar_features(threshold)``,
    the features (increasing) with a similarity ≥ ``threshold`` to another feature."""

    def submatrix(self, features: np.ndarray) -> np.ndarray: ...

    def similar_features(self, threshold: float) -> np.ndarray: ...


class _ArraySimilarity:
    """A d×d array handed straight to a measure: validated where it is read — the block of
    the features the runs select (what most measures read), or, for a measure that reads
    random features anywhere in the space (the Monte-Carlo expectations, ``sechidis``'s
    normaliser), all of it once (a :class:`SimilarityMatrix`) — and never copied whole
    otherwise. Validating a 3 000 × 3 000 matrix costs more than φ_msi of 60 runs; a
    similarity object is validated once."""

    def __init__(self, matrix: object):
        self._array = _as_square(matrix)
        self._whole: SimilarityMatrix | None = None

    @property
    def n_features(self) -> int:
        return self._array.shape[0]

    def submatrix(self, features: object) -> np.ndarray:
        idx = _features(features, self.n_features)
        return _clean_similarity(self._array[np.ix_(idx, idx)], 1e-8, idx)

    def block(self, rows: object, cols: object) -> np.ndarray:
        return self._validated().block(rows, cols)

    def similar_features(self, threshold: float) -> np.ndarray:
        return self._validated().similar_features(threshold)

    def _validated(self) -> SimilarityMatrix:
        if self._whole is None:
            self._whole = SimilarityMatrix(self._array)
        return self._whole


def as_similarity(similarity: object, n_features: int) -> SimilaritySource:
    """Accept a d×d array (validated where read), a :class:`SimilarityMatrix` or a
    :class:`FeatureSimilarity`."""
    sim: FeatureSimilarity | SimilarityMatrix | _ArraySimilarity
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


def affordable_similar_features(similarity: object, threshold: float, *, read: int
                                ) -> np.ndarray | None:
    """The features (increasing) with a similarity ≥ ``threshold`` to another feature,
    when knowing them costs no more than the ``read`` similarity entries (of random blocks)
    the caller reads anyway; else None.

    Known at no cost from a :class:`SimilarityMatrix` (each feature's peak is found when it
    is built) and from an array (validated whole, peaks included, by the first random
    block read of it, which a caller with ``read > 0`` pays anyway). A
    :class:`FeatureSimilarity` computes them (:func:`offdiagonal_peaks`, then kept) when
    its d(d − 1)/2 pairs are at most ``read``, and otherwise answers None even when an
    earlier call computed them: the answer, and so a measure's value, depends on the
    similarity, ``threshold`` and ``read`` only, never on what ran before. The rule: the
    pass reads each pair once, in 1 024 × 1 024 tiles, no dearer a pair than the caller's
    small blocks (the rule of :func:`offdiagonal_sum`;
    n = 100, one thread: ``|Pearson|`` 8 ns a pair in the pass at d = 20 000, 46 to
    185 ns an entry of blocks of 50 × 50 to 5 × 5; NMI 1.0 µs a pair at d = 3 000, 0.9
    to 8 µs an entry).

    Parameters
    ----------
    similarity : SimilaritySource, or any object with ``n_features`` and ``block``
        The similarity of the whole space.
    threshold : float
        Features with a similarity ≥ ``threshold`` (inclusive) are similar.
    read : int ≥ 0
        The similarity entries the caller reads anyway.
    """
    if isinstance(similarity, FeatureSimilarity):
        d = similarity.n_features
        known = d * (d - 1) // 2 <= read
    else:
        known = isinstance(similarity, SimilarityMatrix | _ArraySimilarity)
    return cast(SimilaritySource, similarity).similar_features(threshold) if known else None


@dataclass(frozen=True)
class OffdiagonalSum:
    """Σ_{f≠g} C[f, g] over the d features: ``value``, its Monte-Carlo ``standard_error``
    (0 when ``exact``)."""

    value: float
    standard_error: float
    exact: bool


def offdiagonal_sum(similarity: Blocks, threshold: float | None = None, *,
                    n_samples: int = 1024,
                    random_state: int | np.random.Generator | np.random.SeedSequence | None = 0
                    ) -> OffdiagonalSum:
    """Σ_{f≠g} C[f, g] over all d features, ``C = S`` with the entries below ``threshold``
    set to 0 (``threshold=None``: the raw ``S``) — the whole-space term of φ_S's
    normaliser tr(C Σ⁰) (000 eq. 3; SPEC §2a).

    **Exact** when the d(d − 1)/2 pairs of features are no more than the
    ``n_samples · 32²`` pairs the estimate would look at (d ≤ 1 448 with the default
    ``n_samples``): a pass over all of them in 1 024 × 1 024 tiles. **Estimated**
    otherwise, in O(n_samples · 32² · n) instead of O(d² · n): ``n_samples`` independent
    blocks of 32 × 32 pairs (x_i, y_j), every x_i and y_j uniform on the d features, and

        Σ̂ = d² / (32² N) · Σ_t Σ_{i,j : x_ti ≠ y_tj} C[x_ti, y_tj],

    unbiased because each (x_i, y_j) is a uniform pair of features (a pair of equal
    features counts 0). Its standard error is ``d²/32² · s/√N``, s the sample standard
    deviation of the N block sums (at most d²/(2√N): a block sum lies in [0, 32²]), i.e.
    the mean off-diagonal similarity Σ/(d(d − 1)) is known to about s/(32²√N) ≤ 1/(2√N).
    No exact O(n·d) identity exists for the package's similarities: ‖Σ_f z_f‖² of the
    standardised columns gives Σ ρ_fg, not Σ |ρ_fg| nor a thresholded sum.

    Parameters
    ----------
    similarity : FeatureSimilarity, SimilarityMatrix or any object with ``n_features``
        and ``block(rows, cols)``
        The similarity.
    threshold : float in [0, 1] or None
        Entries below it count as 0.
    n_samples : int ≥ 1
        Random 32 × 32 blocks of pairs of the estimate.
    random_state : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the sampled features (anything :func:`numpy.random.default_rng` takes).
    """
    N_SAMPLES.check("n_samples", n_samples)
    d = similarity.n_features
    area = SUM_BLOCK * SUM_BLOCK
    if d * (d - 1) // 2 <= n_samples * area:
        total = 0.0
        for rows, cols, tile in _tiles(similarity, 0.0):
            total += (1 if rows[0] == cols[0] else 2) * float(_thresholded(tile, threshold).sum())
        return OffdiagonalSum(total, 0.0, True)
    rng = np.random.default_rng(random_state)
    sums = np.empty(n_samples)
    step = max(1, _STEP // area)
    for start in range(0, n_samples, step):
        size = min(step, n_samples - start)
        x, y = rng.integers(0, d, size=(2, size, SUM_BLOCK))
        tile = _thresholded(similarity.block(x, y), threshold)
        tile[x[:, :, None] == y[:, None, :]] = 0.0
        sums[start : start + size] = tile.sum(axis=(1, 2))
    spread = sums.std(ddof=1) if n_samples > 1 else area / 2
    scale = d * d / area
    return OffdiagonalSum(scale * float(sums.mean()), scale * float(spread) / np.sqrt(n_samples),
                          False)


def _tiles(similarity: Blocks, diagonal: float
           ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The pairs of features f ≤ g as tiles of up to 1 024 × 1 024: their rows, columns
    and similarities, ``diagonal`` on the diagonal (a tile on it has
    ``rows[0] == cols[0]``)."""
    d = similarity.n_features
    for start in range(0, d, _BLOCK):
        rows = np.arange(start, min(start + _BLOCK, d))
        for cstart in range(start, d, _BLOCK):
            cols = np.arange(cstart, min(cstart + _BLOCK, d))
            tile = similarity.block(rows[None], cols[None])[0]
            if cstart == start:
                np.fill_diagonal(tile, diagonal)
            yield rows, cols, tile


def offdiagonal_peaks(similarity: Blocks) -> np.ndarray:
    """Each feature's largest similarity to another feature (−∞ for d = 1), in one pass
    over the d(d − 1)/2 pairs in 1 024 × 1 024 tiles: O(d² n) for a
    :class:`FeatureSimilarity` on n examples, O(d) memory besides a tile.

    A feature f has a similar feature at ``threshold`` iff its peak is ≥ ``threshold``:
    the features the exact expectations of the adjusted measures enumerate
    (:mod:`paretostab.measures._exact`), and none at all for stabm's fallback to SMU
    (SPEC §2a).
    """
    if isinstance(similarity, FeatureSimilarity) and similarity.method != "nmi":
        return _correlation_peaks(similarity._prepared())
    peaks = np.full(similarity.n_features, -np.inf)
    for rows, cols, tile in _tiles(similarity, -np.inf):
        peaks[rows] = np.maximum(peaks[rows], tile.max(axis=1))
        peaks[cols] = np.maximum(peaks[cols], tile.max(axis=0))
    return peaks


def _correlation_peaks(rows: np.ndarray) -> np.ndarray:
    """:func:`offdiagonal_peaks` of ``|correlation|`` from the standardised rows (d × n): each
    1 024 × 1 024 tile of pairs f ≤ g is one BLAS product into a reused buffer, made |·|
    in place, its diagonal −∞, and reduced along both axes; the clip to [0, 1] of
    :meth:`FeatureSimilarity.block` commutes with the maximum and is applied once. No
    gathered copies, no mask: 1.0 to 1.4 times the products alone at n = 100,
    d = 5 000 to 50 000, against 1.6 to 2.9 through ``block`` (docs/benchmarks.md). The
    peaks equal the maxima of ``block``'s values up to the rounding of the products
    (BLAS may block a tile's products otherwise than a batch's: ≤ 1.1e-16 apart)."""
    d = rows.shape[0]
    peaks = np.full(d, -np.inf)
    buffer = np.empty((min(d, _BLOCK), min(d, _BLOCK)))
    for start in range(0, d, _BLOCK):
        left = rows[start : start + _BLOCK]
        for cstart in range(start, d, _BLOCK):
            right = rows[cstart : cstart + _BLOCK]
            tile = np.matmul(left, right.T, out=buffer[: len(left), : len(right)])
            np.abs(tile, out=tile)
            if cstart == start:
                np.fill_diagonal(tile, -np.inf)
            np.maximum(peaks[start : start + len(left)], tile.max(axis=1),
                       out=peaks[start : start + len(left)])
            np.maximum(peaks[cstart : cstart + len(right)], tile.max(axis=0),
                       out=peaks[cstart : cstart + len(right)])
    return np.minimum(peaks, 1.0)


def _thresholded(S: np.ndarray, threshold: float | None) -> np.ndarray:
    return S if threshold is None else np.where(S >= threshold, S, 0.0)
