"""The rounding error of floating-point sums and products, from which every tolerance that
decides a result (a measure undefined, a hull vertex dropped, a region degenerate) is
chosen: relative to the quantity it compares, and no coarser than the rounding that could
make a true zero look non-zero (issue 37: "every tolerance relative to what it compares").

Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed. 2002), Lemma 3.1 and
eq. 3.5: a sum (or inner product) of ``n`` terms computed in any order, pairwise summation
and BLAS blocking included, is off by at most ``γ_n · Σ|terms|``, with
``γ_n = n·u / (1 − n·u)`` and ``u = 2⁻⁵³`` the unit roundoff of float64.
"""

from __future__ import annotations

import numpy as np

__all__ = ["UNIT_ROUNDOFF", "gamma_n", "regression_rounding"]

#: u, half the distance from 1 to the next float64: the relative error of one rounding.
UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2


def gamma_n(n: int) -> float:
    """``γ_n = n·u / (1 − n·u)``: the relative rounding error of ``n`` successive
    operations (Higham 2002, Lemma 3.1), e.g. a sum of ``n + 1`` terms.

    Parameters
    ----------
    n : int, ≥ 0 and below ``1/u``
        The number of roundings.
    """
    nu = n * UNIT_ROUNDOFF
    return nu / (1.0 - nu)


def regression_rounding(n: int, sizes: np.ndarray, d: int, sums: np.ndarray) -> np.ndarray:
    """R, the rounding of the computed gap max − Ê of a corrected adjusted measure where
    its exact value is 0, Ê the Monte-Carlo regression estimate of E[I] for sets of sizes
    (a, b), a ≤ b, from n draws (``paretostab.measures._adjusted``):
    Ê = ab/d + Σh/n − γ̂ (Σr/n − ab/d), γ̂ = (n Σhr − Σh Σr) / (n Σr² − (Σr)²).

    By Lemma 3.1 and eq. 3.5 (module docstring), with max ≤ b: Σr and Σr² are sums of
    integers, exact; each h takes at most a + b roundings (SMA-Mean's sums of means; the
    other statistics' half-integers are exact), so Σh and Σhr, sums of n terms ≥ 0, are
    off by γ_{n+a+b+1} of themselves, and γ̂ by γ_{n+a+b+6} · c, with
    c = (n Σhr + Σh Σr) / (n Σr² − (Σr)²) ≥ |γ̂| (0 if every r is the same). With the ten
    further operations of Ê, max and the gap:

        R = γ_{n+a+b+16} · (2b + ab/d + h̄ + c (r̄ + ab/d)).

    Parameters
    ----------
    n : int
        The draws N.
    sizes : int array (S, 2)
        The size pairs (a, b).
    d : int
        The number of features.
    sums : float array (4, S)
        Σr, Σr², Σh and Σhr over the draws, for every size pair.
    """
    sum_r, sum_r2, sum_h, sum_hr = sums
    spread = n * sum_r2 - sum_r * sum_r
    c = np.divide(n * sum_hr + sum_h * sum_r, spread, out=np.zeros(len(sizes)),
                  where=spread > 0)
    expected_r = sizes[:, 0] * sizes[:, 1] / d
    size = 2 * sizes[:, 1] + expected_r + sum_h / n + c * (sum_r / n + expected_r)
    return gamma_n(n + int(sizes.sum(axis=1).max()) + 16) * size
