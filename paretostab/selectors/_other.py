"""The random forest and Relief selectors compared by 000 §6.2 and 003 §7.2.

Each is a :class:`~paretostab.selectors._base.SelectorBase` (K ≥ 2 classes, standardised
features, ``support_`` / ``importances_`` / ``rank_order_`` / ``scores_`` and a fitted
final model) selecting the top ``n_features`` (k) of its own ranking — ``rank_order_``,
ties broken by feature index — with the final model the papers pair with it:

* random forest: OOB permutation importance of a first forest; final model a second
  forest on the k features; ``importances_`` its OOB permutation importances;
* Relief: ReliefF weights; K-NN (majority vote); decision-flip importance (003 eq. 9).

(The t-test, MIM and mRMR filters are in :mod:`paretostab.selectors._filters`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier

from paretostab._errors import InvalidInputError
from paretostab._importance import decision_flip_importance
from paretostab._validation import is_number
from paretostab.selectors._base import (
    SelectorBase,
    as_random_state,
    check_at_least,
    check_n_features,
    descending_order,
    rank_positions,
    ranked,
    single_threaded,
)


class _Probabilistic(Protocol):
    """A fitted final model with class probabilities (a forest, a K-NN)."""

    def predict_proba(self, X: np.ndarray) -> np.ndarray: ...


class _ProbabilisticDecision:
    """``decision_function`` of a final model with ``predict_proba``: with two classes
    ``P(classes_[1]) − 1/2`` (so ``predict`` is ``classes_[1]`` iff that probability exceeds
    1/2: a tie goes to ``classes_[0]``, as scikit-learn's forests and K-NN break it); with
    K > 2 the n × K class probabilities (``predict``: the most probable class, the first
    on ties, as scikit-learn's forests and K-NN break them)."""

    # The selector's (annotations only: nothing at run time)
    _final_model: Callable[[], _Probabilistic]
    _selected_standardised: Callable[[object], np.ndarray]

    def _decision(self, X_selected):
        proba = self._final_model().predict_proba(X_selected)
        return proba[:, 1] - 0.5 if proba.shape[1] == 2 else proba

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the final model.

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        selected = self._selected_standardised(X)  # checks that the selector is fitted
        with single_threaded():
            return self._final_model().predict_proba(selected)


# ----------------------------------------------------------------------- random forest

#: OOB examples (summed over a batch's trees) sent down their trees per batch: memory
#: O(this × the trees' depth), the nodes each passes and its (example, feature) pairs.
_BATCH_ROWS = 1 << 15


def oob_permutation_importance(forest: RandomForestClassifier, X: np.ndarray,
                               y: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """Breiman's out-of-bag permutation importance of each feature of a fitted forest.

    For each tree t with out-of-bag (OOB) examples O_t and each feature f: the drop of the
    tree's accuracy on O_t when the values of f are permuted among O_t (Breiman 2001;
    R's ``randomForest`` ``importance(type=1, scale=FALSE)``), averaged over all trees.
    Exact, without predicting every permuted copy: an example's path is its unpermuted
    path down to the first node that splits on f, so only the pairs (example, f) with f on
    the example's path can change the prediction — they are sent down from that node
    (its tree's depth of pairs per example, not one per feature the tree splits on; a
    tree on n examples splits on up to n − 1 features whatever d is). The trees are
    traversed vectorised over their node arrays (their own ``float32`` split rule),
    reading a permuted value through an index, never materialising permuted copies of X.
    Can be negative (a permutation that helps by chance).

    Parameters
    ----------
    forest : fitted RandomForestClassifier (bootstrap=True) on ``X``, ``y``
    X : array (n, d)
    y : array (n,) of class indices 0..C−1 (the forest's ``classes_`` positions)
    rng : RandomState
        Draws the permutations (per tree, per split feature in increasing order, each a
        permutation of all the tree's OOB examples).
    """
    n, d = X.shape
    X32 = np.asarray(X, dtype=np.float32)
    total = np.zeros(d)
    batch: list[tuple] = []
    rows = 0
    for estimator, in_bag in zip(forest.estimators_, forest.estimators_samples_, strict=True):
        tree = estimator.tree_
        oob = np.setdiff1d(np.arange(n), in_bag)
        features = np.unique(tree.feature[tree.children_left >= 0])
        if oob.size == 0 or features.size == 0:
            continue
        batch.append((tree, oob, features))
        rows += oob.size
        if rows >= _BATCH_ROWS:
            _accumulate_decrease(batch, X32, y, rng, total)
            batch, rows = [], 0
    if batch:
        _accumulate_decrease(batch, X32, y, rng, total)
    return total / len(forest.estimators_)


def _descend(node, active, left, right, split, threshold, value_of):
    """Move each ``active`` row of ``node`` down to its leaf: left where ``value_of(active,
    split feature) <= threshold`` (in place); returns the internal nodes passed, step by
    step, as (rows, nodes) pairs."""
    passed = []
    while active.size:
        at = node[active]
        passed.append((active, at))
        feature = split[at]
        go_left = value_of(active, feature) <= threshold[at]
        node[active] = np.where(go_left, left[at], right[at])
        active = active[left[node[active]] >= 0]
    return passed


def _accumulate_decrease(batch, X32, y, rng, total):
    """Add Σ_t (accuracy_t − permuted accuracy_t,f) of the batch's trees to ``total``."""
    d = X32.shape[1]
    lefts: list[np.ndarray] = []
    rights: list[np.ndarray] = []
    splits: list[np.ndarray] = []
    thresholds: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    roots: list[np.ndarray] = []
    trees: list[np.ndarray] = []
    nodes = 0
    for b, (tree, oob, _) in enumerate(batch):
        children_left, children_right = tree.children_left, tree.children_right
        leaf = children_left < 0
        lefts.append(np.where(leaf, -1, children_left + nodes))
        rights.append(np.where(leaf, -1, children_right + nodes))
        splits.append(tree.feature)
        thresholds.append(tree.threshold)
        labels.append(np.argmax(tree.value[:, 0, :], axis=1))
        roots.append(np.full(oob.size, nodes))
        trees.append(np.full(oob.size, b))
        nodes += children_left.size
    left, right, split = np.concatenate(lefts), np.concatenate(rights), np.concatenate(splits)
    threshold, label = np.concatenate(thresholds), np.concatenate(labels)
    example = np.concatenate([oob for _, oob, _ in batch])
    tree_of = np.concatenate(trees)
    start = np.cumsum([0] + [oob.size for _, oob, _ in batch])
    position = np.arange(example.size) - start[tree_of]  # of each row among its tree's OOB
    # every OOB example down its tree, unpermuted
    node = np.concatenate(roots)
    passed = _descend(node, np.flatnonzero(left[node] >= 0), left, right, split, threshold,
                      lambda rows, feature: X32[example[rows], feature])
    base_correct = label[node] == y[example]
    # its (example, feature) pairs: the first node of the path splitting on the feature
    row = np.concatenate([rows for rows, _ in passed])
    at = np.concatenate([at for _, at in passed])
    _, first = np.unique(row * d + split[at], return_index=True)
    row, at = row[first], at[first]
    feature = split[at]
    # each tree's split features in one numbering, g, in the order of the permutations
    keys = np.concatenate([b * d + features for b, (_, _, features) in enumerate(batch)])
    group = np.searchsorted(keys, tree_of[row] * d + feature)
    by_group = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[by_group], np.arange(keys.size + 1))
    source = np.empty(row.size, dtype=np.intp)
    g = 0
    for _, oob, features in batch:
        for _ in features:
            pairs = by_group[bounds[g]:bounds[g + 1]]
            source[pairs] = oob[rng.permutation(oob.size)[position[row[pairs]]]]
            g += 1
    # each pair down from that node, the feature's value read from the permuted example
    node = at.copy()
    _descend(node, np.arange(row.size), left, right, split, threshold,
             lambda pairs, split_feature: X32[
                 np.where(split_feature == feature[pairs], source[pairs], example[row[pairs]]),
                 split_feature])
    change = base_correct[row].astype(float) - (label[node] == y[example[row]])
    decrease = np.bincount(group, weights=change, minlength=keys.size)
    g = 0
    for _, oob, features in batch:
        total[features] += decrease[g:g + features.size] / oob.size
        g += features.size


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
    """Random-forest selection (000 §6.2, 003 §7.2.4), K ≥ 2 classes.

    "A first forest is learned on the original d features. The 20 features whose removal
    would cause the greatest accuracy decrease on the out-of-bag examples are selected. A
    second forest … built on those 20 features is used for prediction" (000 §6.2). The
    accuracy decrease is Breiman's OOB permutation importance
    (:func:`oob_permutation_importance`). Both forests are scikit-learn's
    ``RandomForestClassifier`` (bootstrap, ``n_trees`` trees, ``max_features`` features
    tried per split, ``min_samples_leaf``); prediction averages the trees' class
    probabilities (scikit-learn's soft vote). Forests and Breiman's importance (the drop
    of the OOB accuracy) are multi-class as they are; ``decision_function`` is
    P(classes_[1]) − 1/2 with two classes, the n × K class probabilities with K > 2.

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
        X_std, y = sample.X_std, sample.class_index
        d = sample.n_features
        k = check_n_features(self.n_features, d)
        check_at_least("n_trees", self.n_trees, 1, "trees per forest")
        _check_max_features(self.max_features)
        check_at_least("min_samples_leaf", self.min_samples_leaf, 1,
                        "examples per leaf")
        rng = as_random_state(self.random_state)
        first_seed, final_seed = rng.randint(np.iinfo(np.int32).max, size=2)
        first = self._forest(first_seed).fit(X_std, y)
        scores = oob_permutation_importance(first, X_std, y, rng)
        order = descending_order(scores)
        kept = np.sort(order[:k])
        self.forest_ = self._forest(final_seed).fit(X_std[:, kept], y)
        final = oob_permutation_importance(self.forest_, X_std[:, kept], y, rng)
        self.scores_ = scores
        self.rank_order_ = rank_positions(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.importances_ = np.zeros(d)
        self.importances_[kept] = np.maximum(final, 0.0)

    def _final_model(self):
        return self.forest_


# ------------------------------------------------------------------------------ Relief


#: Sampled instances whose distances to every example are held at once (memory: this
#: many rows of n distances, and the masks of each neighbour set).
RELIEF_BLOCK = 256


def relief_weights(X: np.ndarray, labels: np.ndarray, n_neighbors: int,
                   instances: np.ndarray | None = None) -> np.ndarray:
    """ReliefF weights with K equal-weight nearest hits and misses, any number of classes.

    ``W_f = (1/m) Σ_i [ Σ_{C ≠ c_i} P(C) / (1 − P(c_i)) · mean_{j ∈ M_i(C)} |x_if − x_jf|
    − mean_{j ∈ H_i} |x_if − x_jf| ]`` over m instances i (Kononenko 1994;
    Robnik-Šikonja & Kononenko 2003, Mach. Learn. 53, Fig. 3, with equal neighbour weights
    as in CORElearn's "ReliefFequalK", 003 §7.2.5): every example once by default, or the
    m sampled ``instances`` of Robnik-Šikonja & Kononenko's algorithm. c_i: x_i's class;
    H_i: the K nearest other examples of c_i (fewer if the class is smaller), M_i(C): the
    K nearest of class C, among all n examples; P(C): the share of class C among the n
    examples; distance = Σ_f |x_if − x_jf| (ReliefF's sum of per-feature differences),
    ties by index. With two classes the prior weight P(C)/(1 − P(c_i)) is 1, and taken as
    1. Features are differenced as given: pass standardised features (z-score differences
    replace ReliefF's range-normalised ones, which hinge on two extreme values).

    Parameters
    ----------
    X : array (n, d)
    labels : array (n,)
        The class of each example (any values: ±1 signs, class indices).
    n_neighbors : int ≥ 1
        K, the hits and the misses of each class per example.
    instances : int array (m,), optional
        The examples whose neighbours update the weights, taken :data:`RELIEF_BLOCK` at a
        time (memory O(block · n), not O(n²)); None: every example, at once.
    """
    n = X.shape[0]
    classes, class_index = np.unique(labels, return_inverse=True)
    prior = np.bincount(class_index) / n
    if instances is None:
        return _relief_sum(X, class_index, prior, np.arange(n), n_neighbors) / n
    total = sum(_relief_sum(X, class_index, prior, instances[start:start + RELIEF_BLOCK],
                            n_neighbors)
                for start in range(0, instances.size, RELIEF_BLOCK))
    # a sum of arrays (``instances`` is not empty), which sum's stub cannot tell from its 0
    return cast(np.ndarray, total) / instances.size


def _relief_sum(X: np.ndarray, class_index: np.ndarray, prior: np.ndarray,
                rows: np.ndarray, n_neighbors: int) -> np.ndarray:
    """Σ over the instances ``rows`` of their ReliefF updates (:func:`relief_weights`)."""
    distance = cdist(X[rows], X, "cityblock")
    distance[np.arange(rows.size), rows] = np.inf  # an example is not its own neighbour
    own = class_index[rows]
    same = own[:, None] == class_index[None, :]
    if prior.size == 2:
        neighbour_sets = [(same, -1.0), (~same, 1.0)]
    else:  # Kononenko's misses of each other class C, weighted by P(C) / (1 − P(c_i))
        neighbour_sets = [(same, -1.0)] + [
            ((class_index == c)[None, :] & ~same, prior[c] / (1 - prior[own]))
            for c in range(prior.size)]
    weights = np.zeros(X.shape[1])
    for neighbours, factor in neighbour_sets:
        masked = np.where(neighbours, distance, np.inf)
        available = np.isfinite(masked).sum(axis=1)
        count = np.minimum(n_neighbors, available)
        nearest = np.argsort(masked, axis=1, kind="stable")[:, :n_neighbors]
        share = np.divide(1.0, count, out=np.zeros(rows.size), where=count > 0)
        for r in range(nearest.shape[1]):
            used = np.where(r < count, share, 0.0)
            weights += (factor * used) @ np.abs(X[rows] - X[nearest[:, r]])
    return weights


#: Probe ratio of the decision-flip search on the K-NN: a K-NN's decision can change
#: several times along a feature axis, and a ratio of 2 misses narrow flip regions (see
#: :func:`paretostab._importance.flip_distances`); 1.25 costs 1.5 times the predictions.
KNN_FLIP_GROWTH = 1.25


class ReliefSelector(_ProbabilisticDecision, SelectorBase):
    """Relief selection with a K-NN final model (000 §6.2, 003 §7.2.5), K ≥ 2 classes.

    "The RELIEF algorithm with 5 neighbors with equal weights to select 20 features.
    Predictive models are 5-NN classifiers" (000 §6.2): the k features of largest ReliefF
    weight (:func:`relief_weights`, ``n_neighbors`` hits and misses on the standardised
    features), then scikit-learn's ``KNeighborsClassifier`` (majority vote of
    ``n_neighbors_predict`` Euclidean neighbours, brute force; a tied vote goes to
    ``classes_[0]``, the first class) on the standardised selected features. The defaults
    are 000 §6.2's settings: k = 20, ReliefF with 5 equal-weight neighbours, a 5-NN final
    model. With K > 2 classes ReliefF weighs the misses of each other class by its prior
    (Kononenko's ReliefF, :func:`relief_weights`), the K-NN votes among the K classes,
    ``decision_function`` is its n × K class probabilities and the decision-flip
    importance's flip is a change of the predicted class.

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
    n_instances : int ≥ 1 or None
        m, the instances whose neighbours update the ReliefF weights (Robnik-Šikonja &
        Kononenko 2003): every training example when there are at most m of them — the
        papers' data sets, whose n is about 100, use them all —, else m drawn without
        replacement with ``random_state``; None: every example whatever n. ReliefF costs
        O(m · n · d), and its memory is O(256 · n) per block of instances. The same m
        instances estimate the decision-flip importance (see ``importances_``).
    random_state : int, RandomState or None
        Draws the m instances (only when the training sample has more examples).

    Attributes
    ----------
    support_, scores_ (ReliefF weights), rank_order_ (by decreasing weight, ties by
    index), importances_ (decision-flip importance, 003 eq. 9, of the K-NN on the
    standardised selected training features, probe ratio :data:`KNN_FLIP_GROWTH`,
    relative tolerance 1e-3, bound 1000 σ; 0 outside the support), knn_ (the final
    model), classes_, mean_, scale_.

    Notes
    -----
    Eq. 9 is a mean over the n training examples, ``I(f) = k_P · (1/n) Σ_l s_l(f)`` with
    ``s_l(f) = I(f, x_l) / Σ_f' I(f', x_l) ∈ [0, 1]``; each term is a flip search whose
    K-NN predictions each cost O(n k), O(n² k) in all. With n ≤ m (the papers' data) it
    is exact, over every example, as before. With n > m it is the mean over the m
    ReliefF instances, drawn without replacement, with σ_f still that of all n examples:
    a Monte-Carlo estimate of the mean, unbiased given k_P, at O(m n k). Its standard
    error is ``√((1 − m/n) · Var_l(k_P s_l(f)) / m)``; as ``0 ≤ k_P s_l(f) ≤ k_P``,
    ``Var_l ≤ k_P · I(f)``, so the error is at most ``√((1 − m/n) · k_P · I(f) / m)``:
    with k = 20 and m = 1 000, 0.14 for a feature of the average importance 1 (the
    importances sum to k_P). k_P, the features that flip some decision, is counted on
    the m instances: a feature that flips none of them (its I(f) then at most about
    k_P/m) gets 0.
    """

    def __init__(self, n_features=20, n_neighbors=5, n_neighbors_predict=None,
                 n_instances=1000, random_state=None):
        self.n_features = n_features
        self.n_neighbors = n_neighbors
        self.n_neighbors_predict = n_neighbors_predict
        self.n_instances = n_instances
        self.random_state = random_state

    def _instances(self, n: int) -> tuple[np.ndarray | None, tuple[int, ...] | None]:
        """The sampled instances (None: every example) and what names them in a memo
        key (None when they cannot be named: a RandomState object)."""
        if self.n_instances is not None:
            check_at_least("n_instances", self.n_instances, 1,
                           "ReliefF's sampled instances, or None for every example")
        if self.n_instances is None or n <= self.n_instances:
            return None, ()
        rng = as_random_state(self.random_state)
        drawn = np.sort(rng.choice(n, size=self.n_instances, replace=False))
        seed = self.random_state
        return drawn, ((self.n_instances, int(seed)) if isinstance(seed, int | np.integer)
                       else None)

    def _select(self, sample):
        X_std, y = sample.X_std, sample.class_index
        n, d = X_std.shape
        k = check_n_features(self.n_features, d)
        n_neighbors = check_at_least("n_neighbors", self.n_neighbors, 1,
                                      "ReliefF's nearest hits and misses")
        if self.n_neighbors_predict is None:
            n_predict = n_neighbors
        else:
            n_predict = check_at_least(
                "n_neighbors_predict", self.n_neighbors_predict, 1,
                "neighbours of the final K-NN, or None for n_neighbors")
        instances, name = self._instances(n)

        def weights():
            return ranked(relief_weights(X_std, y, n_neighbors, instances))

        order, scores = (weights() if name is None
                         else sample.memo(("relief", n_neighbors, *name), weights))
        kept = np.sort(order[:k])
        selected = X_std[:, kept]
        self.knn_ = KNeighborsClassifier(n_neighbors=min(n_predict, n),
                                         algorithm="brute").fit(selected, y)
        self.scores_ = scores
        self.rank_order_ = rank_positions(order)
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        self.importances_ = np.zeros(d)
        # eq. 9's mean over the training examples; beyond m of them, over the m instances
        self.importances_[kept] = decision_flip_importance(
            self.knn_.predict, selected if instances is None else selected[instances],
            scale=selected.std(axis=0), growth=KNN_FLIP_GROWTH)

    def _final_model(self):
        return self.knn_


__all__ = [
    "RandomForestSelector",
    "ReliefSelector",
    "oob_permutation_importance",
    "relief_weights",
]
