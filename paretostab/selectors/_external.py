"""Any scikit-learn estimator as a paretostab selector (a spec's ``name = "module:Class"``).

:class:`ExternalSelector` is a meta-estimator in scikit-learn's style (its ``estimator``
is cloned at every fit, as ``SelectFromModel`` does) that gives any scikit-learn
estimator the contract of :mod:`paretostab.selectors._base`: it is fitted on the
standardised training sample, and

* **support**: the estimator's ``get_support()`` when it has one (``SelectKBest``,
  ``SelectFromModel``, ``RFE``, ...); else its ``n_features`` features of largest weight
  — ``|coef_|`` (with K > 2 classes the norm of a feature's weights over the rows,
  :func:`~paretostab._importance.class_weight_norm`) or ``feature_importances_`` —, or,
  with ``n_features=None``, those of non-zero weight (an L1 model's own selection);
* **final model** (what the out-of-bag accuracy measures): it sees the kept features
  only. An estimator with ``get_support`` that predicts (``RFE``: its own final
  estimator on its features) predicts with the other features held at their training
  mean; a classifier ranked by its weights is refitted (a clone) on the kept features —
  predicting on all features would make the accuracy independent of the selection; an
  estimator that cannot predict is followed by the L2-logistic final model of the
  package's filters, ``fit_l2_logistic`` on the kept features with ``final_reg``;
* **importances** (SPEC §1: the importance in the final model, 0 outside the support, as
  every selector of the package): I_lin of the L2-logistic final model's weights; of an
  own final model, I_lin of its ``coef_`` or its ``feature_importances_`` (clipped at 0)
  — on an estimator with ``get_support``, its own or its fitted ``estimator_``'s (RFE's
  estimator on the kept features). A final model with neither gives none:
  ``importances_`` is then absent, the protocol's RunSet says so
  (``has_importances``), and a measure that needs importances (φ_iw, φ_pears) refuses it
  in one line;
* **ranking** (``rank_order_``, for the ranking measures): the kept features first,
  then by the estimator's ``ranking_`` (RFE) or decreasing ``scores_`` (univariate
  filters; NaN last) or weight, ties by importance and index; absent when the estimator
  has none of them.

A ``coef_`` or ``feature_importances_`` holding NaN or an infinity is the estimator's
failure, refused in one line (its trial fails with it, and ``tune`` stops when the
study's first trials all fail), never read as zero weights.

:func:`external_parameters` and :func:`external_selector` give a spec's view of a wrapped
class: its own ``get_params()`` names, with the wrapper's ``n_features`` (a class without
``get_support``) and ``final_reg`` (a class without ``predict``) added.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import clone

from paretostab._errors import InvalidInputError
from paretostab._importance import class_weight_norm, linear_importance
from paretostab.selectors._base import (
    LinearModelMixin,
    SelectorBase,
    TrainingSample,
    check_int,
    check_positive,
)
from paretostab.selectors._logistic import fit_l2_logistic

__all__ = ["ExternalSelector", "external_parameters", "external_selector",
           "gives_importances"]


def _finite(model: object, name: str) -> np.ndarray | None:
    """A fitted model's ``coef_`` or ``feature_importances_`` (``name``) as floats; None
    without it. A NaN or infinite value is the estimator's own failure (a fit that
    diverged), refused in one line: read as 0 it would select and rank by weights the
    model never had, and every trial of the study would end with an undefined φ
    counted as the parameters' result instead of stopping ``tune`` with the cause."""
    values = getattr(model, name, None)
    if values is None:
        return None
    values = np.asarray(values, dtype=float)
    bad = int(np.count_nonzero(~np.isfinite(values)))
    if bad:
        raise InvalidInputError(
            f"{type(model).__name__}.{name} holds {bad} NaN or infinite value"
            f"{'s' if bad > 1 else ''} of {values.size} after fit: its fit failed; a "
            "selector's weights must be finite numbers.")
    return values


def _coef(model: object) -> np.ndarray | None:
    """A fitted linear model's weights: a binary model's 1 × d ``coef_`` as its vector,
    a K-class model's K × d; None without ``coef_``."""
    coef = _finite(model, "coef_")
    if coef is None:
        return None
    return coef[0] if coef.ndim == 2 and coef.shape[0] == 1 else coef


def _weights(model: object) -> np.ndarray | None:
    """A fitted model's weight per input column: ``class_weight_norm(coef_)`` or
    ``feature_importances_``; None without either."""
    coef = _coef(model)
    if coef is not None:
        return class_weight_norm(coef)
    return _finite(model, "feature_importances_")


def _importance(model: object) -> np.ndarray | None:
    """The importance of each input column of a fitted final model (SPEC §1): I_lin of
    its ``coef_``, else its ``feature_importances_`` clipped at 0; None without either."""
    coef = _coef(model)
    if coef is not None:
        return linear_importance(coef)
    importances = _finite(model, "feature_importances_")
    return None if importances is None else np.maximum(importances, 0.0)


class _Classifier(Protocol):
    """A fitted classifier: ``predict``, and maybe ``decision_function`` or
    ``predict_proba``."""

    def predict(self, X: np.ndarray) -> ArrayLike: ...


def _decision_of(model: _Classifier, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Decision values of a fitted classifier in the package's convention (a vector,
    positive for ``classes[1]``; n × K with K > 2): its ``decision_function``, else its
    class probabilities (minus 1/2 with two classes), else its predictions as ±1 / one-hot
    columns."""
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=float)
    if hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(X), dtype=float)
        return proba[:, 1] - 0.5 if classes.size == 2 else proba
    predicted = np.asarray(model.predict(X))
    if classes.size == 2:
        return np.where(predicted == classes[1], 1.0, -1.0)
    return (predicted[:, None] == classes[None, :]).astype(float)


class ExternalSelector(LinearModelMixin, SelectorBase):
    """Any scikit-learn estimator as a selector of the package (module docstring).

    Parameters
    ----------
    estimator : scikit-learn estimator or estimator class
        A selector with ``get_support()``, or an estimator exposing ``coef_`` or
        ``feature_importances_`` after ``fit``; cloned (a class: instantiated with its
        defaults) at every fit, on the standardised training sample. Its ``random_state``,
        when it has one left at None, is set to this selector's.
    n_features : int or None
        For an estimator without ``get_support``: the features kept, of largest weight;
        None keeps those of non-zero weight. Refused for one with ``get_support`` (set
        its own parameter, e.g. ``SelectKBest``'s ``k``).
    final_reg : float > 0
        λ_f of the L2-logistic final model that follows an estimator that cannot
        predict (``LogisticRegression(C=1/(2λ_f))`` on the kept features).
    random_state : int or None
        Given to the estimator (the protocol sets one per call: same seed, same runs).

    Attributes
    ----------
    estimator_ : the fitted clone of ``estimator``
    final_model_ : the fitted final model when it is the estimator's own (else the
        L2-logistic ``coef_`` and ``intercept_``: K × k weights with K > 2 classes)
    support_, importances_ (absent when the final model has no importances),
    rank_order_ (absent when the estimator does not rank), classes_, mean_, scale_
    """

    def __init__(self, estimator, *, n_features=None, final_reg=1.0, random_state=None):
        self.estimator = estimator
        self.n_features = n_features
        self.final_reg = final_reg
        self.random_state = random_state

    @property
    def selector_name(self) -> str:
        """The wrapped estimator's class name (what a RunSet and its messages name)."""
        estimator = self.estimator
        return (estimator if isinstance(estimator, type) else type(estimator)).__name__

    def _fresh_estimator(self):
        estimator = self.estimator
        if not callable(getattr(estimator, "fit", None)) or not callable(
                getattr(estimator, "get_params", None)):
            raise InvalidInputError(
                "ExternalSelector needs a scikit-learn estimator (with fit and get_params) or "
                f"its class; got {estimator!r}.")
        estimator = estimator() if isinstance(estimator, type) else clone(estimator)
        if estimator.get_params().get("random_state", 0) is None and self.random_state is not None:
            estimator.set_params(random_state=self.random_state)
        return estimator

    def _select(self, sample: TrainingSample) -> None:
        d = sample.n_features
        fitted = self._fresh_estimator()
        fitted.fit(sample.X_std, sample.y)
        self.estimator_ = fitted
        for name in ("final_model_", "importances_", "rank_order_", "coef_", "intercept_"):
            if hasattr(self, name):
                delattr(self, name)
        if hasattr(fitted, "get_support"):
            weight = self._own_support(fitted, d)
        else:
            weight = self._ranked_support(fitted, sample)
        kept = np.flatnonzero(self.support_)
        if hasattr(self, "final_model_"):
            importance = self._final_importance(kept.size)
        else:
            reg = check_positive("final_reg", self.final_reg)
            self.coef_, self.intercept_ = fit_l2_logistic(sample.X_std[:, kept], sample.signs,
                                                          reg=reg)
            importance = linear_importance(self.coef_)
        if importance is not None:
            self.importances_ = np.zeros(d)
            self.importances_[kept] = importance
        self._rank(fitted, weight, d)

    def _own_support(self, fitted, d: int) -> np.ndarray | None:
        """The support of an estimator with ``get_support``; its own final model when it
        predicts. Returns the weight per feature of the estimator (or of its fitted
        ``estimator_``, SelectFromModel's), if it has one, else None."""
        if self.n_features is not None:
            raise InvalidInputError(
                f"n_features applies to an estimator ranked by its weights; "
                f"{self.selector_name} selects its features itself (get_support): set its "
                f"own parameter instead; got n_features={self.n_features!r}.")
        support = np.asarray(fitted.get_support(), dtype=bool)
        if support.shape != (d,):
            raise InvalidInputError(
                f"{self.selector_name}.get_support() must give one boolean per feature "
                f"({d}); got shape {support.shape}.")
        self.support_ = support
        if hasattr(fitted, "predict"):
            self.final_model_ = fitted
        for model in (fitted, getattr(fitted, "estimator_", None)):  # SelectFromModel's
            weight = _weights(model) if model is not None else None
            if weight is not None and weight.shape == (d,):
                return weight
        return None

    def _ranked_support(self, fitted, sample: TrainingSample) -> np.ndarray:
        """The ``n_features`` features of largest weight (None: of non-zero weight) of an
        estimator without ``get_support``; a classifier refitted (a clone) on them is the
        final model. Returns the weights."""
        d = sample.n_features
        weight = _weights(fitted)
        if weight is None or weight.shape != (d,):
            raise InvalidInputError(
                f"{self.selector_name} cannot select features: after fit it has no "
                f"get_support(), and no coef_ or feature_importances_ of one value per "
                f"feature ({d}) to rank them by.")
        order = np.lexsort((np.arange(d), -weight))
        if self.n_features is None:
            kept = np.flatnonzero(weight)
            if kept.size == 0:
                raise InvalidInputError(
                    f"{self.selector_name} gives every feature zero weight: nothing is "
                    "selected; set n_features (the features kept by weight) or a weaker "
                    "penalty.")
        else:
            k = check_int("n_features", self.n_features, 1, d,
                          f"the features kept by weight, at most the {d} features of X")
            kept = order[:k]
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[kept] = True
        if hasattr(fitted, "predict"):
            self.final_model_ = clone(fitted).fit(sample.X_std[:, self.support_], sample.y)
        return weight

    def _final_importance(self, k: int) -> np.ndarray | None:
        """The importance of the k kept features in the estimator's own final model (its
        weights on them, or its fitted ``estimator_``'s); None when it has none."""
        model = self.final_model_
        for candidate in (model, getattr(model, "estimator_", None)):
            importance = _importance(candidate) if candidate is not None else None
            if importance is None:
                continue
            if importance.shape == (k,):
                return importance
            if importance.shape == self.support_.shape:
                return importance[self.support_]
        return None

    def _rank(self, fitted, weight: np.ndarray | None, d: int) -> None:
        """``rank_order_``: the kept features first, then by the estimator's
        ``ranking_``, decreasing ``scores_`` or weight; ties by importance, then index."""
        ranking = getattr(fitted, "ranking_", None)
        scores = getattr(fitted, "scores_", None)
        if ranking is not None and np.shape(ranking) == (d,):
            key = np.asarray(ranking, dtype=float)
        elif scores is not None and np.shape(scores) == (d,):
            key = -np.nan_to_num(np.asarray(scores, dtype=float), nan=-np.inf)
        elif weight is not None:
            key = -weight
        else:
            return
        importance = getattr(self, "importances_", np.zeros(d))
        order = np.lexsort((np.arange(d), -importance, key, ~self.support_))
        self.rank_order_ = np.empty(d, dtype=np.int64)
        self.rank_order_[order] = np.arange(1, d + 1)

    def _decision(self, X_selected: np.ndarray) -> np.ndarray:
        model = getattr(self, "final_model_", None)
        if model is None:
            return super()._decision(X_selected)
        if model is self.estimator_:  # selects itself: the other features at their mean
            X_all = np.zeros((X_selected.shape[0], self.support_.size))
            X_all[:, self.support_] = X_selected
            return _decision_of(model, X_all, self.classes_)
        return _decision_of(model, X_selected, self.classes_)


def gives_importances(estimator_class: type) -> bool | None:
    """Whether ``estimator_class`` wrapped in :class:`ExternalSelector` gives importances,
    as far as the class tells: True when its final model is the L2-logistic (it cannot
    predict) or a clone refitted on the features ranked by its weights (no
    ``get_support``: it has the ``coef_`` or ``feature_importances_`` it is ranked by);
    None when it selects and predicts itself (``RFE``): its fitted model, or that model's
    ``estimator_``, then decides — a fit tells."""
    if not hasattr(estimator_class, "get_support") or not hasattr(estimator_class, "predict"):
        return True
    return None


def external_parameters(estimator_class: type) -> dict:
    """A spec's parameters of ``estimator_class`` wrapped in :class:`ExternalSelector`,
    with their defaults: the class's own ``get_params()`` names, and the wrapper's
    ``n_features`` (a class without ``get_support``) and ``final_reg`` (a class without
    ``predict``); the class's own win a shared name."""
    own: dict[str, object] = {}
    if not hasattr(estimator_class, "get_support"):
        own["n_features"] = None
    if not hasattr(estimator_class, "predict"):
        own["final_reg"] = 1.0
    return {**own, **estimator_class().get_params()}


def external_selector(estimator_class: type, **params: object) -> ExternalSelector:
    """``estimator_class`` wrapped in :class:`ExternalSelector`, ``params`` named as
    :func:`external_parameters` names them."""
    estimator = estimator_class()
    names = estimator.get_params()
    estimator.set_params(**{k: v for k, v in params.items() if k in names})
    return ExternalSelector(estimator, **{k: v for k, v in params.items() if k not in names})
