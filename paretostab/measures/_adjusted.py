"""Similarity-adjusted stability measures: φ_S, POGR and the adjusted measures of 001.

All take the boolean selection matrix ``Z`` (M runs × d features) and a feature
similarity ``S`` (a :class:`~paretostab.measures.SimilarityView`). Definitions follow
SPEC §2 and §2a: 000 eq. 3–4 for ``sechidis`` (φ_S) and ``pogr``, and Bommert &
Rahnenführer 2020 (001) as implemented by stabm 1.2.2, its reference implementation, for
``unadjusted`` (SMU), ``zucknick`` (SMZ), ``yu`` (SMY) and ``sma_count``, ``sma_mean``,
``sma_greedy``, ``sma_mbm`` (SMA-*). Two features are *similar* when ``S ≥ threshold``
(inclusive).

The pairwise measures share one mechanism. A batch of pairs of feature sets (F, G) —
the pairs of runs, or random pairs of sets for the expected values — becomes a
:class:`_Blocks`: the |F|×|G| similarity block and which features are shared, in F only
(``A = F \\ G``) or in G only (``B = G \\ F``). Every score is a vectorised statistic of
it, so the runs' pairs and the Monte-Carlo draws cost the same numpy operations.

The corrected measures SMY and SMA-* turn each pair's intersection statistic ``I`` into
``(I − E) / (max − E)``, with ``E`` the expectation of ``I`` for two sets of the same sizes
drawn uniformly at random from the d features. ``E`` depends only on the two sizes: it is
computed once per size pair (stabm re-draws it for every pair of runs, which is
equivalent in distribution), by Monte-Carlo or exactly (:mod:`paretostab.measures._exact`).

No measure makes a pass over the d² pairs of features by default (``expectation="exact"``
needs the features that have a similar feature anywhere in the space). ``I = |F ∩ G| + h``
where ``h`` reads only the similar pairs of the cross block, so ``E = n1·n2/d + E[h]``: the
first term exactly (hypergeometric mean), the second by Monte-Carlo over random sets whose
similarities are computed on demand — all size pairs from the same draws, and only where
a similar pair occurs (:func:`_sampled_expectations`). φ_S's numerator reads the selected
features only; its normaliser's whole-space sum is exact up to a size and estimated above
it (:func:`paretostab._similarity.offdiagonal_sum`). ``pogr``, ``zucknick`` and the
observed ``I`` read the selected features only.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator
from typing import Literal, overload

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from paretostab._errors import InvalidInputError
from paretostab._rounding import gamma_n, regression_rounding
from paretostab._similarity import affordable_similar_features, offdiagonal_sum
from paretostab._validation import Interval
from paretostab.measures._exact import exact_expectations
from paretostab.measures._inputs import PairScores, UndefinedMeasure, pair_counts, pair_index
from paretostab.measures._registry import SimilarityView, register

__all__ = ["EXPECTATIONS", "pogr", "sechidis", "unadjusted", "zucknick"]

#: Similarity entries held at once by one batch of pairs of sets (bounds the memory).
_BATCH = 2**21
_N_SAMPLES = Interval("integer", 1, why=" (Monte-Carlo replicates)")
EXPECTATIONS = ("monte_carlo", "exact")

_CORRECTED_OPTIONS = """\
Parameters
----------
Z : array of shape (M, d), bool
    The selection matrix.
similarity : SimilarityView
    The feature similarity (given to :func:`~paretostab.measures.stability` as
    ``similarity=``).
threshold : float in [0, 1]
    Features with ``S ≥ threshold`` (inclusive) are similar; stabm's default 0.9.
n_samples : int ≥ 1
    Monte-Carlo replicates N (stabm's ``N``): random pairs of sets per pair of set sizes.
random_state : int, None, numpy.random.Generator or numpy.random.SeedSequence
    Seed of the Monte-Carlo draws (through a :class:`numpy.random.SeedSequence`).
    Replicate t's sets of sizes (n1 ≤ n2) are the first n1 and n2 features of two random
    sequences of distinct features, so E of a size pair depends on ``random_state`` and
    (n1, n2) only — not on the other runs nor their order (up to floating-point
    rounding). ``None`` draws fresh entropy; a Generator is advanced by one draw.
expectation : {"monte_carlo", "exact"}
    ``"exact"`` is E over all pairs of subsets of the two sizes (stabm's
    ``correction.for.chance = "exact"``), from the similar features V alone (those with
    a similar feature; :mod:`paretostab.measures._exact`): E = n1 n2 / d in closed form,
    for any d, when V is empty — and then, as in stabm, every measure is SMU (SMY's
    maximum becomes √(n1 n2)) — else a hypergeometric mixture over the pairs of subsets
    of V, enumerated. It refuses more than ``EXACT_LIMIT`` = 10⁸ pairs in one call,
    which stabm (all C(d, n1) C(d, n2) pairs of subsets, about 1 kB and 0.4 ms each)
    does not reach either. V is read from every pair of features once: from the matrix
    of a ``SimilarityMatrix`` (when it is built), or in one pass over the data, O(d² n),
    kept by a ``FeatureSimilarity``.

Notes
-----
Write ``I = r + h`` with ``r = |F ∩ G|``: ``h`` depends only on the similar pairs
(``S ≥ threshold``) of the cross block (F \\ G) × (G \\ F), and 0 ≤ h ≤ max. For two
independent uniform sets E[r] = n1 n2 / d exactly, and the Monte-Carlo expectation over
N random pairs of sets of sizes (n1, n2) is the regression (control-variate) estimator
on r (Glasserman 2004, §4.1.1)

    Ê = n1 n2 / d + h̄ − γ̂ (r̄ − n1 n2 / d),   γ̂ = cov(h, r) / var(r) (0 if var(r) = 0),

consistent, with a bias of order 1/N, and with standard error about
sd(I − β r)/√N ≤ min(sd(h), sd(I))/√N ≤ √(max · (E − n1 n2/d) / N) ≤ max / (2√N)
(β = 1 + γ; the last two because h ∈ [0, max]): small when similar pairs are rare,
whatever d. A pair's score moves by about |max − I| · SE / (max − E)² with it; an
estimate above max is max (the score is then undefined). Ê is exact when no similar pair
is drawn — in particular when no off-diagonal similarity reaches ``threshold``: h = 0 and
``E = n1 n2 / d`` (001 §2.2: SMA equals SMU) — and when every drawn pair of sets has the
same I (every feature similar to every other: E = I). With no similar feature at all,
stabm and ``"exact"`` make SMY SMU as well (maximum √(n1 n2), not (n1 + n2)/2); so does
the Monte-Carlo path wherever that is known without reading more pairs of features than
its draws read (N · max n1 · max n2): for a ``SimilarityMatrix`` or an array, and for a
``FeatureSimilarity`` with d(d − 1)/2 ≤ N · max n1 · max n2, which runs that pass (d ≤
7 071 for the default N and runs of 50). Above that, for a ``FeatureSimilarity``, SMY is
Cohen's ``kappa`` where nothing is similar (telling needs every pair of features read),
even after ``similar_features`` ran on it: a value never depends on what ran before. The
similarities of the sampled features are computed on demand,
O(N · max n1 · max n2 · n) for a ``FeatureSimilarity`` on n examples for all size pairs
at once, never over the d² pairs of features; only the drawn pairs of sets whose cross
block holds a similar pair are scored.

A pair's score is undefined (NaN) when ``max = E`` — up to R, the rounding of the
computed max − E derived from each path's operations (Higham 2002; R ≈ (N + a + b)·u
times the sizes for Monte-Carlo, :func:`paretostab._rounding.regression_rounding`): a run
selected no feature (for SMY: both runs), both selected all d features, or every random
pair of sets of these sizes reaches the maximum.
"""


# --------------------------------------------------------------------------- options


@overload
def _check_threshold(threshold: object, *, none_ok: Literal[False] = False) -> float: ...


@overload
def _check_threshold(threshold: object, *, none_ok: bool) -> float | None: ...


def _check_threshold(threshold: object, *, none_ok: bool = False) -> float | None:
    if none_ok and threshold is None:
        return None
    if (isinstance(threshold, int | float | np.integer | np.floating)
            and not isinstance(threshold, bool) and 0 <= threshold <= 1):
        return float(threshold)
    allowed = "None (the raw similarity) or a number in [0, 1]" if none_ok else "a number in [0, 1]"
    raise InvalidInputError(
        f"threshold must be {allowed} (features with similarity >= threshold count as "
        f"similar); got {threshold!r}."
    )


def _check_expectation(expectation: object) -> str:
    if not isinstance(expectation, str) or expectation not in EXPECTATIONS:
        raise InvalidInputError(
            f"expectation must be one of {', '.join(map(repr, EXPECTATIONS))}; "
            f"got {expectation!r}."
        )
    return expectation


def _seed_sequence(random_state: object) -> np.random.SeedSequence:
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**63, size=2).tolist())
    if random_state is None:
        return np.random.SeedSequence()
    if (
        isinstance(random_state, int | np.integer)
        and not isinstance(random_state, bool)
        and random_state >= 0
    ):
        return np.random.SeedSequence(int(random_state))
    raise InvalidInputError(
        "random_state must be None, a non-negative integer, a numpy.random.Generator or a "
        f"numpy.random.SeedSequence; got {random_state!r}."
    )


# ------------------------------------------------------------- pairs of feature sets


class _Blocks:
    """A batch of P pairs of feature sets (F, G), padded with -1 to widths a and b.

    ``f`` (P×a) and ``g`` (P×b) hold feature ids, in any order; ``sim[p, x, y]`` is
    the similarity of ``f[p, x]`` and ``g[p, y]`` (meaningless on padding). ``in_f`` and
    ``in_g`` mark the real entries, ``only_f`` the features of F \\ G, ``only_g`` those of
    G \\ F, and ``common`` is |F ∩ G|.
    """

    def __init__(self, f: np.ndarray, g: np.ndarray, sim: np.ndarray):
        self.f, self.g, self.sim = f, g, sim
        self.in_f, self.in_g = f >= 0, g >= 0
        same = (f[:, :, None] == g[:, None, :]) & self.in_f[:, :, None]
        self.only_f = self.in_f & ~same.any(axis=2)
        self.only_g = self.in_g & ~same.any(axis=1)
        self.common = same.sum(axis=(1, 2)).astype(float)

    def similar(self, threshold: float) -> np.ndarray:
        """Edges of the cross block (F \\ G) × (G \\ F): pairs with ``S ≥ threshold``."""
        return self.only_f[:, :, None] & self.only_g[:, None, :] & (self.sim >= threshold)


Statistic = Callable[[_Blocks, float], np.ndarray]


def _run_pairs(Z: np.ndarray, similarity: SimilarityView) -> Iterator[_Blocks]:
    """The pairs of runs i < j (order of ``pair_index``) as batches of :class:`_Blocks`.

    Feature ids are positions in ``similarity.features`` (sorted, so ids keep the order
    of the feature indices); similarities come from ``similarity.matrix``.
    """
    member = Z[:, similarity.features]
    k = member.sum(axis=1)
    width = int(k.max(initial=0))
    ids = np.argsort(~member, axis=1, kind="stable")[:, :width]
    ids = np.where(np.arange(width) < k[:, None], ids, -1)
    i, j = pair_index(Z.shape[0])
    step = max(1, _BATCH // max(1, width * width))
    for start in range(0, i.size, step):
        f, g = ids[i[start : start + step]], ids[j[start : start + step]]
        sim = similarity.matrix[np.maximum(f, 0)[:, :, None], np.maximum(g, 0)[:, None, :]]
        yield _Blocks(f, g, sim)


def _pair_statistic(Z: np.ndarray, similarity: SimilarityView, statistic: Statistic,
                    threshold: float) -> np.ndarray:
    """``statistic`` for every pair of runs i < j."""
    parts = [statistic(blocks, threshold) for blocks in _run_pairs(Z, similarity)]
    return np.concatenate(parts) if parts else np.zeros(0)


def _stream(seed: np.random.SeedSequence, tag: int) -> np.random.Generator:
    return np.random.default_rng(
        np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, tag)))


def _random_sequences(rng: np.random.Generator, d: int, rows: int, length: int) -> np.ndarray:
    """``rows`` random sequences of ``length`` distinct features of range(d), one a row.

    Drawn column by column: each feature is uniform and redrawn while it repeats one of
    its row, so the first c features of a row are a uniform random c-subset of range(d),
    and the same whatever ``length`` is asked (they are the stream's first draws).
    O(rows · length²) comparisons.
    """
    out = np.empty((rows, length), dtype=np.intp)
    for col in range(length):
        todo = np.arange(rows)
        while todo.size:
            out[todo, col] = rng.integers(0, d, size=todo.size)
            todo = todo[(out[todo, :col] == out[todo, col, None]).any(axis=1)]
    return out


def _excess_of_classes(owner: np.ndarray, edges: tuple[np.ndarray, ...], f: np.ndarray,
                       g: np.ndarray, sim: np.ndarray, statistic: Statistic,
                       threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """h = I − |F ∩ G| of the classes in ``owner`` (sorted), each scored on its edges.

    ``edges = (t, i, j)``: the similar pair (f[t, i], g[t, j]) lies in the cross block
    (F \\ G) × (G \\ F) of its class's sets in replicate t, and ``edges`` holds all of
    them. Every statistic reads only these pairs, so a class is scored on the block of its
    edges' rows and columns (all in F \\ G and G \\ F, hence ``common`` = 0). Returns the
    distinct owners and their h.
    """
    t, i, j = edges
    new = np.ones(owner.size, dtype=bool)
    new[1:] = owner[1:] != owner[:-1]
    owners, rank = owner[new], np.cumsum(new) - 1
    rows = _packed(rank, i, owners.size, f.shape[1])
    cols = _packed(rank, j, owners.size, g.shape[1])
    replicate = t[new][:, None]
    h = np.empty(owners.size)
    step = max(1, _BATCH // (rows.shape[1] * cols.shape[1]))
    for start in range(0, owners.size, step):
        part = slice(start, start + step)
        r, c, rep = rows[part], cols[part], replicate[part]
        blocks = _Blocks(np.where(r >= 0, f[rep, r], -1), np.where(c >= 0, g[rep, c], -1),
                         sim[rep[:, :, None], r[:, :, None], c[:, None, :]])
        h[part] = statistic(blocks, threshold)
    return owners, h


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])``, vectorised."""
    return np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts - starts, counts)


def _packed(owner: np.ndarray, item: np.ndarray, n_owners: int, width: int) -> np.ndarray:
    """The distinct items (in [0, width)) of each owner, sorted, as rows padded with -1."""
    marked = np.zeros((n_owners, width), dtype=bool)
    marked[owner, item] = True
    counts = marked.sum(axis=1)
    out = np.full((n_owners, int(counts.max())), -1)
    who, value = np.nonzero(marked)
    out[who, _ranges(np.zeros_like(counts), counts)] = value
    return out


def _breakpoints(t: np.ndarray, low: np.ndarray, high: np.ndarray, shape: tuple[int, int]
                 ) -> np.ndarray:
    """``out[t, a]`` = how many of replicate t's breakpoints ``low``, ``high`` are ≤ a."""
    at = np.concatenate([t * shape[1] + low, t * shape[1] + high])
    return np.cumsum(np.bincount(at, minlength=shape[0] * shape[1]).reshape(shape), axis=1)


def _overlaps(same: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """r = |F ∩ G| (size pairs × B replicates): a shared feature f[t, i] = g[t, j] is in
    both sets of sizes (a, b) iff i < a and j < b."""
    B, S = same.shape[0], len(sizes)
    t, i, j = np.nonzero(same)
    out = np.zeros(S * B)
    step = max(1, _BATCH // max(1, t.size))
    for start in range(0, S, step):
        s, pair = np.nonzero((i < sizes[start : start + step, 0, None])
                             & (j < sizes[start : start + step, 1, None]))
        out += np.bincount((start + s) * B + t[pair], minlength=S * B)
    return out.reshape(S, B)


def _excesses(f: np.ndarray, g: np.ndarray, sim: np.ndarray, same: np.ndarray,
              sizes: np.ndarray, statistic: Statistic, threshold: float) -> np.ndarray:
    """h = I − |F ∩ G| (size pairs × B replicates), 0 without a similar cross pair.

    A similar pair (f[t, i], g[t, j]) lies in the cross block of the sets of sizes (a, b)
    iff i < a ≤ i_f and j < b ≤ j_g, with i_f the position of g[t, j] in f[t] and j_g that
    of f[t, i] in g[t] (the length if absent): which pairs lie in it changes only where a
    or b crosses one of these bounds. The size pairs are grouped into classes — a
    replicate and the number of its bounds ≤ a and ≤ b — and each class is scored once
    (:func:`_excess_of_classes`), on one of its size pairs.
    """
    (B, la), lb, S = f.shape, g.shape[1], len(sizes)
    a, b = sizes[:, 0], sizes[:, 1]
    out = np.zeros((S, B))
    t, i, j = np.nonzero((sim >= threshold) & ~same)  # sorted by replicate
    if t.size == 0:
        return out
    i_f = np.where(same.any(axis=1), same.argmax(axis=1), la)[t, j]
    j_g = np.where(same.any(axis=2), same.argmax(axis=2), lb)[t, i]
    below_a = _breakpoints(t, i + 1, i_f + 1, (B, la + 2))
    below_b = _breakpoints(t, j + 1, j_g + 1, (B, lb + 2))
    busy = np.unique(t)
    width_a, width_b = int(below_a.max()) + 1, int(below_b.max()) + 1
    keys = ((np.arange(busy.size) * width_a + below_a[busy][:, a].T) * width_b
            + below_b[busy][:, b].T)  # (size pairs × busy replicates)
    classes, first, member = np.unique(keys, return_index=True, return_inverse=True)
    size_of, replicate = first // busy.size, busy[first % busy.size]
    count = np.bincount(t, minlength=B)  # edges of each replicate, from offset on
    offset = np.cumsum(count) - count
    value = np.zeros(classes.size)
    step = max(1, _BATCH // max(1, int(count.max())))
    for start in range(0, classes.size, step):
        part = np.arange(start, min(start + step, classes.size))
        owner = np.repeat(part, count[replicate[part]])  # a class with its replicate's edges
        edge = _ranges(offset[replicate[part]], count[replicate[part]])
        ca, cb = a[size_of[owner]], b[size_of[owner]]
        keep = (i[edge] < ca) & (ca <= i_f[edge]) & (j[edge] < cb) & (cb <= j_g[edge])
        if keep.any():
            edge = edge[keep]
            scored, h = _excess_of_classes(owner[keep], (t[edge], i[edge], j[edge]), f, g,
                                           sim, statistic, threshold)
            value[scored] = h
    out[:, busy] = value[member.reshape(keys.shape)]
    return out


def _sampled_expectations(sizes: np.ndarray, similarity: SimilarityView, statistic: Statistic,
                          threshold: float, *, n_samples: int,
                          seed: np.random.SeedSequence) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo E[I] for every size pair (a, b), 0 < a ≤ b, of ``sizes``, and the
    rounding R of the gap max − E (below).

    Replicate t draws two random sequences of distinct features, x_t and y_t (two streams
    of ``seed``, :func:`_random_sequences`); for sizes (a, b) the sets are x_t[:a] and
    y_t[:b], independent and uniform. Every size pair uses the same draws (common random
    numbers), so the similarity block x_t × y_t is computed once for all of them, and the
    value of a size pair depends on ``seed`` and (a, b) only. I = r + h, r = |F ∩ G|; h is
    0 unless the cross block holds a similar pair, and only those combinations are scored
    (:func:`_excesses`). The estimate is the regression (control-variate) estimator
    with the exactly known E[r] = ab/d (Glasserman 2004, *Monte Carlo Methods in Financial
    Engineering*, §4.1.1):

        Ê = ab/d + h̄ − γ̂ (r̄ − ab/d),   γ̂ = cov(h, r) / var(r)   (0 if var(r) = 0),

    i.e. Ī − β̂ (r̄ − ab/d) with β̂ = 1 + γ̂. It is ab/d exactly when no similar pair is drawn
    (h = 0), and Ī when every draw has the same I; its variance, var(I − β r)/N, is at most
    that of Ī and of ab/d + h̄.

    R is :func:`~paretostab._rounding.regression_rounding`.
    """
    d, n = similarity.n_features, n_samples
    first = _random_sequences(_stream(seed, 0), d, n, int(sizes[:, 0].max()))
    second = _random_sequences(_stream(seed, 1), d, n, int(sizes[:, 1].max()))
    step = max(1, _BATCH // (first.shape[1] * second.shape[1]))
    sums = np.zeros((4, len(sizes)))  # Σ r, Σ r², Σ h, Σ h·r over the replicates
    for start in range(0, n, step):
        f, g = first[start : start + step], second[start : start + step]
        same = f[:, :, None] == g[:, None, :]
        r = _overlaps(same, sizes)
        h = _excesses(f, g, similarity.block(f, g), same, sizes, statistic, threshold)
        sums += [r.sum(axis=1), (r * r).sum(axis=1), h.sum(axis=1), (h * r).sum(axis=1)]
    sum_r, sum_r2, sum_h, sum_hr = sums
    var_r = (n * sum_r2 - sum_r * sum_r) / (n * n)  # integers, exactly: 0 if r is constant
    cov = (n * sum_hr - sum_h * sum_r) / (n * n)
    gamma = np.divide(cov, var_r, out=np.zeros(len(sizes)), where=var_r > 0)
    expected_r = sizes[:, 0] * sizes[:, 1] / d
    return (expected_r + sum_h / n - gamma * (sum_r / n - expected_r),
            regression_rounding(n, sizes, d, sums))


def _expectations(n1: np.ndarray, n2: np.ndarray, similarity: SimilarityView,
                  statistic: Statistic, threshold: float, *, n_samples: int,
                  seed: np.random.SeedSequence, similar: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Expected ``statistic`` of two random sets of sizes (n1, n2), and the rounding of
    max − E where it is exactly 0, for every pair of runs.

    Computed once per unordered size pair; every statistic is symmetric in (F, G), so the
    smaller set comes first. Exact when ``similar`` (the similar features) is given
    (:func:`~paretostab.measures._exact.exact_expectations`), else by Monte-Carlo
    (:func:`_sampled_expectations`).
    """
    sizes, inverse = np.unique(
        np.stack([np.minimum(n1, n2), np.maximum(n1, n2)], axis=1).astype(int),
        axis=0, return_inverse=True,
    )
    values, rounding = np.zeros((2, len(sizes)))
    real = sizes[:, 0] > 0  # an empty set shares nothing: the statistic is 0

    def excess(f: np.ndarray, g: np.ndarray) -> np.ndarray:
        blocks = _Blocks(f, g, similarity.block(f, g))
        return statistic(blocks, threshold) - blocks.common

    if similar is not None:
        values[real], rounding[real] = exact_expectations(
            sizes[real], similarity.n_features, similar, excess, batch=_BATCH)
    elif real.any():
        values[real], rounding[real] = _sampled_expectations(
            sizes[real], similarity, statistic, threshold, n_samples=n_samples, seed=seed)
    return values[inverse.ravel()], rounding[inverse.ravel()]


def _ratio(num: np.ndarray, den: np.ndarray, cause: str) -> PairScores:
    """Pair scores ``num / den``, undefined (NaN) where ``den ≤ 0``."""
    undefined = den <= 0
    return PairScores(np.where(undefined, np.nan, num / np.where(undefined, 1.0, den)), cause)


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den = 0`` (there ``num`` is an empty sum)."""
    return np.divide(num, den, out=np.zeros(np.shape(num)), where=den > 0)


# --------------------------------------------------------- intersection statistics


def _yu_intersection(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + (O_FG + O_GF)/2, O_FG = #{x ∈ A : ∃ y ∈ B similar to x}."""
    edges = blocks.similar(threshold)
    return blocks.common + (edges.any(axis=2).sum(axis=1) + edges.any(axis=1).sum(axis=1)) / 2


def _count_intersection(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + min(O_FG, O_GF)."""
    edges = blocks.similar(threshold)
    return blocks.common + np.minimum(edges.any(axis=2).sum(axis=1),
                                      edges.any(axis=1).sum(axis=1))


def _mean_intersection(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + min over the two sides of Σ_x (mean similarity of x to its similar features)."""
    edges = blocks.similar(threshold)
    weights = np.where(edges, blocks.sim, 0.0)
    sides = [
        _safe_divide(weights.sum(axis=axis), edges.sum(axis=axis)).sum(axis=1)
        for axis in (2, 1)
    ]
    return blocks.common + np.minimum(*sides)


def _greedy_intersection(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + size of the greedy matching of the similar cross pairs (001 Algorithm 1).

    Edges are taken by decreasing similarity and accepted when both ends are free; ties
    are broken by the smaller, then the larger feature id of the edge, an order that does
    not depend on which set comes first.
    """
    p, x, y = np.nonzero(blocks.similar(threshold))
    f, g = blocks.f[p, x], blocks.g[p, y]
    order = np.lexsort((np.maximum(f, g), np.minimum(f, g), -blocks.sim[p, x, y], p))
    p, x, y = p[order], x[order], y[order]
    counts = np.bincount(p, minlength=len(blocks.common))
    starts = np.cumsum(counts) - counts
    free_f, free_g = blocks.in_f.copy(), blocks.in_g.copy()
    size = np.zeros(len(counts))
    for t in range(int(counts.max(initial=0))):
        edge = starts[counts > t] + t  # the t-th best edge of every pair that has one
        take = free_f[p[edge], x[edge]] & free_g[p[edge], y[edge]]
        edge = edge[take]
        free_f[p[edge], x[edge]] = False
        free_g[p[edge], y[edge]] = False
        size[p[edge]] += 1
    return blocks.common + size


def _mbm_intersection(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + size of a maximum bipartite matching of the similar cross pairs.

    All pairs of the batch form one block-diagonal bipartite graph (Hopcroft–Karp in
    scipy); a matching of the union is a matching of every block.
    """
    p, x, y = np.nonzero(blocks.similar(threshold))
    if p.size == 0:
        return blocks.common
    P, a, b = blocks.sim.shape
    graph = sparse.csr_array((np.ones(p.size, dtype=np.int8), (p * a + x, p * b + y)),
                             shape=(P * a, P * b))
    matched = np.flatnonzero(maximum_bipartite_matching(graph, perm_type="column") >= 0)
    return blocks.common + np.bincount(matched // a, minlength=P)


def _half_sum(n1: np.ndarray, n2: np.ndarray) -> np.ndarray:
    return (n1 + n2) / 2


def _geometric_mean(n1: np.ndarray, n2: np.ndarray) -> np.ndarray:
    return np.sqrt(n1 * n2)


def _corrected(Z: np.ndarray, similarity: SimilarityView, statistic: Statistic,
               maximum: Callable[[np.ndarray, np.ndarray], np.ndarray], *, threshold: object,
               n_samples: object, random_state: object, expectation: object,
               empty: str = "a run selected no feature") -> PairScores:
    """Pair scores (I − E)/(max − E) of a corrected adjusted measure (SPEC §2a)."""
    threshold = _check_threshold(threshold)
    n_samples = _N_SAMPLES.integer("n_samples", n_samples)
    expectation = _check_expectation(expectation)
    seed = _seed_sequence(random_state)
    n1, n2, _ = pair_counts(Z)
    observed = _pair_statistic(Z, similarity, statistic, threshold)
    similar: np.ndarray | None = None
    if expectation == "exact":
        similar = similarity.similar_features(threshold)
    else:  # the draws read N blocks of max a × max b similarities, pairs 0 < a ≤ b
        small, large = np.minimum(n1, n2), np.maximum(n1, n2)
        drawn = n_samples * int(small.max(initial=0) * large[small > 0].max(initial=0))
        similar = affordable_similar_features(similarity.source, threshold, read=drawn)
        similar = None if similar is None or similar.size else similar
    if similar is not None and not similar.size:  # stabm: the plain intersection, SMU
        maximum, empty = _geometric_mean, "a run selected no feature"
    top = maximum(n1, n2)
    # E ≤ max; an estimate beyond it (possible near saturation) is max, and a gap within
    # the rounding of its computation (derived with E's) is none: the score is then
    # undefined, not a ratio of rounding errors
    expected, rounding = _expectations(n1, n2, similarity, statistic, threshold,
                                       n_samples=n_samples, seed=seed, similar=similar)
    expected = np.minimum(top, expected)
    gap = np.where(top - expected > rounding, top - expected, 0.0)
    return _ratio(observed - expected, gap,
                  f"{empty}, or both selected all features, or random sets of their sizes "
                  "always reach the maximum (max = E)")


# ---------------------------------------------------------------------- the measures


@register("sechidis", symbol="φ_S", input="selection", bounds=(-math.inf, math.inf), corrected=True,
          needs_similarity=True, identical_runs_maximal=False,
          reference="Sechidis et al. ECML PKDD 2019; 000 eq. 3; stabm stabilitySechidis")
def sechidis(Z: np.ndarray, *, similarity: SimilarityView, threshold: float | None = None,
             n_samples: int = 1024, random_state: object = 0) -> float:
    """φ_S = 1 − tr(C K_ZZ) / tr(C Σ⁰), Nogueira's φ generalised to similar features.

    ``K_ZZ`` is the unbiased covariance of the columns of ``Z``; ``Σ⁰`` its value under
    random selection: diagonal (k̄/d)(1 − k̄/d), off-diagonal
    ω = (mean_i k_i² − k̄)/(d² − d) − k̄²/d² (000 eq. 3; SPEC §2a; stabm). ``C`` is the raw
    similarity ``S`` with ``threshold=None`` (as 000 uses it) or ``S`` with the entries
    below ``threshold`` set to 0 (as stabm, whose default is 0.9). With ``S`` the identity
    φ_S is φ (``nogueira``). Corrected for chance: for a constant k, E[K_ZZ] = Σ⁰ under
    random selection, so E[φ_S] = 0.

    Not bounded below (000 §4: it tends to −∞ in stable-looking scenarios), and not
    bounded above either when ``C`` is not positive semi-definite: then tr(C K_ZZ) can be
    negative and φ_S > 1 (e.g. runs {0, 2} and {1} with S[0,1] = S[1,2] = 1, S[0,2] = 0;
    stabm lists no maximum). Identical runs give 1. Undefined (NaN) when k̄ ∈ {0, d} or
    tr(C Σ⁰) = 0 (e.g. every pair of features fully similar).

    ``K_ZZ`` vanishes outside the features selected at least once, so tr(C K_ZZ) uses only
    that block of ``S``, exactly. tr(C Σ⁰) = d (k̄/d)(1 − k̄/d) + ω Σ_{f≠g} C[f, g] needs
    the sum Σ over all d features (:func:`paretostab._similarity.offdiagonal_sum`): exact
    when the d(d − 1)/2 pairs are at most the ``n_samples`` · 32² the estimate samples
    (d ≤ 1 448 by default), otherwise estimated from ``n_samples`` random 32 × 32 blocks
    of feature pairs with standard error SE(Σ) ≤ d²/(2√n_samples). φ_S then moves by
    about |1 − φ_S| · |ω| · SE(Σ) / tr(C Σ⁰); as |ω| d² ≈ |var k − k̄| and
    tr(C Σ⁰) ≈ k̄, that is at most |1 − φ_S| · |var k / k̄ − 1| / (2√n_samples)
    (5·10⁻⁴ · |1 − φ_S| for constant k and the default n_samples).

    Parameters
    ----------
    Z : array of shape (M, d), bool
        The selection matrix.
    similarity : SimilarityView
        The feature similarity (``similarity=`` of :func:`~paretostab.measures.stability`).
    threshold : float in [0, 1] or None
        ``None`` uses the raw similarity (000); a number zeroes the entries below it
        (stabm, whose default is 0.9).
    n_samples : int ≥ 1
        Random 32 × 32 blocks of feature pairs estimating Σ_{f≠g} C[f, g] when d is
        large (see above); more blocks, exact for larger d.
    random_state : int, None, numpy.random.Generator or numpy.random.SeedSequence
        Seed of the sampled feature pairs.
    """
    threshold = _check_threshold(threshold, none_ok=True)
    n_samples = _N_SAMPLES.integer("n_samples", n_samples)
    seed = _seed_sequence(random_state)
    M, d = Z.shape
    k = Z.sum(axis=1).astype(float)
    k_bar = k.mean()
    if k_bar == 0 or k_bar == d:
        raise UndefinedMeasure(f"k̄ = {k_bar:g} (φ_S needs 0 < k̄ < d = {d})")
    S = similarity.matrix
    C = S if threshold is None else np.where(S >= threshold, S, 0.0)
    selected = Z[:, similarity.features].astype(float)
    centred = selected - selected.mean(axis=0)
    numerator = float(np.sum((centred @ C) * centred)) / (M - 1)
    diagonal = k_bar / d * (1 - k_bar / d)
    off_diagonal = (np.mean(k**2) - k_bar) / (d * d - d) - k_bar**2 / d**2
    total = offdiagonal_sum(similarity, threshold, n_samples=n_samples, random_state=seed)
    denominator = d * diagonal + off_diagonal * total.value
    terms = d * diagonal + total.value * (np.mean(k**2) + k_bar + k_bar**2) / (d * d - d)
    if denominator <= 2 * gamma_n(M + d * d + 8) * terms:  # Σ⁰: M + 8 roundings, total: d²
        raise UndefinedMeasure("tr(C Σ⁰) = 0 (all selected features are mutually similar)")
    return 1 - numerator / denominator


def _pogr_score(blocks: _Blocks, threshold: float) -> np.ndarray:
    """½((|F ∩ G| + O_FG)/|F| + (|F ∩ G| + O_GF)/|G|).

    ``O_FG`` = #{x ∈ F \\ G similar to some y ∈ G}, shared features of G included.
    """
    hits = (blocks.sim >= threshold) & blocks.in_f[:, :, None] & blocks.in_g[:, None, :]
    o_fg = (blocks.only_f & hits.any(axis=2)).sum(axis=1)
    o_gf = (blocks.only_g & hits.any(axis=1)).sum(axis=1)
    n_f, n_g = blocks.in_f.sum(axis=1), blocks.in_g.sum(axis=1)
    return (_safe_divide(blocks.common + o_fg, n_f) + _safe_divide(blocks.common + o_gf, n_g)) / 2


@register("pogr", input="selection", bounds=(0, 1), corrected=False, needs_similarity=True,
          reference="Zhang et al. 2009 (POGR); 000 eq. 4")
def pogr(Z: np.ndarray, *, similarity: SimilarityView, threshold: float = 0.9) -> PairScores:
    """POGR: mean over ordered pairs i ≠ j of (|F_i ∩ F_j| + O_ij) / k_i (000 eq. 4).

    ``O_ij`` counts the features of F_i \\ F_j similar (``S ≥ threshold``) to at least one
    feature of F_j — including the shared ones, as 000's Table 1 requires. The mean over
    ordered pairs is the mean over pairs i < j of the average of the two directions; that
    pair is undefined (NaN) when either run selected no feature (k_i = 0 in a
    denominator). Not corrected for chance.

    Parameters
    ----------
    Z : array of shape (M, d), bool
        The selection matrix.
    similarity : SimilarityView
        The feature similarity (``similarity=`` of :func:`~paretostab.measures.stability`).
    threshold : float in [0, 1]
        "Significantly correlated" of 000 read as ``S ≥ threshold`` (inclusive).
    """
    threshold = _check_threshold(threshold)
    k_i, k_j, _ = pair_counts(Z)
    score = _pair_statistic(Z, similarity, _pogr_score, threshold)
    undefined = (k_i == 0) | (k_j == 0)
    return PairScores(np.where(undefined, np.nan, score),
                      "a run selected no feature (POGR divides by its k_i)")


@register("unadjusted", input="selection", bounds=(-1, 1), corrected=True,
          reference="001 (SMU); stabm stabilityUnadjusted")
def unadjusted(Z: np.ndarray) -> PairScores:
    """SMU: mean over pairs of (r − n1n2/d) / (√(n1n2) − n1n2/d), r = |F_i ∩ F_j|.

    The corrected intersection that the adjusted SMA-* measures extend (001 §2.2); it
    uses no similarity. Undefined when a run selected no feature or both selected all d.
    """
    n1, n2, r = pair_counts(Z)
    expected = n1 * n2 / Z.shape[1]
    return _ratio(r - expected, np.sqrt(n1 * n2) - expected,
                  "a run selected no feature, or both runs selected all features")


def _zucknick_numerator(blocks: _Blocks, threshold: float) -> np.ndarray:
    """|F ∩ G| + c(F, G) + c(G, F), c(F, G) = Σ_{x ∈ F, y ∈ G \\ F, S ≥ θ} S[x, y] / |G|."""
    real = blocks.in_f[:, :, None] & blocks.in_g[:, None, :] & (blocks.sim >= threshold)
    weights = np.where(real, blocks.sim, 0.0)
    to_g = (weights * blocks.only_g[:, None, :]).sum(axis=(1, 2))
    to_f = (weights * blocks.only_f[:, :, None]).sum(axis=(1, 2))
    return (blocks.common + _safe_divide(to_g, blocks.in_g.sum(axis=1))
            + _safe_divide(to_f, blocks.in_f.sum(axis=1)))


@register("zucknick", input="selection", bounds=(0, 1), corrected=False, needs_similarity=True,
          reference="Zucknick et al. 2008; 001 (SMZ); stabm stabilityZucknick")
def zucknick(Z: np.ndarray, *, similarity: SimilarityView, threshold: float = 0.9) -> PairScores:
    """SMZ: mean over pairs of (|F_i ∩ F_j| + c(F_i, F_j) + c(F_j, F_i)) / |F_i ∪ F_j|.

    ``c(F_k, F_l) = (1/|F_l|) Σ S[x, y]`` over x ∈ F_k, y ∈ F_l \\ F_k with
    ``S[x, y] ≥ threshold`` (stabm's generalisation of Zucknick et al.'s correlation-based
    Jaccard index). Unlike the other adjusted measures, x ranges over all of F_k, shared
    features included. Not corrected for chance. Undefined when both runs are empty.

    Parameters
    ----------
    Z : array of shape (M, d), bool
        The selection matrix.
    similarity : SimilarityView
        The feature similarity (``similarity=`` of :func:`~paretostab.measures.stability`).
    threshold : float in [0, 1]
        Similarities below it count as 0 (inclusive: ``S ≥ threshold`` counts).
    """
    threshold = _check_threshold(threshold)
    n1, n2, r = pair_counts(Z)
    numerator = _pair_statistic(Z, similarity, _zucknick_numerator, threshold)
    return _ratio(numerator, n1 + n2 - r, "two runs selected no feature")


def _register_corrected(name: str, statistic: Statistic,
                        maximum: Callable[[np.ndarray, np.ndarray], np.ndarray], *,
                        reference: str, doc: str,
                        empty: str = "a run selected no feature") -> Callable:
    """Define and register a corrected adjusted measure: (I − E)/(max − E) of ``statistic``."""

    def measure(Z: np.ndarray, *, similarity: SimilarityView, threshold: float = 0.9,
                n_samples: int = 10_000, random_state: object = 0,
                expectation: str = "monte_carlo") -> PairScores:
        return _corrected(Z, similarity, statistic, maximum, threshold=threshold,
                          n_samples=n_samples, random_state=random_state,
                          expectation=expectation, empty=empty)

    measure.__name__ = measure.__qualname__ = name
    measure.__doc__ = inspect.cleandoc(doc) + "\n\n" + _CORRECTED_OPTIONS
    return register(name, input="selection", bounds=(-math.inf, 1), corrected=True,
                    needs_similarity=True, reference=reference)(measure)


yu = _register_corrected(
    "yu", _yu_intersection, _half_sum, empty="two runs selected no feature",
    reference="Yu et al. 2012; Zhang et al. 2009; 001 (SMY); stabm stabilityYu",
    doc="""SMY: mean over pairs of (I − E)/((n1 + n2)/2 − E), I = r + (O_ij + O_ji)/2.

    ``O_ij`` counts the features of F_i \\ F_j with a similar feature in F_j \\ F_i (001
    §2.2; stabm). Several features of one set may count for the same feature of the other,
    which lets SMY reach 1 for sets that differ in redundancy (001's motivation for SMA).
    """,
)

sma_count = _register_corrected(
    "sma_count", _count_intersection, _geometric_mean,
    reference="001 (SMA-Count); stabm stabilityIntersectionCount",
    doc="""SMA-Count: mean over pairs of (I − E)/(√(n1n2) − E), I = r + min(O_ij, O_ji).

    ``O_ij`` as for ``yu``. 001's recommended adjusted measure (fastest of the SMA-*).
    """,
)

sma_mean = _register_corrected(
    "sma_mean", _mean_intersection, _geometric_mean,
    reference="001 (SMA-Mean); stabm stabilityIntersectionMean",
    doc="""SMA-Mean: as SMA-Count, each similar feature weighted by its mean similarity.

    Mean over pairs of (I − E)/(√(n1n2) − E) with
    ``I = r + min(Σ_{x ∈ A} mean_{y ∈ G_x} S[x, y], Σ_{y ∈ B} mean_{x ∈ G'_y} S[x, y])``
    over the features whose set ``G_x`` of similar features across the cross block
    A × B (A = F_i \\ F_j, B = F_j \\ F_i) is not empty (001 §2.2; stabm).
    """,
)

sma_greedy = _register_corrected(
    "sma_greedy", _greedy_intersection, _geometric_mean,
    reference="001 (SMA-Greedy, Algorithm 1); stabm stabilityIntersectionGreedy",
    doc="""SMA-Greedy: as SMA-Count, with a greedy matching of the similar features.

    Mean over pairs of (I − E)/(√(n1n2) − E) with I = r + the size of a greedy matching
    of the similar pairs of A × B (A = F_i \\ F_j, B = F_j \\ F_i). Edges by decreasing
    similarity, accepted if both ends are still free (001 Algorithm 1); ties by the
    smaller, then the larger feature index of the edge (stabm breaks them by its
    sparse-matrix storage order). Never above SMA-MBM's matching.
    """,
)

sma_mbm = _register_corrected(
    "sma_mbm", _mbm_intersection, _geometric_mean,
    reference="001 (SMA-MBM); stabm stabilityIntersectionMBM",
    doc="""SMA-MBM: as SMA-Count, with a maximum bipartite matching of the similar features.

    Mean over pairs of (I − E)/(√(n1n2) − E) with I = r + the size of a maximum matching
    of the bipartite graph joining x ∈ F_i \\ F_j and y ∈ F_j \\ F_i when
    ``S[x, y] ≥ threshold`` (001 §2.2; Hopcroft–Karp via scipy).
    """,
)
