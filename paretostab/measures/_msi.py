"""φ_msi, stability as maximal shared importance (000 §5, eq. 8–12).

For every pair of runs the importance of run i's features is matched with the importance
of run j's features, a unit of importance shared by features f and g counting for their
similarity S[f, g]. The linear program of 000 eq. 8–11 is solved as a balanced optimal
transport problem by POT's exact network simplex (see :func:`pairwise_shared_information`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from paretostab.measures._inputs import PairScores, pair_index
from paretostab.measures._registry import SimilarityView, register

__all__ = ["msi", "pairwise_shared_information"]

# Result codes of POT's network simplex (enum ProblemType in ot/lp/emd_wrap.pyx).
_OPTIMAL = 1
_MAX_ITER_REACHED = 3
_MESSAGES: dict[object, str] = {0: "infeasible", 2: "unbounded", 3: "iteration limit reached"}
_MIN_ITERATIONS = 100_000  # POT's default numItermax

#: POT's network simplex (``ot.lp.emd_wrap.emd_c``), imported at the first solve: POT's
#: package imports scikit-learn (``ot.lowrank``), which importing the measures need not.
emd_c: Callable | None = None


def _iteration_limits(n_edges: int) -> tuple[int, int]:
    """``numItermax`` of the first solve of a pair and of the retry if it did not converge."""
    first = max(_MIN_ITERATIONS, 10 * n_edges)
    return first, 100 * first


def _optimal_plan(a: np.ndarray, b: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, float]:
    """Optimal plan moving masses ``a`` onto ``b`` (equal totals, all > 0) under ``cost``,
    and its cost. The arrays must be float64 and C-ordered.

    Exact network simplex: POT's solver core ``ot.lp.emd_wrap.emd_c`` (what ``ot.emd``
    calls after converting and checking its arguments, which costs twice the solve of a
    20 × 20 problem). The solver's result code is checked: a solve stopped by the
    iteration limit is retried with a limit 100 times larger, and a solve that still does
    not reach optimality raises.

    Raises
    ------
    RuntimeError
        If the network simplex does not reach an optimal solution.
    """
    global emd_c
    if emd_c is None:
        from ot.lp.emd_wrap import emd_c
    solve = cast(Callable, emd_c)  # set: imported just above if it was not yet
    code = None
    for limit in _iteration_limits(a.size * b.size):
        plan, value, _, _, code = solve(a, b, cost, limit, 1)
        if code == _OPTIMAL:
            return plan, float(value)
        if code != _MAX_ITER_REACHED:
            break
    raise RuntimeError(
        f"msi: the network simplex found no optimal transport plan for a pair of runs of "
        f"{a.size} and {b.size} features ({_MESSAGES.get(code, code)})."
    )


def pairwise_shared_information(I: np.ndarray, similarity: SimilarityView) -> np.ndarray:
    """S(i, j), the maximal similarity-weighted shared importance, of every pair i < j.

    ``S(i, j) = max_x Σ_{f∈F_i, g∈F_j} S[f, g] x_fg / k̄`` subject to
    ``Σ_g x_fg ≤ I_if``, ``Σ_f x_fg ≤ I_jg`` and ``x ≥ 0`` (000 eq. 8–11); ``S(i, j) = 0``
    when exactly one of the runs is empty and 1 when both are (000 §5, footnote 1).

    Both rows of ``I`` sum to k̄ and ``S ≥ 0``, so some optimal ``x`` saturates every
    constraint: slack left on both sides has equal totals and can always be matched
    without lowering the objective. The problem is therefore the balanced optimal
    transport of ``I_i`` onto ``I_j`` with cost ``1 − S[f, g]``, and
    ``S(i, j) = Σ S ⊙ x / k̄ = 1 − OT_cost / k̄``, solved exactly by a network simplex.
    Pairs of identical runs share all their importance (``S(i, j) = 1``), so the program is
    solved once per pair of *distinct* runs.

    Parameters
    ----------
    I : array of shape (M, d)
        Importances, every non-empty row summing to k̄ (SPEC §0).
    similarity : SimilarityView
        The similarity restricted to the features selected in at least one run.

    Returns
    -------
    ndarray of shape (M(M−1)/2,)
        ``S(i, j)`` for the pairs ``i < j`` in the order of ``pair_index``.
    """
    i, j = pair_index(I.shape[0])
    k_bar = np.count_nonzero(I, axis=1).mean()
    if k_bar == 0:
        return np.ones(i.size)
    runs, run_of = np.unique(I[:, similarity.features], axis=0, return_inverse=True)
    run_of = run_of.reshape(-1)
    supports = [np.flatnonzero(row) for row in runs]
    masses = [row[support] for row, support in zip(runs, supports, strict=True)]
    totals = [mass.sum() for mass in masses]
    cost_rows = [1.0 - similarity.matrix[support] for support in supports]
    n = runs.shape[0]
    shared = np.eye(n)
    for u in range(n):
        if supports[u].size == 0:
            continue
        mass, cost_row, total = masses[u], cost_rows[u], totals[u]
        for v in range(u + 1, n):
            if supports[v].size == 0:
                continue
            _, ot_cost = _optimal_plan(mass, masses[v] * (total / totals[v]),  # equal totals
                                       cost_row.take(supports[v], axis=1))
            value = (total - ot_cost) / k_bar  # Σ S ⊙ x / k̄, as Σ x = total
            shared[u, v] = shared[v, u] = min(max(value, 0.0), 1.0)
    return shared[run_of[i], run_of[j]]


@register("msi", symbol="φ_msi", input="importance", bounds=(0, 1), corrected=False,
          reference="000 eq. 8–12", needs_similarity=True)
def msi(I: np.ndarray, *, similarity: SimilarityView) -> PairScores:
    """φ_msi: mean over pairs of runs of their maximal similarity-weighted shared importance.

    ``φ_msi = 2/(M(M−1)) Σ_{i<j} S(i, j)`` (000 eq. 12), with ``S(i, j)`` the optimum of
    the linear program of 000 eq. 8–11: the importance ``I_if`` of each feature of run i
    is shared with features g of run j, each unit shared counting ``S[f, g] / k̄``, no
    feature sharing more than its own importance. ``S(i, j) = 0`` if exactly one run is
    empty and 1 if both are. Solved exactly as a balanced optimal-transport problem with
    cost ``1 − S[f, g]`` (``S(i, j) = 1 − OT_cost / k̄``) by POT's network simplex; see
    :func:`pairwise_shared_information`. In [0, 1] (000 Property 5.1); with equal
    importances and a constant k it is the maximum weighted bipartite matching of Yu et
    al. divided by k (000 Theorem 5.1). Not corrected for chance.
    """
    return PairScores(pairwise_shared_information(I, similarity))
