"""Registry-driven contract tests: every registered measure gets them automatically.

For each measure of ``list_measures()``: the declared bounds hold on random inputs,
identical runs (each selecting at most half of the features) give the maximum, the value is invariant to the order of runs and to a
common relabelling of the features (and of the similarity), and inputs are never mutated.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paretostab import StabilityWarning, list_measures, stability
from paretostab.measures import get_measure

MEASURES = list(list_measures().index)
SETTINGS = settings(max_examples=25,
                    suppress_health_check=[HealthCheck.too_slow])


def _options(name: str, d: int) -> dict:
    """Options that keep contract checks exact and quick (exact expectation on tiny d)."""
    info = get_measure(name)
    options = {}
    if "expectation" in info.options and info.options["expectation"] == "monte_carlo":
        options["expectation"] = "exact"
    if "k" in info.options:
        options["k"] = max(1, d // 2)
    return options


def _similarity(rng: np.random.Generator, d: int) -> np.ndarray:
    """A random similarity with a few strongly similar pairs (above the 0.9 default)."""
    S = rng.uniform(0, 0.6, size=(d, d))
    for _ in range(max(1, d // 3)):
        f, g = rng.choice(d, size=2, replace=False)
        S[f, g] = rng.uniform(0.9, 1.0)
    S = np.triu(S, 1)
    S = S + S.T
    np.fill_diagonal(S, 1.0)
    return S


def _data(name: str, rng: np.random.Generator, M: int, d: int) -> np.ndarray:
    kind = get_measure(name).input
    if kind == "ranking":
        return np.array([rng.permutation(d) + 1 for _ in range(M)])
    Z = rng.random((M, d)) < rng.uniform(0.2, 0.7)
    Z[np.arange(M), rng.integers(0, d, size=M)] = True  # no empty run
    if kind == "selection":
        return Z
    return Z * rng.uniform(0.1, 3.0, size=(M, d))


def _value(name: str, data: np.ndarray, S: np.ndarray | None, **options) -> float:
    sim = {"similarity": S} if get_measure(name).needs_similarity else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        return stability(name, data, **sim, **options)


def _sizes(name: str):
    small = get_measure(name).options.get("expectation") == "monte_carlo"
    return st.integers(2, 6), st.integers(3, 7 if small else 30)


@pytest.mark.parametrize("name", MEASURES)
def test_metadata_is_complete(name):
    info = get_measure(name)
    assert info.lower < info.upper
    assert info.input in {"selection", "importance", "ranking"}
    assert info.reference and info.summary


@pytest.mark.parametrize("name", MEASURES)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_declared_bounds_hold(name, seed, data):
    m_st, d_st = _sizes(name)
    M, d = data.draw(m_st), data.draw(d_st)
    rng = np.random.default_rng(seed)
    value = _value(name, _data(name, rng, M, d), _similarity(rng, d), **_options(name, d))
    info = get_measure(name)
    assert np.isnan(value) or info.lower - 1e-9 <= value <= info.upper + 1e-9


@pytest.mark.parametrize("name", [m for m in MEASURES if get_measure(m).identical_runs_maximal])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_identical_runs_give_the_maximum(name, seed, data):
    m_st, d_st = _sizes(name)
    M, d = data.draw(m_st), data.draw(d_st)
    rng = np.random.default_rng(seed)
    one = _data(name, rng, 1, d)
    if get_measure(name).input != "ranking":
        # 1 <= k <= d/2, the regime of feature selection (lustgarten's maximum needs it)
        selected = rng.permutation(d)[: rng.integers(1, d // 2 + 1)]
        keep = np.zeros(d, dtype=bool)
        keep[selected] = True
        one = np.where(keep, rng.uniform(0.1, 3.0, size=d), 0)[None, :]
        if get_measure(name).input == "selection":
            one = one > 0
    runs = np.repeat(one, M, axis=0)
    value = _value(name, runs, _similarity(rng, d), **_options(name, d))
    assert value == pytest.approx(get_measure(name).upper, abs=1e-9)


@pytest.mark.parametrize("name", MEASURES)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_invariant_to_run_order_and_feature_relabelling(name, seed, data):
    m_st, d_st = _sizes(name)
    M, d = data.draw(m_st), data.draw(d_st)
    rng = np.random.default_rng(seed)
    runs, S = _data(name, rng, M, d), _similarity(rng, d)
    options = _options(name, d)
    value = _value(name, runs, S, **options)
    rows, cols = rng.permutation(M), rng.permutation(d)
    assert _value(name, runs[rows], S, **options) == pytest.approx(value, abs=1e-9, nan_ok=True)
    relabelled = _value(name, runs[:, cols], S[np.ix_(cols, cols)], **options)
    assert relabelled == pytest.approx(value, abs=1e-9, nan_ok=True)


@pytest.mark.parametrize("name", MEASURES)
def test_inputs_are_never_mutated(name):
    rng = np.random.default_rng(7)
    d = 6
    runs, S = _data(name, rng, 4, d), _similarity(rng, d)
    runs_before, S_before = runs.copy(), S.copy()
    _value(name, runs, S, **_options(name, d))
    np.testing.assert_array_equal(runs, runs_before)
    np.testing.assert_array_equal(S, S_before)


@pytest.mark.parametrize("name", [m for m in MEASURES if get_measure(m).needs_similarity])
def test_lazy_similarity_gives_the_same_value_as_the_full_matrix(name):
    from paretostab._similarity import FeatureSimilarity

    rng = np.random.default_rng(11)
    d = 7
    X = rng.normal(size=(30, d))
    X[:, 3] = X[:, 0] + 0.05 * rng.normal(size=30)  # a strongly similar pair
    lazy = FeatureSimilarity(X, "spearman")
    full = lazy.submatrix(np.arange(d))
    runs = _data(name, rng, 5, d)
    options = _options(name, d)
    assert _value(name, runs, lazy, **options) == pytest.approx(
        _value(name, runs, full, **options), abs=1e-12, nan_ok=True
    )


@pytest.mark.parametrize("name", [m for m in MEASURES if get_measure(m).needs_similarity])
def test_similarity_is_required_and_must_match_d(name):
    from paretostab import InvalidInputError

    runs = _data(name, np.random.default_rng(0), 3, 5)
    with pytest.raises(InvalidInputError, match=f"Measure '{name}' needs similarity="):
        stability(name, runs)
    with pytest.raises(InvalidInputError, match="covers 4 features but the runs have d = 5"):
        stability(name, runs, similarity=np.eye(4))
    with pytest.raises(InvalidInputError, match="symmetric"):
        stability(name, runs, similarity=np.triu(np.full((5, 5), 0.5)) + np.eye(5) * 0.5)


def test_paper_measures_carry_their_symbols():
    """What a person reads: the papers' symbols (003, 000), the registry names elsewhere."""
    symbols = list_measures()["symbol"]
    assert symbols[["nogueira", "pearson", "iw", "msi", "sechidis", "canberra"]].tolist() == [
        "φ", "φ_pears", "φ_iw", "φ_msi", "φ_S", "φ_can"]
    assert symbols["jaccard"] == "jaccard"
