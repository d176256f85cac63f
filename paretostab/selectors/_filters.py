"""The filters compared by 000 §6.2 and 003 §7.2: t-test, MIM and mRMR.

Each ranks the features by a univariate (or greedy) score — ``rank_order_`` by decreasing
score, ties broken by feature index —, selects the top ``n_features`` (k) and fits an
L2-logistic final model with ``final_reg`` on them (one-vs-rest with K > 2 classes);
``importances_`` is I_lin (003 eq. 7) of that model:

* t-test: |Welch's t|; Welch's ANOVA F with K > 2 classes;
* MIM: I(f; y), by default R infotheo's plug-in estimate on equal-frequency bins as 000
  §6.2 ran it, or Ross's k-NN estimator;
* mRMR: greedy relevance − redundancy.

Penalty convention of the package: ``final_reg=λ`` is ``LogisticRegression(C=1/(2λ))`` on
the standardised selected features, with an unpenalised intercept.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats
from scipy.special import digamma, xlogy
from sklearn.preprocessing import scale
from sklearn.utils import check_random_state

from paretostab._errors import InvalidInputError
from paretostab._importance import linear_importance
from paretostab.selectors._base import (
    LogisticModelMixin,
    SelectorBase,
    as_random_state,
    check_at_least,
    check_n_features,
    check_positive,
    descending_order,
    rank_positions,
    ranked,
)
from paretostab.selectors._hybrid_rfe import class_separation
from paretostab.selectors._logistic import fit_l2_logistic

# ----------------------------------------------------------------------------- filters


class _FilterSelector(LogisticModelMixin, SelectorBase):
    """A univariate or greedy filter ranking, top k, then an L2-logistic final model.

    Subclasses implement ``_rank(sample, k) -> (order, scores)`` on the
    :class:`~paretostab.selectors.TrainingSample`: all d features best first, and the score
    each is ranked by (memoised on the sample: a ranking depends on the data and on the
    parameters it names, not on ``final_reg``).
    """

    def _select(self, sample):
        d = sample.n_features
        k = check_n_features(self.n_features, d)
        check_positive("final_reg", self.final_reg)
        order, scores = self._rank(sample, k)
        kept = np.sort(order[:k])
        self.scores_ = scores
        self.rank_order_ = rank_positions(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.coef_, self.intercept_ = fit_l2_logistic(sample.X_std[:, kept], sample.signs,
                                                      reg=self.final_reg)
        self.importances_ = np.zeros(d)
        self.importances_[kept] = linear_importance(self.coef_)


class TTestSelector(_FilterSelector):
    """The t-test filter of 000 §6.2: the k features of largest ``|Welch's t|`` (two classes)
    or of largest Welch's ANOVA F (K > 2 classes).

    ``scores_`` = ``|t|`` of Welch's unequal-variance t-test between the two classes (0 for a
    constant feature, inf where both classes are constant with different means); with
    K > 2 classes, Welch's heteroscedastic one-way ANOVA F
    (:func:`~paretostab.selectors._hybrid_rfe.welch_anova_f`), the
    K-class form of Welch's t: for K = 2 it is t², so the ranking is the binary one. The
    final model is the L2-logistic regression with ``final_reg`` on the k features (one
    per class, one-vs-rest, with K > 2 classes).

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    final_reg : float > 0
        λ_f of the final model (``LogisticRegression(C=1/(2λ_f))``).

    Attributes
    ----------
    support_, importances_ (I_lin of the final model), rank_order_ (by decreasing |t|
    or F, ties by index), scores_, coef_, intercept_, classes_, mean_, scale_.
    """

    def __init__(self, n_features=20, final_reg=1.0):
        self.n_features = n_features
        self.final_reg = final_reg

    def _rank(self, sample, k):
        return sample.memo(("class_separation_ranking",), lambda: ranked(
            class_separation(sample.X, sample.signs)))


def _window_counts(sorted_columns: np.ndarray, values: np.ndarray,
                   radius: np.ndarray) -> np.ndarray:
    """``#{q : |S[q, j] − values[i, j]| ≤ radius[i, j]}`` for every (i, j), exactly.

    The difference is evaluated in floating point as a k-d tree does, so that the counts
    equal scikit-learn's ``KDTree.query_radius``. Columns are searched at once in one
    sorted array (column j shifted by an offset); the offsets' rounding only perturbs the
    approximate window, which is then corrected element by element (each value lies in
    its own window, so the corrections stop).
    """
    n, d = sorted_columns.shape
    span = 2.0 * (float(np.max(sorted_columns) - np.min(sorted_columns)) + 1.0)
    offset = np.arange(d) * span
    flat = (sorted_columns + offset).T.ravel()
    start = np.arange(d) * n
    left = np.searchsorted(flat, (values - radius + offset).ravel(), side="left")
    right = np.searchsorted(flat, (values + radius + offset).ravel(), side="right")
    left = np.clip(left.reshape(n, d) - start, 0, n - 1)
    right = np.clip(right.reshape(n, d) - start - 1, 0, n - 1)
    columns = np.broadcast_to(np.arange(d), (n, d))

    def inside(position):
        return np.abs(sorted_columns[position, columns] - values) <= radius

    for bound, outward, edge in ((left, -1, 0), (right, 1, n - 1)):
        while True:
            grow = (bound != edge) & inside(np.clip(bound + outward, 0, n - 1))
            shrink = ~inside(bound)
            if not (grow.any() or shrink.any()):
                break
            bound += outward * grow.astype(np.int64) - outward * shrink.astype(np.int64)
    return right - left + 1


def mutual_info_classif_fast(X: np.ndarray, labels: np.ndarray, *, n_neighbors: int = 3,
                             random_state: int | np.random.RandomState | None = None
                             ) -> np.ndarray:
    """``sklearn.feature_selection.mutual_info_classif(X, labels, n_neighbors=…,
    random_state=…)`` for continuous features, vectorised over the features.

    Ross's nearest-neighbour estimator of I(X_f; y) (B. C. Ross, PLoS ONE 9(2), 2014) on
    each feature scaled to unit variance plus scikit-learn's 1e-10 noise, drawn from the
    same ``random_state`` in the same order; negative estimates become 0. One-dimensional
    neighbour searches are sorts, so d = 5 000 features take a fraction of a second instead
    of seconds; the result is identical, bit for bit, when every class has more than
    ``2 · min(n_neighbors, size − 1) + 1`` examples. Otherwise scikit-learn searches that
    class's neighbours by brute force with rounded expanded distances, and this function
    calls it instead (same result, its speed).
    """
    from sklearn.feature_selection import mutual_info_classif

    rng = check_random_state(random_state)
    counts = np.bincount(labels)
    for count in counts[counts > 1]:
        if min(n_neighbors, count - 1) >= count // 2:  # scikit-learn's brute-force case
            return mutual_info_classif(X, labels, n_neighbors=n_neighbors, random_state=rng)
    X = scale(X, with_mean=False)
    means = np.maximum(1, np.mean(np.abs(X), axis=0))
    X += 1e-10 * means * rng.standard_normal(size=X.shape)
    n, d = X.shape
    label_counts = counts[labels].astype(float)
    radius = np.empty((n, d))
    k_all = np.empty(n)
    for label in np.flatnonzero(counts > 1):
        rows = np.flatnonzero(labels == label)
        size = rows.size
        k = min(n_neighbors, size - 1)
        order = np.argsort(X[rows], axis=0, kind="stable")
        values = np.take_along_axis(X[rows], order, axis=0)
        # the k nearest others of a sorted value are among the k on each side
        candidates = np.full((2 * k, size, d), np.inf)
        for step in range(1, k + 1):
            gap = values[step:] - values[:-step]
            candidates[step - 1, : size - step] = gap
            candidates[k + step - 1, step:] = gap
        kth = np.partition(candidates, k - 1, axis=0)[k - 1]
        distance = np.empty_like(kth)
        np.put_along_axis(distance, order, kth, axis=0)
        radius[rows] = np.nextafter(distance, 0)
        k_all[rows] = k
    kept = label_counts > 1
    values, radius = X[kept], radius[kept]
    within = _window_counts(np.sort(values, axis=0), values, radius)
    mi = (digamma(int(kept.sum())) + np.mean(digamma(k_all[kept]))
          - np.mean(digamma(label_counts[kept]))
          - np.mean(digamma(np.ascontiguousarray(within.T, dtype=float)), axis=1))
    return np.maximum(0, mi)


def infotheo_n_bins(n: int) -> int:
    """R infotheo's default number of bins for ``n`` examples: ``as.integer(n^(1/3))``.

    ``discretize(X, disc="equalfreq", nbins=NROW(X)^(1/3))`` passes ``as.integer(nbins)``
    to its C++ code (infotheo 1.2.0, the version since which N^(1/3) is the default):
    the cube root *truncated*, not rounded up — 62 examples (alon) get 3 bins, 102
    (singh) 4. The cube root is the C library's ``pow(n, 1/3)``, as in R, so a perfect
    cube whose root rounds down gets one bin less: 64 gives 3.9999999999999996, so 3.
    Below 8 examples there is 1 bin, and every feature has mutual information 0.
    """
    return max(1, int(n ** (1 / 3)))


def equal_frequency_bins(X: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin codes 0..``n_bins``−1 of every feature, as R infotheo's ``discretize(X,
    disc="equalfreq", nbins=n_bins)`` assigns them (its C++ ``discEF``, minus 1).

    Per feature, with its n values sorted, ``freq = n // n_bins`` and ``mod = n % n_bins``:
    the cut points are the sorted values at positions ``(i + 1) · freq − 1``, plus one for
    the first ``mod`` cuts (i = 0 … n_bins − 2; infotheo gives the remainder to the first
    cuts one position each, without shifting the later ones, so the bins are not quite
    equal in size), and a value goes to the first bin whose cut it does not exceed. Ties
    therefore never straddle a cut: a value equal to a cut point is in the lower bin, and
    repeated cut points leave bins empty (a constant feature is all in bin 0). The codes
    depend only on the order of the values: the same for any increasing transformation of
    a feature. Vectorised over the features (one sort, ``n_bins − 1`` comparisons).

    Parameters
    ----------
    X : array (n, d)
    n_bins : int in [1, n]
    """
    n = X.shape[0]
    freq, mod = divmod(n, n_bins)
    cut = np.arange(n_bins - 1)
    positions = (cut + 1) * freq - 1 + (cut < mod)
    cuts = np.sort(X, axis=0)[positions] if positions.size else np.zeros((0, X.shape[1]))
    codes = np.zeros(X.shape, dtype=np.intp)
    for value in cuts:  # cut points are non-decreasing: count those below each value
        codes += X > value
    return codes


def discrete_mutual_info(codes: np.ndarray, labels: np.ndarray, n_bins: int) -> np.ndarray:
    """Plug-in mutual information I(X_f; y) in nats of discrete features and class labels.

    R infotheo's ``mutinformation(X_f, y, method="emp")`` — ``H(X) + H(y) − H(X, y)`` with
    the empirical entropies, negative values set to 0 — computed in an equivalent form
    that makes equal estimates equal floats. With n_bc the examples of bin b and class c
    (c = 0 … K − 1; K ≥ 2 classes, the K-class plug-in estimate as infotheo computes it
    for a factor of K levels),

        n · I = Σ_b Σ_c n_bc log(n · n_bc / (n_b n_c)) = Σ_b m_b t(r_b),

    where a bin's counts are ``m_b`` times the coprime tuple ``r_b = (n_b0, …, n_bK−1) /
    m_b`` (m_b their gcd) and ``t(r) = Σ_c r_c log(n r_c / ((Σ_c' r_c') n_c))`` depends on
    the bin only through its class proportions. The bins of equal proportions are summed
    first (Σ m_b, an integer), then multiplied by t, and the terms — of t over the classes,
    then over the bins — added in sorted order. Two tables that are equal up to the order
    of their bins, the merging of bins of the same proportions, or — with classes of equal
    size — the order of the classes have the same mutual information, and here exactly the
    same float: with a few bins many features share one (alon: 399 distinct values for
    2 000 features), and their ranking is then a tie broken by feature index (R's
    summation order breaks them by rounding noise). Each ratio of integer products is exact
    before its one rounding, so a feature independent of the class in the sample — a
    constant one in particular — gets exactly 0. Renumbering the classes (with their
    sizes) does not change a single bit.

    Parameters
    ----------
    codes : int array (n, d) of values in 0..``n_bins``−1
    labels : int array (n,) of class indices 0..K−1 (K = 2 when only 0 and 1 occur)
    n_bins : int
    """
    n, d = codes.shape
    index = codes * d + np.arange(d)
    n_classes = max(2, int(labels.max()) + 1)
    counts = [np.bincount(index[labels == c].ravel(), minlength=n_bins * d).reshape(n_bins, d)
              for c in range(n_classes)]
    class_size = [int(np.count_nonzero(labels == c)) for c in range(n_classes)]
    m = functools.reduce(np.gcd, counts)  # 0 for an empty bin
    safe = np.maximum(m, 1)
    reduced = [count // safe for count in counts]
    size = sum(reduced)
    t = sum(np.sort([xlogy(r, np.where(r > 0, (n * r) / np.maximum(size * c, 1), 1.0))
                     for r, c in zip(reduced, class_size, strict=True)], axis=0))
    # group the bins by proportion: sort them by it, sum m over each run of equal tuples
    order = np.lexsort(reduced[::-1], axis=0)
    reduced = [np.take_along_axis(r, order, axis=0) for r in reduced]
    m, t = (np.take_along_axis(a, order, axis=0) for a in (m, t))
    starts = np.ones((n_bins + 1, d), dtype=bool)  # starts[b]: bin b opens a new run
    starts[1:n_bins] = np.logical_or.reduce([r[1:] != r[:-1] for r in reduced])
    terms = np.zeros((n_bins, d))
    running = np.zeros(d, dtype=np.int64)
    for b in range(n_bins):
        running = m[b] + (np.where(starts[b], 0, running) if b else 0)
        terms[b] = np.where(starts[b + 1], running * t[b], 0.0)
    mi = np.sort(terms, axis=0).sum(axis=0)
    return np.maximum(mi / n, 0.0)


def infotheo_mutual_info(X: np.ndarray, labels: np.ndarray,
                         n_bins: int | None = None) -> np.ndarray:
    """I(X_f; y) in nats as 000 §6.2's MIM computed it with R infotheo: each feature
    discretised by :func:`equal_frequency_bins` into ``n_bins`` bins (None: infotheo's
    default :func:`infotheo_n_bins`; capped at n), then :func:`discrete_mutual_info`.

    Checked against infotheo 1.2.0.1 itself (built from its CRAN source;
    ``mutinformation(discretize(X)[, f], y)`` per feature) on 12 data sets — n = 5 … 125
    with ties, constant and few-valued features, and a bootstrap sample of alon: the same
    bin codes everywhere, estimates within 2e-15, and the same rankings once R's
    rounding noise between equal estimates is set aside (ties by index)."""
    n = X.shape[0]
    n_bins = infotheo_n_bins(n) if n_bins is None else min(int(n_bins), n)
    return discrete_mutual_info(equal_frequency_bins(X, n_bins), labels, n_bins)


#: Mutual information estimators of :class:`MIMSelector`.
MI_ESTIMATORS = ("discrete", "knn")


class MIMSelector(_FilterSelector):
    """Mutual information maximisation (000 §6.2): the k features of largest I(f; y).

    ``scores_`` = the estimate of I(f; y) in nats chosen by ``estimator``, y the class of
    K ≥ 2 values (both estimators take the K-class mutual information as it is):

    * ``"discrete"`` (default): the papers' estimator. 000 §6.2 ran MIM with the R package
      infotheo, whose defaults discretise each feature into ⌊n^{1/3}⌋ equal-frequency bins
      (``discretize(X)``: ``disc="equalfreq"``, ``nbins=NROW(X)^(1/3)`` truncated by
      ``as.integer``, see :func:`infotheo_n_bins`; its cut points and ties as
      :func:`equal_frequency_bins` documents) and estimate the mutual information with
      the class by the plug-in (``method="emp"``) entropies
      (:func:`discrete_mutual_info`). Computed on the raw training features (bins depend
      only on each feature's order); d = 12 600 features × n = 102 take ≈ 0.04 s
      (the k-NN estimator: ≈ 5 s).
      ``n_bins`` overrides the number of bins;
    * ``"knn"``: scikit-learn's ``mutual_info_classif`` (Ross's k-NN estimator with
      ``n_neighbors`` neighbours, negative estimates set to 0) on the standardised
      features, seeded by ``random_state`` (the estimator adds a 1e-10 jitter); computed
      by :func:`mutual_info_classif_fast`, identical and much faster for large d.

    The choice matters. Through :func:`~paretostab._protocol.run_protocol` (30 bootstrap
    runs, pre-filter to 5 000 features, k = 20; protocol seeds 0, 1, 2) MIM's stability
    φ (Nogueira) is 0.48–0.50 with the discrete estimator against 0.27–0.31 with the
    k-NN one on singh (102 × 12 600; accuracy 0.90–0.93 with either), and 0.21–0.24
    against 0.07 on alon (62 × 2 000; accuracy 0.78–0.82); with 100 runs (seed 0):
    0.50 against 0.29 (singh), 0.24 against 0.07 (alon). Not an artefact of ties broken
    by index: broken at random instead, φ moves by at most 0.003. The difference is at
    the top of the rankings: on two bootstrap samples of singh (pre-filtered) the top 20
    of the discrete estimator share 9–13 features, those of the k-NN one 4–9 (4 pairs),
    while the rank correlation over all 5 000 features is alike (0.17–0.48 against
    0.26–0.32). The final model is the L2-logistic regression with ``final_reg`` on the
    k features (one-vs-rest with K > 2 classes).

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    final_reg : float > 0
        λ_f of the final model (``LogisticRegression(C=1/(2λ_f))``).
    estimator : {"discrete", "knn"}
        The mutual information estimator (above).
    n_bins : int ≥ 1 or None
        Bins of the ``"discrete"`` estimator (capped at n); None: infotheo's default
        ⌊n^{1/3}⌋. Ignored by ``"knn"``.
    n_neighbors : int ≥ 1
        Neighbours of the ``"knn"`` estimator (scikit-learn's default 3). Ignored by
        ``"discrete"``.
    random_state : int, RandomState or None
        Seeds the ``"knn"`` estimator's jitter. Ignored by ``"discrete"`` (deterministic).

    Attributes
    ----------
    support_, importances_ (I_lin), rank_order_ (by decreasing MI, ties — frequent with
    the discrete estimator, and the features estimated at 0 — by index), scores_,
    n_bins_ (the bins used by the discrete estimator; None for "knn"), coef_,
    intercept_, classes_, mean_, scale_.
    """

    def __init__(self, n_features=20, final_reg=1.0, estimator="discrete", n_bins=None,
                 n_neighbors=3, random_state=None):
        self.n_features = n_features
        self.final_reg = final_reg
        self.estimator = estimator
        self.n_bins = n_bins
        self.n_neighbors = n_neighbors
        self.random_state = random_state

    def _rank(self, sample, k):
        if not isinstance(self.estimator, str) or self.estimator not in MI_ESTIMATORS:
            raise InvalidInputError(
                f"estimator must be one of {', '.join(map(repr, MI_ESTIMATORS))} (the "
                f"mutual information estimator); got {self.estimator!r}."
            )
        if self.estimator == "discrete":
            if self.n_bins is None:
                n_bins = infotheo_n_bins(sample.X.shape[0])
            else:
                n_bins = min(check_at_least("n_bins", self.n_bins, 1,
                                             "bins of the discrete estimator, or None for "
                                             "infotheo's n^(1/3)"), sample.X.shape[0])
            self.n_bins_: int | None = n_bins
            return sample.memo(("mim", "discrete", n_bins), lambda: ranked(
                infotheo_mutual_info(sample.X, sample.class_index, n_bins)))
        n_neighbors = check_at_least("n_neighbors", self.n_neighbors, 1,
                                      "neighbours of the mutual information estimator")
        rng = as_random_state(self.random_state)
        self.n_bins_ = None

        def compute():
            return ranked(mutual_info_classif_fast(sample.X_std, sample.class_index,
                                                     n_neighbors=n_neighbors,
                                                     random_state=rng))

        if isinstance(self.random_state, int | np.integer):  # a seed: deterministic
            return sample.memo(("mim", "knn", n_neighbors, int(self.random_state)), compute)
        return compute()


#: r² is capped below 1 so that identical features have a finite MI (≈ 13.8 nats).
_MAX_R2 = 1 - 1e-12

CORRELATIONS = ("pearson", "spearman")


def gaussian_mi(r: np.ndarray) -> np.ndarray:
    """I = −½ log(1 − r²): the mutual information (nats) of two jointly Gaussian variables
    of correlation r (mRMRe's estimator for continuous variables)."""
    return -0.5 * np.log1p(-np.minimum(np.square(r), _MAX_R2))


def _unit_columns(Z: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to unit norm (zero columns stay zero)."""
    Z = Z - Z.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", Z, Z))
    return Z / np.where(norm > 0, norm, 1.0)


def class_correlation(Z: np.ndarray, signs: np.ndarray, class_index: np.ndarray,
                      n_classes: int) -> np.ndarray:
    """The correlation of each (centred, unit-norm) column of ``Z`` with the class.

    Two classes: Pearson's r with the ±1 ``signs`` (the point-biserial correlation). K > 2:
    the multiple correlation R with the K class indicators, ``R² = Σ_c (Σ_{i∈c} z_i)² / n_c``
    — the between-class share of the column's sum of squares (the correlation ratio η²),
    which is r² for K = 2 — so that ``gaussian_mi(R) = −½ log(1 − R²)`` is the Gaussian
    mutual information of the feature with the class indicators.
    """
    if n_classes == 2:
        return Z.T @ _unit_columns(signs[:, None])[:, 0]
    indicators = class_index[:, None] == np.arange(n_classes)[None, :]
    sums = indicators.T.astype(float) @ Z
    return np.sqrt(np.einsum("cf,cf->f", sums, sums / indicators.sum(axis=0)[:, None]))


class MRMRSelector(_FilterSelector):
    """Minimum redundancy maximum relevance (000 §6.2), difference form, greedy.

    The first feature maximises the relevance I(f; y); each next one maximises
    ``I(f; y) − (1/|S|) Σ_{s∈S} I(f; s)`` over the features not yet in the selected set
    S (ties: lowest index). Mutual information is mRMRe's estimator for continuous
    variables (the R package 000 uses): ``I = −½ log(1 − r²)`` from the ``correlation``
    (Pearson's, or Spearman's on ranks) — exact for jointly Gaussian variables, defined
    for every pair, in the same units for relevance (r is then the point-biserial
    correlation with the class; with K > 2 classes the multiple correlation R with the
    class indicators, :func:`class_correlation`, the K-class Gaussian mutual information)
    and redundancy, and O(n d) per step: d = 5 000, k = 20 takes milliseconds. r² is
    capped at 1 − 1e-12 (a duplicate has MI ≈ 13.8 nats).

    ``rank_order_``: the k selected features in the order picked, then the others by
    their score at step k + 1 (relevance − mean redundancy with the k selected; ties by
    index). ``scores_``: the score of each selected feature when it was picked (the first
    one's relevance), and that step-(k+1) score for the others. ``relevance_``: I(f; y).
    The final model is the L2-logistic regression with ``final_reg`` on the k features
    (one-vs-rest with K > 2 classes).

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    final_reg : float > 0
        λ_f of the final model (``LogisticRegression(C=1/(2λ_f))``).
    correlation : {"pearson", "spearman"}
        The correlation behind the MI estimate.
    """

    def __init__(self, n_features=20, final_reg=1.0, correlation="pearson"):
        self.n_features = n_features
        self.final_reg = final_reg
        self.correlation = correlation

    def _rank(self, sample, k):
        if self.correlation not in CORRELATIONS:
            raise InvalidInputError(
                f"correlation must be one of {', '.join(map(repr, CORRELATIONS))}; got "
                f"{self.correlation!r}."
            )
        order, score, self.relevance_ = sample.memo(
            ("mrmr", self.correlation, k), lambda: self._greedy(sample, k))
        return order, score

    def _greedy(self, sample, k):
        """``(order, score, relevance)`` of the greedy selection (class docstring)."""
        d = sample.n_features
        Z = sample.X_std if self.correlation == "pearson" else stats.rankdata(sample.X, axis=0)
        Z = _unit_columns(Z)
        relevance = gaussian_mi(class_correlation(Z, sample.signs, sample.class_index,
                                                  sample.n_classes))
        redundancy = np.zeros(d)
        score = relevance.copy()
        available = np.ones(d, dtype=bool)
        picked, picked_score = [], []
        for step in range(1, k + 1):
            best = int(np.argmax(np.where(available, score, -np.inf)))  # first on ties
            picked.append(best)
            picked_score.append(score[best])
            available[best] = False
            redundancy += gaussian_mi(Z.T @ Z[:, best])
            score = relevance - redundancy / step
        rest = np.flatnonzero(available)
        order = np.concatenate([picked, rest[descending_order(score[rest])]]).astype(np.int64)
        score[picked] = picked_score
        return order, score, relevance


__all__ = [
    "MI_ESTIMATORS",
    "MIMSelector",
    "MRMRSelector",
    "TTestSelector",
    "class_correlation",
    "discrete_mutual_info",
    "equal_frequency_bins",
    "gaussian_mi",
    "infotheo_mutual_info",
    "infotheo_n_bins",
    "mutual_info_classif_fast",
]
