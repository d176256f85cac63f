"""Stability measures of selected subsets: Nogueira's φ, Kuncheva, and stabm's catalogue.

All take the boolean selection matrix ``Z`` (M runs × d features). Pairwise measures
return the score of every pair of runs ``i < j`` (undefined pairs NaN) and the dispatcher
averages them; set-level measures return one number. Definitions follow SPEC §2 and §2a,
i.e. 003 eq. 1–2 and stabm 1.2.2 (Bommert), the reference implementation of 001.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from paretostab._errors import InvalidInputError
from paretostab._validation import NON_NEGATIVE
from paretostab.measures._inputs import (
    PairScores,
    UndefinedMeasure,
    as_selection_matrix,
    pair_counts,
)
from paretostab.measures._registry import register

__all__ = ["NogueiraInterval", "davis", "dice", "hamming", "jaccard", "kappa", "kuncheva",
           "lustgarten", "nogueira", "nogueira_interval", "novovicova", "ochiai",
           "phi_coefficient", "somol", "wald"]


def _check_not_trivial(Z: np.ndarray) -> tuple[float, int]:
    d = Z.shape[1]
    k_bar = Z.sum() / Z.shape[0]
    if k_bar == 0:
        raise UndefinedMeasure("no run selected any feature (k̄ = 0)")
    if k_bar == d:
        raise UndefinedMeasure(f"every run selected all d = {d} features (k̄ = d)")
    return float(k_bar), d


@register("nogueira", symbol="φ", input="selection", bounds=(-1, 1), corrected=True,
          reference="Nogueira et al. JMLR 2018; 002 eq. 1; 003 eq. 1")
def nogueira(Z: np.ndarray) -> float:
    """Nogueira's φ = 1 − mean_f s_f² / ((k̄/d)(1 − k̄/d)), s_f² the unbiased selection variance.

    Undefined (NaN) when k̄ = 0 or k̄ = d.
    """
    k_bar, d = _check_not_trivial(Z)
    M = Z.shape[0]
    p = Z.mean(axis=0)
    mean_var = M / (M - 1) * np.mean(p * (1 - p))
    return 1 - mean_var / ((k_bar / d) * (1 - k_bar / d))


class NogueiraInterval(NamedTuple):
    """φ with its estimated variance and a normal (1 − α) confidence interval.

    Attributes
    ----------
    value : float
        φ (Nogueira et al. JMLR 2018; 002 eq. 1, 003 eq. 1).
    variance : float
        Its estimated variance (:func:`nogueira_interval`).
    lower, upper : float
        The interval's ends, ``φ ∓ z_{1−α/2} √variance``.
    alpha : float
        One minus the confidence level.
    """

    value: float
    variance: float
    lower: float
    upper: float
    alpha: float


def nogueira_interval(data: object, /, *, alpha: float = 0.05,
                      n_features: int | None = None) -> NogueiraInterval:
    """φ with its variance and confidence interval (Nogueira, Sechidis & Brown, JMLR 2018).

    The variance is ``4/M² Σ_i (φ_i − φ̄)²`` with the per-run contributions
    ``φ_i = [mean_f Z_if p_f − k_i k̄/d² + (φ/2)(2 k_i k̄/d² − k_i/d − k̄/d + 1)] / ((k̄/d)(1 − k̄/d))``
    — the delta-method sign of the authors' Python/Matlab code (SPEC §2; their R file has
    the opposite sign, which overestimates the variance). The interval is
    ``φ ± z_{1−α/2} √variance``.

    Parameters
    ----------
    data : array (M, d) of 0/1, or list of index collections with ``n_features``
        The runs' selections.
    alpha : float
        One minus the confidence level, in (0, 1).
    n_features : int, optional
        d, required when ``data`` lists the selected indices of each run.
    """
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise InvalidInputError(f"alpha must be a number in (0, 1); got {alpha!r}.")
    Z = as_selection_matrix(data, n_features=n_features)
    try:
        k_bar, d = _check_not_trivial(Z)
    except UndefinedMeasure as exc:
        raise InvalidInputError(f"φ and its interval are undefined: {exc}.") from None
    M = Z.shape[0]
    phi = nogueira(Z)
    p = Z.mean(axis=0)
    k = Z.sum(axis=1)
    denom = (k_bar / d) * (1 - k_bar / d)
    per_run = (
        (Z * p).mean(axis=1)
        - k * k_bar / d**2
        + phi / 2 * (2 * k * k_bar / d**2 - k / d - k_bar / d + 1)
    ) / denom
    variance = float(4 / M**2 * np.sum((per_run - per_run.mean()) ** 2))
    half = stats.norm.ppf(1 - alpha / 2) * math.sqrt(variance)
    return NogueiraInterval(float(phi), variance, float(phi - half), float(phi + half),
                            float(alpha))


@register("kuncheva", input="selection", bounds=(-1, 1), corrected=True,
          reference="Kuncheva 2007; 003 eq. 2")
def kuncheva(Z: np.ndarray) -> float:
    """Kuncheva index: mean over pairs of (|F_i ∩ F_j| − k̄²/d) / (k̄ − k̄²/d).

    Defined for a constant number of selected features k, where it equals φ; with a
    varying k the formula is applied with k̄. NaN when k̄ ∈ {0, d}.
    """
    k_bar, d = _check_not_trivial(Z)
    _, _, inter = pair_counts(Z)
    expected = k_bar**2 / d
    return float(np.mean((inter - expected) / (k_bar - expected)))


def _pairs(values: np.ndarray, undefined: np.ndarray, cause: str) -> PairScores:
    return PairScores(np.where(undefined, np.nan, values), cause)


def _ratio(num: np.ndarray, den: np.ndarray, undefined: np.ndarray, cause: str) -> PairScores:
    undefined = undefined | (den == 0)
    safe = np.where(undefined, 1.0, den)
    return _pairs(num / safe, undefined, cause)


@register("jaccard", input="selection", bounds=(0, 1), corrected=False,
          reference="Jaccard 1901; stabm")
def jaccard(Z: np.ndarray) -> PairScores:
    """Mean Jaccard index |F_i ∩ F_j| / |F_i ∪ F_j| over pairs; undefined for two empty sets."""
    n1, n2, r = pair_counts(Z)
    return _ratio(r, n1 + n2 - r, (n1 == 0) & (n2 == 0), "two runs selected no feature")


@register("dice", input="selection", bounds=(0, 1), corrected=False,
          reference="Dice 1945; stabm")
def dice(Z: np.ndarray) -> PairScores:
    """Mean Dice coefficient 2|F_i ∩ F_j| / (|F_i| + |F_j|); undefined for two empty sets."""
    n1, n2, r = pair_counts(Z)
    return _ratio(2 * r, n1 + n2, (n1 == 0) & (n2 == 0), "two runs selected no feature")


@register("ochiai", input="selection", bounds=(0, 1), corrected=False,
          reference="Ochiai 1957; stabm")
def ochiai(Z: np.ndarray) -> PairScores:
    """Mean Ochiai coefficient |F_i ∩ F_j| / √(|F_i| |F_j|); undefined when a set is empty."""
    n1, n2, r = pair_counts(Z)
    return _ratio(r, np.sqrt(n1 * n2), (n1 == 0) | (n2 == 0), "a run selected no feature")


@register("hamming", input="selection", bounds=(0, 1), corrected=False,
          reference="Dunne et al. 2002; stabm")
def hamming(Z: np.ndarray) -> PairScores:
    """Mean fraction of features on which two runs agree: (|F_i ∩ F_j| + |F_iᶜ ∩ F_jᶜ|) / d."""
    n1, n2, r = pair_counts(Z)
    d = Z.shape[1]
    return PairScores((r + d - (n1 + n2 - r)) / d)


@register("kappa", input="selection", bounds=(-1, 1), corrected=True,
          reference="Carletta 1996; stabm")
def kappa(Z: np.ndarray) -> PairScores:
    """Mean Cohen's kappa (r − n1n2/d) / ((n1 + n2)/2 − n1n2/d) over pairs.

    Undefined when both runs selected no feature or both selected all d.
    """
    n1, n2, r = pair_counts(Z)
    d = Z.shape[1]
    expected = n1 * n2 / d
    undefined = ((n1 == 0) & (n2 == 0)) | ((n1 == d) & (n2 == d))
    return _ratio(r - expected, (n1 + n2) / 2 - expected, undefined,
                  "two runs both selected no feature or both selected all features")


@register("lustgarten", input="selection", bounds=(-1, 1), corrected=True,
          reference="Lustgarten et al. 2009; stabm", identical_runs_maximal=False)
def lustgarten(Z: np.ndarray) -> PairScores:
    """Mean (r − n1n2/d) / (min(n1, n2) − max(0, n1 + n2 − d)) over pairs.

    Undefined when a run selected no feature or all features. Two identical runs of
    k ≤ d/2 features score 1 − k/d, not 1: the measure lacks the maximum property
    (Nogueira et al. 2018).
    """
    n1, n2, r = pair_counts(Z)
    d = Z.shape[1]
    undefined = (n1 == 0) | (n2 == 0) | (n1 == d) | (n2 == d)
    return _ratio(r - n1 * n2 / d, np.minimum(n1, n2) - np.maximum(0, n1 + n2 - d), undefined,
                  "a run selected no feature or all features")


@register("phi_coefficient", input="selection", bounds=(-1, 1), corrected=True,
          reference="Nogueira & Brown 2016; stabm")
def phi_coefficient(Z: np.ndarray) -> PairScores:
    """Mean Pearson correlation of the two runs' 0/1 selection vectors over the d features.

    Undefined when a run selected no feature or all features (a constant vector).
    """
    n1, n2, r = pair_counts(Z)
    d = Z.shape[1]
    undefined = (n1 == 0) | (n2 == 0) | (n1 == d) | (n2 == d)
    return _ratio(r * d - n1 * n2, np.sqrt(n1 * (d - n1) * n2 * (d - n2)), undefined,
                  "a run selected no feature or all features")


@register("wald", input="selection", bounds=(-math.inf, 1), corrected=True,
          reference="Wald et al. 2013; stabm")
def wald(Z: np.ndarray) -> PairScores:
    """Mean (r − n1n2/d) / (min(n1, n2) − n1n2/d); undefined if a set is empty (or both full)."""
    n1, n2, r = pair_counts(Z)
    d = Z.shape[1]
    return _ratio(r - n1 * n2 / d, np.minimum(n1, n2) - n1 * n2 / d, (n1 == 0) | (n2 == 0),
                  "a run selected no feature, or the larger run selected all features")


def _frequencies(Z: np.ndarray) -> np.ndarray:
    """Selection counts h_f of the features selected at least once."""
    h = Z.sum(axis=0)
    if not h.any():
        raise UndefinedMeasure("no run selected any feature")
    return h[h > 0].astype(float)


@register("davis", input="selection", bounds=(0, 1), corrected=False,
          reference="Davis et al. 2006; stabm")
def davis(Z: np.ndarray, *, penalty: float = 0.0) -> float:
    """max{0, Σ_f h_f / (M |∪F_i|) − penalty · median_i(k_i) / d} (stabm's definition)."""
    NON_NEGATIVE.check("penalty", penalty)
    h = _frequencies(Z)
    M, d = Z.shape
    return max(0.0, h.sum() / (M * h.size) - penalty * np.median(Z.sum(axis=1)) / d)


@register("novovicova", input="selection", bounds=(0, 1), corrected=False,
          reference="Novovičová et al. 2009; stabm")
def novovicova(Z: np.ndarray) -> float:
    """Σ_f h_f log₂ h_f / (q log₂ M), with q = Σ_f h_f the total number of selections."""
    h = _frequencies(Z)
    return float(np.sum(h * np.log2(h)) / (h.sum() * np.log2(Z.shape[0])))


@register("somol", input="selection", bounds=(0, 1), corrected=True,
          reference="Somol & Novovičová 2010; stabm")
def somol(Z: np.ndarray) -> float:
    """Somol's relative weighted consistency (stabm's definition).

    ``(Σ_f h_f(h_f − 1) / (q(M − 1)) − c_min) / (c_max − c_min)`` with
    ``c_min = (q² − d(q − q mod d) − (q mod d)²) / (d q (M − 1))`` and
    ``c_max = ((q mod M)² + q(M − 1) − (q mod M) M) / (q (M − 1))``.
    Undefined when every run selected no feature or all features.
    """
    M, d = Z.shape
    if np.all(Z.sum(axis=1) == d):
        raise UndefinedMeasure(f"every run selected all d = {d} features")
    h = _frequencies(Z)
    q = h.sum()
    c_min = (q**2 - d * (q - q % d) - (q % d) ** 2) / (d * q * (M - 1))
    c_max = ((q % M) ** 2 + q * (M - 1) - (q % M) * M) / (q * (M - 1))
    if c_max == c_min:
        raise UndefinedMeasure("the minimal and maximal consistency coincide for these sizes")
    return float((np.sum(h * (h - 1)) / (q * (M - 1)) - c_min) / (c_max - c_min))
