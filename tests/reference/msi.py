"""φ_msi written plainly from 000 eq. 8–12: one ``scipy.optimize.linprog`` per pair of runs.

Ground truth for the tests and the baseline of the benchmark. It solves the paper's
linear program with its inequality constraints as stated (not the optimal-transport
reformulation of the package) and shares no code with the package.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog


def normalise(I: np.ndarray) -> np.ndarray:
    """Rescale every non-empty row to sum to k̄, the mean number of selected features."""
    I = np.asarray(I, dtype=float)
    k_bar = np.mean([np.count_nonzero(row) for row in I])
    return np.array([row * (k_bar / row.sum()) if row.sum() > 0 else row for row in I])


def shared_information_linprog(a: np.ndarray, b: np.ndarray, S: np.ndarray, k_bar: float):
    """S(i, j) of 000 eq. 8–11 for importances ``a`` (run i) and ``b`` (run j) over their
    selected features and the ``len(a) × len(b)`` similarity block ``S``.

    Returns the optimal value and plan ``x`` (``x[f, g]``, shape ``len(a) × len(b)``).
    """
    n_i, n_j = len(a), len(b)
    # variable x[f, g] is at position f * n_j + g
    A_ub = np.zeros((n_i + n_j, n_i * n_j))
    for f in range(n_i):
        for g in range(n_j):
            A_ub[f, f * n_j + g] = 1.0  # eq. 9: Σ_g x_fg ≤ I_if
            A_ub[n_i + g, f * n_j + g] = 1.0  # eq. 10: Σ_f x_fg ≤ I_jg
    b_ub = np.concatenate([a, b])
    objective = -np.asarray(S, dtype=float).reshape(-1) / k_bar  # eq. 8, maximised
    result = linprog(objective, A_ub=A_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    if result.status != 0:
        raise RuntimeError(f"linprog failed: {result.message}")
    return -result.fun, result.x.reshape(n_i, n_j)


def msi_linprog(I: np.ndarray, S: np.ndarray) -> float:
    """φ_msi (000 eq. 12) for importances ``I`` (M×d, any scale) and the d×d similarity ``S``."""
    I = normalise(I)
    S = np.asarray(S, dtype=float)
    M = I.shape[0]
    k_bar = np.mean([np.count_nonzero(row) for row in I])
    values = []
    for i in range(M):
        for j in range(i + 1, M):
            F_i, F_j = np.flatnonzero(I[i]), np.flatnonzero(I[j])
            if F_i.size == 0 and F_j.size == 0:
                values.append(1.0)  # 000 §5, footnote 1
            elif F_i.size == 0 or F_j.size == 0:
                values.append(0.0)
            else:
                value, _ = shared_information_linprog(
                    I[i, F_i], I[j, F_j], S[np.ix_(F_i, F_j)], k_bar
                )
                values.append(value)
    return float(np.mean(values))
