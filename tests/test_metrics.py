"""The out-of-bag metrics with two and with K > 2 classes, and the advice for imbalanced
classes scored by plain accuracy (issue 20, point 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, roc_auc_score

from paretostab._metrics import majority_rate, metric_advice, out_of_bag_score
from paretostab._vocabulary import METRICS


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c", "d"], 15)
    X = rng.standard_normal((60, 3)) + (np.searchsorted(["a", "b", "c", "d"], y)[:, None]
                                        * np.array([0.7, 0.0, -0.4]))
    return LogisticRegression(max_iter=1000).fit(X, y), X, y


def test_k_class_metrics_equal_scikit_learns(fitted):
    model, X, y = fitted
    assert out_of_bag_score(model, X, y, "accuracy") == pytest.approx(
        np.mean(model.predict(X) == y))
    assert out_of_bag_score(model, X, y, "f1_macro") == pytest.approx(
        f1_score(y, model.predict(X), average="macro"))
    # the one-vs-rest macro AUC of a model whose decision values are its probabilities:
    # scikit-learn's roc_auc_score(multi_class="ovr"), which takes probabilities only
    class Probabilities:
        classes_ = model.classes_

        def decision_function(self, X):
            return model.predict_proba(X)

    expected = roc_auc_score(y, model.predict_proba(X), multi_class="ovr")
    assert out_of_bag_score(Probabilities(), X, y, "roc_auc") == pytest.approx(expected)


def test_k_class_auc_over_the_classes_present_and_nan_with_one(fitted):
    model, X, y = fitted
    present = np.isin(y, ["a", "c"])
    decision = model.decision_function(X[present])
    expected = np.mean([roc_auc_score(y[present] == c, decision[:, k])
                        for k, c in [(0, "a"), (2, "c")]])
    assert out_of_bag_score(model, X[present], y[present], "roc_auc") == pytest.approx(expected)
    only = y == "b"
    assert math.isnan(out_of_bag_score(model, X[only], y[only], "roc_auc"))
    assert math.isnan(out_of_bag_score(model, X[:0], y[:0], "accuracy"))


def test_f1_macro_counts_a_class_absent_from_the_out_of_bag_examples_as_zero(fitted):
    model, X, y = fitted
    part = y != "d"
    predicted = model.predict(X[part])
    expected = f1_score(y[part], predicted, labels=model.classes_, average="macro",
                        zero_division=0)
    assert out_of_bag_score(model, X[part], y[part], "f1_macro") == pytest.approx(expected)
    assert "f1_macro" in METRICS


def test_majority_rate_and_advice():
    y = np.array(["x"] * 74 + ["y"] * 37)
    assert majority_rate(y) == pytest.approx(74 / 111)
    advice = metric_advice(y, "accuracy")
    assert advice.startswith("note: the classes are imbalanced (the smallest, 'y', holds 37 "
                             "of 111 examples; the majority class alone scores accuracy 0.667)")
    assert 'metric = "balanced_accuracy"' in advice and "\n" not in advice
    assert metric_advice(y, "balanced_accuracy") is None
    assert metric_advice(np.array(["x"] * 60 + ["y"] * 40), "accuracy") is None  # 40 %: not
    # five classes: imbalanced below 0.8 / 5 = 16 % (17 of 97 is 17.5 %, 14 of 94 is 14.9 %)
    assert metric_advice(np.repeat(np.arange(5), [20, 20, 20, 20, 17]), "accuracy") is None
    assert metric_advice(np.repeat(np.arange(5), [20, 20, 20, 20, 14]), "accuracy")
    even = np.repeat(np.arange(5), 20)  # five classes of 20 %: balanced, whatever K
    assert metric_advice(even, "accuracy") is None


@settings(max_examples=60)
@given(st.lists(st.integers(1, 50), min_size=2, max_size=6))
def test_advice_iff_the_smallest_class_is_below_eight_tenths_of_an_even_share(counts):
    y = np.repeat(np.arange(len(counts)), counts)
    imbalanced = min(counts) < 0.8 * sum(counts) / len(counts)
    assert (metric_advice(y, "accuracy") is not None) == imbalanced
    assert majority_rate(y) == pytest.approx(max(counts) / sum(counts))


@pytest.mark.parametrize("metric", ["f1_macro", "roc_auc"])
def test_a_metric_that_reads_the_classes_refuses_to_go_without_them(metric):
    from paretostab._errors import InvalidInputError
    from paretostab._metrics import metric_value

    y = np.array([0, 1, 0, 1])
    with pytest.raises(InvalidInputError, match=rf"^{metric} needs the estimator's classes"):
        metric_value(y, np.array([0.2, 0.8, 0.4, 0.6]) if metric == "roc_auc" else y,
                     metric, None)
