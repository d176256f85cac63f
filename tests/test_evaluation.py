"""Honest estimates (issue 22): the held-out split, its scores and intervals, the chance
test and the label probe — against brute force, and end to end through tune, report and
choose."""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import numpy as np
import optuna
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from paretostab import choose
from paretostab._errors import InvalidInputError
from paretostab._metrics import metric_value
from paretostab._problem import Problem
from paretostab._tuning import front_table, run_study
from paretostab.evaluation import (
    INTERVAL_METHODS,
    LABEL_FREE_REASON,
    ChanceFlags,
    auc_interval,
    balanced_accuracy_interval,
    chance_p_value,
    evaluation_split,
    f1_interval,
    ignores_labels,
    no_information_value,
    outer_study_name,
    score_interval,
    wilson_interval,
)
from paretostab.report._build import build_report
from paretostab.report._refits import Refits
from paretostab.spec import parse_spec
from tests.studies import analysed, note_of, read


def labels(counts):
    return np.repeat(np.arange(len(counts)), counts)


# --------------------------------------------------------------------------- the split


@given(st.lists(st.integers(3, 40), min_size=2, max_size=4), st.floats(0.1, 0.5),
       st.integers(0, 2**31))
@settings(max_examples=60)
def test_a_held_out_part_is_stratified_disjoint_and_seeded(counts, fraction, seed):
    y = labels(counts)
    try:
        split = evaluation_split(y, holdout=fraction, seed=seed)
    except InvalidInputError as error:  # only when a class cannot be in both parts
        held = math.ceil(fraction * y.size)
        shares = [held * n / y.size for n in counts]  # a share under one half can round to 0
        assert (min(counts) < 3 or held < len(counts) or y.size - held < 2 * len(counts)
                or min(shares) < 1 or min(n - held * n / y.size for n in counts) < 3)
        assert "protocol.holdout" in str(error)
        return
    assert np.intersect1d(split.development, split.test).size == 0
    assert np.array_equal(np.union1d(split.development, split.test), np.arange(y.size))
    for c, n in enumerate(counts):  # stratified: each class's share kept to one example
        held = np.sum(y[split.test] == c)
        assert abs(held - split.test.size * n / y.size) < 1
        assert held >= 1 and n - held >= 2
    again = evaluation_split(y, holdout=fraction, seed=seed)
    assert np.array_equal(again.test, split.test)


def test_a_protocol_without_split_seed_splits_as_seed_0():
    """``[protocol] split_seed`` absent is 0, for the held-out part and the outer folds."""
    y = labels([30, 20])
    for options in ({"holdout": 0.3}, {"outer_folds": 5, "outer_fold": 2}):
        unseeded = evaluation_split(y, **options)
        assert np.array_equal(unseeded.test, evaluation_split(y, **options, seed=0).test)
        assert not np.array_equal(unseeded.test, evaluation_split(y, **options, seed=1).test)


@pytest.mark.parametrize("dtype", [np.int64, str, object])  # object: a DataFrame's column
def test_a_held_out_part_missing_a_small_class_names_it(dtype):
    """3 of 35 examples at 12 %: the stratified allocation rounds the class's share of the
    held-out part (0.43 of an example) to none."""
    y = np.repeat(np.array([7, 9]) if dtype is np.int64 else np.array(["ALL", "AML"], dtype),
                  [3, 32])
    name = "7" if dtype is np.int64 else "'ALL'"
    with pytest.raises(InvalidInputError, match=rf"class {name} \(3 of 35 examples\) gets 0 "
                       r"held out and 3 to tune on; .* at least 0\.33 or use outer_folds"):
        evaluation_split(y, holdout=0.1171875, seed=0)


def test_two_examples_per_class_to_tune_on_is_enough():
    """The boundary of the check before the split: 6 examples of 2 classes, 2 held out,
    leave 4 = 2K to tune on, which is split (one of each class held out); 3 held out leave
    3 < 2K, and 5 leave 1 < K, both refused before the split (scikit-learn's splitter would
    refuse the second with its own ValueError)."""
    y = labels([3, 3])
    split = evaluation_split(y, holdout=1 / 3, seed=0)
    assert np.bincount(y[split.test]).tolist() == [1, 1]
    assert np.bincount(y[split.development]).tolist() == [2, 2]
    for holdout in (0.4, 0.7):  # 3 and 1 left to tune on: refused before the split
        with pytest.raises(InvalidInputError, match=rf"protocol\.holdout = {holdout}: the data "
                           r"cannot keep every class in both parts .* 2 examples to tune on"):
            evaluation_split(y, holdout=holdout, seed=0)


@pytest.mark.parametrize("smallest", [1, 2])
def test_a_class_too_small_to_split_is_refused_before_the_split(smallest):
    """A class of 1 or 2 examples cannot give 2 to tune on and 1 held out, whatever the
    fraction: one error line naming the smallest class, before any split is drawn (a class
    of one would otherwise reach scikit-learn's splitter and its own ValueError)."""
    y = labels([smallest, 10])
    with pytest.raises(InvalidInputError, match=rf"protocol\.holdout = 0\.3: the data cannot "
                       rf"keep every class in both parts \({smallest + 10} examples, "
                       rf"smallest class {smallest}:"):
        evaluation_split(y, holdout=0.3, seed=0)


@pytest.mark.slow
def test_the_class_named_is_always_one_short_of_examples():
    """Every refusal after the split, over classes of 3 to 9 examples (two or three of
    them) and six fractions, names a class that gets no example held out or fewer than 2
    to tune on, with the numbers it gets, found from scikit-learn's own split: both
    shortages occur, in the first class and in a later one."""
    shortages = set()
    for sizes in [*itertools.product(range(3, 10), repeat=2),
                  *itertools.product(range(3, 10), repeat=3)]:
        y = labels(sizes)
        for fraction in (0.1, 0.15, 0.2, 0.3, 0.4, 0.5):
            try:
                evaluation_split(y, holdout=fraction, seed=0)
            except InvalidInputError as error:
                found = re.search(r"class (\d+) \((\d+) of \d+ examples\) gets (\d+) held out "
                                  r"and (\d+) to tune on", str(error))
                if found is None:  # refused before the split
                    continue
                splitter = StratifiedShuffleSplit(1, test_size=fraction, random_state=0)
                _, test = next(splitter.split(y, y))
                c = int(found[1])
                held = int(np.sum(y[test] == c))
                assert [int(g) for g in found.groups()[1:]] == [sizes[c], held, sizes[c] - held]
                assert held == 0 or sizes[c] - held < 2, (sizes, fraction, str(error))
                shortages.add((held == 0, c == 0))
    assert shortages == {(True, True), (True, False), (False, True), (False, False)}


@pytest.mark.parametrize("kind", [list, tuple, "series"])
def test_labels_of_any_kind_split_as_their_array(kind):
    """A list, a tuple or a pandas Series (with an index of its own) of labels gives the
    split of the same labels as an array: positions, not index labels."""
    y = labels([9, 14, 7])
    given = (pd.Series(y, index=np.arange(y.size)[::-1] * 10) if kind == "series"
             else kind(y.tolist()))
    for options in ({"holdout": 0.3, "seed": 4}, {"outer_folds": 3, "outer_fold": 2}):
        split, expected = evaluation_split(given, **options), evaluation_split(y, **options)
        np.testing.assert_array_equal(split.test, expected.test)
        np.testing.assert_array_equal(split.development, expected.development)


def test_outer_folds_partition_the_examples():
    y = labels([23, 17])
    tests = [evaluation_split(y, outer_folds=4, outer_fold=k, seed=3).test for k in range(1, 5)]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(y.size))
    for k, test in enumerate(tests, start=1):
        split = evaluation_split(y, outer_folds=4, outer_fold=k, seed=3)
        assert split.description == f"outer fold {k} of 4"
        assert set(np.unique(y[test])) == {0, 1}
    folds = StratifiedKFold(4, shuffle=True, random_state=3).split(np.zeros((y.size, 1)), y)
    for test, (_, expected) in zip(tests, folds, strict=True):  # k-th is scikit-learn's k-th
        np.testing.assert_array_equal(test, expected)
    assert evaluation_split(y) is None
    assert evaluation_split(y, outer_folds=4) is None  # the study on the whole data
    with pytest.raises(InvalidInputError, match="use at most 3 outer folds"):
        evaluation_split(labels([3, 10]), outer_folds=5, outer_fold=1)
    assert outer_study_name("golub", 2) == "golub/outer-2"


def test_the_spec_keys_and_their_rules():
    spec = {**STUDY, "protocol": {"runs": 4, "replicates": 3}}
    plain = parse_spec(spec)
    held = parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.25}})
    assert "holdout" not in plain.to_dict()["protocol"]  # absent: old hashes unchanged
    assert held.content_hash() != plain.content_hash()
    seeded = parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.25,
                                              "split_seed": 1}})
    assert seeded.content_hash() != held.content_hash()  # the split is the study's
    with pytest.raises(InvalidInputError, match="give one"):
        parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.2, "outer_folds": 3}})
    with pytest.raises(InvalidInputError, match="outer_fold: must be one of 1..outer_folds"):
        parse_spec({**spec, "protocol": {**spec["protocol"], "outer_folds": 3, "outer_fold": 4}})


# --------------------------------------------------------------------------- intervals


def brute_wilson(successes, n, level):
    """The Wilson interval as the set of p the score test does not reject, on a grid."""
    z = stats.norm.ppf((1 + level) / 2)
    grid = np.linspace(0, 1, 200001)
    p_hat = successes / n
    kept = grid[np.abs(p_hat - grid) <= z * np.sqrt(grid * (1 - grid) / n)]
    return kept.min(), kept.max()


@given(st.integers(1, 200), st.data())
@settings(max_examples=40)
def test_wilson_equals_the_inverted_score_test(n, data):
    successes = data.draw(st.integers(0, n))
    level = data.draw(st.sampled_from([0.8, 0.9, 0.95, 0.99]))
    low, high = wilson_interval(successes, n, level)
    b_low, b_high = brute_wilson(successes, n, level)
    assert low == pytest.approx(b_low, abs=1e-5) and high == pytest.approx(b_high, abs=1e-5)
    assert 0 <= low <= successes / n <= high <= 1


def test_the_accuracy_interval_is_wilson_bit_for_bit():
    """The values of the Wilson interval as the project has always computed them."""
    assert wilson_interval(11, 12, 0.95) == (0.646120088858883, 0.9851349055950829)
    assert wilson_interval(37, 50, 0.9) == (0.6275387029219313, 0.827821367900659)
    assert wilson_interval(0, 7, 0.99) == (0.0, 0.4866114349942543)


def test_each_metric_has_its_interval_and_accuracy_keeps_wilson():
    rng = np.random.default_rng(1)
    y = labels([30, 20])
    predicted = np.where(rng.random(50) < 0.8, y, 1 - y)
    classes = np.array([0, 1])
    for metric in ["accuracy", "balanced_accuracy", "f1_macro"]:
        score = score_interval(y, predicted, metric, classes, level=0.9)
        assert score.method == INTERVAL_METHODS[metric] and score.n == 50
        assert score.value == metric_value(y, predicted, metric, classes)
        assert score.low < score.value < score.high
    accuracy = score_interval(y, predicted, "accuracy", classes, level=0.9)
    assert (accuracy.low, accuracy.high) == wilson_interval(int(np.sum(predicted == y)), 50, 0.9)
    # balanced classes: the balanced accuracy is the accuracy, and so is its interval
    even = labels([25, 25])
    balanced = score_interval(even, predicted, "balanced_accuracy", classes, level=0.9)
    plain = score_interval(even, predicted, "accuracy", classes, level=0.9)
    assert (balanced.value, balanced.low, balanced.high) == pytest.approx(
        (plain.value, plain.low, plain.high), abs=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_the_balanced_accuracy_of_equal_classes_has_the_accuracys_interval(k):
    """With K classes of equal size Kish's effective size K² / Σ 1/n_c is n, the balanced
    accuracy is the accuracy, and its interval Wilson's of the accuracy."""
    correct = np.array([5, 4, 3, 2])[:k]
    low, high = balanced_accuracy_interval(correct, np.full(k, 5), 0.95)
    assert (low, high) == pytest.approx(wilson_interval(int(correct.sum()), 5 * k, 0.95),
                                        abs=1e-12)


@pytest.mark.parametrize("sizes", [(5, 15), (4, 9, 13)])
def test_the_auc_interval_of_each_class_counts_its_own_positives_and_negatives(sizes):
    """Classes of unequal size: each class's AUC interval (one against the rest with three
    classes, their ends averaged) is Newcombe's at its own m examples and the n = N − m
    others."""
    rng = np.random.default_rng(5)
    y = labels(sizes)
    k = len(sizes)
    classes = np.arange(k)
    decisions = rng.standard_normal((y.size, k)) + 1.5 * np.eye(k)[y]
    output = decisions[:, 1] - decisions[:, 0] if k == 2 else decisions
    score = score_interval(y, output, "roc_auc", classes, level=0.9)
    positives = [1] if k == 2 else classes
    ends = [auc_interval(roc_auc_score(y == c, output if k == 2 else output[:, c]),
                         sizes[c], y.size - sizes[c], 0.9) for c in positives]
    assert (score.low, score.high) == pytest.approx(tuple(np.mean(ends, axis=0)), abs=1e-12)


@pytest.mark.parametrize("k", [2, 4])
def test_perfect_or_constant_predictions_keep_a_width(k):
    """Issue 33: 12 examples all predicted right gave a bootstrap interval [1, 1], a
    constant prediction [1/K, 1/K]."""
    y = labels([12 // k] * k)
    classes = np.arange(k)
    decisions = np.eye(k)[y] if k > 2 else y.astype(float)
    for metric, output in [("balanced_accuracy", y), ("f1_macro", y), ("roc_auc", decisions),
                           ("balanced_accuracy", np.zeros_like(y)),
                           ("roc_auc", np.zeros(decisions.shape))]:
        score = score_interval(y, output, metric, classes, level=0.95)
        assert score.low < score.value <= score.high <= 1 and score.low >= 0, metric
        assert score.high - score.low > 0.1, (metric, score)
    assert score_interval(y, y, "balanced_accuracy", classes, level=0.95).high == 1.0
    alone = score_interval(y[:1], decisions[:1], "roc_auc", classes, level=0.95)
    assert math.isnan(alone.value) and math.isnan(alone.low) and math.isnan(alone.high)


def test_a_class_no_example_is_labelled_or_predicted_as_scores_zero_at_both_ends():
    """Its F1 is 0 (scikit-learn's zero_division=0), a point: the macro interval of such
    a class beside another is half the other's interval, at both ends."""
    low, high = f1_interval([3], [1], [2], LEVEL)
    assert f1_interval([3, 0], [1, 0], [2, 0], LEVEL) == pytest.approx((low / 2, high / 2),
                                                                      abs=1e-15)


def newcombe_score_interval(auc, m, n, level):
    """Newcombe's (2006) score interval of an AUC, found independently of the package: the
    test's boundary (AUC − θ)² − z² V(θ), times the positive (2 − θ)(1 + θ) m n, is a
    quartic in θ, whose sign is evaluated exactly in fractions; bisection on that sign from
    the AUC (never rejected) towards 0 and towards 1 (rejected unless the AUC is there)
    gives each end to 1e-13."""
    m, n = int(m), int(n)
    z2, a, half_n = Fraction(stats.norm.ppf((1 + level) / 2) ** 2), Fraction(auc), Fraction(m + n, 2)

    def rejected(theta):
        t = Fraction(theta)
        return (m * n * (a - t) ** 2 * (2 - t) * (1 + t)
                - z2 * t * (1 - t) * ((2 - t) * (1 + t)
                                      + (half_n - 1) * ((1 - t) * (1 + t) + t * (2 - t)))) > 0

    def end(inside, outside):
        while abs(outside - inside) > 1e-13:
            middle = (inside + outside) / 2
            inside, outside = (inside, middle) if rejected(middle) else (middle, outside)
        return outside

    return 0.0 if auc == 0 else end(auc, 0.0), 1.0 if auc == 1 else end(auc, 1.0)


@pytest.mark.slow
@given(st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0.0, 1.0)),
       st.integers(1, 2000), st.integers(1, 2000), st.sampled_from([0.5, 0.8, 0.95, 0.99]))
@settings(max_examples=200)
def test_the_auc_interval_is_newcombes_score_interval(auc, m, n, level):
    """Both ends against the roots of the quartic the score test's boundary is (above),
    for any AUC, sample sizes and level; at an AUC of 0 or 1 that end is exactly 0 or 1."""
    low, high = auc_interval(auc, m, n, level)
    expected_low, expected_high = newcombe_score_interval(auc, m, n, level)
    assert low == pytest.approx(expected_low, abs=1e-9)
    assert high == pytest.approx(expected_high, abs=1e-9)
    assert low == 0.0 if auc == 0.0 else low < auc
    assert high == 1.0 if auc == 1.0 else high > auc


def exact_wilson_coverage(n, p, level):
    """The coverage of the accuracy's Wilson interval (which the project keeps) at n
    examples and true accuracy p, exactly, from the binomial probabilities."""
    ends = np.array([wilson_interval(x, n, level) for x in range(n + 1)])
    covers = (ends[:, 0] <= p) & (p <= ends[:, 1])
    return float(np.sum(stats.binom.pmf(np.arange(n + 1), n, p)[covers]))


def outcome_coverage(outcomes, interval, true):
    """The share of simulated ``outcomes`` (rows) whose ``interval`` holds ``true``, each
    distinct outcome's interval computed once."""
    distinct, inverse = np.unique(outcomes, axis=0, return_inverse=True)
    covers = np.array([low <= true <= high for low, high in map(interval, distinct)])
    return float(np.mean(covers[inverse.ravel()]))


SIMULATIONS = 4000
LEVEL = 0.95
#: The simulation's error: 3 standard errors of a coverage of 0.95 from 4000 data sets.
TOLERANCE = 3 * math.sqrt(LEVEL * (1 - LEVEL) / SIMULATIONS)


def simulated_coverage(metric, sizes, true_rate, rng):
    """The coverage of ``metric``'s interval over :data:`SIMULATIONS` data sets of classes
    of ``sizes``, predicted right with probability ``true_rate`` (wrong ones spread
    evenly; for the AUC, binormal decision values of true AUC ``true_rate``), and the
    metric's true value."""
    sizes = np.asarray(sizes)
    k = sizes.size
    if metric == "balanced_accuracy":
        correct = rng.binomial(sizes, true_rate, size=(SIMULATIONS, k))
        return outcome_coverage(correct, lambda c: balanced_accuracy_interval(
            c, sizes, LEVEL), true_rate), true_rate
    if metric == "f1_macro":
        rates = np.full((k, k), (1 - true_rate) / (k - 1))
        np.fill_diagonal(rates, true_rate)
        shares = sizes[:, None] / sizes.sum() * rates  # the population's confusion matrix
        hits = np.diag(shares)
        true = float(np.mean(2 * hits / (shares.sum(0) + shares.sum(1))))
        rows = np.stack([rng.multinomial(n, rates[c], size=SIMULATIONS)
                         for c, n in enumerate(sizes)], axis=1)  # data set, class, predicted

        def interval(flat):
            matrix = flat.reshape(k, k)
            tp = np.diag(matrix)
            return f1_interval(tp, matrix.sum(0) - tp, matrix.sum(1) - tp, LEVEL)

        return outcome_coverage(rows.reshape(SIMULATIONS, -1), interval, true), true
    m, n = sizes
    shift = math.sqrt(2) * stats.norm.ppf(true_rate)  # AUC = Φ(shift / √2)
    positives = rng.standard_normal((SIMULATIONS, m, 1)) + shift
    pairs = np.sum(positives > rng.standard_normal((SIMULATIONS, 1, n)), axis=(1, 2))
    return outcome_coverage(pairs[:, None], lambda u: auc_interval(
        float(u[0]) / (m * n), m, n, LEVEL), true_rate), true_rate


@pytest.mark.slow
@pytest.mark.parametrize("metric, sizes", [
    ("balanced_accuracy", (6, 6)), ("balanced_accuracy", (3, 3, 3, 3)),
    ("balanced_accuracy", (4, 8)), ("balanced_accuracy", (50, 50)),
    ("balanced_accuracy", (30, 45, 25)), ("f1_macro", (6, 6)), ("f1_macro", (3, 3, 3, 3)),
    ("f1_macro", (50, 50)), ("roc_auc", (6, 6)), ("roc_auc", (50, 50))])
def test_the_intervals_keep_their_coverage_near_one_and_at_chance(metric, sizes):
    """Coverage by simulation at n = 12 and n = 100, at chance (1/K; an AUC of 0.5), in
    between and near 1 (0.95): at least the nominal level — or, where Wilson's interval
    of the accuracy (which the project keeps) itself oscillates below it for these
    discrete data (Brown, Cai & DasGupta 2001), its least exact coverage at the same true
    value and a sample size from the effective one (Kish's, K² / Σ 1/n_c: n for classes
    of equal size) to n — less the simulation's error (3 standard errors). The percentile
    bootstrap this replaces covered 0.95 at n = 12 less than half the time (12 right
    predictions, probability 0.54, gave [1, 1])."""
    rng = np.random.default_rng(33)
    chance = 0.5 if metric == "roc_auc" else 1 / len(sizes)
    for true_rate in [chance, 0.8, 0.95]:
        coverage, true = simulated_coverage(metric, sizes, true_rate, rng)
        effective = len(sizes) ** 2 / sum(1 / n for n in sizes)
        floor = min(LEVEL, *(exact_wilson_coverage(n, true, LEVEL)
                             for n in range(math.floor(effective + 1e-9), sum(sizes) + 1)))
        assert coverage >= floor - TOLERANCE, (true_rate, coverage, floor)


def held_out_case(max_classes):
    """Labels with every class present and an estimator's output for each metric."""
    @st.composite
    def case(draw):
        k = draw(st.integers(2, max_classes))
        sizes = draw(st.lists(st.integers(1, 15), min_size=k, max_size=k))
        y = labels(sizes)
        metric = draw(st.sampled_from(["accuracy", "balanced_accuracy", "f1_macro",
                                       "roc_auc"]))
        if metric == "roc_auc":
            shape = (y.size,) if k == 2 else (y.size, k)
            output = np.array(draw(st.lists(st.integers(0, 4), min_size=int(np.prod(shape)),
                                            max_size=int(np.prod(shape))))).reshape(shape)
        else:
            output = np.array(draw(st.lists(st.integers(0, k - 1), min_size=y.size,
                                            max_size=y.size)))
        return y, output.astype(float) if metric == "roc_auc" else output, metric, k
    return case()


@pytest.mark.slow
@given(held_out_case(4), st.sampled_from([0.5, 0.8, 0.95, 0.99]))
@settings(max_examples=150)
def test_every_interval_holds_its_value_within_bounds_with_a_width(case, level):
    y, output, metric, k = case
    score = score_interval(y, output, metric, np.arange(k), level=level)
    assert 0 <= score.low <= score.value <= score.high <= 1
    assert score.high - score.low > 0
    assert score.value == metric_value(y, output, metric, np.arange(k))


# --------------------------------------------------------------------------- chance


@given(st.integers(5, 120), st.integers(1, 119), st.data())
@settings(max_examples=50)
def test_the_accuracy_chance_test_is_the_exact_binomial_tail(n, majority, data):
    majority = min(majority, n - 1)
    y = labels([majority, n - majority])
    correct = data.draw(st.integers(0, n))
    p0 = max(majority, n - majority) / n
    tail = sum(math.comb(n, k) * p0**k * (1 - p0)**(n - k) for k in range(correct, n + 1))
    assert chance_p_value(correct / n, y, "accuracy") == pytest.approx(tail, rel=1e-9,
                                                                         abs=1e-12)


def test_no_information_values_are_what_ignoring_the_features_scores():
    y = labels([30, 10, 10])
    classes = np.array([0, 1, 2])
    majority = np.zeros(y.size, dtype=int)
    assert no_information_value(y, "accuracy") == metric_value(y, majority, "accuracy", classes)
    assert no_information_value(y, "f1_macro") == pytest.approx(
        metric_value(y, majority, "f1_macro", classes))
    assert no_information_value(y, "balanced_accuracy") == pytest.approx(
        metric_value(y, majority, "balanced_accuracy", classes))  # 1/K for any constant
    assert no_information_value(y, "roc_auc") == 0.5
    for metric in ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc"):
        value = no_information_value(y, metric)
        assert chance_p_value(value, y, metric) >= 0.5 - 1e-9  # at chance: never significant
        assert chance_p_value(1.0, y, metric) < 1e-3
    assert math.isnan(chance_p_value(math.nan, y, "accuracy"))


@pytest.mark.parametrize("counts", [[20, 12], [15, 15, 10]])
def test_the_null_variances_of_balanced_accuracy_and_auc(counts):
    """The normal tests' null variances against simulation: 3 000 predictions and scores
    drawn independently of the labels, scored at once (each class's recall; each class's
    AUC from the ranks of its examples' scores, Mann–Whitney), as scikit-learn scores the
    first 50."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score
    y = labels(counts)
    k, rng = len(counts), np.random.default_rng(0)
    predictions = rng.integers(0, k, (3000, y.size))
    balanced = np.mean([(predictions[:, y == c] == c).mean(axis=1) for c in range(k)], axis=0)
    scores = rng.random((3000, y.size, k))
    ranks = scores.argsort(axis=1).argsort(axis=1) + 1  # 1 … n within each draw and class
    sizes = np.bincount(y, minlength=k)
    per_class = np.stack([(ranks[:, y == c, c].sum(axis=1) - sizes[c] * (sizes[c] + 1) / 2)
                          / (sizes[c] * (y.size - sizes[c])) for c in range(k)])
    auc = per_class.mean(axis=0) if k > 2 else per_class[1]
    for draw in range(50):
        assert balanced[draw] == pytest.approx(balanced_accuracy_score(y, predictions[draw]))
        assert auc[draw] == pytest.approx(
            np.mean([roc_auc_score(y == c, scores[draw, :, c]) for c in range(k)]) if k > 2
            else roc_auc_score(y == 1, scores[draw, :, 1]))
    for metric, sample in (("balanced_accuracy", balanced), ("roc_auc", auc)):
        value = float(np.quantile(sample, 0.95))  # the simulated 5 % critical value
        assert chance_p_value(value, y, metric) == pytest.approx(0.05, abs=0.02), metric


def _normal_p_value(value, mean, variance):
    return float(stats.norm.sf((value - mean) / math.sqrt(variance)))


@pytest.mark.parametrize("counts", [[3, 2], [2, 1, 2], [1, 2, 1, 1]])
def test_the_balanced_accuracy_null_variance_is_exact(counts):
    """The variance of the balanced accuracy of every one of the K^n predictions, each
    equally likely (each example's class drawn uniformly, whatever its label), is the null
    variance the normal test uses, to rounding."""
    y = labels(counts)
    k = len(counts)
    predictions = np.array(list(itertools.product(range(k), repeat=y.size)))
    recalls = np.stack([(predictions[:, y == c] == c).mean(axis=1) for c in range(k)])
    variance = recalls.mean(axis=0).var()
    for value in (1 / k + 0.05, 0.8, 1.0):
        assert chance_p_value(value, y, "balanced_accuracy") == pytest.approx(
            _normal_p_value(value, 1 / k, variance), rel=1e-12)


def _auc_null_variance(positives, n):
    """The variance of the AUC of n distinct scores over every choice of which
    ``positives`` of them are the positives, each equally likely."""
    aucs = []
    for chosen in itertools.combinations(range(n), positives):
        positive = np.isin(np.arange(n), chosen)  # scores are the ranks 0..n-1
        aucs.append(np.mean(np.arange(n)[positive][:, None] > np.arange(n)[~positive]))
    return np.var(aucs)


@pytest.mark.parametrize("counts", [[3, 4], [1, 5], [2, 3, 2], [2, 2, 1, 3]])
def test_the_auc_null_variance_is_exact(counts):
    """Mann–Whitney's null variance (n + 1) / (12 n_c (n − n_c)) of a one-vs-rest AUC
    against enumeration of every labelling of n distinct scores; with K > 2 classes the
    test takes the K one-vs-rest AUCs' mean as of independent AUCs (Σ V_c / K²)."""
    y = labels(counts)
    k, n = len(counts), y.size
    per_class = [_auc_null_variance(c, n) for c in counts]
    variance = per_class[1] if k == 2 else sum(per_class) / k**2
    for value in (0.55, 0.8, 1.0):
        assert chance_p_value(value, y, "roc_auc") == pytest.approx(
            _normal_p_value(value, 0.5, variance), rel=1e-12)


def test_the_label_probe():
    y = labels([10, 10])
    X = np.random.default_rng(0).standard_normal((20, 6))
    assert ignores_labels(lambda labels: np.arange(6) < 3, y)  # the same whatever the labels
    informed = lambda labels: np.abs(  # noqa: E731 - the two largest |class mean difference|
        X[labels == 1].mean(0) - X[labels == 0].mean(0)) >= np.sort(np.abs(
            X[labels == 1].mean(0) - X[labels == 0].mean(0)))[-2]
    assert not ignores_labels(informed, y)


def test_the_label_probe_permutes_the_same_labels_at_every_call():
    """The default seed is 0: the probe's permutations are those of seed 0, at every call."""
    y = labels([6, 6])

    def probed(**seed):
        seen = []
        ignores_labels(lambda labels: seen.append(labels.tolist()) or np.ones(3, bool), y,
                       **seed)
        return seen

    rng = np.random.default_rng(0)
    expected = [y.tolist()] + [rng.permutation(y).tolist() for _ in range(2)]
    assert probed() == probed() == probed(seed=0) == expected != probed(seed=1)


def test_a_held_out_score_takes_lists_as_arrays():
    y, predicted = [0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1]
    decisions = [-1.0, 2.0, 0.5, -0.5, 1.0, -0.2]
    classes = np.array([0, 1])
    for metric in ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc"):
        output = decisions if metric == "roc_auc" else predicted
        assert score_interval(y, output, metric, classes, level=0.9) == score_interval(
            np.array(y), np.array(output), metric, classes, level=0.9), metric


# --------------------------------------------------------------------------- end to end

STUDY = {
    "study": {"name": "held", "trials": 6, "seed": 0, "sampler": "grid"},
    "data": {"source": "breast_cancer"},
    "protocol": {"runs": 4, "replicates": 3, "holdout": 0.25},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4, "epsilon": 0.05,
                                                 "alpha": 0.5, "final_reg": 1.0},
                 "search": {"n_stable": {"choices": [2, 4]},
                            "reg": {"choices": [0.1, 1.0, 10.0]}}},
    "objective": {"stability": "nogueira"},
}


@pytest.fixture(scope="module")
def held_study(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('held') / 'held.db'}"
    run_study(parse_spec(STUDY), storage=url, progress=False)
    return url


@pytest.mark.slow
def test_the_held_out_part_never_reaches_the_search(held_study):
    problem = read(held_study).problem
    assert problem.X.shape[0] == 426 and problem.test_X.shape[0] == 143  # 569 × 0.25
    full = Problem.from_spec(parse_spec({**STUDY, "protocol": {"runs": 4}}))
    rows = {tuple(r) for r in full.X[problem.split.test]}
    assert not rows & {tuple(r) for r in problem.X}


@pytest.mark.slow
def test_the_report_scores_the_front_on_the_held_out_part(held_study, monkeypatch):
    reader = read(held_study)
    report = analysed(held_study, replicates=3, progress=False)
    held = report.held_out
    assert held is not None and held.n_test == 143 and held.n_development == 426
    assert set(held.table["trial"]) >= set(report.front.trials)
    for number, score in held.scores.items():  # a refit on the development part, scored
        selector, columns = reader.problem.fitted_selector(reader.params[number])
        expected = np.mean(selector.predict(reader.problem.test_X[:, columns])
                           == reader.problem.test_y)
        assert score.value == pytest.approx(expected) and score.low <= score.value <= score.high
    assert "development part (426 examples" in report.data
    summary = report.to_dict()
    assert summary["held_out"]["n_test"] == 143
    assert json.loads(json.dumps(summary, default=float))["held_out"]["description"]
    # cached in the study: a second reading refits nothing
    again = Refits(read(held_study))
    monkeypatch.setattr(Problem, "held_out_score", None)  # would fail if called
    assert again.held_out_score(report.front.trials[0], 0.95) == held.scores[
        report.front.trials[0]]
    monkeypatch.undo()
    # a score cached by the percentile bootstrap of earlier versions is computed again
    number = report.front.trials[0]
    key = f"paretostab:held-out:{number}:0.95"
    stale = read(held_study)
    collapsed = {**held.scores[number].to_dict(), "low": 1.0, "high": 1.0,
                 "method": "bootstrap"}
    kept = []
    refits = Refits(replace(stale, cache={**stale.cache, key: collapsed}),
                    keep=lambda *entry: kept.append(entry))
    assert refits.held_out_score(number, 0.95) == held.scores[number]
    assert kept == [(stale.name, key, held.scores[number].to_dict())]


@pytest.mark.slow
def test_trials_that_ignore_the_labels_are_flagged_and_never_chosen_unless_allowed(held_study):
    reader = read(held_study)
    label_free = {n for n, p in reader.params.items() if p["n_stable"] == 4}  # N = k
    report = analysed(held_study, replicates=0, gamma=0.0, progress=False)
    flags = report.flags
    assert label_free & set(report.front.trials)  # the most stable trials: on the front
    for number in label_free & set(flags.label_free):
        assert flags.flagged(number) and "ignores the labels" in flags.reason(number)
    assert report.chosen_trial not in label_free  # γ = 0: the most stable unflagged trial
    assert report.eligible_dominance_area < report.front.dominance_area
    allowed = analysed(held_study, replicates=0, gamma=0.0, progress=False,
                       allow_chance=True)
    assert allowed.chosen_trial in label_free
    chosen = choose(held_study, 0.0)
    assert chosen.trial == report.chosen_trial and chosen.held_out["n"] == 143
    assert set(chosen.flagged) >= label_free & set(flags.label_free)
    assert choose(held_study, 0.0, allow_chance=True).trial in label_free


@pytest.mark.slow
def test_a_choice_off_the_front_says_what_it_chose_from_and_has_its_replicates(
        held_study, monkeypatch):
    # every front trial flagged as label-free (N = k, and trial 1 by fiat): γ chooses among
    # the others, whose front lies below the study's
    front = set(analysed(held_study, replicates=0, progress=False).front.trials)
    monkeypatch.setattr(Refits, "ignores_labels", lambda self, number: number in front)
    report = analysed(held_study, replicates=3, gamma=0.0, progress=False)
    assert report.chosen_trial not in report.front.trials
    assert report.chosen_trial in report.choice_trials
    flagged = sum(report.flags.flagged(n) for n in report.front.trials)
    assert report.chosen_from.startswith("the front of the ") and (
        f"({flagged} of the {len(report.front.trials)} trials of the study's front" in
        report.chosen_from)
    assert report.trade_off.replicates == 3  # replicated although off the front
    assert all(math.isfinite(v["replicate mean"]) for v in report.trade_off.values)
    summary = report.to_dict()
    assert summary["chosen_from"] == {"description": report.chosen_from,
                                      "trials": list(report.choice_trials)}
    assert set(summary["front"]) == set(report.front.trials)  # the regions: the front's


def test_tune_flags_its_front_as_the_report_does(held_study):
    study = optuna.load_study(study_name="held", storage=held_study)
    table = front_table(study)
    report = analysed(held_study, replicates=0, progress=False)
    assert list(table["trial"]) == list(report.front.trials)
    for number, reason in zip(table["trial"], table["flagged"], strict=True):
        assert reason == report.flags.reason(number)  # the same words, the same verdict
    assert table["flagged"].str.contains("ignores the labels").any()
    trials = study.get_trials()
    flagged = [n for n, r in zip(table["trial"], table["flagged"], strict=True) if r]
    for number in flagged:  # the dashboard's trial note says it, as optuna-dashboard reads it
        assert "**flagged**: selection ignores the labels" in note_of(study, trials[number])


def test_the_report_reuses_the_label_probes_tune_recorded(held_study, monkeypatch):
    front = analysed(held_study, replicates=0, progress=False).front.trials
    monkeypatch.setattr(Problem, "ignores_labels", None)  # would fail if called
    study = Refits(read(held_study))
    assert all(isinstance(study.ignores_labels(n), bool) for n in front)


def test_a_selection_that_ignores_the_labels_is_not_called_chance():
    """A selection that is the same whatever the labels may classify well (out of bag
    0.968 on a hidden data set); its reason says so, not "not above chance"."""
    flags = ChanceFlags("balanced_accuracy", 0.25, 0.95, {1: 0.5, 2: 1e-6, 3: 0.5, 4: 1e-6},
                        {2: True, 3: True, 4: False})
    assert flags.reason(1) == "balanced accuracy not above chance (0.250; p = 0.5)"
    assert flags.reason(2) == LABEL_FREE_REASON == (
        "selection ignores the labels: its stability is not evidence of signal")
    assert flags.reason(3) == f"{flags.reason(1)}; {LABEL_FREE_REASON}"
    assert flags.reason(4) == "" and flags.flagged_trials == (1, 2, 3)
    assert [flags.below_chance(n) for n in (1, 2, 3, 4)] == [True, False, True, False]
    assert [flags.ignores_labels(n) for n in (1, 2, 3, 4)] == [False, True, True, False]


@pytest.mark.slow
def test_cli_choose_says_what_was_held_out_and_passed_over(held_study):
    run = subprocess.run([sys.executable, "-m", "paretostab", "choose", "--gamma", "0",
                          "--storage", held_study], capture_output=True, text=True, check=True)
    assert "held out (held-out 25%, 143 examples never seen by the search)" in run.stdout
    assert "passed over as flagged: trial" in run.stdout
    assert "selection ignores the labels: its stability is not evidence of signal" in run.stdout
    assert "no better than chance" not in run.stdout  # the reasons say why
    allowed = subprocess.run([sys.executable, "-m", "paretostab", "choose", "--gamma", "0",
                              "--allow-chance", "--storage", held_study],
                             capture_output=True, text=True, check=True)
    assert "flagged (chosen from by --allow-chance): trial" in allowed.stdout


@pytest.mark.slow
def test_the_report_page_says_what_data_each_estimate_is_on(held_study, tmp_path):
    out = build_report(held_study, out=tmp_path / "report", replicates=3, progress=False)
    page = (out / "index.html").read_text()
    assert "computed on the development part (426 examples" in page
    assert "Held-out evaluation" in page and "Wilson score intervals" in page
    assert "Chance level: a prediction that ignores the features scores accuracy" in page
    label_free = re.search(r"and (\d+) whose selection ignores the labels \(.*?\): these may "
                           r"score a high accuracy, but their stability is not evidence of "
                           r"signal", page)
    assert label_free and int(label_free.group(1)) > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["chance"]["dominance_area_without_flagged"] < summary["dominance_area"]


# --------------------------------------------------------------------------- nested


def simulate(n, rng, d=500, informative=3, shift=0.35):
    """Two balanced classes; ``informative`` features shifted by ±``shift``, the rest
    noise."""
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, d))
    X[:, :informative] += np.where(y[:, None] == 1, shift, -shift)
    return X, y


NESTED = {
    "study": {"name": "sim", "trials": 12, "seed": 0, "sampler": "random"},
    "data": {"source": "memory"},
    "protocol": {"runs": 8, "outer_folds": 5, "resamples": "per_trial",
                 "resampling": "subsample", "sample_fraction": 0.8},
    "selector": {"name": "t_test",
                 "search": {"n_features": [1, 60],
                            "final_reg": {"low": 1e-3, "high": 1e3, "log": True}}},
    "objective": {"stability": "nogueira"},
}


@pytest.mark.slow
def test_nested_evaluation_estimates_what_independent_data_show(tmp_path):
    """Six simulated data sets (n = 100, d = 500, 3 informative features): the nested
    estimate of the whole procedure is close to the accuracy of its output on 6000 new
    examples of the same simulation, on average, while the best out-of-bag value of the
    front is visibly above it (the search's optimism)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    nested, independent, best = [], [], []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X, y = simulate(100, rng)
        X_new, y_new = simulate(6000, rng)
        url = f"sqlite:///{tmp_path / f'sim{seed}.db'}"
        run_study(parse_spec(NESTED), storage=url, data=(X, y), progress=False)
        names = {s.study_name for s in optuna.get_all_study_summaries(url)}
        assert names == {"sim", *(f"sim/outer-{k}" for k in range(1, 6))}
        reader = read(url, data=(X, y))  # the outer folds' studies belong to "sim"
        report = analysed(url, data=(X, y), replicates=0, progress=False)
        assert len(report.nested.folds) == 5 and not report.nested.missing
        selector, columns = reader.problem.fitted_selector(
            reader.params[report.chosen_trial])
        nested.append(report.nested.mean)
        independent.append(np.mean(selector.predict(X_new[:, columns]) == y_new))
        best.append(report.table["accuracy"].max())
    assert abs(np.mean(nested) - np.mean(independent)) < 0.05
    assert np.mean(best) - np.mean(independent) > 0.04


def tiny_nested(outer_folds: int):
    """A nested spec that runs in seconds: 4 trials of 3 runs, t-test with k in [1, 10]."""
    return parse_spec({**NESTED, "study": {**NESTED["study"], "trials": 4},
                       "protocol": {**NESTED["protocol"], "outer_folds": outer_folds,
                                    "runs": 3},
                       "selector": {"name": "t_test", "search": {"n_features": [1, 10]}}})


@pytest.mark.slow
def test_a_nested_report_names_missing_folds_and_the_chosen_features(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X, y = simulate(60, rng, d=40)
    spec = tiny_nested(3)
    url = f"sqlite:///{tmp_path / 'n.db'}"
    one = parse_spec({**spec.to_dict(), "protocol": {**spec.to_dict()["protocol"],
                                                    "outer_fold": 2}})
    fold = run_study(one, storage=url, data=(X, y), progress=False)  # one fold alone
    assert fold.study_name == "sim/outer-2"
    assert fold.user_attrs["spec"]["protocol"]["outer_fold"] == 2
    run_study(spec, storage=url, data=(X, y), n_trials=4, progress=False)
    report = analysed(url, "sim", data=(X, y), replicates=0, progress=False)
    nested = report.nested
    assert list(nested.folds["fold"]) == [1, 2, 3]
    fold_reader = read(url, "sim/outer-2", data=(X, y))
    assert fold_reader.problem.y.size == 40 and fold_reader.problem.test_y.size == 20
    # each fold's refit of its chosen trial is kept in the fold's own study
    chosen = int(nested.folds.loc[nested.folds["fold"] == 2, "chosen"].item())
    assert f"paretostab:held-out:{chosen}:0.95" in fold_reader.cache
    # choose reads the study alone, not its outer folds
    from paretostab.report._load import StudySource

    monkeypatch.setattr(StudySource, "outer", lambda *a: pytest.fail("outer folds read"))
    assert choose(url, 0.5, study_name="sim", data=(X, y)).trial in set(report.table["trial"])
    monkeypatch.undo()
    assert nested.frequencies["folds"].max() <= 3
    assert set(nested.stability) == {"nogueira", "iw"}
    summary = report.to_dict()
    assert summary["nested"]["outer_folds"] == 3
    # a fold not tuned yet is named, not guessed
    storage = optuna.storages.RDBStorage(url)
    optuna.delete_study(study_name="sim/outer-3", storage=storage)
    partial = analysed(url, "sim", data=(X, y), replicates=0, progress=False)
    assert partial.nested.missing == (3,) and len(partial.nested.folds) == 2


@pytest.mark.slow
def test_nested_evaluation_runs_with_worker_processes(tmp_path):
    """Each outer fold is a study as any other: two worker processes share its trials."""
    rng = np.random.default_rng(1)
    X, y = simulate(40, rng, d=20)
    spec = tiny_nested(2)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    study = run_study(spec, storage=url, data=(X, y), workers=2, progress=False)
    for name in (study.study_name, "sim/outer-1", "sim/outer-2"):
        done = optuna.load_study(study_name=name, storage=url).get_trials(
            states=(optuna.trial.TrialState.COMPLETE,))
        assert len(done) == 4, name


@pytest.mark.parametrize("metric", ["accuracy", "balanced_accuracy"])
def test_a_held_out_score_with_three_classes(metric):
    """wine (59/71/48): the held-out part keeps every class; the refit scores it with the
    Wilson interval (accuracy) or its balanced counterpart (balanced accuracy), and the
    chance test compares with 71/178 or 1/3."""
    spec = parse_spec({"study": {"name": "wine"}, "data": {"source": "wine"},
                       "protocol": {"runs": 3, "holdout": 0.3, "metric": metric},
                       "selector": {"name": "t_test", "fixed": {"n_features": 4}},
                       "objective": {"stability": "nogueira"}})
    problem = Problem.from_spec(spec)
    assert set(np.unique(problem.test_y)) == set(np.unique(problem.y)) and \
        len(np.unique(problem.y)) == 3
    score = problem.held_out_score({}, level=0.95)
    selector, columns = problem.fitted_selector({})
    expected = metric_value(problem.test_y, selector.predict(problem.test_X[:, columns]),
                            metric, selector.classes_)
    assert score.value == expected and score.low <= score.value <= score.high
    assert score.method == INTERVAL_METHODS[metric]
    assert chance_p_value(score.value, problem.y, metric) < 1e-6  # wine is easy
    assert no_information_value(problem.y, metric) == pytest.approx(
        71 / 178 if metric == "accuracy" else 1 / 3, abs=0.01)  # stratified: wine's shares
