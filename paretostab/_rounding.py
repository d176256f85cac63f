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

__all__ = ["UNIT_ROUNDOFF", "gamma_n"]

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
