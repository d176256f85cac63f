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
model has it) on the selected features. Subclasses implement ``_select(X_std, signs,
X_raw)``, setting ``support_`` and ``importances_`` (and what else they expose), and
``_decision(X_selected_std)``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from paretostab.errors import InvalidInputError


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


def is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )


def check_positive(name: str, value: object) -> float:
    if not is_number(value) or not value > 0 or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number > 0; got {value!r}.")
    return float(value)


def check_int(name: str, value: object, low: int, high: int, meaning: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or not (
        low <= value <= high
    ):
        raise InvalidInputError(
            f"{name} must be an integer in [{low}, {high}] ({meaning}); got {value!r}."
        )
    return int(value)


class SelectorBase(ClassifierMixin, SelectorMixin, BaseEstimator):
    """Validation, standardisation, the single-thread BLAS limit and prediction.

    ``fit`` and the predictions run :func:`single_threaded`.
    """

    def fit(self, X, y):
        """Select features of ``X`` and fit the final model on them."""
        with single_threaded():
            X_raw, X_std, signs = self._validate_training_data(X, y)
            self._select(X_std, signs, X_raw)
        return self

    def _validate_training_data(self, X, y):
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
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise InvalidInputError(
                f"{name} needs 2 classes in y; got 1 class ('{self.classes_[0]}')."
            )
        if self.classes_.size > 2:
            raise InvalidInputError(
                f"Only binary classification is supported. {name} needs 2 classes in y; "
                f"got {self.classes_.size} classes: {self.classes_.tolist()[:10]}."
            )
        signs = np.where(y_index == 1, 1.0, -1.0)
        self.mean_ = X.mean(axis=0)
        X_std = X - self.mean_
        std = np.sqrt(np.einsum("ij,ij->j", X_std, X_std) / X.shape[0])
        self.scale_ = np.where(std > 0, std, 1.0)
        X_std /= self.scale_
        return X, X_std, signs

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def _selected_standardised(self, X) -> np.ndarray:
        check_is_fitted(self, "support_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        kept = np.flatnonzero(self.support_)
        return (X[:, kept] - self.mean_[kept]) / self.scale_[kept]

    def decision_function(self, X):
        """Decision values of the final model; positive means ``classes_[1]``."""
        selected = self._selected_standardised(X)
        with single_threaded():
            return self._decision(selected)

    def predict(self, X):
        """Class labels of the final model on the selected features."""
        decision = self.decision_function(X)
        return self.classes_[(decision > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class LinearModelMixin:
    """A linear final model ``w·x + b`` (``coef_``, ``intercept_``) on the selected
    standardised features; ``_logistic_proba`` gives its logistic class probabilities."""

    def _decision(self, X_selected: np.ndarray) -> np.ndarray:
        return X_selected @ self.coef_ + self.intercept_

    def _logistic_proba(self, X) -> np.ndarray:
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])


class LogisticModelMixin(LinearModelMixin):
    """A final L2- or L1-penalised logistic model: ``predict_proba`` = σ(w·x + b)."""

    def predict_proba(self, X):
        """Class probabilities of the final logistic model."""
        return self._logistic_proba(X)
