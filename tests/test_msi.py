"""φ_msi (000 §5, eq. 8–12) against the paper's linear program, worked example and theorems."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from paretostab._similarity import FeatureSimilarity, spearman_similarity
from paretostab.measures import _msi as msi_module
from paretostab.measures import get_measure, stability
from paretostab.measures._registry import SimilarityView
from tests.reference.msi import msi_linprog, shared_information_linprog


def random_similarity(rng: np.random.Generator, d: int) -> np.ndarray:
    """Symmetric, in [0, 1], diagonal 1; a mix of weak, strong and exactly 0/1 entries."""
    S = rng.uniform(0, 1, size=(d, d)) ** rng.uniform(0.5, 4)
    S[rng.random((d, d)) < 0.1] = 0.0
    S[rng.random((d, d)) < 0.05] = 1.0
    S = np.triu(S, 1)
    S = S + S.T
    np.fill_diagonal(S, 1.0)
    return S


def random_importances(rng: np.random.Generator, M: int, d: int) -> np.ndarray:
    """Varying k_i, some empty runs, some duplicated runs, some runs rescaled copies."""
    Z = rng.random((M, d)) < rng.uniform(0.1, 0.8)
    I = Z * rng.uniform(0.01, 3.0, size=(M, d))
    for _ in range(rng.integers(0, 2)):
        I[rng.integers(M)] = 0.0
    for _ in range(rng.integers(0, 2)):
        I[rng.integers(M)] = rng.uniform(0.5, 2.0) * I[rng.integers(M)]
    return I


def msi_value(I, S) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # φ_msi is always defined: never a warning
        return stability("msi", I, similarity=S)


@pytest.mark.parametrize("seed", range(12))
def test_matches_the_papers_linear_program(seed):
    rng = np.random.default_rng(seed)
    M, d = int(rng.integers(2, 9)), int(rng.integers(1, 25))
    I, S = random_importances(rng, M, d), random_similarity(rng, d)
    assert msi_value(I, S) == pytest.approx(msi_linprog(I, S), abs=1e-9)


def test_matches_the_linear_program_with_larger_runs():
    rng = np.random.default_rng(42)
    M, d, k = 5, 300, 40
    I = np.zeros((M, d))
    for i in range(M):
        size = k + int(rng.integers(-10, 10))
        I[i, rng.choice(d, size, replace=False)] = rng.uniform(0.05, 1.0, size)
    S = random_similarity(rng, d)
    assert msi_value(I, S) == pytest.approx(msi_linprog(I, S), abs=1e-9)


def test_feature_similarity_source_matches_the_full_matrix():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 60))
    X[:, 1] = X[:, 0] + 0.1 * rng.standard_normal(40)  # a strongly similar pair
    I = random_importances(rng, 6, 60)
    expected = msi_linprog(I, spearman_similarity(X))
    assert msi_value(I, FeatureSimilarity(X, "spearman")) == pytest.approx(expected, abs=1e-9)


def figure3() -> tuple[np.ndarray, np.ndarray]:
    """000 Fig. 3 as completed in SPEC §2: features 1..7 as columns 0..6."""
    I = np.zeros((2, 7))
    I[0, [0, 1, 2, 3]] = [1.3, 0.7, 0.8, 1.2]  # run i: features 1, 2, 3, 4
    I[1, [1, 4, 5, 6]] = [0.9, 0.7, 1.4, 1.0]  # run j: features 2, 5, 6, 7
    S = np.eye(7)
    for f, g, s in [(1, 5, 0.6), (1, 6, 0.8), (3, 6, 0.4)]:
        S[f - 1, g - 1] = S[g - 1, f - 1] = s
    return I, S


def test_figure3_value():
    I, S = figure3()
    assert msi_value(I, S) == pytest.approx(0.48, abs=1e-12)
    assert msi_linprog(I, S) == pytest.approx(0.48, abs=1e-9)


def test_figure3_plan():
    """The optimal links of Fig. 3: x₂₂ = 0.7, x₁₅ = 0.7, x₁₆ = 0.6, x₃₆ = 0.8.

    The balanced transport also moves the unmatched importance at similarity 0, which is
    forced here: feature 4 of run i (1.2) to feature 2 (0.2 left) and feature 7 (1.0).
    """
    I, S = figure3()
    rows, cols = [0, 1, 2, 3], [1, 4, 5, 6]
    block = S[np.ix_(rows, cols)]
    plan, cost = msi_module._optimal_plan(I[0, rows], I[1, cols], 1.0 - block)
    #                    g = 2    5    6    7
    expected = np.array([[0.0, 0.7, 0.6, 0.0],   # f = 1
                         [0.7, 0.0, 0.0, 0.0],   # f = 2
                         [0.0, 0.0, 0.8, 0.0],   # f = 3
                         [0.2, 0.0, 0.0, 1.0]])  # f = 4
    np.testing.assert_allclose(plan, expected, atol=1e-12)
    assert (np.sum(plan) - cost) / 4 == pytest.approx(0.48, abs=1e-12)
    # the paper's linear program (inequalities) has the same links where S > 0
    _, x = shared_information_linprog(I[0, rows], I[1, cols], block, 4.0)
    np.testing.assert_allclose(x[block > 0], expected[block > 0], atol=1e-9)


def table1(scenario: int, q: int, d: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """000 Table 1 / Figs. 1–2: group G = features 0..q−1 (similarity 1 inside), g = q."""
    I = np.zeros((2, d))
    I[:, q] = 1 / 4  # the common feature g
    I[0, [q + 1, q + 2]] = 1 / 4  # features of run 1's own
    I[1, [q + 3, q + 4]] = 1 / 4  # features of run 2's own
    I[1, :q] = 1 / (4 * q)  # run 2 selects all of G
    if scenario == 1:
        I[0, :q] = 1 / (4 * q)
    else:
        I[0, 0] = 1 / 4  # run 1 selects one feature of G with the group's importance
    S = np.eye(d)
    S[:q, :q] = 1.0
    return I, S


@pytest.mark.parametrize("scenario", [1, 2])
@pytest.mark.parametrize("q", range(1, 7))
def test_table1_is_one_half_for_every_group_size(scenario, q):
    I, S = table1(scenario, q)
    assert msi_value(I, S) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_theorem_5_1_equal_importances_give_the_maximum_matching(seed):
    rng = np.random.default_rng(100 + seed)
    M, d, k = int(rng.integers(2, 7)), 30, int(rng.integers(1, 9))
    Z = np.zeros((M, d), dtype=bool)
    for i in range(M):
        Z[i, rng.choice(d, k, replace=False)] = True
    S = random_similarity(rng, d)
    matchings = []
    for i in range(M):
        for j in range(i + 1, M):
            block = S[np.ix_(np.flatnonzero(Z[i]), np.flatnonzero(Z[j]))]
            r, c = linear_sum_assignment(block, maximize=True)
            matchings.append(block[r, c].sum() / k)
    expected = np.mean(matchings)
    assert msi_value(Z, S) == pytest.approx(expected, abs=1e-12)
    assert msi_value(2.5 * Z, S) == pytest.approx(expected, abs=1e-12)


@st.composite
def problems(draw):
    M = draw(st.integers(2, 4))
    d = draw(st.integers(1, 6))
    weights = st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0, 2.0, 7.3])
    I = np.array(draw(st.lists(st.lists(weights, min_size=d, max_size=d),
                               min_size=M, max_size=M)))
    upper = draw(st.lists(st.sampled_from([0.0, 0.2, 0.55, 0.9, 1.0]),
                          min_size=d * d, max_size=d * d))
    S = np.triu(np.reshape(upper, (d, d)), 1)
    S = S + S.T
    np.fill_diagonal(S, 1.0)
    return I, S


@settings(max_examples=40)
@given(problems())
def test_property_5_1_bounded_in_0_1(problem):
    I, S = problem
    value = msi_value(I, S)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(msi_linprog(I, S), abs=1e-9)


@settings(max_examples=25)
@given(problems(), st.integers(2, 5))
@example((np.array([[7.3]]), np.array([[1.0]])), 2)  # solved onto itself: 0.9999999999999999
def test_identical_runs_give_one(problem, M):
    """Exactly 1, not 1 to rounding: a run's transport onto itself is never solved."""
    I, S = problem
    I = np.repeat(I[:1], M, axis=0)
    assert msi_value(I, S) == 1.0


def test_a_pair_with_one_empty_run_scores_zero():
    """000 §5 footnote 1: S(i, j) = 0 if exactly one run is empty (S(i, j) is scale free)."""
    rng = np.random.default_rng(3)
    d = 12
    I = random_importances(rng, 2, d)
    I[:, 0] += 1.0  # both runs non-empty
    S = random_similarity(rng, d)
    pair = msi_value(I, S)
    with_empty = np.vstack([I, np.zeros(d)])
    assert msi_value(with_empty, S) == pytest.approx(pair / 3, abs=1e-12)
    assert msi_value(np.vstack([I[:1], np.zeros(d)]), S) == 0.0


def test_two_empty_runs_score_one():
    S = np.eye(5)
    assert msi_value(np.zeros((4, 5)), S) == 1.0
    I = np.zeros((3, 5))
    I[0, 1] = 2.0  # pairs: (0,1) = 0, (0,2) = 0, (1,2) = 1
    assert msi_value(I, S) == pytest.approx(1 / 3, abs=1e-15)


def test_boolean_selection_means_equal_importances():
    rng = np.random.default_rng(11)
    Z = rng.random((5, 15)) < 0.4
    S = random_similarity(rng, 15)
    value = msi_value(Z, S)
    assert value == pytest.approx(msi_value(Z.astype(float), S), abs=1e-15)
    assert value == pytest.approx(msi_linprog(Z.astype(float), S), abs=1e-9)
    lists = [np.flatnonzero(row) for row in Z]
    assert stability("msi", lists, n_features=15, similarity=S) == pytest.approx(value,
                                                                                 abs=1e-15)


def test_the_pair_scores_are_one_per_pair_whatever_shape_unique_gives(monkeypatch):
    """NumPy 2.0.0's ``np.unique(axis=0, return_inverse=True)`` gave the inverse as a
    column (n, 1) (2.0.1 went back to 1-D) and pyproject allows it: the pair scores stay
    the documented M(M−1)/2 values, the measure the same to the bit."""
    rng = np.random.default_rng(4)
    I = random_importances(rng, 5, 9)
    I[3] = I[1]  # a repeated run: the inverse maps two runs to one
    S = random_similarity(rng, 9)
    union = np.flatnonzero(I.any(axis=0))
    view = SimilarityView(union, S[np.ix_(union, union)], None)
    expected = msi_module.pairwise_shared_information(I, view)
    value = msi_value(I, S)
    unique = np.unique

    def unique_of_numpy_2_0_0(*args, **kwargs):
        result = unique(*args, **kwargs)
        if kwargs.get("axis") is None or not kwargs.get("return_inverse"):
            return result
        *found, inverse = result
        return *found, inverse.reshape(-1, 1)

    monkeypatch.setattr(np, "unique", unique_of_numpy_2_0_0)
    scores = msi_module.pairwise_shared_information(I, view)
    assert scores.shape == (10,) and np.array_equal(scores, expected)
    assert msi_value(I, S) == value


def test_registry_metadata():
    info = get_measure("msi")
    assert (info.input, info.lower, info.upper) == ("importance", 0.0, 1.0)
    assert info.needs_similarity and not info.corrected
    assert "Hamer & Dupont, ECML 2021, eq. 8" in info.reference


def test_a_solve_that_does_not_converge_raises(monkeypatch):
    rng = np.random.default_rng(5)
    I = rng.uniform(0.1, 1.0, size=(2, 10))
    S = random_similarity(rng, 10)
    monkeypatch.setattr(msi_module, "_iteration_limits", lambda n_edges: (1, 2))
    with pytest.raises(RuntimeError, match=r"network simplex.*\(iteration limit reached\)"):
        stability("msi", I, similarity=S)


@pytest.mark.parametrize(("code", "reason"), [(0, "infeasible"), (2, "unbounded")])
def test_a_solve_that_fails_names_the_solvers_reason(monkeypatch, code, reason):
    """POT's result codes other than optimal and iteration limit are not retried."""
    calls = []

    def failing_solver(a, b, cost, limit, threads):
        calls.append(limit)
        return np.zeros((a.size, b.size)), 0.0, None, None, code

    monkeypatch.setattr(msi_module, "emd_c", failing_solver)
    with pytest.raises(RuntimeError, match=rf"2 and 3 features \({reason}\)"):
        msi_module._optimal_plan(np.ones(2), np.full(3, 2 / 3), np.zeros((2, 3)))
    assert len(calls) == 1


def test_the_iteration_limits_are_pots_default_or_ten_per_edge_then_a_hundred_times():
    assert msi_module._iteration_limits(12) == (100_000, 10_000_000)
    assert msi_module._iteration_limits(50_000) == (500_000, 50_000_000)
    seen = []
    limits = msi_module._iteration_limits
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(msi_module, "_iteration_limits", lambda n: seen.append(n) or limits(n))
        msi_module._optimal_plan(np.ones(3), np.full(4, 0.75), np.ones((3, 4)))
    assert seen == [12]  # the limits are sized by the plan's edges, rows × columns


def test_fully_similar_runs_share_everything_and_never_more():
    """S(i, j) is clamped to 1: with every similarity 1 the transport costs nothing and
    S(i, j) = Σ_f I_if / k̄, which rounding puts at 1 + 2⁻⁵² for these runs."""
    I = np.array([[0.0, 2.730777295370268, 0.0, 2.4698917777426908, 1.2519982717399618,
                   2.491113915981527],
                  [0.039764136813802954, 0.0, 0.0, 1.961317583246549, 0.828808804812676,
                   0.0]])
    assert msi_value(I, np.ones((6, 6))) == 1.0


def test_runs_of_one_feature_each():
    """k̄ = 1 is an ordinary case (only k̄ = 0 is the all-empty shortcut)."""
    S = np.eye(3)
    S[0, 1] = S[1, 0] = 0.5
    assert msi_value(np.eye(3), S) == pytest.approx(0.5 / 3, abs=1e-15)
    assert msi_value(np.eye(3), np.eye(3)) == 0.0


def test_a_solve_stopped_early_is_retried_silently(monkeypatch):
    rng = np.random.default_rng(5)
    I = rng.uniform(0.1, 1.0, size=(3, 10))
    S = random_similarity(rng, 10)
    expected = msi_value(I, S)
    monkeypatch.setattr(msi_module, "_iteration_limits", lambda n_edges: (1, 100_000))
    assert msi_value(I, S) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n1=st.integers(1, 25), n2=st.integers(1, 25))
def test_the_solver_core_agrees_with_pots_checked_wrapper(seed, n1, n2):
    """msi calls POT's network simplex core directly; ``ot.emd`` (which converts and checks
    its arguments first) must give the same optimum — a POT release that changed the core's
    signature or meaning fails here."""
    import ot

    rng = np.random.default_rng(seed)
    a = rng.uniform(0.01, 2.0, n1)
    b = rng.uniform(0.01, 2.0, n2)
    b *= a.sum() / b.sum()
    cost = 1.0 - random_similarity(rng, max(n1, n2))[:n1, :n2]
    plan, value = msi_module._optimal_plan(a, b, cost)
    reference_plan, log = ot.emd(a, b, cost, log=True, center_dual=False,
                                 check_marginals=False)
    assert value == pytest.approx(log["cost"], abs=1e-12)
    assert value == pytest.approx(float(np.sum(plan * cost)), abs=1e-12)
    np.testing.assert_allclose(plan.sum(axis=1), a, atol=1e-12)
    np.testing.assert_allclose(plan.sum(axis=0), b, atol=1e-12)
    assert np.all(plan >= 0)
