"""Plain set-based definitions of the subset measures (stabm 1.2.2, SPEC §2a; 003 eq. 1–2)."""

from __future__ import annotations

import math
import statistics
from collections import Counter

import numpy as np

NAN = float("nan")


def _sets(Z):
    return [set(np.flatnonzero(row).tolist()) for row in np.asarray(Z)]


def _pairwise(score):
    def measure(Z):
        sets, d = _sets(Z), np.asarray(Z).shape[1]
        values = [score(a, b, d) for i, a in enumerate(sets) for b in sets[i + 1 :]]
        return NAN if any(math.isnan(v) for v in values) else sum(values) / len(values)

    return measure


def _jaccard(a, b, d):
    return NAN if not a and not b else len(a & b) / len(a | b)


def _dice(a, b, d):
    return NAN if not a and not b else 2 * len(a & b) / (len(a) + len(b))


def _ochiai(a, b, d):
    return NAN if not a or not b else len(a & b) / math.sqrt(len(a) * len(b))


def _hamming(a, b, d):
    return (len(a & b) + d - len(a | b)) / d


def _kappa(a, b, d):
    if (not a and not b) or (len(a) == d and len(b) == d):
        return NAN
    e = len(a) * len(b) / d
    return (len(a & b) - e) / ((len(a) + len(b)) / 2 - e)


def _lustgarten(a, b, d):
    if not a or not b or len(a) == d or len(b) == d:
        return NAN
    return (len(a & b) - len(a) * len(b) / d) / (min(len(a), len(b)) - max(0, len(a) + len(b) - d))


def _phi(a, b, d):
    if not a or not b or len(a) == d or len(b) == d:
        return NAN
    x = [1.0 if f in a else 0.0 for f in range(d)]
    y = [1.0 if f in b else 0.0 for f in range(d)]
    return float(np.corrcoef(x, y)[0, 1])


def _wald(a, b, d):
    if not a or not b:
        return NAN
    den = min(len(a), len(b)) - len(a) * len(b) / d
    return NAN if den == 0 else (len(a & b) - len(a) * len(b) / d) / den


def _kuncheva_pair(k_bar):
    def score(a, b, d):
        return (len(a & b) - k_bar**2 / d) / (k_bar - k_bar**2 / d)

    return score


def kuncheva(Z):
    k_bar = np.asarray(Z).sum() / len(Z)
    return _pairwise(_kuncheva_pair(k_bar))(Z)


def nogueira(Z):
    Z = np.asarray(Z, dtype=float)
    M, d = Z.shape
    k_bar = Z.sum() / M
    total = 0.0
    for f in range(d):
        p = Z[:, f].mean()
        total += M / (M - 1) * p * (1 - p)
    return 1 - (total / d) / (k_bar / d * (1 - k_bar / d))


def _counts(Z):
    return Counter(f for s in _sets(Z) for f in s)


def davis(Z, penalty=0.0):
    M, d = np.asarray(Z).shape
    h = _counts(Z)
    sizes = [len(s) for s in _sets(Z)]
    return max(0.0, sum(h.values()) / (M * len(h)) - penalty * statistics.median(sizes) / d)


def novovicova(Z):
    M = len(Z)
    h = _counts(Z)
    q = sum(h.values())
    return sum(v * math.log2(v) for v in h.values()) / (q * math.log2(M))


def somol(Z):
    M, d = np.asarray(Z).shape
    h = _counts(Z)
    q = sum(h.values())
    c_min = (q**2 - d * (q - q % d) - (q % d) ** 2) / (d * q * (M - 1))
    c_max = ((q % M) ** 2 + q * (M - 1) - (q % M) * M) / (q * (M - 1))
    if c_max == c_min:
        return NAN
    return (sum(v * (v - 1) for v in h.values()) / (q * (M - 1)) - c_min) / (c_max - c_min)


def nogueira_variance(Z):
    """The variance of φ as in Nogueira, Sechidis & Brown's Python code (a loop per run)."""
    Z = np.asarray(Z, dtype=float)
    M, d = Z.shape
    p = Z.mean(axis=0)
    k_bar = p.sum()
    k = Z.sum(axis=1)
    denom = (k_bar / d) * (1 - k_bar / d)
    phi = 1 - (M / (M - 1)) * np.mean(p * (1 - p)) / denom
    per_run = np.zeros(M)
    for i in range(M):
        per_run[i] = (1 / denom) * (
            np.mean(Z[i] * p)
            - k[i] * k_bar / d**2
            + (phi / 2) * (2 * k[i] * k_bar / d**2 - k[i] / d - k_bar / d + 1)
        )
    return 4 / M**2 * np.sum((per_run - per_run.mean()) ** 2)


PAIRWISE = {
    "jaccard": _pairwise(_jaccard),
    "dice": _pairwise(_dice),
    "ochiai": _pairwise(_ochiai),
    "hamming": _pairwise(_hamming),
    "kappa": _pairwise(_kappa),
    "lustgarten": _pairwise(_lustgarten),
    "phi_coefficient": _pairwise(_phi),
    "wald": _pairwise(_wald),
}
SET_LEVEL = {
    "nogueira": nogueira,
    "kuncheva": kuncheva,
    "davis": davis,
    "novovicova": novovicova,
    "somol": somol,
}
