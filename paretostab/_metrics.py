"""The metrics that score a fitted selector's final model on examples it did not see.

:func:`metric_output` is what a metric scores of a fitted estimator (its decision values
for ``roc_auc``, else its predicted labels) and :func:`metric_value` the metric of that
output — a run's out-of-bag score (:func:`out_of_bag_score`) and a held-out part's
(:mod:`paretostab.evaluation`). :func:`majority_rate` is what predicting the largest class
scores, and :func:`metric_advice` the note for a study that scores imbalanced classes by
plain accuracy. The metrics' names are :data:`~paretostab._vocabulary.METRICS`.

scikit-learn's metrics are imported when a metric other than plain accuracy is computed:
importing this module loads neither scikit-learn nor joblib.
"""

from __future__ import annotations

import math

import numpy as np

from paretostab._errors import InvalidInputError

__all__ = ["majority_rate", "metric_advice", "metric_output", "metric_value",
           "out_of_bag_score"]


def majority_rate(y: np.ndarray) -> float:
    """The share of the largest class: the accuracy of predicting it for every example
    (the accuracy a selector must beat to have learnt anything from the labels)."""
    _, counts = np.unique(y, return_counts=True)
    return float(counts.max() / counts.sum())


def metric_advice(y: np.ndarray, metric: str) -> str | None:
    """One line for a study that scores imbalanced classes by plain accuracy, else None.

    The classes are imbalanced when the smallest class holds less than 0.8/K of the
    examples (K classes; 40 % with two): plain accuracy then rewards predicting the
    majority class, and ``balanced_accuracy`` (the mean recall of the classes),
    ``f1_macro`` and ``roc_auc`` score every class equally."""
    labels, counts = np.unique(y, return_counts=True)
    if metric != "accuracy" or counts.min() >= 0.8 * counts.sum() / labels.size:
        return None
    smallest = labels[np.argmin(counts)].item()
    return (f"note: the classes are imbalanced (the smallest, {smallest!r}, "
            f"holds {counts.min()} of {counts.sum()} examples; the majority class alone "
            f"scores accuracy {majority_rate(y):.3f}): [protocol] metric = "
            '"balanced_accuracy" weighs every class equally (also "f1_macro", "roc_auc").')


def metric_output(estimator, X: np.ndarray, metric: str) -> np.ndarray:
    """What ``metric`` scores of a fitted estimator on ``X``: its decision values for
    ``roc_auc``, else its predicted labels."""
    return estimator.decision_function(X) if metric == "roc_auc" else estimator.predict(X)


def metric_value(y: np.ndarray, output: np.ndarray, metric: str,
                 classes: np.ndarray | None) -> float:
    """``metric`` of the :func:`metric_output` ``output`` of an estimator that knows the
    ``classes`` (its ``classes_``, which only ``f1_macro`` and ``roc_auc`` read) on
    examples labelled ``y`` (NaN without examples).

    ``f1_macro``: the mean over the classes the estimator knows of their F1 (a class with
    no example and no prediction scores 0, scikit-learn's convention). ``roc_auc`` with K >
    2 classes: the mean over the classes present (and not alone) in ``y`` of the
    one-vs-rest AUC of that class's decision column (scikit-learn's ``multi_class="ovr"``,
    macro average, which also needs probabilities summing to 1; decision values rank the
    same); NaN with fewer than 2 classes."""
    if y.size == 0:
        return math.nan
    if metric == "accuracy":
        return float(np.mean(output == y))
    from sklearn.metrics import balanced_accuracy_score, f1_score, roc_auc_score

    if metric == "balanced_accuracy":
        return float(balanced_accuracy_score(y, output))
    if classes is None:
        raise InvalidInputError(f"{metric} needs the estimator's classes (its classes_).")
    if metric == "f1_macro":
        return float(f1_score(y, output, labels=classes, average="macro", zero_division=0))
    present = np.unique(y)
    if present.size < 2:
        return math.nan
    if output.ndim == 1:
        return float(roc_auc_score(y == classes[1], output))
    columns = np.searchsorted(classes, present)
    return float(np.mean([roc_auc_score(y == label, output[:, column])
                          for label, column in zip(present, columns, strict=True)]))


def out_of_bag_score(estimator, X: np.ndarray, y: np.ndarray, metric: str) -> float:
    """The out-of-bag ``metric`` of a fitted estimator (NaN without out-of-bag examples;
    :func:`metric_value`)."""
    if y.size == 0:
        return math.nan
    if metric == "roc_auc" and np.unique(y).size < 2:
        return math.nan
    return metric_value(y, metric_output(estimator, X, metric), metric,
                        getattr(estimator, "classes_", None))  # accuracy needs none
