"""The other selectors compared by 000 §6.2 and 003 §7.2: random forest, Relief, t-test,
MIM and mRMR filters.

Every selector here is a :class:`~paretostab.selectors._base.SelectorBase` (binary
classification, standardised features, ``support_`` / ``importances_`` / ``rank_order_``
/ ``scores_`` and a fitted final model). Each selects the top ``n_features`` (k) features
of its own ranking — ``rank_order_``, ties broken by feature index — and fits the final
model the papers pair with it:

* random forest: OOB permutation importance of a first forest; final model a second
  forest on the k features; ``importances_`` its OOB permutation importances;
* Relief: ReliefF weights; K-NN (majority vote); decision-flip importance (003 eq. 9);
* t-test (|Welch's t|), MIM (I(f; y), by default R infotheo's plug-in estimate on
  equal-frequency bins as 000 §6.2 ran it, or Ross's k-NN estimator), mRMR (greedy
  relevance − redundancy): L2-logistic with ``final_reg``; I_lin (003 eq. 7).

Penalty convention of the package: ``final_reg=λ`` is ``LogisticRegression(C=1/(2λ))`` on
the standardised selected features, with an unpenalised intercept.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.spatial.distance import cdist
from scipy.special import digamma, xlogy
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import scale
from sklearn.utils import check_random_state

from paretostab.errors import InvalidInputError
from paretostab.importance import decision_flip_importance, linear_importance
from paretostab.selectors._base import (
    LogisticModelMixin,
    SelectorBase,
    check_int,
    check_positive,
    is_number,
    single_threaded,
)
from paretostab.selectors._logistic import fit_l2_logistic
from paretostab.selectors.hybrid_rfe import welch_t

# ----------------------------------------------------------------------------- helpers


def descending_order(score: np.ndarray) -> np.ndarray:
    """Features by decreasing ``score``, ties by increasing feature index."""
    return np.lexsort((np.arange(score.size), -score))


def _ranks(order: np.ndarray) -> np.ndarray:
    """The full ranking 1..d (1 = best) of a best-first ``order``."""
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


def _ranking(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, score)``: the features by decreasing ``score`` (ties by index), and it."""
    return descending_order(score), score


def _check_n_features(value: object, d: int) -> int:
    return check_int("n_features", value, 1, d,
                     f"the number of features to select, at most the {d} features of X")


def _check_at_least(name: str, value: object, low: int, meaning: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < low:
        raise InvalidInputError(
            f"{name} must be an integer >= {low} ({meaning}); got {value!r}."
        )
    return int(value)


def _check_random_state(value: object) -> np.random.RandomState:
    try:
        return check_random_state(value)
    except ValueError:
        raise InvalidInputError(
            f"random_state must be None, an integer in [0, 2**32 - 1] or a "
            f"numpy.random.RandomState; got {value!r}."
        ) from None


def _labels(signs: np.ndarray) -> np.ndarray:
    """Class indices 0/1 (``classes_[0]``/``classes_[1]``) from the ±1 signs."""
    return (signs > 0).astype(np.int64)


class _ProbabilisticDecision:
    """``decision_function = P(classes_[1]) − 1/2`` of a final model with ``predict_proba``
    (so ``predict`` is ``classes_[1]`` iff that probability exceeds 1/2: a tie goes to
    ``classes_[0]``, as scikit-learn's forests and K-NN break it)."""

    def _decision(self, X_selected):
        return self._final_model().predict_proba(X_selected)[:, 1] - 0.5

    def predict_proba(self, X):
        """Class probabilities of the final model."""
        selected = self._selected_standardised(X)  # checks that the selector is fitted
        with single_threaded():
            return self._final_model().predict_proba(selected)


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
        k = _check_n_features(self.n_features, d)
        check_positive("final_reg", self.final_reg)
        order, scores = self._rank(sample, k)
        kept = np.sort(order[:k])
        self.scores_ = scores
        self.rank_order_ = _ranks(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.coef_, self.intercept_ = fit_l2_logistic(sample.X_std[:, kept], sample.signs,
                                                      reg=self.final_reg)
        self.importances_ = np.zeros(d)
        self.importances_[kept] = linear_importance(self.coef_)



class TTestSelector(_FilterSelector):
    """The t-test filter of 000 §6.2: the k features of largest |Welch's t|.

    ``scores_`` = |t| of Welch's unequal-variance t-test between the two classes (0 for a
    constant feature, inf where both classes are constant with different means); the
    final model is the L2-logistic regression with ``final_reg`` on the k features.

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    final_reg : float > 0
        λ_f of the final model (``LogisticRegression(C=1/(2λ_f))``).

    Attributes
    ----------
    support_, importances_ (I_lin of the final model), rank_order_ (by decreasing |t|,
    ties by index), scores_, coef_, intercept_, classes_, mean_, scale_.
    """

    def __init__(self, n_features=20, final_reg=1.0):
        self.n_features = n_features
        self.final_reg = final_reg

    def _rank(self, sample, k):
        return sample.memo(("welch_t_ranking",), lambda: _ranking(welch_t(sample.X,
                                                                           sample.signs)))


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
                             random_state=None) -> np.ndarray:
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
    """Plug-in mutual information I(X_f; y) in nats of discrete features and binary labels.

    R infotheo's ``mutinformation(X_f, y, method="emp")`` — ``H(X) + H(y) − H(X, y)`` with
    the empirical entropies, negative values set to 0 — computed in an equivalent form
    that makes equal estimates equal floats. With n_bc the examples of bin b and class c,

        n · I = Σ_b Σ_c n_bc log(n · n_bc / (n_b n_c)) = Σ_b m_b t(r_b),

    where a bin's counts are ``m_b`` times the coprime pair ``r_b = (n_b0, n_b1) / m_b``
    (m_b their gcd) and ``t(r) = Σ_c r_c log(n r_c / ((r_0 + r_1) n_c))`` depends on the
    bin only through its class proportions. The bins of equal proportions are summed
    first (Σ m_b, an integer), then multiplied by t, and the terms added in sorted order.
    Two tables that are equal up to the order of their bins, the merging of bins of the
    same proportions, or — with classes of equal size — the order of the classes have the
    same mutual information, and here exactly the same float: with a few bins many
    features share one (alon: 399 distinct values for 2 000 features), and their ranking
    is then a tie broken by feature index (R's summation order breaks them by rounding
    noise). Each ratio of integer products is exact before its one rounding, so a feature
    independent of the class in the sample — a constant one in particular — gets exactly 0.

    Parameters
    ----------
    codes : int array (n, d) of values in 0..``n_bins``−1
    labels : int array (n,) of 0/1
    n_bins : int
    """
    n, d = codes.shape
    index = codes * d + np.arange(d)
    total = np.bincount(index.ravel(), minlength=n_bins * d).reshape(n_bins, d)
    positive = np.bincount(index[labels == 1].ravel(),
                           minlength=n_bins * d).reshape(n_bins, d)
    negative = total - positive
    class_size = (n - int(np.count_nonzero(labels == 1)), int(np.count_nonzero(labels == 1)))
    m = np.gcd(negative, positive)  # 0 for an empty bin
    safe = np.maximum(m, 1)
    reduced = (negative // safe, positive // safe)
    size = reduced[0] + reduced[1]
    t = sum(xlogy(r, np.where(r > 0, (n * r) / np.maximum(size * c, 1), 1.0))
            for r, c in zip(reduced, class_size, strict=True))
    # group the bins by proportion: sort them by it, sum m over each run of equal keys
    key = reduced[0] * (n + 1) + reduced[1]
    order = np.argsort(key, axis=0, kind="stable")
    key, m, t = (np.take_along_axis(a, order, axis=0) for a in (key, m, t))
    terms = np.zeros((n_bins, d))
    running = np.zeros(d, dtype=np.int64)
    for b in range(n_bins):
        running = m[b] + (np.where(key[b] == key[b - 1], running, 0) if b else 0)
        closes = key[b + 1] != key[b] if b + 1 < n_bins else True
        terms[b] = np.where(closes, running * t[b], 0.0)
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

    ``scores_`` = the estimate of I(f; y) in nats chosen by ``estimator``:

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

    The choice matters. Through :func:`~paretostab.protocol.run_protocol` (30 bootstrap
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
    k features.

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
                n_bins = min(_check_at_least("n_bins", self.n_bins, 1,
                                             "bins of the discrete estimator, or None for "
                                             "infotheo's n^(1/3)"), sample.X.shape[0])
            self.n_bins_ = n_bins
            return sample.memo(("mim", "discrete", n_bins), lambda: _ranking(
                infotheo_mutual_info(sample.X, _labels(sample.signs), n_bins)))
        n_neighbors = _check_at_least("n_neighbors", self.n_neighbors, 1,
                                      "neighbours of the mutual information estimator")
        rng = _check_random_state(self.random_state)
        self.n_bins_ = None

        def compute():
            return _ranking(mutual_info_classif_fast(sample.X_std, _labels(sample.signs),
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


class MRMRSelector(_FilterSelector):
    """Minimum redundancy maximum relevance (000 §6.2), difference form, greedy.

    The first feature maximises the relevance I(f; y); each next one maximises
    ``I(f; y) − (1/|S|) Σ_{s∈S} I(f; s)`` over the features not yet in the selected set
    S (ties: lowest index). Mutual information is mRMRe's estimator for continuous
    variables (the R package 000 uses): ``I = −½ log(1 − r²)`` from the ``correlation``
    (Pearson's, or Spearman's on ranks) — exact for jointly Gaussian variables, defined
    for every pair, in the same units for relevance (r is then the point-biserial
    correlation with the class) and redundancy, and O(n d) per step: d = 5 000, k = 20
    takes milliseconds. r² is capped at 1 − 1e-12 (a duplicate has MI ≈ 13.8 nats).

    ``rank_order_``: the k selected features in the order picked, then the others by
    their score at step k + 1 (relevance − mean redundancy with the k selected; ties by
    index). ``scores_``: the score of each selected feature when it was picked (the first
    one's relevance), and that step-(k+1) score for the others. ``relevance_``: I(f; y).
    The final model is the L2-logistic regression with ``final_reg`` on the k features.

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
        target = _unit_columns(sample.signs[:, None])[:, 0]
        relevance = gaussian_mi(Z.T @ target)
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


# ----------------------------------------------------------------------- random forest

#: Rows (tree × OOB example × permuted feature) evaluated per batch of trees.
_BATCH_ROWS = 1 << 20


def oob_permutation_importance(forest: RandomForestClassifier, X: np.ndarray,
                               y: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """Breiman's out-of-bag permutation importance of each feature of a fitted forest.

    For each tree t with out-of-bag (OOB) examples O_t and each feature f: the drop of the
    tree's accuracy on O_t when the values of f are permuted among O_t (Breiman 2001;
    R's ``randomForest`` ``importance(type=1, scale=FALSE)``), averaged over all trees.
    Only the features a tree splits on can change its predictions, so only those are
    permuted (the others contribute exactly 0): a tree on n examples splits on at most
    n − 1 features whatever d is. The trees are evaluated on the permuted examples by a
    vectorised traversal of their node arrays (their own ``float32`` split rule) that
    reads permuted values through an index, never materialising permuted copies of X.
    Can be negative (a permutation that helps by chance).

    Parameters
    ----------
    forest : fitted RandomForestClassifier (bootstrap=True) on ``X``, ``y``
    X : array (n, d)
    y : array (n,) of class indices 0..C−1 (the forest's ``classes_`` positions)
    rng : RandomState
        Draws the permutations (per tree, per split feature in increasing order).
    """
    n, d = X.shape
    X32 = np.asarray(X, dtype=np.float32)
    total = np.zeros(d)
    trees = [estimator.tree_ for estimator in forest.estimators_]
    in_bag = forest.estimators_samples_
    batch: list[tuple] = []
    rows = 0
    for t, tree in enumerate(trees):
        oob = np.setdiff1d(np.arange(n), in_bag[t])
        features = np.unique(tree.feature[tree.children_left >= 0])
        if oob.size == 0 or features.size == 0:
            continue
        sources = np.concatenate([oob] + [oob[rng.permutation(oob.size)] for _ in features])
        batch.append((tree, oob, features, sources))
        rows += sources.size
        if rows >= _BATCH_ROWS:
            _accumulate_decrease(batch, X32, y, total)
            batch, rows = [], 0
    if batch:
        _accumulate_decrease(batch, X32, y, total)
    return total / len(trees)


def _accumulate_decrease(batch, X32, y, total):
    """Add Σ_t (accuracy_t − permuted accuracy_t,f) of the batch's trees to ``total``."""
    left, right, split, threshold, label = [], [], [], [], []
    example, permuted, source, root = [], [], [], []
    nodes = 0
    for tree, oob, features, sources in batch:
        children_left, children_right = tree.children_left, tree.children_right
        leaf = children_left < 0
        left.append(np.where(leaf, -1, children_left + nodes))
        right.append(np.where(leaf, -1, children_right + nodes))
        split.append(tree.feature)
        threshold.append(tree.threshold)
        label.append(np.argmax(tree.value[:, 0, :], axis=1))
        m = oob.size
        example.append(np.tile(oob, features.size + 1))
        permuted.append(np.concatenate([np.full(m, -1), np.repeat(features, m)]))
        source.append(sources)
        root.append(np.full(sources.size, nodes))
        nodes += children_left.size
    left, right, split = np.concatenate(left), np.concatenate(right), np.concatenate(split)
    threshold, label = np.concatenate(threshold), np.concatenate(label)
    example, permuted = np.concatenate(example), np.concatenate(permuted)
    source, node = np.concatenate(source), np.concatenate(root)
    active = np.flatnonzero(left[node] >= 0)
    while active.size:
        at = node[active]
        feature = split[at]
        row = np.where(feature == permuted[active], source[active], example[active])
        go_left = X32[row, feature] <= threshold[at]
        node[active] = np.where(go_left, left[at], right[at])
        active = active[left[node[active]] >= 0]
    correct = (label[node] == y[example]).astype(float)
    position = 0
    for _, oob, features, _ in batch:
        m = oob.size
        block = correct[position: position + m * (features.size + 1)].reshape(-1, m)
        position += block.size
        base = block[0].sum()
        total[features] += (base - block[1:].sum(axis=1)) / m


MAX_FEATURES = ("sqrt", "log2")


def _check_max_features(value: object) -> None:
    if isinstance(value, str) and value in MAX_FEATURES:
        return
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= 1:
        return
    if is_number(value) and not isinstance(value, int | np.integer) and 0 < value <= 1:
        return
    raise InvalidInputError(
        "max_features must be 'sqrt', 'log2', an integer >= 1 (features tried per split, "
        f"at most the number of features) or a fraction in (0, 1]; got {value!r}."
    )


class RandomForestSelector(_ProbabilisticDecision, SelectorBase):
    """Random-forest selection (000 §6.2, 003 §7.2.4), binary classification.

    "A first forest is learned on the original d features. The 20 features whose removal
    would cause the greatest accuracy decrease on the out-of-bag examples are selected. A
    second forest … built on those 20 features is used for prediction" (000 §6.2). The
    accuracy decrease is Breiman's OOB permutation importance
    (:func:`oob_permutation_importance`). Both forests are scikit-learn's
    ``RandomForestClassifier`` (bootstrap, ``n_trees`` trees, ``max_features`` features
    tried per split, ``min_samples_leaf``); prediction averages the trees' class
    probabilities (scikit-learn's soft vote).

    The defaults are 000 §6.2's settings: k = 20 features, 1000 trees in each forest.

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    n_trees : int ≥ 1
        Trees per forest, the first and the second (000 §6.2: "random forests with 1000
        trees … a second forest of 1000 trees"; 003 Fig. 15 shows stability converging
        by T ≈ 1000).
    max_features : {"sqrt", "log2"}, int or float in (0, 1]
        Features tried per split (scikit-learn's meaning; "sqrt" is R's default mtry).
    min_samples_leaf : int ≥ 1
    random_state : int, RandomState or None
        Seeds both forests and the permutations.

    Attributes
    ----------
    support_ : the k features of largest first-forest importance (ties: lowest index).
    importances_ : the second forest's OOB permutation importances of the k features,
        negatives clipped to 0 (an importance is non-negative, SPEC §0; a negative value
        is a chance gain, i.e. no importance), 0 outside the support. Not rescaled: the
        stability measures normalise rows to sum to k̄.
    rank_order_ : all d features by decreasing first-forest importance, ties by index.
    scores_ : the first forest's importances (unclipped).
    forest_ : the second (final) forest, on the selected standardised features.
    classes_, mean_, scale_.
    """

    def __init__(self, n_features=20, n_trees=1000, max_features="sqrt", min_samples_leaf=1,
                 random_state=None):
        self.n_features = n_features
        self.n_trees = n_trees
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def _forest(self, seed) -> RandomForestClassifier:
        return RandomForestClassifier(n_estimators=self.n_trees, max_features=self.max_features,
                                      min_samples_leaf=self.min_samples_leaf,
                                      random_state=seed)

    def _select(self, sample):
        X_std, signs = sample.X_std, sample.signs
        d = sample.n_features
        k = _check_n_features(self.n_features, d)
        _check_at_least("n_trees", self.n_trees, 1, "trees per forest")
        _check_max_features(self.max_features)
        _check_at_least("min_samples_leaf", self.min_samples_leaf, 1,
                        "examples per leaf")
        rng = _check_random_state(self.random_state)
        first_seed, final_seed = rng.randint(np.iinfo(np.int32).max, size=2)
        y = _labels(signs)
        first = self._forest(first_seed).fit(X_std, y)
        scores = oob_permutation_importance(first, X_std, y, rng)
        order = descending_order(scores)
        kept = np.sort(order[:k])
        self.forest_ = self._forest(final_seed).fit(X_std[:, kept], y)
        final = oob_permutation_importance(self.forest_, X_std[:, kept], y, rng)
        self.scores_ = scores
        self.rank_order_ = _ranks(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.importances_ = np.zeros(d)
        self.importances_[kept] = np.maximum(final, 0.0)

    def _final_model(self):
        return self.forest_


# ------------------------------------------------------------------------------ Relief


def relief_weights(X: np.ndarray, signs: np.ndarray, n_neighbors: int) -> np.ndarray:
    """ReliefF weights with K equal-weight nearest hits and misses, two classes.

    ``W_f = (1/n) Σ_i [ mean_{j ∈ M_i} |x_if − x_jf| − mean_{j ∈ H_i} |x_if − x_jf| ]``
    (Kononenko 1994; Robnik-Šikonja & Kononenko 2003, with equal neighbour weights as in
    CORElearn's "ReliefFequalK", 003 §7.2.5), every example used once. H_i: the K nearest
    other examples of x_i's class (fewer if the class is smaller), M_i: the K nearest of the
    other class; distance = Σ_f |x_if − x_jf| (ReliefF's sum of per-feature differences),
    ties by index. With two classes the miss term's prior weight P(C)/(1 − P(class(x_i)))
    is 1. Features are differenced as given: pass standardised features (z-score
    differences replace ReliefF's range-normalised ones, which hinge on two extreme values).
    """
    n, d = X.shape
    distance = cdist(X, X, "cityblock")
    same = signs[:, None] == signs[None, :]
    np.fill_diagonal(distance, np.inf)  # an example is not its own neighbour
    weights = np.zeros(d)
    for neighbours, sign in ((same, -1.0), (~same, 1.0)):
        masked = np.where(neighbours, distance, np.inf)
        available = np.isfinite(masked).sum(axis=1)
        count = np.minimum(n_neighbors, available)
        nearest = np.argsort(masked, axis=1, kind="stable")[:, :n_neighbors]
        share = np.divide(1.0, count, out=np.zeros(n), where=count > 0)
        for r in range(nearest.shape[1]):
            used = np.where(r < count, share, 0.0)
            weights += sign * (used @ np.abs(X - X[nearest[:, r]]))
    return weights / n


#: Probe ratio of the decision-flip search on the K-NN: a K-NN's decision can change
#: several times along a feature axis, and a ratio of 2 misses narrow flip regions (see
#: :func:`paretostab.importance.flip_distances`); 1.25 costs 1.5 times the predictions.
KNN_FLIP_GROWTH = 1.25


class ReliefSelector(_ProbabilisticDecision, SelectorBase):
    """Relief selection with a K-NN final model (000 §6.2, 003 §7.2.5), binary.

    "The RELIEF algorithm with 5 neighbors with equal weights to select 20 features.
    Predictive models are 5-NN classifiers" (000 §6.2): the k features of largest ReliefF
    weight (:func:`relief_weights`, ``n_neighbors`` hits and misses on the standardised
    features), then scikit-learn's ``KNeighborsClassifier`` (majority vote of
    ``n_neighbors_predict`` Euclidean neighbours, brute force; a tied vote goes to
    ``classes_[0]``) on the standardised selected features. The defaults are 000 §6.2's
    settings: k = 20, ReliefF with 5 equal-weight neighbours, a 5-NN final model.

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    n_neighbors : int ≥ 1
        K of ReliefF (capped per example by the examples available); 000 §6.2: 5.
    n_neighbors_predict : int ≥ 1 or None
        K of the final K-NN (capped at the number of training examples); None: the same
        K as ``n_neighbors`` — 5 by default, 000 §6.2's 5-NN; 003 §7.2.5 varies the one
        K of both.

    Attributes
    ----------
    support_, scores_ (ReliefF weights), rank_order_ (by decreasing weight, ties by
    index), importances_ (decision-flip importance, 003 eq. 9, of the K-NN on the
    standardised selected training features, probe ratio :data:`KNN_FLIP_GROWTH`,
    relative tolerance 1e-3, bound 1000 σ; 0 outside the support), knn_ (the final
    model), classes_, mean_, scale_.
    """

    def __init__(self, n_features=20, n_neighbors=5, n_neighbors_predict=None):
        self.n_features = n_features
        self.n_neighbors = n_neighbors
        self.n_neighbors_predict = n_neighbors_predict

    def _select(self, sample):
        X_std, signs = sample.X_std, sample.signs
        n, d = X_std.shape
        k = _check_n_features(self.n_features, d)
        n_neighbors = _check_at_least("n_neighbors", self.n_neighbors, 1,
                                      "ReliefF's nearest hits and misses")
        if self.n_neighbors_predict is None:
            n_predict = n_neighbors
        else:
            n_predict = _check_at_least(
                "n_neighbors_predict", self.n_neighbors_predict, 1,
                "neighbours of the final K-NN, or None for n_neighbors")
        order, scores = sample.memo(("relief", n_neighbors), lambda: _ranking(
            relief_weights(X_std, signs, n_neighbors)))
        kept = np.sort(order[:k])
        selected = X_std[:, kept]
        self.knn_ = KNeighborsClassifier(n_neighbors=min(n_predict, n),
                                         algorithm="brute").fit(selected, _labels(signs))
        self.scores_ = scores
        self.rank_order_ = _ranks(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.importances_ = np.zeros(d)
        self.importances_[kept] = decision_flip_importance(
            lambda Z: self.knn_.predict_proba(Z)[:, 1] > 0.5, selected, growth=KNN_FLIP_GROWTH)

    def _final_model(self):
        return self.knn_


__all__ = [
    "MI_ESTIMATORS",
    "MIMSelector",
    "MRMRSelector",
    "RandomForestSelector",
    "ReliefSelector",
    "TTestSelector",
    "discrete_mutual_info",
    "equal_frequency_bins",
    "gaussian_mi",
    "infotheo_mutual_info",
    "infotheo_n_bins",
    "mutual_info_classif_fast",
    "oob_permutation_importance",
    "relief_weights",
]
