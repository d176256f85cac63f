"""Honest estimates: the data a study never sees, and trials no better than chance.

A study's accuracies are out-of-bag estimates on the resamples its search optimises, and
its front is the best of many trials: both are optimistic. This module holds the pure
computations that say what a chosen setting does on other data:

- :func:`evaluation_split`: the development part a study tunes on and the part it never
  sees — a stratified held-out fraction (``[protocol] holdout``) or one of K stratified
  outer folds (``[protocol] outer_folds``, nested evaluation);
- :func:`score_interval`: a metric on held-out examples with its interval, one that keeps
  its coverage for perfect or constant predictions (Wilson's for accuracy and each
  class's recall, :func:`balanced_accuracy_interval`, :func:`f1_interval`,
  :func:`auc_interval`);
- :func:`no_information_value` and :func:`chance_p_value`: the metric a prediction that
  ignores the features reaches, and the one-sided test of a trial against it;
- :func:`ignores_labels`: whether a setting's selection depends on the labels at all;
- :class:`ChanceFlags`: the trials flagged by either, with the reason — what ``tune``'s
  front table, its trials' dashboard notes and the report say alike.

Pure numpy, scipy and scikit-learn: no Optuna, no files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from paretostab._errors import InvalidInputError
from paretostab._metrics import metric_value

__all__ = ["INTERVAL_METHODS", "LABEL_FREE_REASON", "ChanceFlags", "HeldOutScore", "Split",
           "auc_interval", "balanced_accuracy_interval", "chance_p_value", "evaluation_split",
           "f1_interval", "ignores_labels", "no_information_value", "outer_study_name",
           "score_interval", "wilson_interval"]


@dataclass(frozen=True)
class Split:
    """The examples a study tunes on and those it never sees.

    Attributes
    ----------
    development : int array
        Row indices of the development part (sorted): tuning, replicates, the γ choice
        and the refit of a chosen setting see only these.
    test : int array
        Row indices of the held-out part (sorted).
    description : str
        What the held-out part is, as the report says it ("held-out 25 %",
        "outer fold 2 of 5").
    """

    development: np.ndarray
    test: np.ndarray
    description: str


def evaluation_split(y: np.ndarray, *, holdout: float | None = None,
                     outer_folds: int | None = None, outer_fold: int | None = None,
                     seed: int | None = None) -> Split | None:
    """The stratified split of the examples labelled ``y`` a spec's protocol asks for.

    Parameters
    ----------
    y : array (n,)
    holdout : float in (0, 1), optional
        The fraction held out (``[protocol] holdout``): scikit-learn's
        ``StratifiedShuffleSplit`` with ``test_size = holdout``.
    outer_folds, outer_fold : int, optional
        K and k ∈ 1..K (``[protocol] outer_folds``, ``outer_fold``): the k-th test fold of
        scikit-learn's ``StratifiedKFold(K, shuffle=True)`` is held out.
    seed : int, optional
        ``[protocol] split_seed`` (absent: 0): every process, every report of a study
        draws the same split.

    Returns
    -------
    Split or None
        None when the protocol holds nothing out (neither ``holdout`` nor ``outer_fold``).

    Raises
    ------
    InvalidInputError
        When a class is too small to be split so (every class needs 2 examples in the
        development part and one in each held-out part), also when the stratified
        allocation rounds a small class's share of the held-out part to none.
    """
    y = np.asarray(y)
    seed = 0 if seed is None else int(seed)
    classes, counts = np.unique(y, return_counts=True)
    if holdout is not None:
        held = np.ceil(holdout * y.size)
        if counts.min() < 3 or held < classes.size or y.size - held < 2 * classes.size:
            raise InvalidInputError(
                f"protocol.holdout = {holdout}: the data cannot keep every class in both "
                f"parts ({y.size} examples, smallest class {counts.min()}: every class "
                f"needs 2 examples to tune on and 1 held out); use outer_folds instead.")
        splitter = StratifiedShuffleSplit(n_splits=1, test_size=holdout, random_state=seed)
        development, test = next(splitter.split(np.zeros((y.size, 1)), y))
        held_counts = np.array([np.sum(y[test] == c) for c in classes])
        if held_counts.min() < 1 or (counts - held_counts).min() < 2:
            # the stratified allocation rounds each class's share of the held-out part
            # to whole examples: a small class's share below one half can round to none
            c = int(np.argmin(np.minimum(held_counts, counts - held_counts - 1)))
            raise InvalidInputError(
                f"protocol.holdout = {holdout}: class {classes.tolist()[c]!r} ({counts[c]} of "
                f"{y.size} examples) gets {held_counts[c]} held out and "
                f"{counts[c] - held_counts[c]} to tune on; every class needs 2 examples "
                f"to tune on and 1 held out: raise holdout to at least "
                f"{1 / counts[c]:.2f} or use outer_folds instead.")
        return Split(np.sort(development), np.sort(test), f"held-out {holdout:.0%}")
    if outer_fold is None:
        return None
    if counts.min() < outer_folds:
        raise InvalidInputError(
            f"protocol.outer_folds = {outer_folds}: the smallest class has {counts.min()} "
            f"examples; every outer fold needs one of each class: use at most "
            f"{counts.min()} outer folds.")
    folds = StratifiedKFold(outer_folds, shuffle=True, random_state=seed)
    development, test = list(folds.split(np.zeros((y.size, 1)), y))[outer_fold - 1]
    return Split(np.sort(development), np.sort(test),
                 f"outer fold {outer_fold} of {outer_folds}")


def outer_study_name(study_name: str, fold: int) -> str:
    """The name of the study that tunes in outer fold ``fold`` of the nested evaluation of
    the study ``study_name`` (``<name>/outer-<k>``): ``report`` of ``study_name`` finds
    its outer folds by it.

    Parameters
    ----------
    study_name : str
        The study whose procedure is evaluated.
    fold : int
        The outer fold k, 1..K.
    """
    return f"{study_name}/outer-{int(fold)}"


# --------------------------------------------------------------------------- held out


@dataclass(frozen=True)
class HeldOutScore:
    """A metric measured on held-out examples, with its interval.

    Attributes
    ----------
    value : float
    low, high : float
        The ``level`` interval (:func:`score_interval`): it holds ``value``, lies in
        [0, 1] and keeps a positive width for perfect or constant predictions.
    n : int
        The held-out examples.
    level : float
    method : str
        :data:`INTERVAL_METHODS` of the metric.
    """

    value: float
    low: float
    high: float
    n: int
    level: float
    method: str

    def to_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n,
                "level": self.level, "method": self.method}


#: The interval :func:`score_interval` gives each metric (a held-out score cached with
#: another method, such as the percentile bootstrap of earlier versions, which collapsed
#: to a point for perfect or constant predictions, is computed again).
INTERVAL_METHODS = {"accuracy": "wilson", "balanced_accuracy": "wilson-kish",
                    "f1_macro": "wilson-jaccard", "roc_auc": "newcombe"}


def wilson_interval(successes: int, n: int, level: float) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion ``successes / n`` (Wilson 1927;
    Brown, Cai & DasGupta 2001 recommend it over the Wald interval for small n).

    Parameters
    ----------
    successes, n : int
        The successes among n > 0 trials.
    level : float in (0, 1)
        The confidence level (0.95: a 95 % interval).
    """
    return _wilson(successes / n, n, level)


def _wilson(p: float, n: float, level: float) -> tuple[float, float]:
    """Wilson's interval of a proportion ``p`` of ``n`` examples (n may be an effective
    sample size)."""
    z = stats.norm.ppf((1 + level) / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if p == 0 else max(0.0, float(centre - half))  # exact at the ends
    high = 1.0 if p == 1 else min(1.0, float(centre + half))
    return low, high


def balanced_accuracy_interval(correct: np.ndarray, counts: np.ndarray,
                               level: float) -> tuple[float, float]:
    """The ``level`` interval of the balanced accuracy b = mean(correct / counts) of K
    classes of ``counts`` examples: Wilson's interval of b as a proportion of Kish's
    (1965) effective sample size of its weights, n_eff = K² / Σ_c 1/n_c (each example
    weighs 1/(K n_c) in b; a weighted proportion's Wilson interval at that size, as Korn
    & Graubard 1998 give it for survey proportions).

    b's variance is Σ_c r_c(1 − r_c) / (K² n_c) (r_c the true recalls, independent: the
    class sizes are fixed by the stratified split), b(1 − b) / n_eff when the recalls are
    equal; with classes of equal size n_eff = n, the variance is at most b(1 − b) / n (a
    sum of independent Bernoulli variables is less dispersed than the binomial of their
    mean; Hoeffding 1956) and the interval is Wilson's of the accuracy, which b then is.
    With one class it is Wilson's of its recall. Like Wilson's it keeps a positive width
    at b = 1 and at a constant prediction's 1/K, where a percentile bootstrap collapses to
    a point; and like Wilson's its coverage oscillates about the nominal level
    at small n (tests/test_evaluation.py measures it at n = 12 and 100).

    Parameters
    ----------
    correct : int array (K,)
        The examples of each class predicted right.
    counts : int array (K,)
        The examples of each class, all > 0.
    level : float in (0, 1)
        The confidence level (0.95: a 95 % interval)."""
    counts = np.asarray(counts)
    value = float(np.mean(np.asarray(correct) / counts))
    return _wilson(value, counts.size**2 / float(np.sum(1 / counts)), level)


def f1_interval(true_positives: np.ndarray, false_positives: np.ndarray,
                false_negatives: np.ndarray, level: float) -> tuple[float, float]:
    """The ``level`` interval of the macro F1 of K classes with these counts.

    A class's F1, 2TP / (2TP + FP + FN), is 2J / (1 + J) of its Jaccard index J = TP /
    (TP + FP + FN), increasing in J; J is a binomial proportion of the examples predicted
    or labelled as the class (each is a true positive with probability J), and its Wilson
    interval (Brown, Cai & DasGupta 2001) mapped by 2J / (1 + J) is the F1's. A class no
    example is labelled or predicted as scores 0 (scikit-learn's ``zero_division=0``), a
    point. The classes' F1 share their examples (a false positive of one is a false
    negative of another), so their mean takes the mean of the ends: MOVER with the
    correlation 1 (Zou & Donner 2008), to the normal approximation the widest the
    dependence can make it. Wilson's
    interval keeps a positive width at J = 1, so does this one.

    Parameters
    ----------
    true_positives, false_positives, false_negatives : int array (K,)
        Each class's counts.
    level : float in (0, 1)
        The confidence level (0.95: a 95 % interval)."""
    tp = np.asarray(true_positives)
    involved = tp + np.asarray(false_positives) + np.asarray(false_negatives)
    ends = np.array([wilson_interval(int(t), int(m), level) if m else (0.0, 0.0)
                     for t, m in zip(tp, involved, strict=True)])
    f1 = 2 * ends / (1 + ends)
    return float(np.mean(f1[:, 0])), float(np.mean(f1[:, 1]))


def auc_interval(auc: float, positives: int, negatives: int,
                 level: float) -> tuple[float, float]:
    """The ``level`` score interval of an AUC of ``positives`` × ``negatives`` pairs
    (Newcombe 2006, Part 2, his score-type interval): the θ that the test
    ``abs(AUC − θ) <= z·√V(θ)`` does not reject, V(θ) Hanley & McNeil's (1982) variance at
    θ with both sample sizes replaced by their mean N = (m + n) / 2::

        V(θ) = θ(1 − θ) / (m n) · [1 + (N − 1)((1 − θ) / (2 − θ) + θ / (1 + θ))]

    Like Wilson's interval for a proportion (and unlike the Wald or DeLong intervals and
    the bootstrap, all of which have zero width at an AUC of 1) it keeps a positive
    width at 0 and 1, and lies within [0, 1].

    Parameters
    ----------
    auc : float in [0, 1]
        The AUC measured.
    positives, negatives : int
        m and n, the examples of the positive and of the negative class, both > 0.
    level : float in (0, 1)
        The confidence level (0.95: a 95 % interval).
    """
    z2 = float(stats.norm.ppf((1 + level) / 2)) ** 2
    m, n = int(positives), int(negatives)
    pairs, half_n = m * n, (m + n) / 2

    def excess(theta: float) -> float:
        variance = theta * (1 - theta) / pairs * (
            1 + (half_n - 1) * ((1 - theta) / (2 - theta) + theta / (1 + theta)))
        return (auc - theta) ** 2 - z2 * variance

    # the test rejects θ = 0 and 1 unless the AUC is there, and never the AUC itself
    # (at 0 or 1 it does not reject the θ just inside either)
    inner = min(max(auc, 1e-9), 1 - 1e-9)
    low = 0.0 if auc <= 0 else float(optimize.brentq(excess, 0.0, inner))
    high = 1.0 if auc >= 1 else float(optimize.brentq(excess, inner, 1.0))
    return low, high


def _auc(positive: np.ndarray, scores: np.ndarray) -> float:
    """The Mann–Whitney AUC of ``scores`` for the ``positive`` examples (ties count one
    half), as scikit-learn's ``roc_auc_score``."""
    ranks = stats.rankdata(scores)
    m, n = int(np.sum(positive)), int(np.sum(~positive))
    return float((np.sum(ranks[positive]) - m * (m + 1) / 2) / (m * n))


def score_interval(y: np.ndarray, output: np.ndarray, metric: str, classes: np.ndarray, *,
                   level: float) -> HeldOutScore:
    """``metric`` of a fitted estimator's ``output`` (:func:`~paretostab._metrics.
    metric_output`) on held-out examples labelled ``y``, with its ``level`` interval
    (:class:`HeldOutScore`): Wilson's for accuracy (:func:`wilson_interval`), and for the
    other metrics intervals that keep a positive width for perfect or constant
    predictions (a percentile bootstrap gave [1, 1] for 12 examples all
    predicted right) — :func:`balanced_accuracy_interval`, :func:`f1_interval` over the
    estimator's ``classes``, :func:`auc_interval` (one-vs-rest with K > 2 classes, the
    mean of the classes' ends, as for the F1). NaN where the metric is (no example; an
    AUC of fewer than two classes).

    Parameters
    ----------
    y : array (n,)
        The held-out examples' labels.
    output : array (n,) or (n, K)
        The estimator's predicted labels, or its decision values for ``roc_auc``.
    metric : {"accuracy", "balanced_accuracy", "f1_macro", "roc_auc"}
        The score, as a protocol's ``metric``.
    classes : array (K,)
        The estimator's ``classes_``, in the order of ``output``'s columns.
    level : float in (0, 1)
        The confidence level (0.95: a 95 % interval).
    """
    y, output = np.asarray(y), np.asarray(output)
    value = metric_value(y, output, metric, classes)
    present = np.unique(y)
    if math.isnan(value):
        low = high = math.nan
    elif metric == "accuracy":
        low, high = wilson_interval(int(np.sum(output == y)), y.size, level)
    elif metric == "balanced_accuracy":
        low, high = balanced_accuracy_interval(
            np.array([np.sum((y == c) & (output == c)) for c in present]),
            np.array([np.sum(y == c) for c in present]), level)
    elif metric == "f1_macro":
        hits = np.array([[np.sum((y == c) & (output == c)), np.sum((y != c) & (output == c)),
                          np.sum((y == c) & (output != c))] for c in classes])
        low, high = f1_interval(hits[:, 0], hits[:, 1], hits[:, 2], level)
    else:  # roc_auc: one AUC with two classes, else one per class present
        labels = present if output.ndim > 1 else classes[1:]
        columns = (output[:, np.searchsorted(classes, labels)] if output.ndim > 1
                   else output[:, None])
        ends = np.array([auc_interval(_auc(y == c, columns[:, j]), int(np.sum(y == c)),
                                      int(np.sum(y != c)), level)
                         for j, c in enumerate(labels)])
        low, high = ends.mean(axis=0)
    return HeldOutScore(value, float(low), float(high), int(y.size), level,
                        INTERVAL_METHODS[metric])


# --------------------------------------------------------------------------- chance


def no_information_value(y: np.ndarray, metric: str) -> float:
    """The ``metric`` of the best prediction that ignores the features, on labels ``y``:
    the majority class's share for accuracy; 1/K for balanced accuracy (any constant or
    label-independent prediction: 0.5 with two classes); 0.5 for AUC; for ``f1_macro``
    that of always predicting the majority class, ``2p / (1 + p) / K``.

    Parameters
    ----------
    y : array (n,)
        The labels scored.
    metric : {"accuracy", "balanced_accuracy", "f1_macro", "roc_auc"}
        The protocol's metric."""
    _, counts = np.unique(np.asarray(y), return_counts=True)
    k = counts.size
    p = counts.max() / counts.sum()
    if metric == "accuracy":
        return float(p)
    if metric == "balanced_accuracy":
        return 1.0 / k
    if metric == "roc_auc":
        return 0.5
    if metric == "f1_macro":
        return float(2 * p / (1 + p) / k)
    raise InvalidInputError(f"unknown metric {metric!r}.")


def chance_p_value(value: float, y: np.ndarray, metric: str) -> float:
    """The one-sided p-value of a trial's ``metric`` ``value`` against
    :func:`no_information_value` (H0: the trial does no better than ignoring the
    features), on the n examples labelled ``y``.

    A trial's out-of-bag value pools the predictions for every example some run left out:
    it holds at most the information of n independent test examples, and the test takes it
    as that (the least variance it can have, so a flagged trial is at chance level even so):

    - accuracy: exactly, ``P(X >= round(value·n))`` for X ~ Binomial(n, majority rate);
    - balanced accuracy: normally, the null variance of the mean recall of K classes
      predicted at random, ``Σ_c (1/K)(1 − 1/K)/n_c / K²``;
    - AUC: normally, the Mann–Whitney null variance ``(n + 1) / (12 n_c (n − n_c))`` of each
      one-vs-rest AUC, averaged over the K classes (one AUC with two classes);
    - ``f1_macro``: normally, the binomial variance ``v0 (1 − v0) / n`` of the no-information
      value v0 (an approximation: the F1 has no simple null distribution).

    NaN for a NaN value.

    Parameters
    ----------
    value : float
        The trial's out-of-bag metric.
    y, metric
        As :func:`no_information_value`'s: the labels the value was measured on.
    """
    if not np.isfinite(value):
        return math.nan
    y = np.asarray(y)
    _, counts = np.unique(y, return_counts=True)
    n, k = int(counts.sum()), counts.size
    v0 = no_information_value(y, metric)
    if metric == "accuracy":
        return float(stats.binom.sf(round(value * n) - 1, n, v0))
    if metric == "balanced_accuracy":
        variance = float(np.sum((1 / k) * (1 - 1 / k) / counts)) / k**2
    elif metric == "roc_auc":
        per_class = (n + 1) / (12 * counts * (n - counts))
        variance = float(per_class[0] if k == 2 else np.sum(per_class) / k**2)
    else:
        variance = v0 * (1 - v0) / n
    return float(stats.norm.sf((value - v0) / math.sqrt(variance)))


def ignores_labels(fit_support: Callable[[np.ndarray], np.ndarray], y: np.ndarray, *,
                   seed: int = 0, permutations: int = 2) -> bool:
    """Whether a selection does not depend on the labels: ``fit_support(labels)`` (the
    boolean support of the setting's selector fitted on the data with ``labels``) is the
    same for ``y`` and for ``permutations`` seeded permutations of ``y`` (e.g. the hybrid
    RFE with N = k keeps its first N features by the variance order, whatever the
    labels).

    Parameters
    ----------
    fit_support : callable
        ``fit_support(labels)``: the boolean support (d,) of the selector fitted with
        those labels.
    y : array (n,)
        The labels.
    seed : int
        Seeds the permutations (default 0: the same permutations at every call).
    permutations : int
        How many permutations of ``y`` must give ``y``'s support (default 2); the first
        that does not ends the probe.
    """
    y = np.asarray(y)
    support = np.asarray(fit_support(y), dtype=bool)
    rng = np.random.default_rng(seed)
    for _ in range(permutations):
        if not np.array_equal(np.asarray(fit_support(rng.permutation(y)), dtype=bool),
                              support):
            return False
    return True


#: Why a trial whose selection does not depend on the labels is flagged.
LABEL_FREE_REASON = "selection ignores the labels: its stability is not evidence of signal"


@dataclass(frozen=True)
class ChanceFlags:
    """The trials of a study flagged: their metric no better than chance, or their
    selection ignoring the labels.

    Attributes
    ----------
    metric : str
    no_information : float
        The metric of a prediction that ignores the features, on the development labels
        (:func:`~paretostab.evaluation.no_information_value`).
    level : float
        A trial is at chance level when its one-sided p-value is at least ``1 − level``.
    p_values : mapping
        Trial number → p-value (:func:`~paretostab.evaluation.chance_p_value`), for every
        completed trial.
    label_free : mapping
        Trial number → whether its selection ignores the labels, for the trials probed
        (those on the front of all trials and on the front of the unflagged ones).
    """

    metric: str
    no_information: float
    level: float
    p_values: Mapping[int, float]
    label_free: Mapping[int, bool]

    def below_chance(self, number: int) -> bool:
        """Whether trial ``number``'s metric does not exceed the no-information value by
        the one-sided test (a trial not tested counts as not exceeding it).

        Parameters
        ----------
        number : int
            The trial's number, a key of :attr:`p_values`.
        """
        return not self.p_values.get(int(number), math.nan) < 1 - self.level

    def ignores_labels(self, number: int) -> bool:
        """Whether trial ``number``'s selection was found to ignore the labels.

        Parameters
        ----------
        number : int
            The trial's number; a trial not probed (not in :attr:`label_free`) is not.
        """
        return self.label_free.get(int(number), False)

    def reason(self, number: int) -> str:
        """Why trial ``number`` is flagged ("" when it is not): its metric not above
        chance, or its selection ignoring the labels — a setting that may classify well
        (a label-free filter can score 0.97 out of bag), but whose stability says nothing
        about the labels — or both.

        Parameters
        ----------
        number : int
            The trial's number.
        """
        reasons = []
        if self.below_chance(number):
            p = self.p_values.get(int(number), math.nan)
            reasons.append(f"{self.metric.replace('_', ' ')} not above chance "
                           f"({self.no_information:.3f}; p = {p:.2g})")
        if self.ignores_labels(number):
            reasons.append(LABEL_FREE_REASON)
        return "; ".join(reasons)

    def flagged(self, number: int) -> bool:
        """Whether trial ``number`` is flagged: :meth:`reason` gives a reason.

        Parameters
        ----------
        number : int
            The trial's number.
        """
        return bool(self.reason(number))

    @property
    def flagged_trials(self) -> tuple[int, ...]:
        return tuple(n for n in self.p_values if self.flagged(n))

    def to_dict(self) -> dict:
        return {"metric": self.metric, "no_information_value": self.no_information,
                "level": self.level,
                "flagged": {str(n): self.reason(n) for n in self.flagged_trials}}
