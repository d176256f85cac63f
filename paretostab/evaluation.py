"""Honest estimates: the data a study never sees, and trials no better than chance.

A study's accuracies are out-of-bag estimates on the resamples its search optimises, and
its front is the best of many trials: both are optimistic. This module holds the pure
computations that say what a chosen setting does on other data:

- :func:`evaluation_split`: the development part a study tunes on and the part it never
  sees — a stratified held-out fraction (``[protocol] holdout``) or one of K stratified
  outer folds (``[protocol] outer_folds``, nested evaluation);
- :func:`score_interval`: a metric on held-out examples with its interval (Wilson for
  accuracy, a stratified bootstrap for the others);
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
from scipy import stats
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from paretostab._errors import InvalidInputError
from paretostab._metrics import metric_value

__all__ = ["BOOTSTRAP_DRAWS", "ChanceFlags", "HeldOutScore", "Split", "chance_p_value",
           "evaluation_split",
           "ignores_labels", "no_information_value", "outer_study_name", "score_interval",
           "wilson_interval"]

#: Stratified bootstrap draws of the held-out interval of a metric other than accuracy.
BOOTSTRAP_DRAWS = 2000


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
    its outer folds by it."""
    return f"{study_name}/outer-{int(fold)}"


# --------------------------------------------------------------------------- held out


@dataclass(frozen=True)
class HeldOutScore:
    """A metric measured on held-out examples, with its interval.

    Attributes
    ----------
    value : float
    low, high : float
        The ``level`` interval: Wilson's score interval for accuracy (a binomial
        proportion of ``n`` examples); for the other metrics the percentile interval of
        :data:`BOOTSTRAP_DRAWS` stratified bootstrap draws of the held-out examples.
    n : int
        The held-out examples.
    level : float
    method : str
        ``"wilson"`` or ``"bootstrap"``.
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


def wilson_interval(successes: int, n: int, level: float) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion ``successes / n`` (Wilson 1927;
    Brown, Cai & DasGupta 2001 recommend it over the Wald interval for small n)."""
    z = stats.norm.ppf((1 + level) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes == 0 else max(0.0, float(centre - half))  # exact at the ends
    high = 1.0 if successes == n else min(1.0, float(centre + half))
    return low, high


def score_interval(y: np.ndarray, output: np.ndarray, metric: str, classes: np.ndarray, *,
                   level: float, seed: int = 0) -> HeldOutScore:
    """``metric`` of a fitted estimator's ``output`` (:func:`~paretostab._metrics.
    metric_output`) on held-out examples labelled ``y``, with its ``level`` interval
    (:class:`HeldOutScore`). The bootstrap of a metric other than accuracy draws each
    class's examples with replacement within the class (the test part's class sizes are
    kept), seeded by ``seed``."""
    y = np.asarray(y)
    value = metric_value(y, output, metric, classes)
    if metric == "accuracy":
        low, high = wilson_interval(int(np.sum(output == y)), y.size, level)
        return HeldOutScore(value, low, high, int(y.size), level, "wilson")
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(y == label) for label in np.unique(y)]
    draws = np.empty(BOOTSTRAP_DRAWS)
    for b in range(BOOTSTRAP_DRAWS):
        rows = np.concatenate([rng.choice(m, m.size) for m in members])
        draws[b] = metric_value(y[rows], output[rows], metric, classes)
    low, high = np.nanquantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return HeldOutScore(value, float(low), float(high), int(y.size), level, "bootstrap")


# --------------------------------------------------------------------------- chance


def no_information_value(y: np.ndarray, metric: str) -> float:
    """The ``metric`` of the best prediction that ignores the features, on labels ``y``:
    the majority class's share for accuracy; 1/K for balanced accuracy (any constant or
    label-independent prediction: 0.5 with two classes); 0.5 for AUC; for ``f1_macro``
    that of always predicting the majority class, ``2p / (1 + p) / K``."""
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
    labels)."""
    y = np.asarray(y)
    support = np.asarray(fit_support(y), dtype=bool)
    rng = np.random.default_rng(seed)
    for _ in range(permutations):
        if not np.array_equal(np.asarray(fit_support(rng.permutation(y)), dtype=bool),
                              support):
            return False
    return True


@dataclass(frozen=True)
class ChanceFlags:
    """The trials of a study no better than chance.

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

    def reason(self, number: int) -> str:
        """Why trial ``number`` is flagged ("" when it is not)."""
        reasons = []
        p = self.p_values.get(int(number), math.nan)
        if not p < 1 - self.level:
            reasons.append(f"{self.metric.replace('_', ' ')} not above chance "
                           f"({self.no_information:.3f}; p = {p:.2g})")
        if self.label_free.get(int(number), False):
            reasons.append("selection ignores the labels")
        return "; ".join(reasons)

    def flagged(self, number: int) -> bool:
        return bool(self.reason(number))

    @property
    def flagged_trials(self) -> tuple[int, ...]:
        return tuple(n for n in self.p_values if self.flagged(n))

    def to_dict(self) -> dict:
        return {"metric": self.metric, "no_information_value": self.no_information,
                "level": self.level,
                "flagged": {str(n): self.reason(n) for n in self.flagged_trials}}
