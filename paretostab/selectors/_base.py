"""The contract every selector of the package implements, and its shared machinery.

A selector is a scikit-learn classifier and feature selector: ``fit(X, y)`` selects
features of standardised data (mean 0, unit variance on the training data; constant
features become 0) and fits a final model on them. Fitted attributes of every selector:

* ``support_`` (bool, d) — the selected features (``get_support``, ``transform``);
* ``importances_`` (float ≥ 0, d) — SPEC §1 importance in the final model, 0 outside the
  support (what the importance-weighted stability measures consume);
* ``rank_order_`` (int, d) — a full ranking 1..d without ties where the selector ranks
  features (what the ranking measures consume), else absent;
* ``classes_``, ``mean_``, ``scale_``, ``n_features_in_``;

and ``predict``, ``decision_function``, ``score`` (and ``predict_proba`` where the final
model has it) on the selected features. Subclasses implement ``_select(sample)`` on a
:class:`TrainingSample`, setting ``support_`` and ``importances_`` (and what else they
expose), and ``_decision(X_selected_std)``.

``fit(X, y)`` validates its input and prepares a :class:`TrainingSample`;
``fit_sample(sample)`` fits on one prepared before — the resampling protocol prepares each
run's sample once and reuses it, with what selectors derived from it (its memo), across
the trials of a study. Both paths run the same code on the same numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from paretostab._errors import InvalidInputError
from paretostab._validation import POSITIVE, Interval

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools, inspected once (inspection costs a fraction of a fit)."""
    return ThreadpoolController()


def single_threaded():
    """Limit BLAS and OpenMP to one thread: on the small dense solves and neighbour searches
    of a selector, competing threads cost far more than they gain (a small solve or a k-NN
    query runs up to 40 times slower with two threads on a busy 2-core machine), and
    parallelism belongs to the resampling runs, not to one fit."""
    return _threadpools().limit(limits=1)


def groups_follow_columns(estimator, columns: np.ndarray):
    """Give ``estimator`` (not fitted) the feature groups of ``columns`` only, the columns
    of the data it will see (a pre-filter's), when it takes feature groups (a ``groups``
    parameter set to one group per column of the whole data); returns it. Every fit on
    pre-filtered columns does this — a run of the protocol, the whole-data fit, the model
    for new samples — so that a feature keeps its group.

    Parameters
    ----------
    estimator : scikit-learn estimator, not fitted
        Its ``groups`` parameter, when it has one that is set, is replaced.
    columns : int or bool array
        The columns of the whole data the estimator will be fitted on.

    Returns
    -------
    The same estimator.
    """
    groups = estimator.get_params().get("groups")
    if groups is not None:
        estimator.set_params(groups=np.asarray(groups)[columns])
    return estimator


def check_positive(name: str, value: object) -> float:
    """A finite number > 0, or one error line naming ``name``."""
    return POSITIVE.number(name, value)


def check_int(name: str, value: object, low: int, high: int, meaning: str) -> int:
    """An integer in [``low``, ``high``], or one error line naming ``name`` and its
    ``meaning``."""
    return Interval("integer", low, high, why=f" ({meaning})").integer(name, value)


def descending_order(score: np.ndarray) -> np.ndarray:
    """Features by decreasing ``score``, ties by increasing feature index."""
    return np.lexsort((np.arange(score.size), -score))


def rank_positions(order: np.ndarray) -> np.ndarray:
    """The full ranking 1..d (1 = best) of a best-first ``order``."""
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(1, order.size + 1)
    return ranks


def ranked(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, score)``: the features by decreasing ``score`` (ties by index), and it."""
    return descending_order(score), score


def check_n_features(value: object, d: int) -> int:
    """``n_features`` (k) checked against the d features of X."""
    return check_int("n_features", value, 1, d,
                     f"the number of features to select, at most the {d} features of X")


def check_at_least(name: str, value: object, low: int, meaning: str) -> int:
    """An integer ``value`` >= ``low``, or one error line naming ``name`` and its
    ``meaning``."""
    return Interval("integer", low, why=f" ({meaning})").integer(name, value)


def as_random_state(value: object) -> np.random.RandomState:
    """scikit-learn's ``check_random_state``, its error as one clear line."""
    try:
        return check_random_state(value)
    except ValueError:
        raise InvalidInputError(
            f"random_state must be None, an integer in [0, 2**32 - 1] or a "
            f"numpy.random.RandomState; got {value!r}."
        ) from None


def standardise(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X_std, mean, scale)``: columns of ``X`` centred and divided by their population
    standard deviation (``scale`` 1 for a constant column, which becomes 0)."""
    mean = X.mean(axis=0)
    X_std = X - mean
    std = np.sqrt(np.einsum("ij,ij->j", X_std, X_std) / X.shape[0])
    scale = np.where(std > 0, std, 1.0)
    X_std /= scale
    return X_std, mean, scale


def distinct_rows(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first occurrence and multiplicity of each distinct example (row, label).

    A bootstrap sample repeats about a third of its examples; fitting the distinct ones
    with their counts as weights is the same loss on fewer rows. Rows are grouped by
    their first values, then compared byte for byte within a group (exact).
    """
    head = np.ascontiguousarray(X[:, : min(8, X.shape[1])])
    groups: dict[bytes, list[int]] = {}
    for i in range(X.shape[0]):
        groups.setdefault(head[i].tobytes() + y[i].tobytes(), []).append(i)
    first: list[int] = []
    counts: list[int] = []
    for members in groups.values():
        seen: dict[bytes, int] = {}
        for i in members:
            key = X[i].tobytes() if len(members) > 1 else b""
            if key in seen:
                counts[seen[key]] += 1
            else:
                seen[key] = len(first)
                first.append(i)
                counts.append(1)
    order = np.argsort(first)
    return np.asarray(first)[order], np.asarray(counts, dtype=float)[order]


def _freeze(value: object) -> object:
    """Make the arrays of a memo value read-only (a shared value must not be modified)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for item in value:
            _freeze(item)
    return value


def _nbytes(value: object) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_nbytes(item) for item in value)
    return 64


def one_vs_rest_signs(class_index: np.ndarray, n_classes: int) -> np.ndarray:
    """±1 targets of the binary problems behind a classification: with two classes one
    vector (``+1`` for class 1); with K > 2 an n × K matrix, column k the one-vs-rest
    problem of class k (+1 for its members, −1 for the rest)."""
    if n_classes == 2:
        return np.where(class_index == 1, 1.0, -1.0)
    return np.where(class_index[:, None] == np.arange(n_classes)[None, :], 1.0, -1.0)


def predicted_classes(classes: np.ndarray, decision: np.ndarray) -> np.ndarray:
    """Labels from decision values: ``classes[1]`` where a vector is positive (two
    classes), the class of the largest column of an n × K matrix (first on ties)."""
    if decision.ndim == 2:
        return classes[np.argmax(decision, axis=1)]
    return classes[(decision > 0).astype(int)]


class MemoBudget(Protocol):
    """What decides whether a :class:`TrainingSample` keeps a memo value (the protocol's
    run cache)."""

    def admit(self, nbytes: int) -> bool:
        """Whether ``nbytes`` more may be kept (reserved when they may)."""
        ...


_Value = TypeVar("_Value")


class TrainingSample:
    """One training sample, prepared once for every selector of the package.

    What every selector first computes from ``(X, y)``: the classes, each example's class
    index and its ±1 signs — with two classes a vector (``+1`` for ``classes[1]``), with
    K > 2 an n × K matrix whose column k is the one-vs-rest problem of ``classes[k]`` —,
    the standardisation (mean 0, unit population variance;
    constant features become 0), and — lazily — the standardised data, the distinct
    examples with their multiplicities (:func:`distinct_rows`) and their Gram matrix.
    :meth:`memo` keeps what a selector derives from the sample alone (a univariate order,
    filter scores), so that a sample reused across the trials of a study computes each
    once. Memo values are read-only.

    Parameters
    ----------
    X : array (n, d) of finite floats
        The raw training features (kept by reference, never modified).
    y : array (n,)
        Labels of at least two classes.
    owner : str
        Who needs the sample, for the error messages.
    columns : int array, optional
        The columns of a larger data matrix that ``X`` holds (the protocol's per-run
        pre-filter), for what is given per column of that matrix (group labels in a
        calibration); None: ``X`` is the whole matrix.
    budget : object with ``admit(nbytes) -> bool``, optional
        Decides whether a memo value may be kept (the protocol's run cache and its memory
        budget); values not admitted are recomputed when asked again. None: keep all
        (a sample used for one fit).

    Attributes
    ----------
    X, y, classes, class_index, n_classes, signs, mean, scale, columns, budget, n_features
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, *, owner: str = "the selector",
                 columns: np.ndarray | None = None, budget: MemoBudget | None = None):
        self.classes, y_index = np.unique(y, return_inverse=True)
        if self.classes.size < 2:
            raise InvalidInputError(
                f"{owner} needs 2 classes in y; got 1 class ('{self.classes[0]}')."
            )
        self.X = X
        self.columns = columns
        self.class_index = y_index.reshape(-1)
        self.signs = one_vs_rest_signs(self.class_index, self.classes.size)
        X_std, self.mean, self.scale = standardise(X)
        self.budget = budget
        self._memo: dict[Hashable, object] = {"X_std": X_std}

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        return self.classes.size

    @property
    def y(self) -> np.ndarray:
        """The labels."""
        return self.classes[self.class_index]

    @property
    def nbytes(self) -> int:
        """Memory held: the raw data, the standardisation and the memo."""
        return (self.X.nbytes + self.signs.nbytes + self.class_index.nbytes
                + self.mean.nbytes + self.scale.nbytes
                + sum(_nbytes(value) for value in self._memo.values()))

    def freeze(self) -> None:
        """Make the sample shareable: its arrays become read-only and the standardised
        data (recomputed from X when asked) is dropped from the memo."""
        self._memo.pop("X_std", None)
        for value in (self.X, self.signs, self.class_index, self.mean, self.scale, self.classes,
                      *self._memo.values()):
            _freeze(value)

    def memo(self, key: Hashable, compute: Callable[[], _Value]) -> _Value:
        """``compute()``, computed once per key while the budget admits it; the arrays of
        the value are read-only. Keys name the computation and every parameter it takes.

        Parameters
        ----------
        key : hashable
            Names the computation and its parameters (``"X_std"``,
            ``("class_separation_ranking",)``).
        compute : callable of no argument
            Computes the value when the key is not held; kept when ``budget`` admits its
            bytes (or there is no budget).
        """
        if key in self._memo:
            # what compute() gave for this key: a key names the computation and its inputs
            return cast(_Value, self._memo[key])
        value = compute()
        if self.budget is None or self.budget.admit(_nbytes(value)):
            self._memo[key] = _freeze(value)
        return value

    @property
    def X_std(self) -> np.ndarray:
        """The standardised data, ``(X − mean) / scale``."""
        return self.memo("X_std", lambda: (self.X - self.mean) / self.scale)

    @property
    def distinct(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X_std, signs, counts)`` of the distinct examples (:func:`distinct_rows`):
        the same weighted loss on about a third fewer rows of a bootstrap sample (``signs``
        rows of :attr:`signs`: an n_distinct × K matrix with K > 2 classes)."""
        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            rows, counts = distinct_rows(self.X, self.signs)
            X_std = self._memo.get("X_std")  # the same numbers: (X − mean) / scale
            X_rows = (X_std[rows] if isinstance(X_std, np.ndarray)
                      else (self.X[rows] - self.mean) / self.scale)
            return X_rows, self.signs[rows], counts
        return self.memo("distinct", compute)

    @property
    def distinct_gram(self) -> np.ndarray:
        """``K = X_d X_dᵀ`` of the standardised distinct examples (the dual L2-logistic
        core's first Gram matrix)."""
        def compute() -> np.ndarray:
            X_distinct = self.distinct[0]
            return X_distinct @ X_distinct.T
        return self.memo("distinct_gram", compute)


class SelectorBase(ClassifierMixin, SelectorMixin, BaseEstimator):
    """Validation, the training sample, the single-thread BLAS limit and prediction.

    ``fit`` and the predictions run :func:`single_threaded`.
    """

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Select features of ``X`` and fit the final model on them.

        Parameters
        ----------
        X : array-like (n, d)
            The examples, finite numbers.
        y : array-like (n,)
            Their class labels, two classes or more.
        """
        with single_threaded():
            self._fit_sample(self._training_sample(X, y))
        return self

    def fit_sample(self, sample: TrainingSample) -> Self:
        """Fit on a prepared :class:`TrainingSample` (no validation: the sample was built
        from complete data). ``fit(X, y)`` is ``fit_sample(TrainingSample(X, y))``.

        Parameters
        ----------
        sample : TrainingSample
            The run's training examples, standardised, with what selectors derive from
            them (:meth:`TrainingSample.memo`).
        """
        self.n_features_in_ = sample.n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        with single_threaded():
            self._fit_sample(sample)
        return self

    def _fit_sample(self, sample: TrainingSample) -> None:
        self.classes_, self.mean_, self.scale_ = sample.classes, sample.mean, sample.scale
        self._select(sample)

    def _training_sample(self, X, y) -> TrainingSample:
        name = type(self).__name__
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        if not np.all(np.isfinite(X)):
            bad = ~np.isfinite(X)
            i, j = np.argwhere(bad)[0]
            raise InvalidInputError(
                f"Input X contains {int(bad.sum())} NaN or inf value(s), the first at row {i}, "
                f"column {j}; {name} needs complete data: impute or drop them first."
            )
        try:
            check_classification_targets(y)
        except ValueError as exc:
            raise InvalidInputError(f"{name} is a classifier: {exc}") from None
        return TrainingSample(X, y, owner=name)

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def _selected_standardised(self, X) -> np.ndarray:
        check_is_fitted(self, "support_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        kept = np.flatnonzero(self.support_)
        return (X[:, kept] - self.mean_[kept]) / self.scale_[kept]

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Decision values of the final model: with two classes a vector, positive means
        ``classes_[1]``; with K > 2 an n × K matrix, one column per class (the largest
        wins).

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        selected = self._selected_standardised(X)
        with single_threaded():
            return self._decision(selected)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels of the final model on the selected features.

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        decision = self.decision_function(X)  # first: it checks that the model is fitted
        return predicted_classes(self.classes_, decision)


class LinearModelMixin:
    """A linear final model ``w·x + b`` (``coef_``, ``intercept_``) on the selected
    standardised features — with K > 2 classes one row of ``coef_`` (K × k) and one
    intercept per class; ``_logistic_proba`` gives its logistic class probabilities."""

    # Set by the selector's fit, and SelectorBase's (annotations only: nothing at run time)
    coef_: np.ndarray
    intercept_: np.ndarray | float
    decision_function: Callable[[object], np.ndarray]

    def _decision(self, X_selected: np.ndarray) -> np.ndarray:
        if self.coef_.ndim == 2:
            return X_selected @ self.coef_.T + self.intercept_
        return X_selected @ self.coef_ + self.intercept_

    def _logistic_proba(self, X) -> np.ndarray:
        p = expit(self.decision_function(X))
        if p.ndim == 2:  # one-vs-rest: normalised, as scikit-learn's OneVsRestClassifier
            return p / p.sum(axis=1, keepdims=True)
        return np.column_stack([1 - p, p])


class LogisticModelMixin(LinearModelMixin):
    """A final L2- or L1-penalised logistic model: ``predict_proba`` = σ(w·x + b)."""

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the final logistic model.

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        return self._logistic_proba(X)
