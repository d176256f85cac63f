"""The stability() entry point: input forms, validation errors and the registry table."""

from __future__ import annotations

import numpy as np
import pytest

from paretostab import (
    InvalidInputError,
    ParetostabError,
    UnknownNameError,
    list_measures,
    stability,
)


def test_index_lists_equal_the_selection_matrix():
    Z = np.zeros((3, 8), dtype=bool)
    Z[0, [0, 1, 2]] = Z[1, [1, 2, 5]] = Z[2, [7]] = True
    lists = [[0, 1, 2], (1, 2, 5), {7}]
    assert stability("nogueira", lists, n_features=8) == stability("nogueira", Z)
    assert stability("jaccard", Z.astype(int)) == stability("jaccard", Z)


def test_list_measures_is_the_registry_table():
    table = list_measures()
    assert {"input", "needs_similarity", "lower", "upper", "corrected", "reference",
            "options", "summary"} <= set(table.columns)
    assert table.loc["nogueira", "input"] == "selection"
    assert table.loc["iw", "input"] == "importance"
    assert "penalty=0.0" in table.loc["davis", "options"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stability("nogueira", [[1, 0, 1]]), "at least 2 runs"),
        (lambda: stability("nogueira", np.ones(4)), "2-D array"),
        (lambda: stability("nogueira", [[1, 0, 2], [0, 1, 1]]), r"only 0/1 .* found 2 at run 0, feature 2"),
        (lambda: stability("nogueira", [["a", "b"], ["c", "d"]]), "numeric"),
        (lambda: stability("iw", [[1.0, -0.5], [1.0, 1.0]]), r">= 0 .* -0\.5 at run 0, feature 1"),
        (lambda: stability("iw", [[0.0, -0.5], [1.0, 1.0]]), r">= 0 .* -0\.5 at run 0, feature 1"),
        (lambda: stability("iw", np.array([[1.0, 0.5], [1.0, 1.0]]), n_features=3), "2 feature columns but n_features=3"),
        (lambda: stability("iw", [[1.0, np.nan], [1.0, 1.0]]), "1 NaN/infinite entries, the first at run 0, feature 1"),
        (lambda: stability("nogueira", np.eye(3), n_features=4), "3 feature columns but n_features=4"),
        (lambda: stability("nogueira", [[0, 1], [1]]), "n_features"),
        (lambda: stability("nogueira", [[0, 9], [1]], n_features=5), r"index 9, outside \[0, 5\)"),
        (lambda: stability("nogueira", [[0, 5], [1]], n_features=5), r"index 5, outside \[0, 5\)"),
        (lambda: stability("nogueira", [[-1, 2], [1]], n_features=5), r"index -1, outside \[0, 5\)"),
        (lambda: stability("nogueira", np.eye(3, dtype=bool), n_features=4), "3 feature columns but n_features=4"),
        (lambda: stability("iw", [[1.0, 0.5, 0.0]]), "at least 2 runs"),
        (lambda: stability("nogueira", [[0, 0], [1]], n_features=5), "more than once"),
        (lambda: stability("nogueira", [[0], [1]], n_features=0), "n_features must be an integer >= 1"),
        (lambda: stability("nogueira", [[0.5], [1]], n_features=3), "integer feature indices"),
        (lambda: stability("nogueira", [[np.inf], [1]], n_features=3), "integer feature indices"),
        (lambda: stability("nogueira", np.array([[1, 0, 0.5], [0, 1, 1]])), r"only 0/1 .* found 0\.5"),
        (lambda: stability("nogueira", np.array([[True, False]])), "at least 2 runs"),
        (lambda: stability("nogueira", np.zeros((3, 0))), "at least one feature"),
        (lambda: stability("nogueira", np.zeros((3, 0), dtype=bool)), "at least one feature"),
        (lambda: stability("spearman", [[1, 2, 3]]), "at least 2 runs"),
        (lambda: stability("spearman", [[1, 2, 3, 4], [1, 2, 2, 4], [4, 3, 2, 1]]),
         "Run 1 of R is not a full ranking: each row must be a permutation of 1..4"),
        (lambda: stability("js", [[1, 2, 3, 4], [1, 3, 3, 4], [2, 3, 4, 4]], k=2),
         r"Run 1 of R must hold each rank 1..2 exactly once .* it holds 1 ranks <= 2"),
        (lambda: stability("js", [[1, 2, 3, 4], [2, 3, 4, 4]], k=2),
         r"Run 1 of R must hold each rank 1..2 exactly once"),
        (lambda: stability("js", [[1, 2, 3], [2, 1, 3]], k=0), r"k must be an integer in \[1, 3\] \(d = 3\)"),
        (lambda: stability("js", [[1, 2, 3], [2, 1, 3]], k=4), r"k must be an integer in \[1, 3\] \(d = 3\)"),
        (lambda: stability("spearman", [[1, 2, 3], [1, 2.5, 3]]), "integer ranks >= 1"),
        (lambda: stability("spearman", [[1, 2, 3], [1, 2, np.nan]]), "integer ranks >= 1"),
        (lambda: stability("spearman", [[1, 2, 3], [0, 1, 2]]), "integer ranks >= 1"),
        (lambda: stability("nogueira", np.eye(3), impute_nan=np.inf), "impute_nan"),
        (lambda: stability("nogueira", np.eye(3), threshold=0.5), r"unknown option\(s\) threshold; its options are: none"),
        (lambda: stability("davis", np.eye(3), penalty=-1), "penalty must be a finite number >= 0"),
        (lambda: stability("nogueira", np.eye(3), similarity=np.eye(3)), "does not use a similarity"),
    ],
)
def test_bad_input_raises_specific_errors(call, message):
    with pytest.raises(InvalidInputError, match=message) as info:
        call()
    assert isinstance(info.value, ParetostabError) and isinstance(info.value, ValueError)


def test_unknown_measure_suggests_the_closest_name():
    with pytest.raises(UnknownNameError, match=r"Unknown measure 'nogeira'. Did you mean 'nogueira'\? Known: "):
        stability("nogeira", np.eye(3))


def test_inputs_are_copied_not_converted_in_place():
    Z = np.array([[1, 0, 1], [0, 1, 1]], dtype=np.int64)
    I = np.array([[0.5, 0, 2.0], [0, 1.0, 1.0]])
    Z0, I0 = Z.copy(), I.copy()
    stability("nogueira", Z)
    stability("iw", I)
    np.testing.assert_array_equal(Z, Z0)
    np.testing.assert_array_equal(I, I0)


def test_selection_inputs_of_every_form_give_the_same_boolean_matrix():
    """Index lists (integers, or floats that are integers, with n_features down to 1), 0/1
    arrays of any dtype and boolean arrays all become the same boolean matrix, a copy."""
    from paretostab.measures._inputs import as_selection_matrix

    one = as_selection_matrix([[0], []], n_features=1)
    assert one.dtype == np.bool_ and one.tolist() == [[True], [False]]
    Z = np.array([[True, False, True], [False, True, True]])
    for data in (Z, Z.astype(np.int8), Z.astype(float), [[0, 2], [1.0, 2.0]]):
        for n_features in (3, None) if isinstance(data, np.ndarray) else (3,):
            result = as_selection_matrix(data, n_features=n_features)  # 2 runs, 3 columns
            assert result.dtype == np.bool_ and np.array_equal(result, Z)
            assert result is not data


def test_a_boolean_selection_matrix_is_checked_without_a_float_copy():
    """A boolean matrix (a RunSet's) is taken as it is: checking 100 runs of 50 000
    features holds about one copy of its 5 MB, not the 40 MB of a float copy."""
    import tracemalloc

    from paretostab.measures._inputs import as_selection_matrix

    Z = np.random.default_rng(0).random((100, 50_000)) < 0.01
    tracemalloc.start()
    try:
        result = as_selection_matrix(Z, n_features=50_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(result, Z)
    assert peak < 2 * Z.nbytes, f"peak {peak / 1e6:.1f} MB for a {Z.nbytes / 1e6:.1f} MB matrix"


@pytest.mark.parametrize("k", [0, 6, -1, 2.0, True, "3", None])
def test_a_top_k_size_outside_1_to_d_or_not_an_integer_is_refused(k):
    from paretostab.measures._inputs import check_top_k

    with pytest.raises(InvalidInputError, match=r"k must be an integer in \[1, 5\] \(d = 5\); got"):
        check_top_k(k, 5)


def test_a_top_k_size_from_1_to_d_is_an_int():
    from paretostab.measures._inputs import check_top_k

    for k in (1, 3, 5, np.int64(5), np.uint8(2)):
        value = check_top_k(k, 5)
        assert type(value) is int and value == k


def test_pairs_of_runs_are_each_unordered_pair_once_in_row_order():
    from paretostab.measures._inputs import pair_index

    i, j = pair_index(4)
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == [
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def test_an_empty_run_stays_zeros_when_importances_are_normalised():
    """Each non-empty run is scaled to sum to k̄ (here 4 selected / 3 runs); a run of
    zeros has nothing to scale and stays zeros (not 0 × ∞)."""
    from paretostab.measures._inputs import normalise_importances

    with np.errstate(all="raise"):
        out = normalise_importances(np.array([[0.0, 0.0, 0.0], [1.0, 3.0, 0.0], [0.0, 2.0, 2.0]]))
    np.testing.assert_allclose(out, [[0, 0, 0], [1 / 3, 1, 0], [0, 2 / 3, 2 / 3]], rtol=1e-15)


# ------------------------------------------ index collections (issue 24, mutation draw 9)


def test_index_collections_need_an_integer_n_features():
    """n_features of index collections is a positive integer: a float (3.0, 3.5) or a bool
    is refused with one error line, although 3.0 would make a matrix."""
    for bad in (3.0, 3.5, True):
        with pytest.raises(InvalidInputError, match="n_features must be an integer >= 1"):
            stability("jaccard", [[0], [1]], n_features=bad)


def test_index_collections_of_one_run_are_refused():
    with pytest.raises(InvalidInputError, match=r"at least 2 runs \(rows of Z\); got 1"):
        stability("jaccard", [[0, 1]], n_features=4)


def test_index_collections_give_equal_importances():
    """An importance measure given index lists reads each run's features with equal
    importance: the same value as the boolean matrix."""
    runs, Z = [[0, 1], [1, 2], [0, 1]], np.zeros((3, 4), dtype=bool)
    for i, run in enumerate(runs):
        Z[i, run] = True
    for name in ("pearson", "iw"):
        assert stability(name, runs, n_features=4) == pytest.approx(stability(name, Z))
